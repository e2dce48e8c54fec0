//! The LLM seam and its Azure OpenAI implementation. [`ChatModel`] speaks
//! the agent's types ([`chat`]: messages, tool calls, usage, finish reason);
//! [`AzureOpenAi`] maps them to Azure's wire format (`wire`, private to this
//! module) and makes chat completions and embeddings over one shared reqwest
//! client, with an error taxonomy and no automatic retries.

pub mod chat;
#[cfg(test)]
pub mod scripted;
mod wire;

use secrecy::ExposeSecret;
use std::{
    collections::BTreeSet,
    sync::{Arc, Mutex},
    time::Duration,
};

use futures::future::BoxFuture;
use reqwest::StatusCode;
use serde::{Serialize, de::DeserializeOwned};

use crate::{
    metrics::{self, Metrics},
    otel,
    ratelimit::{self, RateLimit},
    settings::{AzureOpenAiSettings, ModelFamily, Secret},
    upstream::{self, BodyError},
};
use chat::{Completion, Message, ToolSpec};
use wire::{ChatRequest, ChatResponse, EmbeddingsRequest, EmbeddingsResponse, ErrorResponse};

/// Why an Azure OpenAI call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    #[error("no Azure OpenAI deployment is configured")]
    Unconfigured,
    #[error("Azure OpenAI rejected the key (401/403)")]
    Unauthorized,
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
    pub response_format: Option<&'a serde_json::Value>,
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

impl ChatModel for AzureOpenAi {
    fn chat<'a>(
        &'a self,
        messages: &'a [Message],
        options: ChatOptions<'a>,
    ) -> BoxFuture<'a, Result<Completion, LlmError>> {
        Box::pin(AzureOpenAi::chat(self, messages, options))
    }

    fn model(&self) -> &str {
        &self.inner.chat_deployment
    }

    fn configured(&self) -> bool {
        self.chat_configured()
    }

    fn throttled(&self) -> bool {
        self.chat_throttled()
    }
}

/// Azure OpenAI, as configured. Cheap to clone.
#[derive(Clone)]
pub struct AzureOpenAi {
    inner: Arc<Inner>,
    metrics: Metrics,
}

struct Inner {
    http: reqwest::Client,
    api_key: Option<Secret>,
    /// Parsed once; None when the endpoint or deployment is not configured.
    chat_url: Option<reqwest::Url>,
    embeddings_url: Option<reqwest::Url>,
    dimensions: Option<u32>,
    chat_timeout: Duration,
    embeddings_timeout: Duration,
    max_chat_body_bytes: usize,
    max_embedding_body_bytes_per_input: usize,
    /// Deployment names, for the metrics' labels.
    chat_deployment: String,
    embedding_deployment: String,
    /// Each deployment's rate limits (Azure OpenAI limits per deployment).
    chat_limit: RateLimit,
    embeddings_limit: RateLimit,
    /// The v1 API: the deployment goes in the body's `model`.
    v1: bool,
    family: ModelFamily,
    reasoning_effort: String,
    /// What the chat deployment turned out to take.
    learned: Mutex<Learned>,
}

/// What a chat deployment's answers taught.
#[derive(Debug, Default, Clone)]
struct Learned {
    /// Azure reported a reasoning model answering.
    reasoning: bool,
    /// Parameters it refused, left out from then on.
    dropped: BTreeSet<String>,
}

/// Retries of a chat call that taught a refused parameter.
const MAX_LEARNING_RETRIES: u32 = 3;

/// Dropped after `json_object` was refused as well: no `response_format`.
const JSON_OBJECT: &str = "response_format:json_object";
static JSON_OBJECT_FORMAT: std::sync::LazyLock<serde_json::Value> =
    std::sync::LazyLock::new(|| serde_json::json!({ "type": "json_object" }));

/// Model name prefixes of the reasoning families (as Azure reports them:
/// `o4-mini-2025-04-16`, `gpt-5-mini-2025-08-07`).
const REASONING_MODELS: [&str; 4] = ["o1", "o3", "o4", "gpt-5"];

