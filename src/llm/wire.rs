//! Azure OpenAI wire types: chat completions (with tools) and embeddings,
//! and their mapping from and to the seam's [`chat`] types.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use reqwest::StatusCode;

use super::{LlmError, chat};

/// The conversation as Azure reads it: each message in its wire shape,
/// borrowed from the agent's, written without building a copy.
pub struct Messages<'a>(pub &'a [chat::Message]);

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|m| OutMessage {
            role: role(m.role),
            content: m.content.as_deref(),
            tool_calls: ToolCalls(&m.tool_calls),
            tool_call_id: m.tool_call_id.as_deref(),
        }))
    }
}

#[derive(Serialize)]
struct OutMessage<'a> {
    role: &'static str,
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "ToolCalls::is_empty")]
    tool_calls: ToolCalls<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
}

fn role(role: chat::Role) -> &'static str {
    match role {
        chat::Role::System => "system",
        chat::Role::User => "user",
        chat::Role::Assistant => "assistant",
        chat::Role::Tool => "tool",
    }
}

struct ToolCalls<'a>(&'a [chat::ToolCall]);

impl ToolCalls<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for ToolCalls<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|c| OutToolCall {
            id: &c.id,
            kind: "function",
            function: OutFunction {
                name: &c.name,
                arguments: &c.arguments,
            },
        }))
    }
}

#[derive(Serialize)]
struct OutToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: OutFunction<'a>,
}

#[derive(Serialize)]
struct OutFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

/// The tools offered, as Azure reads them.
pub struct Tools<'a>(pub &'a [chat::ToolSpec]);

impl Tools<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|t| OutTool {
            kind: "function",
            function: OutFunctionDefinition {
                name: &t.name,
                description: &t.description,
                parameters: &t.parameters,
            },
        }))
    }
}

#[derive(Serialize)]
struct OutTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: OutFunctionDefinition<'a>,
}

#[derive(Serialize)]
struct OutFunctionDefinition<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

/// Body of `POST .../chat/completions`.
#[derive(Serialize)]
pub struct ChatRequest<'a> {
    /// The deployment (v1 API only: the dated API names it in the path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<&'a str>,
    pub messages: Messages<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u32>,
    /// Only for a deployment that refused `max_completion_tokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Tools::is_empty")]
    pub tools: Tools<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat<'a>>,
}

/// `response_format`: the answer's JSON schema (structured outputs), or
/// JSON of any shape for a model without them.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseFormat<'a> {
    JsonSchema { json_schema: JsonSchema<'a> },
    JsonObject,
}

/// A named schema the model is held to (`strict`).
#[derive(Debug, Serialize)]
pub struct JsonSchema<'a> {
    pub name: &'a str,
    pub strict: bool,
    pub schema: &'a Value,
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
    pub message: InMessage,
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// The assistant message of a choice.
#[derive(Debug, Clone, Deserialize)]
pub struct InMessage {
    /// Null on a message that only calls tools.
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<InToolCall>,
}

/// A function call requested by the model; `arguments` is a JSON string.
#[derive(Debug, Clone, Deserialize)]
pub struct InToolCall {
    pub id: String,
    pub function: InFunction,
}

#[derive(Debug, Clone, Deserialize)]
pub struct InFunction {
    pub name: String,
    pub arguments: String,
}

/// Token accounting of one call.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
}

impl ChatResponse {
    /// The first choice as the agent's completion; None without one.
    pub fn into_completion(self) -> Option<chat::Completion> {
        let choice = self.choices.into_iter().next()?;
        let tool_calls = choice
            .message
            .tool_calls
            .into_iter()
            .map(|c| chat::ToolCall {
                id: c.id,
                name: c.function.name,
                arguments: c.function.arguments,
            })
            .collect();
        Some(chat::Completion {
            message: chat::Message::assistant(choice.message.content, tool_calls),
            finish: choice.finish_reason.as_deref().map(|r| match r {
                "stop" => chat::FinishReason::Stop,
                "tool_calls" => chat::FinishReason::ToolCalls,
                "length" => chat::FinishReason::Length,
                _ => chat::FinishReason::Other,
            }),
            usage: self.usage.map(|u| chat::Usage {
                input_tokens: u.prompt_tokens,
                output_tokens: u.completion_tokens,
            }),
            id: self.id,
            model: self.model,
        })
    }
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

/// The failure an Azure error answer (status, `Retry-After`, body) means.
pub fn status_error(
    status: StatusCode,
    retry_after_secs: Option<u64>,
    body: &ErrorResponse,
) -> LlmError {
    let code = body
        .error
        .code
        .as_ref()
        .and_then(|c| c.as_str())
        .unwrap_or_default();
    let param = body.error.param.as_deref().filter(|p| !p.is_empty());
    match status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => LlmError::Unauthorized,
        StatusCode::TOO_MANY_REQUESTS => LlmError::RateLimited { retry_after_secs },
        StatusCode::BAD_REQUEST if code == "content_filter" => LlmError::ContentFilter,
        // Documented: `unsupported_parameter` / `unsupported_value` naming
        // the parameter; older models refusing a `json_schema` format name
        // `response_format` with another code.
        StatusCode::BAD_REQUEST
            if matches!(code, "unsupported_parameter" | "unsupported_value")
                || param == Some("response_format") =>
        {
            match param {
                Some(p) => LlmError::Unsupported {
                    param: p.to_owned(),
                },
                None => LlmError::BadRequest(400),
            }
        }
        s if s.is_client_error() => LlmError::BadRequest(s.as_u16()),
        s => LlmError::Upstream(s.as_u16()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use chat::{Message, ToolCall, ToolSpec};

    #[test]
    fn a_conversation_is_written_in_azures_shape() {
        let messages = [
            Message::system("sys"),
            Message::user("post"),
            Message::assistant(
                None,
                vec![ToolCall {
                    id: "call_1".into(),
                    name: "search_posts".into(),
                    arguments: r#"{"query":"vpn"}"#.into(),
                }],
            ),
            Message::tool("call_1", "p1 | VPN"),
        ];
        let tools = [ToolSpec {
            name: "search_posts".into(),
            description: "Posts".into(),
            parameters: json!({"type": "object"}),
        }];
        let written = serde_json::to_value((Messages(&messages), Tools(&tools))).unwrap();
        assert_eq!(
            written,
            json!([
                [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": "post"},
                    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "search_posts", "arguments": "{\"query\":\"vpn\"}"}}]},
                    {"role": "tool", "content": "p1 | VPN", "tool_call_id": "call_1"}
                ],
                [{"type": "function", "function": {"name": "search_posts", "description": "Posts",
                    "parameters": {"type": "object"}}}]
            ])
        );
    }

    #[test]
    fn an_answer_with_tool_calls_becomes_the_agents_completion() {
        // The shape of Azure's documented chat completion with a tool call.
        let answer: ChatResponse = serde_json::from_value(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null,
                "message": {"role": "assistant", "content": null, "refusal": null,
                    "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "search_m365", "arguments": "{\"query\":\"vpn\"}"}}]}}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 14, "total_tokens": 134}
        }))
        .unwrap();
        let completion = answer.into_completion().unwrap();
        assert_eq!(completion.finish, Some(chat::FinishReason::ToolCalls));
        assert_eq!(completion.message.role, chat::Role::Assistant);
        assert_eq!(completion.message.tool_calls[0].name, "search_m365");
        assert_eq!(
            completion.usage,
            Some(chat::Usage {
                input_tokens: 120,
                output_tokens: 14
            })
        );
        assert_eq!(completion.model.as_deref(), Some("gpt-4o-mini-2024-07-18"));
    }
}
