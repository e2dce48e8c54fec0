//! Azure OpenAI wire types: chat completions (with tools) and embeddings.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A chat message, as sent and as received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    /// Null on assistant messages that only call tools.
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> Self {
        Self::text(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::text(Role::User, content)
    }
    pub fn tool(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(call_id.into()),
            ..Self::text(Role::Tool, content)
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// A function call requested by the model; `arguments` is a JSON string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    pub function: FunctionCall,
}

fn function_type() -> String {
    "function".to_owned()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    pub name: String,
    pub arguments: String,
}

/// A tool offered to the model.
#[derive(Debug, Clone, Serialize)]
pub struct ToolDefinition {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: FunctionDefinition,
}

#[derive(Debug, Clone, Serialize)]
pub struct FunctionDefinition {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// Body of `POST .../chat/completions`.
#[derive(Debug, Clone, Serialize)]
pub struct ChatRequest<'a> {
    /// The deployment (v1 API only: the dated API names it in the path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<&'a str>,
    pub messages: &'a [ChatMessage],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u32>,
    /// Only for a deployment that refused `max_completion_tokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub tools: &'a [ToolDefinition],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<&'a Value>,
}

/// Answer of `POST .../chat/completions`.
#[derive(Debug, Clone, Deserialize)]
pub struct ChatResponse {
    /// The completion's id (`chatcmpl-…`).
    #[serde(default)]
    pub id: Option<String>,
    /// The model that answered (e.g. `gpt-4o-mini-2024-07-18`).
    #[serde(default)]
    pub model: Option<String>,
    pub choices: Vec<Choice>,
    #[serde(default)]
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Choice {
    pub message: ChatMessage,
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// Token accounting of one call.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
}

/// Body of `POST .../embeddings`.
#[derive(Debug, Serialize)]
pub struct EmbeddingsRequest<'a> {
    /// The deployment (v1 API only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<&'a str>,
    pub input: &'a [&'a str],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<u32>,
}

/// Answer of `POST .../embeddings`.
#[derive(Debug, Deserialize)]
pub struct EmbeddingsResponse {
    pub data: Vec<EmbeddingItem>,
}

#[derive(Debug, Deserialize)]
pub struct EmbeddingItem {
    pub index: usize,
    pub embedding: Vec<f32>,
}

/// Azure's error body: `{"error": {"code": ..., "message": ...}}`.
#[derive(Debug, Default, Deserialize)]
pub struct ErrorResponse {
    #[serde(default)]
    pub error: ErrorPayload,
}

#[derive(Debug, Default, Deserialize)]
pub struct ErrorPayload {
    #[serde(default)]
    pub code: Option<Value>,
    /// The request parameter the error is about (`max_tokens`, `temperature`, …).
    #[serde(default)]
    pub param: Option<String>,
}
