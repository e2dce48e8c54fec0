//! One traced tool call, for toolExec and the fallback alike: the
//! `execute_tool` span, timing, the result count, the stream event and the
//! log line. What a failure means for the run is the caller's to decide.

use serde_json::{Map, Value};
use tokio::time::Instant;
use tracing::{Instrument, Span};

use super::events::{Emitter, RunEvent};
use crate::tools::{Session, connection::McpConnection};

/// How a call ended.
pub(super) enum Called {
    /// The tool answered: its text for the model.
    Answered(String),
    /// The tool rejected its arguments (an empty or too long query; its text).
    InvalidArguments(String),
    /// The tool answered an error (its text).
    ToolError(String),
    /// The MCP call itself failed (rejected arguments, a broken connection).
    /// Its error is not kept: rmcp's messages can quote the arguments.
    Failed,
}

/// A call in progress: its span and clock.
pub(super) struct Traced<'e> {
    tool: String,
    span: Span,
    started: Instant,
    events: &'e Emitter,
}

impl<'e> Traced<'e> {
    /// Starts the span and the clock of a call to `tool`.
    pub fn start(tool: &str, events: &'e Emitter) -> Self {
        Self {
            tool: tool.to_owned(),
            span: tracing::debug_span!("execute_tool", gen_ai.tool.name = tool),
            started: Instant::now(),
            events,
        }
    }

    /// Makes the call through the MCP connection, then reports it.
    pub async fn call(
        self,
        conn: &McpConnection,
        session: &Session,
        args: Map<String, Value>,
    ) -> Called {
        let result = conn
            .call(session, &self.tool, args)
            .instrument(self.span.clone())
            .await;
        let called = match result {
            Ok(out) if !out.is_error => Called::Answered(out.text),
            Ok(out) if out.text.starts_with("invalid argument") => {
                Called::InvalidArguments(out.text)
            }
            Ok(out) => Called::ToolError(out.text),
            Err(_) => Called::Failed,
        };
        match &called {
            Called::Answered(text) => self.answered(text),
            Called::InvalidArguments(_) => self.failed("invalid_arguments"),
            Called::ToolError(_) => self.failed("tool_error"),
            Called::Failed => self.failed("mcp_error"),
        }
        called
    }

    /// Reports an answered call with the number of results it holds.
    pub fn answered(&self, text: &str) {
        let count = serde_json::from_str::<Vec<serde::de::IgnoredAny>>(text)
            .map_or(usize::from(!text.is_empty()), |v| v.len());
        let elapsed_ms = self.elapsed_ms();
        let tool = self.tool.as_str();
        self.span
            .in_scope(|| tracing::debug!(tool, count, elapsed_ms, "tool call done"));
        self.emit(true, count, elapsed_ms);
    }

    /// Reports a call that failed for `kind` (or was never made).
    pub fn failed(&self, kind: &'static str) {
        let tool = self.tool.as_str();
        self.span
            .in_scope(|| tracing::warn!(tool, error.kind = kind, "tool call failed"));
        self.emit(false, 0, self.elapsed_ms());
    }

    fn emit(&self, ok: bool, count: usize, elapsed_ms: u64) {
        self.events.emit(RunEvent::Tool {
            tool: self.tool.clone(),
            ok,
            count,
            elapsed_ms,
        });
    }

    fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// The call's span (for what the caller logs about it).
    pub fn span(&self) -> &Span {
        &self.span
    }
}
