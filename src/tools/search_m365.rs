//! `search_m365`: Microsoft Graph search as the session's caller.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{MAX_DESCRIPTION_CHARS, Session, Source, ToolDeps, check_query, truncate};
use crate::degraded::Degraded;

/// Arguments of `search_m365`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchM365Args {
    /// Keywords (KQL), at most 500 characters, e.g. "deployment pipeline CI/CD".
    pub query: String,
}

pub(super) async fn run(
    deps: &ToolDeps,
    session: &Session,
    args: SearchM365Args,
) -> Result<String, String> {
    let query = check_query(&args.query)?;
    let Some(token) = session.graph_token() else {
        session.mark_lost(Source::M365, Degraded::M365NoToken);
        return Err("unavailable: no Microsoft Graph token for this request".to_owned());
    };
    let found = deps
        .graph
        .search(token.expose(), query)
        .await
        .map_err(|e| {
            tracing::warn!(
                tool = "search_m365",
                error.kind = e.kind(),
                "Graph search failed"
            );
            session.mark_lost(Source::M365, Degraded::M365(e.kind()));
            format!("Microsoft Graph search failed: {}", e.kind())
        })?;
    session.mark_answered(Source::M365);
    if let Some(e) = &found.partial {
        tracing::warn!(
            tool = "search_m365",
            error.kind = e.kind(),
            "one Graph entity group failed"
        );
        session.degrade(Degraded::M365Partial(e.kind()));
    }
    let refs = session.add_m365(found.items.clone());
    let out: Vec<_> = refs
        .iter()
        .zip(&found.items)
        .map(|(r, item)| {
            json!({
                "ref": r, "title": item.title, "url": item.url,
                "description": truncate(&item.description, MAX_DESCRIPTION_CHARS),
                "source": item.source, "sourceType": item.source_type, "status": item.status,
            })
        })
        .collect();
    Ok(serde_json::Value::Array(out).to_string())
}
