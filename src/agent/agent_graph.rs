//! The agent graph: START → llmCall → (toolExec → llmCall)* → formatResponse → END.
//!
//! ```text
//! START ─► llmCall ─► shouldContinue? ─► toolExec ─┐
//!             ▲            │                      │
//!             └────────────┼──────────────────────┘
//!                          └─► formatResponse ─► END
//! ```

use std::sync::atomic::{AtomicU32, Ordering};

use super::{
    RunInput,
    events::{Emitter, RunEvent},
    format_response::{self, FormatResponse},
    graph::{END, Edge, Graph, GraphError, NodeName, START},
    llm_call::{self, LlmCall},
    prompt,
    state::{RunCtx, RunState},
    tool_exec::{self, ToolExec},
};
use crate::{
    llm::{AzureOpenAi, LlmError},
    settings::AgentSettings,
    tools::{Session, connection::McpConnection},
};

pub struct Args<'a> {
    pub llm: &'a AzureOpenAi,
    pub conn: &'a McpConnection,
    pub tools: &'a prompt::OfferedTools,
    pub session: &'a Session,
    pub input: &'a RunInput,
    pub events: &'a Emitter,
    pub settings: &'a AgentSettings,
    /// Updated after every step, so a deadline still knows the round count.
    pub rounds: &'a AtomicU32,
}

/// When LLM calls must end: the deadline minus a reserve for the fallback
/// (a quarter of the budget, at most 3 s).
fn llm_deadline(arrived: tokio::time::Instant, timeout_ms: u64) -> tokio::time::Instant {
    let reserve = (timeout_ms / 4).min(3_000);
    arrived + std::time::Duration::from_millis(timeout_ms - reserve)
}

/// shouldContinue: to toolExec while the model calls tools and rounds remain,
/// else to formatResponse.
fn should_continue(state: &RunState) -> NodeName {
    if !state.pending_tool_calls().is_empty() && state.llm_calls < state.max_rounds {
        tool_exec::NAME
    } else {
        format_response::NAME
    }
}

/// Runs the graph; an LLM failure ends it with that error (`GraphError::Node`).
pub async fn run(a: Args<'_>) -> Result<RunState, GraphError<LlmError>> {
    let has_token = a.input.graph_token.is_some();
    let ctx = RunCtx {
        llm: a.llm,
        conn: a.conn,
        session: a.session,
        tools: a.tools.for_caller(has_token),
        max_tool_calls: a.settings.max_tool_calls_per_round,
        llm_deadline: llm_deadline(a.input.arrived, a.settings.timeout_ms),
        events: a.events.clone(),
    };
    let mut state = RunState {
        messages: vec![
            prompt::system(has_token),
            prompt::user(&a.input.text, &a.input.tags, a.input.category.as_deref()),
        ],
        max_rounds: a.settings.max_rounds,
        ..RunState::default()
    };
    let graph = Graph::new(2 * a.settings.max_rounds as usize + 1)
        .node(LlmCall(&ctx))
        .node(ToolExec(&ctx))
        .node(FormatResponse(&ctx))
        .edge(START, Edge::To(llm_call::NAME))
        .edge(llm_call::NAME, Edge::Branch(should_continue))
        .edge(tool_exec::NAME, Edge::To(llm_call::NAME))
        .edge(format_response::NAME, Edge::To(END));
    let result = graph
        .run(&mut state, |step, s| {
            a.rounds.store(s.llm_calls, Ordering::Relaxed);
            a.events.emit(RunEvent::Node {
                node: step.node,
                step: step.step,
                round: s.llm_calls,
                elapsed_ms: a.input.arrived.elapsed().as_millis() as u64,
                tool_calls: step.report.tool_calls.clone(),
            });
        })
        .await;
    result.map(|()| state)
}
