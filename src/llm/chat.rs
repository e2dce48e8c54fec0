//! The agent's side of the LLM seam: a conversation, the tools offered, and
//! a completion, in no provider's wire format ([`super::wire`] maps them to
//! Azure OpenAI's).

use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    /// None on an assistant message that only calls tools.
    pub content: Option<String>,
    /// The tools an assistant message calls.
    pub tool_calls: Vec<ToolCall>,
    /// The call a tool message answers.
    pub tool_call_id: Option<String>,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Self::text(Role::System, content)
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::text(Role::User, content)
    }

    /// The answer to tool call `call_id`.
    pub fn tool(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(call_id.into()),
            ..Self::text(Role::Tool, content)
        }
    }

    /// What the model said: text, tool calls, or both.
    pub fn assistant(content: Option<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self {
            role: Role::Assistant,
            content,
            tool_calls,
            tool_call_id: None,
        }
    }

    fn text(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
}

/// A tool call the model asked for; `arguments` is its JSON text, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// The arguments' JSON schema.
    pub parameters: Value,
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishReason {
    /// A complete answer.
    Stop,
    /// It asks for tool calls.
    ToolCalls,
    /// Cut at the token limit.
    Length,
    /// A reason this seam does not know.
    Other,
}

impl FinishReason {
    /// The name OpenTelemetry's `gen_ai.response.finish_reasons` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stop => "stop",
            Self::ToolCalls => "tool_calls",
            Self::Length => "length",
            Self::Other => "other",
        }
    }
}

/// Tokens one call used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// One answer of a chat model.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The assistant message: text, tool calls, or both.
    pub message: Message,
    /// None when the provider did not say.
    pub finish: Option<FinishReason>,
    pub usage: Option<Usage>,
    /// The provider's id of the completion, for traces.
    pub id: Option<String>,
    /// The model that answered, as the provider names it.
    pub model: Option<String>,
}

/// The shape the final answer must take: a JSON schema the provider holds
/// the model to (structured output), named as the answer is.
#[derive(Debug)]
pub struct AnswerSchema {
    pub name: &'static str,
    pub schema: serde_json::Value,
}
