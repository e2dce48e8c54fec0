//! `get_suggestions` (`/mcp` only): the whole panel for a post, from the same
//! orchestrator, deadline, fallback and grounding as `POST /api/suggestions`.

use futures::future::BoxFuture;
use rmcp::model::CallToolResult;
use tokio::time::Instant;

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

/// Why a `get_suggestions` request got no panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// The request is invalid (as the HTTP API's 400).
    Invalid(InvalidRequest),
    /// Too many runs in flight (as the HTTP API's 503 `overloaded`).
    Overloaded { retry_after_secs: u64 },
}

/// Whole panels, as `POST /api/suggestions` answers them. The app implements
/// it over its panels service (the tools cannot reach the agent otherwise:
/// the agent is their in-process caller).
pub trait PanelSource: Send + Sync + 'static {
    /// The panel for `request` as the holder of `graph_token`, due by the
    /// deadline counted from `arrived` (the HTTP request's arrival); a
    /// refusal says why (the same reasons as the HTTP API's 400s and 503).
    fn panel(
        &self,
        request: SuggestionsRequest,
        graph_token: Option<Secret>,
        arrived: Instant,
    ) -> BoxFuture<'_, Result<CombinedSuggestionsResponse, Refused>>;
}

pub(super) async fn run(
    panels: &dyn PanelSource,
    caller: Caller,
    request: SuggestionsRequest,
    arrived: Instant,
) -> CallToolResult {
    let token = caller.graph_token().cloned();
    match panels.panel(request, token, arrived).await {
        Ok(panel) => {
            let text = serde_json::to_string(&panel).ok();
            output::answered(&panel, text, &[])
        }
        Err(Refused::Invalid(invalid)) => {
            output::failed(format!("invalid argument: {invalid}"), None)
        }
        Err(Refused::Overloaded { retry_after_secs }) => output::failed(
            format!("overloaded: too many suggestions in progress; retry in {retry_after_secs} s"),
            None,
        ),
    }
}
