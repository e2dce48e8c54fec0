//! The orchestrator: one run per request, one deadline, always a
//! `CombinedSuggestionsResponse`. This module owns the run; [`fallback`] the
//! direct tool calls, [`response`] the assembly of the panel from the session.

mod fallback;
mod response;

use std::{sync::Arc, time::Duration};

use tokio::time::Instant;
use tracing::Instrument;

use crate::{
    contract::{CombinedSuggestionsResponse, RunPath},
    settings::{AgentSettings, Secret},
    tools::{Session, Source, ToolDeps, connection::McpConnection},
};

/// What a run needs from the request.
pub struct RunInput {
    pub post_id: String,
    pub text: String,
    pub tags: Vec<String>,
    /// The caller's Microsoft Graph token, if any.
    pub graph_token: Option<Secret>,
    /// When the request arrived: the deadline counts from here.
    pub arrived: Instant,
}

/// Produces suggestions panels.
pub struct Orchestrator {
    deps: Arc<ToolDeps>,
    settings: AgentSettings,
}

impl Orchestrator {
    pub fn new(deps: Arc<ToolDeps>, settings: AgentSettings) -> Self {
        Self { deps, settings }
    }

    /// Whether a chat deployment is configured.
    pub fn llm_configured(&self) -> bool {
        self.deps.llm.chat_configured()
    }

    /// Runs one request to its panel, by the deadline whatever the upstreams do.
    pub async fn run(&self, input: RunInput) -> CombinedSuggestionsResponse {
        let run_id = uuid::Uuid::new_v4().to_string();
        let deadline = input.arrived + Duration::from_millis(self.settings.timeout_ms);
        let span =
            tracing::info_span!("invoke_agent", run_id = %run_id, path = tracing::field::Empty);
        let session = Session::new(
            input.graph_token.clone(),
            input.post_id.clone(),
            input.text.clone(),
        );
        let mut degraded = Vec::new();
        if !self.llm_configured() {
            degraded.push("llm_unconfigured".to_owned());
        }
        let work = async {
            let connection = McpConnection::open(self.deps.clone(), session.clone()).await;
            match connection {
                Ok(connection) => fallback::run(&connection, &session, &input).await,
                Err(e) => {
                    tracing::error!(error.kind = "mcp_unavailable", error.message = %e, "MCP connection failed");
                    for source in [Source::M365, Source::Posts, Source::ActionHint] {
                        session.mark_unavailable(source, "mcp_unavailable");
                    }
                }
            }
        };
        let path = match tokio::time::timeout_at(deadline, work.instrument(span.clone())).await {
            Ok(()) => RunPath::Fallback,
            Err(_) => {
                degraded.push("deadline".to_owned());
                RunPath::Partial
            }
        };
        span.record("path", format!("{path:?}").to_lowercase());
        let elapsed_ms = input.arrived.elapsed().as_millis() as u64;
        response::build(
            &session,
            input.graph_token.is_some(),
            path,
            0,
            run_id,
            elapsed_ms,
            degraded,
        )
    }
}