/// Largest error body read (Azure's errors are a few hundred bytes).
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;
/// Room for an embeddings answer's envelope (model, usage) beside its vectors.
const EMBEDDINGS_ENVELOPE_BYTES: usize = 4 * 1024;

impl AzureOpenAi {
    pub fn new(http: reqwest::Client, s: &AzureOpenAiSettings) -> Self {
        let endpoint = s
            .endpoint
            .as_deref()
            .filter(|e| !e.is_empty())
            .map(|e| e.trim_end_matches('/'));
        let v1 = s.api_version == "v1";
        let url = |deployment: &str, op: &str| {
            endpoint.filter(|_| !deployment.is_empty()).and_then(|e| {
                let url = if v1 {
                    format!("{e}/openai/v1/{op}")
                } else {
                    format!(
                        "{e}/openai/deployments/{deployment}/{op}?api-version={}",
                        s.api_version
                    )
                };
                reqwest::Url::parse(&url).ok()
            })
        };
        Self {
            inner: Arc::new(Inner {
                http,
                api_key: s.api_key.clone(),
                chat_url: url(&s.chat_deployment, "chat/completions"),
                embeddings_url: url(&s.embedding_deployment, "embeddings"),
                dimensions: Some(s.embedding_dimensions).filter(|d| *d > 0),
                chat_timeout: Duration::from_millis(s.chat_timeout_ms),
                embeddings_timeout: Duration::from_millis(s.embeddings_timeout_ms),
                max_chat_body_bytes: s.max_chat_body_bytes,
                max_embedding_body_bytes_per_input: s.max_embedding_body_bytes_per_input,
                chat_deployment: s.chat_deployment.clone(),
                embedding_deployment: s.embedding_deployment.clone(),
                chat_limit: RateLimit::default(),
                embeddings_limit: RateLimit::default(),
                v1,
                family: s.model_family,
                reasoning_effort: s.reasoning_effort.clone(),
                learned: Mutex::default(),
            }),
            metrics: Metrics::default(),
        }
    }

    /// Records its calls into `metrics`.
    pub fn with_metrics(mut self, metrics: Metrics) -> Self {
        self.metrics = metrics;
        self
    }

    pub fn chat_configured(&self) -> bool {
        self.inner.chat_url.is_some()
    }

    pub fn embeddings_configured(&self) -> bool {
        self.inner.embeddings_url.is_some()
    }

    /// Whether a 429's retry time has not passed yet for the chat deployment.
    pub fn chat_throttled(&self) -> bool {
        self.inner.chat_limit.throttled_for().is_some()
    }

    /// The chat deployment's family as used now (`chat` or `reasoning`) and
    /// the parameters it refused (left out since).
    pub fn chat_family(&self) -> (&'static str, Vec<String>) {
        let learned = self.learned();
        let family = if self.reasoning(&learned) {
            "reasoning"
        } else {
            "chat"
        };
        (family, learned.dropped.into_iter().collect())
    }

