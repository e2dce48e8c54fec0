//! What the agent's graph carries from node to node: the conversation, and
//! the run it is part of.

use super::run::Run;
use crate::llm::chat::{Message, Role, ToolCall};

/// What the nodes read and write: the conversation, and the run it is
/// part of (its rounds are the run's).
pub struct RunState<'r> {
    pub run: &'r Run,
    /// The conversation so far (system, user, assistant, tool messages).
    pub messages: Vec<Message>,
    /// Round cap (`agent.max_rounds`).
    pub max_rounds: u32,
}

impl<'r> RunState<'r> {
    pub fn new(run: &'r Run, messages: Vec<Message>, max_rounds: u32) -> Self {
        Self {
            run,
            messages,
            max_rounds,
        }
    }

    /// Tool calls of the last assistant message.
    pub fn pending_tool_calls(&self) -> &[ToolCall] {
        match self.messages.last() {
            Some(m) if m.role == Role::Assistant => &m.tool_calls,
            _ => &[],
        }
    }
}
