//! `get_suggestions` (`/mcp` only): the whole panel for a post, from the same
//! orchestrator, deadline, fallback and grounding as `POST /api/suggestions`.

use futures::future::BoxFuture;
use rmcp::model::CallToolResult;

use super::{Caller, output};
use crate::{
    contract::{CombinedSuggestionsResponse, SuggestionsRequest},
    settings::Secret,
};

pub(super) const NAME: &str = "get_suggestions";

/// Why a `get_suggestions` request was refused: the field and the same
/// message as the HTTP API's 400.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidRequest {
    pub field: Option<String>,
    pub message: String,
}

impl std::fmt::Display for InvalidRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(field) if !self.message.contains(field.as_str()) => {
                write!(f, "{field}: {}", self.message)
            }
            _ => f.write_str(&self.message),
        }
    }
}

/// Whole panels, as `POST /api/suggestions` answers them. The app implements
/// it over the orchestrator (the tools cannot reach the agent otherwise: the
/// agent is their in-process caller).
pub trait Panels: Send + Sync + 'static {
    /// The panel for `request` as the holder of `graph_token`; an invalid
    /// request answers why (the same messages as the HTTP API's 400s).
    fn panel(
        &self,
        request: SuggestionsRequest,
        graph_token: Option<Secret>,
    ) -> BoxFuture<'_, Result<CombinedSuggestionsResponse, InvalidRequest>>;
}

pub(super) async fn run(
    panels: &dyn Panels,
    caller: Caller,
    request: SuggestionsRequest,
) -> CallToolResult {
    let token = caller.graph_token().cloned();
    match panels.panel(request, token).await {
        Ok(panel) => {
            let text = serde_json::to_string(&panel).ok();
            output::answered(&panel, text, &[])
        }
        Err(invalid) => output::failed(format!("invalid argument: {invalid}"), None),
    }
}
