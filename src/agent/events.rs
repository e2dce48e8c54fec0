//! Progress events of a run, streamed as NDJSON (`Accept: application/x-ndjson`).

use serde::Serialize;
use tokio::sync::mpsc::UnboundedSender;

use crate::contract::CombinedSuggestionsResponse;

/// One line of the stream.
#[derive(Debug, Clone, Serialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub enum RunEvent {
    Node {
        node: &'static str,
        step: usize,
        round: u32,
        elapsed_ms: u64,
        tool_calls: Vec<String>,
    },
    Tool {
        tool: String,
        ok: bool,
        count: usize,
        elapsed_ms: u64,
    },
    Fallback {
        reason: String,
    },
    Result {
        data: Box<CombinedSuggestionsResponse>,
    },
}

/// Where a run sends its events; a no-op without a listener.
#[derive(Clone, Default)]
pub struct Emitter(Option<UnboundedSender<RunEvent>>);

impl Emitter {
    pub fn new(tx: UnboundedSender<RunEvent>) -> Self {
        Self(Some(tx))
    }

    pub fn emit(&self, event: RunEvent) {
        if let Some(tx) = &self.0 {
            let _ = tx.send(event);
        }
    }
}
