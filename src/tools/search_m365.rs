//! `search_m365`: Microsoft Graph search as the caller; a query that finds
//! nothing is tried once more with its terms OR-ed, when the caller's Graph
//! budget allows (a search is two Graph requests: files and mails).

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use secrecy::ExposeSecret;
use serde::Deserialize;

use super::{
    Caller, ToolDeps, check_query,
    output::{self, M365Found},
};
use crate::{degraded::Degraded, keywords};

/// Graph requests one search makes: driveItem+listItem, and message.
pub const REQUESTS_PER_SEARCH: u32 = 2;

/// Arguments of `search_m365`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchM365Args {
    /// Keywords, e.g. "deployment pipeline" (at most 500 chars).
    pub query: String,
}

pub(super) async fn run(
    deps: &ToolDeps,
    caller: &Caller,
    args: SearchM365Args,
    with_text: bool,
) -> CallToolResult {
    let query = match check_query(&args.query) {
        Ok(q) => q,
        Err(invalid) => return invalid,
    };
    let Some(token) = caller.graph_token() else {
        return output::failed(
            "unavailable: no Microsoft Graph token for this caller (send Authorization: Bearer <token>)",
            Some(Degraded::M365NoToken),
        );
    };
    if !caller.take_graph_requests(REQUESTS_PER_SEARCH) {
        // Not a failure of the source: this panel has searched enough.
        let none = M365Found {
            items: Vec::new(),
            broadened: false,
        };
        let text = with_text.then(|| {
            "no search made: this request's Microsoft Graph searches are used up".to_owned()
        });
        return output::answered(&none, text, &[]);
    }
    let mut found = match deps.graph.search(token.expose_secret(), query).await {
        Ok(found) => found,
        Err(e) => {
            tracing::warn!(
                tool = "search_m365",
                error.kind = e.kind_str(),
                "Graph search failed"
            );
            return output::failed(
                format!("Microsoft Graph search failed: {}", e.kind_str()),
                Some(Degraded::M365(e.kind())),
            );
        }
    };
    // Graph ANDs the terms: a query that found nothing is tried once more
    // with its terms OR-ed (not after a partial answer: the lost group may
    // hold matches).
    let mut broadened = false;
    let broad = (found.items.is_empty() && found.partial.is_none())
        .then(|| keywords::broadened(query))
        .flatten()
        .filter(|_| caller.take_graph_requests(REQUESTS_PER_SEARCH));
    if let Some(broad) = broad {
        match deps.graph.search(token.expose_secret(), &broad).await {
            Ok(more) => {
                found = more;
                broadened = true;
            }
            Err(e) => tracing::warn!(
                tool = "search_m365",
                error.kind = e.kind_str(),
                "broadened Graph search failed"
            ),
        }
    }
    let mut degraded = Vec::new();
    if let Some(e) = &found.partial {
        tracing::warn!(
            tool = "search_m365",
            error.kind = e.kind_str(),
            "one Graph entity group failed"
        );
        degraded.push(Degraded::M365Partial(e.kind()));
    }
    let text = with_text.then(|| output::m365_text(&found.items));
    let out = M365Found {
        items: found.items,
        broadened,
    };
    output::answered(&out, text, &degraded)
}
