//! What the agent's graph carries from node to node: the conversation.

use crate::llm::chat::{Message, Role, ToolCall};

/// What the nodes read and write: the conversation (its rounds are the
/// run's, which the nodes reach through their context).
pub struct RunState {
    /// The conversation so far (system, user, assistant, tool messages).
    pub messages: Vec<Message>,
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
