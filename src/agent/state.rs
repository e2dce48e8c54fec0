//! The typed state of one agent run and the context its nodes share.

use std::{collections::HashMap, time::Duration};

use tokio::time::Instant;

use super::{
    events::Emitter,
    run::Run,
    tool_call::{Answered, CallCtx},
};
use crate::{
    llm::{
        ChatModel,
        chat::{Message, Role, ToolCall, ToolSpec, Usage},
    },
    tools::{GraphBudget, connection::McpConnection},
};

/// What the nodes read and write.
#[derive(Default)]
pub struct RunState {
    /// The conversation so far (system, user, assistant, tool messages).
    pub messages: Vec<Message>,
    /// LLM rounds made.
    pub llm_calls: u32,
    /// Round cap (`agent.max_rounds`).
    pub max_rounds: u32,
    /// Answers of tool calls already made: (tool, canonical arguments) → results.
    pub(super) memo: HashMap<(String, String), Answered>,
    /// Token usage over all rounds.
    pub usage: Usage,
}

impl RunState {
    /// Tool calls of the last assistant message.
    pub fn pending_tool_calls(&self) -> &[ToolCall] {
        match self.messages.last() {
            Some(m) if m.role == Role::Assistant => &m.tool_calls,
            _ => &[],
        }
    }
}

/// Shared, read-only context of the nodes of one run.
pub struct RunCtx<'a> {
    pub llm: &'a dyn ChatModel,
    pub conn: &'a McpConnection,
    /// The id the run's caller is registered under on the connection.
    pub session: &'a str,
    /// The run the nodes write: findings, rounds, selection, reasons.
    pub run: &'a Run,
    pub tools: &'a [ToolSpec],
    pub max_tool_calls: usize,
    /// LLM calls end by here, leaving the fallback time to answer by the deadline.
    pub llm_deadline: Instant,
    /// Half the run's time for LLM calls: a call given less before
    /// `llm_deadline` that it cuts was not the model's failure.
    pub llm_fair_time: Duration,
    pub events: Emitter,
    pub graph_budget: &'a GraphBudget,
}

impl RunCtx<'_> {
    /// Where the nodes' tool calls go.
    pub(super) fn call_ctx(&self) -> CallCtx<'_> {
        CallCtx {
            conn: self.conn,
            session: self.session,
            findings: &self.run.findings,
            events: &self.events,
            graph_budget: self.graph_budget,
        }
    }
}