    fn learned(&self) -> Learned {
        self.inner
            .learned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn reasoning(&self, learned: &Learned) -> bool {
        match self.inner.family {
            ModelFamily::Reasoning => true,
            ModelFamily::Chat => false,
            ModelFamily::Auto => learned.reasoning,
        }
    }

    /// The request for this deployment as it is known now.
    fn chat_request<'a>(
        &'a self,
        messages: &'a [Message],
        options: &ChatOptions<'a>,
        learned: &Learned,
    ) -> ChatRequest<'a> {
        let takes = |param: &str| !learned.dropped.contains(param);
        let reasoning = self.reasoning(learned);
        let (max_completion_tokens, max_tokens) = if takes("max_completion_tokens") {
            (options.max_tokens, None)
        } else {
            (None, options.max_tokens)
        };
        ChatRequest {
            model: self.inner.v1.then_some(self.inner.chat_deployment.as_str()),
            messages: wire::Messages(messages),
            temperature: (!reasoning && takes("temperature")).then_some(0.0),
            max_completion_tokens,
            max_tokens,
            tools: wire::Tools(options.tools),
            parallel_tool_calls: (!options.tools.is_empty() && takes("parallel_tool_calls"))
                .then_some(true),
            reasoning_effort: (reasoning && takes("reasoning_effort"))
                .then_some(self.inner.reasoning_effort.as_str()),
            response_format: match options.response_format {
                Some(_) if !takes(JSON_OBJECT) => None,
                // A model without structured outputs is asked for JSON; the
                // answer is checked against the schema where it is parsed.
                Some(_) if !takes("response_format") => Some(&*JSON_OBJECT_FORMAT),
                format => format,
            },
        }
    }

    /// Learns from an answer: a refused parameter (true: worth a retry
    /// without it) or the model Azure reports.
    fn learn(&self, result: &Result<ChatResponse, LlmError>) -> bool {
        let mut learned = self.inner.learned.lock().unwrap_or_else(|p| p.into_inner());
        match result {
            Ok(response) => {
                let model = response.model.as_deref().unwrap_or_default();
                if !learned.reasoning && REASONING_MODELS.iter().any(|p| model.starts_with(p)) {
                    learned.reasoning = true;
                    tracing::info!(
                        deployment = %self.inner.chat_deployment,
                        model,
                        "the chat deployment is a reasoning model: no sampling parameters from now on"
                    );
                }
                false
            }
            Err(LlmError::Unsupported { param })
                if learned.dropped.insert(param.clone())
                    || (param == "response_format"
                        && learned.dropped.insert(JSON_OBJECT.into())) =>
            {
                tracing::warn!(
                    deployment = %self.inner.chat_deployment,
                    param = %param,
                    "the chat deployment refused a parameter: left out from now on"
                );
                true
            }
            Err(_) => false,
        }
    }

    /// The rate-limit state (`ok`, `warning`, `throttled`) of the chat and
    /// the embeddings deployments.
    pub fn rate_limits(&self) -> (&'static str, &'static str) {
        (
            self.inner.chat_limit.state(),
            self.inner.embeddings_limit.state(),
        )
    }

    /// One chat completion at temperature 0 (a reasoning model at its default).
    pub async fn chat(
        &self,
        messages: &[Message],
        options: ChatOptions<'_>,
    ) -> Result<Completion, LlmError> {
        let started = std::time::Instant::now();
        let result = self.chat_call(messages, options).await;
        let deployment = &self.inner.chat_deployment;
        let seconds = started.elapsed().as_secs_f64();
        self.metrics.llm_call(
            "chat",
            deployment,
            metrics::outcome(&result, LlmError::kind_str),
            seconds,
        );
        if let Ok(Some(usage)) = result.as_ref().map(|r| r.usage.as_ref()) {
            self.metrics
                .llm_tokens(deployment, usage.input_tokens, usage.output_tokens);
        }
        result
    }

    async fn chat_call(
        &self,
        messages: &[Message],
        options: ChatOptions<'_>,
    ) -> Result<Completion, LlmError> {
        let url = self.inner.chat_url.as_ref().ok_or(LlmError::Unconfigured)?;
        refuse_while_throttled(&self.inner.chat_limit)?;
        // A documented refusal of a parameter is learnt and the call made
        // once more without it (within the same deadline as the first); a
        // deployment refusing several (o3: temperature, then parallel tool
        // calls) is learnt in one request, at most three retries.
        let mut retries = 0;
        let response = loop {
            let body = self.chat_request(messages, &options, &self.learned());
            let result: Result<ChatResponse, LlmError> = self
                .post(
                    url,
                    &body,
                    self.inner.chat_timeout,
                    self.inner.max_chat_body_bytes,
                    &self.inner.chat_limit,
                )
                .await;
            if self.learn(&result) && retries < MAX_LEARNING_RETRIES {
                retries += 1;
                continue;
            }
            break result?;
        };
        if response
            .choices
            .first()
            .is_some_and(|c| c.finish_reason.as_deref() == Some("content_filter"))
        {
            return Err(LlmError::ContentFilter);
        }
        response.into_completion().ok_or(LlmError::Malformed)
    }

    /// Embeds each input; the result has one vector per input, in order.
    pub async fn embed(&self, inputs: &[&str]) -> Result<Vec<Vec<f32>>, LlmError> {
        let started = std::time::Instant::now();
        let model = self.inner.embedding_deployment.as_str();
        let span = tracing::debug_span!(
            "embeddings",
            otel.name = format!("embeddings {model}"),
            otel.kind = "client",
            gen_ai.operation.name = "embeddings",
            gen_ai.provider.name = otel::PROVIDER,
            gen_ai.request.model = model,
        );
        let result = otel::traced(span, self.embed_call(inputs), LlmError::kind_str).await;
        self.metrics.llm_call(
            "embeddings",
            &self.inner.embedding_deployment,
            metrics::outcome(&result, LlmError::kind_str),
            started.elapsed().as_secs_f64(),
        );
        result
    }

    async fn embed_call(&self, inputs: &[&str]) -> Result<Vec<Vec<f32>>, LlmError> {
        let url = self
            .inner
            .embeddings_url
            .as_ref()
            .ok_or(LlmError::Unconfigured)?;
        refuse_while_throttled(&self.inner.embeddings_limit)?;
        let body = EmbeddingsRequest {
            model: self
                .inner
                .v1
                .then_some(self.inner.embedding_deployment.as_str()),
            input: inputs,
            dimensions: self.inner.dimensions,
        };
        let cap = EMBEDDINGS_ENVELOPE_BYTES
            + inputs.len() * self.inner.max_embedding_body_bytes_per_input;
        let mut response: EmbeddingsResponse = self
            .post(
                url,
                &body,
                self.inner.embeddings_timeout,
                cap,
                &self.inner.embeddings_limit,
            )
            .await?;
        if response.data.len() != inputs.len() {
            return Err(LlmError::Malformed);
        }
        response.data.sort_by_key(|d| d.index);
        Ok(response.data.into_iter().map(|d| d.embedding).collect())
    }

    /// POSTs `body`; reads an answer of at most `cap` bytes; `limit` learns
    /// the deployment's rate limits from the answer's headers.
    async fn post<B: Serialize, R: DeserializeOwned + Send + 'static>(
        &self,
        url: &reqwest::Url,
        body: &B,
        timeout: Duration,
        cap: usize,
        limit: &RateLimit,
    ) -> Result<R, LlmError> {
        let call = async {
            let key = self
                .inner
                .api_key
                .as_ref()
                .map(ExposeSecret::expose_secret)
                .unwrap_or_default();
            let response = self
                .inner
                .http
                .post(url.clone())
                .headers(otel::trace_headers())
                .header("api-key", key)
                .timeout(timeout)
                .json(body)
                .send()
                .await
                .map_err(|e| transport_error(&e))?;
            let status = response.status();
            otel::client_status(status);
            limit.observe(response.headers());
            if status == StatusCode::TOO_MANY_REQUESTS {
                limit.throttled(ratelimit::retry_after(response.headers()));
            }
            if status.is_success() {
                return upstream::json(response, cap).await.map_err(|e| match e {
                    BodyError::TooLarge(_) => LlmError::TooLarge,
                    BodyError::Read(e) => match transport_error(&e) {
                        LlmError::Connect => LlmError::Malformed,
                        other => other,
                    },
                    BodyError::Malformed(_) | BodyError::Task => LlmError::Malformed,
                });
            }
            let retry_after_secs =
                ratelimit::retry_after(response.headers()).map(|d| d.as_secs_f64().ceil() as u64);
            let body: ErrorResponse = upstream::json(response, MAX_ERROR_BODY_BYTES)
                .await
                .unwrap_or_default();
            Err(status_error(status, retry_after_secs, &body))
        };
        otel::traced(otel::client_span(url), call, LlmError::kind_str).await
    }
}

/// A deployment still throttled by a 429 is not called: the error at once.
fn refuse_while_throttled(limit: &RateLimit) -> Result<(), LlmError> {
    match limit.refusal() {
        Some(secs) => Err(LlmError::RateLimited {
            retry_after_secs: Some(secs),
        }),
        None => Ok(()),
    }
}

fn transport_error(e: &reqwest::Error) -> LlmError {
    match upstream::Transport::of(e) {
        upstream::Transport::Timeout => LlmError::Timeout,
        upstream::Transport::Malformed => LlmError::Malformed,
        upstream::Transport::Connect => LlmError::Connect,
    }
}

fn status_error(
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
