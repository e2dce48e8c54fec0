//! The LLM seam and its Azure OpenAI implementation. [`ChatModel`] speaks
//! the agent's types ([`chat`]: messages, tool calls, usage, finish reason);
//! [`AzureOpenAi`] ([`azure`]) maps them to Azure's wire format (`wire`,
//! private to this module) and makes chat completions and embeddings over
//! one shared reqwest client, with an error taxonomy and no automatic
//! retries; [`family`] is what it learns of a chat deployment's model family.

mod auth;
mod azure;
pub mod chat;
mod embeddings;
mod family;
#[cfg(test)]
pub mod scripted;
mod wire;

use futures::future::BoxFuture;

pub use auth::Auth as LlmAuthHeader;
pub use azure::AzureOpenAi;
use chat::{Completion, Message, ToolSpec};

/// Why an Azure OpenAI call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    #[error("no Azure OpenAI deployment is configured")]
    Unconfigured,
    #[error("Azure OpenAI rejected the key or token (401/403)")]
    Unauthorized,
    #[error("no Microsoft Entra ID token for Azure OpenAI")]
    NoToken,
    #[error("Azure OpenAI rate limit (429)")]
    RateLimited { retry_after_secs: Option<u64> },
    #[error("Azure OpenAI content filter")]
    ContentFilter,
    #[error("Azure OpenAI rejected the request ({0})")]
    BadRequest(u16),
    /// A documented `unsupported_parameter`/`unsupported_value` 400 naming
    /// a parameter of the request.
    #[error("the deployment does not take the parameter {param}")]
    Unsupported { param: String },
    #[error("Azure OpenAI failed with status {0}")]
    Upstream(u16),
    #[error("Azure OpenAI did not answer in time")]
    Timeout,
    #[error("Azure OpenAI could not be reached")]
    Connect,
    #[error("Azure OpenAI answered with an unexpected body")]
    Malformed,
    #[error("Azure OpenAI's answer was larger than the configured cap")]
    TooLarge,
}

/// An [`LlmError`]'s kind, named as logs, metrics and `meta.degraded`
/// (`embeddings_<kind>`, `hint_llm_<kind>`) name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum LlmErrorKind {
    Unconfigured,
    Unauthorized,
    TokenUnavailable,
    RateLimited,
    ContentFilter,
    BadRequest,
    UpstreamError,
    Timeout,
    Unreachable,
    MalformedResponse,
    TooLarge,
}

impl LlmErrorKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl LlmError {
    /// What kind of failure it is.
    pub fn kind(&self) -> LlmErrorKind {
        match self {
            Self::Unconfigured => LlmErrorKind::Unconfigured,
            Self::Unauthorized => LlmErrorKind::Unauthorized,
            Self::NoToken => LlmErrorKind::TokenUnavailable,
            Self::RateLimited { .. } => LlmErrorKind::RateLimited,
            Self::ContentFilter => LlmErrorKind::ContentFilter,
            Self::BadRequest(_) | Self::Unsupported { .. } => LlmErrorKind::BadRequest,
            Self::Upstream(_) => LlmErrorKind::UpstreamError,
            Self::Timeout => LlmErrorKind::Timeout,
            Self::Connect => LlmErrorKind::Unreachable,
            Self::Malformed => LlmErrorKind::MalformedResponse,
            Self::TooLarge => LlmErrorKind::TooLarge,
        }
    }

    /// The kind's name.
    pub fn kind_str(&self) -> &'static str {
        self.kind().as_str()
    }
}

/// Options of one chat call.
#[derive(Debug, Clone, Default)]
pub struct ChatOptions<'a> {
    pub max_tokens: Option<u32>,
    pub tools: &'a [ToolSpec],
    /// The final answer's schema, when the answer is structured.
    pub response_format: Option<&'a chat::AnswerSchema>,
}

/// A chat model the agent can call: the seam between the orchestrator and
/// a provider, in the agent's types ([`chat`]); a scripted model drives the
/// agent's unit tests.
pub trait ChatModel: Send + Sync {
    /// One chat completion at temperature 0 (where the model takes one).
    fn chat<'a>(
        &'a self,
        messages: &'a [Message],
        options: ChatOptions<'a>,
    ) -> BoxFuture<'a, Result<Completion, LlmError>>;

    /// The model asked for (the deployment's name), as traces name it.
    fn model(&self) -> &str;

    /// Whether there is a model to call at all.
    fn configured(&self) -> bool {
        true
    }

    /// Whether the provider asked for a pause (a 429's retry time has not
    /// passed): a call now would be refused.
    fn throttled(&self) -> bool {
        false
    }
}
