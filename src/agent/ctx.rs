//! The one context of a run that its nodes, its tool calls and the fallback
//! borrow.

use std::time::Duration;

use tokio::time::Instant;

use super::{RunInput, run::Run};
use crate::{
    llm::{ChatModel, chat::ToolSpec},
    posts::PostIndex,
    tools::connection::McpConnection,
};

/// The one context of a run that its nodes, its tool calls and the
/// fallback borrow: the request, where tool calls go, the run they write
/// (and its events), and what the model is offered and given.
#[derive(Clone, Copy)]
pub struct RunCtx<'a> {
    /// What the request asks for.
    pub input: &'a RunInput,
    /// The post index (the words' specificity, the local model's relatedness).
    pub posts: &'a PostIndex,
    pub conn: &'a McpConnection,
    /// The id the run's caller is registered under on the connection.
    pub session: &'a str,
    /// The run: findings, rounds, selection, reasons, Graph budget.
    pub run: &'a Run,
    pub llm: &'a dyn ChatModel,
    /// The tools offered to the model.
    pub tools: &'a [ToolSpec],
    pub max_tool_calls: usize,
    /// LLM calls end by here, leaving the fallback time to answer by the deadline.
    pub llm_deadline: Instant,
    /// Half the run's time for LLM calls: a call given less before
    /// `llm_deadline` that it cuts was not the model's failure.
    pub llm_fair_time: Duration,
}
