//! Progress events of a run: streamed as NDJSON (`Accept: application/x-ndjson`)
//! when someone listens, and always kept in the run's trail, which becomes its
//! run record (`GET /api/runs/{runId}`).

use serde::Serialize;
use tokio::sync::mpsc::UnboundedSender;

use crate::contract::{CombinedSuggestionsResponse, RunStep, RunToolCall, RunUsage};

/// One line of the stream (`Accept: application/x-ndjson`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum RunEvent {
    /// A node of the agent graph finished.
    #[serde(rename_all = "camelCase")]
    Node {
        #[schema(value_type = String)]
        node: &'static str,
        step: usize,
        round: u32,
        elapsed_ms: u64,
        tool_calls: Vec<String>,
    },
    /// A tool call finished.
    #[serde(rename_all = "camelCase")]
    Tool {
        tool: String,
        ok: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schema(value_type = Option<String>)]
        error_kind: Option<&'static str>,
        count: usize,
        elapsed_ms: u64,
        /// The call's arguments (`log.payloads` only).
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schema(value_type = Option<Object>)]
        arguments: Option<serde_json::Value>,
        /// Its results: titles, or post ids (`log.payloads` only).
        #[serde(skip_serializing_if = "Option::is_none")]
        results: Option<Vec<String>>,
    },
    /// The run took the fallback path, for `reason` (a `meta.degraded` reason).
    Fallback { reason: String },
    /// The panel pre-retrieval's results make, before the model answers
    /// (`meta.provisional`); the `result` replaces it.
    Preview {
        data: Box<CombinedSuggestionsResponse>,
    },
    /// The answer (the last line).
    Result {
        data: Box<CombinedSuggestionsResponse>,
    },
}

/// What a run did, step by step: names, counts and timings only.
#[derive(Debug, Default)]
pub struct Trail {
    pub steps: Vec<RunStep>,
    pub tool_calls: Vec<RunToolCall>,
    pub llm_usage: Vec<RunUsage>,
}

impl Trail {
    /// Keeps what `event` says about the run's steps and tool calls.
    pub fn record(&mut self, event: &RunEvent) {
        match event {
            RunEvent::Node {
                node,
                step,
                round,
                elapsed_ms,
                ..
            } => self.steps.push(RunStep {
                node: (*node).to_owned(),
                step: *step,
                round: *round,
                elapsed_ms: *elapsed_ms,
            }),
            RunEvent::Tool {
                tool,
                ok,
                error_kind,
                count,
                elapsed_ms,
                arguments,
                ..
            } => self.tool_calls.push(RunToolCall {
                tool: tool.clone(),
                ok: *ok,
                error_kind: error_kind.map(str::to_owned),
                count: *count,
                elapsed_ms: *elapsed_ms,
                arguments: arguments.clone(),
            }),
            RunEvent::Fallback { .. } | RunEvent::Preview { .. } | RunEvent::Result { .. } => {}
        }
    }

    /// Records the tokens of the chat call that made `round`.
    pub fn usage(&mut self, round: u32, input_tokens: u64, output_tokens: u64) {
        self.llm_usage.push(RunUsage {
            round,
            input_tokens,
            output_tokens,
        });
    }
}

/// Where a run's events go when someone listens: the NDJSON stream.
#[derive(Clone, Default)]
pub struct Emitter {
    stream: Option<UnboundedSender<RunEvent>>,
    /// Tool events carry arguments and results (`log.payloads`).
    payloads: bool,
}

impl Emitter {
    pub fn new(tx: UnboundedSender<RunEvent>) -> Self {
        Self {
            stream: Some(tx),
            payloads: false,
        }
    }

    /// With `payloads`, tool events carry their arguments and results.
    pub fn with_payloads(mut self, payloads: bool) -> Self {
        self.payloads = payloads;
        self
    }

    /// Whether tool events carry their arguments and results.
    pub fn payloads(&self) -> bool {
        self.payloads
    }

    /// Whether a stream listens (events only it reads are worth building).
    pub fn listening(&self) -> bool {
        self.stream.is_some()
    }

    /// Sends `event` to the stream, if one listens.
    pub fn send(&self, event: RunEvent) {
        if let Some(tx) = &self.stream {
            let _ = tx.send(event);
        }
    }
}
