//! Azure OpenAI, as configured: chat completions and embeddings, each
//! deployment's rate limits, and the mapping of its answers and failures.

use std::{
    sync::{Arc, Mutex, atomic::AtomicBool},
    time::Duration,
};

use futures::future::BoxFuture;
use reqwest::StatusCode;
use serde::{Serialize, de::DeserializeOwned};

use super::{
    ChatModel, ChatOptions, LlmError,
    auth::Auth,
    chat::{Completion, Message},
    family::{Learned, MAX_LEARNING_RETRIES},
    wire::{self, ChatResponse, ErrorResponse},
};
use crate::{
    metrics::{self, Metrics},
    otel,
    ratelimit::{self, RateLimit},
    settings::{AzureOpenAiSettings, ModelFamily},
    upstream,
};

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
    pub(super) inner: Arc<Inner>,
    pub(super) metrics: Metrics,
}

pub(super) struct Inner {
    pub(super) http: upstream::Lanes,
    pub(super) auth: Auth,
    /// Whether the refusal of the key or token was logged (once, until a
    /// call succeeds).
    pub(super) refusal_logged: AtomicBool,
    /// Parsed once; None when the endpoint or deployment is not configured.
    pub(super) chat_url: Option<reqwest::Url>,
    pub(super) embeddings_url: Option<reqwest::Url>,
    pub(super) dimensions: Option<u32>,
    pub(super) chat_timeout: Duration,
    pub(super) embeddings_timeout: Duration,
    pub(super) max_chat_body_bytes: usize,
    pub(super) max_embedding_body_bytes_per_input: usize,
    /// Deployment names, for the metrics' labels.
    pub(super) chat_deployment: String,
    pub(super) embedding_deployment: String,
    /// Each deployment's rate limits (Azure OpenAI limits per deployment).
    pub(super) chat_limit: RateLimit,
    pub(super) embeddings_limit: RateLimit,
    /// The v1 API: the deployment goes in the body's `model`.
    pub(super) v1: bool,
    pub(super) family: ModelFamily,
    pub(super) reasoning_effort: String,
    /// What the chat deployment turned out to take.
    pub(super) learned: Mutex<Learned>,
}

/// Largest error body read (Azure's errors are a few hundred bytes).
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

impl AzureOpenAi {
    /// Azure OpenAI as `s` configures it, with its API key (see [`Self::with_auth`]).
    pub fn new(http: upstream::Lanes, s: &AzureOpenAiSettings) -> Self {
        Self::with_auth(http, s, Auth::ApiKey(s.api_key.clone()))
    }

    /// Azure OpenAI, authenticated by `auth`.
    pub fn with_auth(http: upstream::Lanes, s: &AzureOpenAiSettings, auth: Auth) -> Self {
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
                auth,
                refusal_logged: AtomicBool::new(false),
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

    /// POSTs `body`; reads an answer of at most `cap` bytes; `limit` learns
    /// the deployment's rate limits from the answer's headers.
    pub(super) async fn post<B: Serialize, R: DeserializeOwned + Send + 'static>(
        &self,
        url: &reqwest::Url,
        body: &B,
        timeout: Duration,
        cap: usize,
        limit: &RateLimit,
    ) -> Result<R, LlmError> {
        let call = async {
            // Held until the answer is read: the call's HTTP/2 stream.
            let http = self.inner.http.lease();
            let request = self.inner.auth.sign(http.post(url.clone()))?.json(body);
            let seen = |status: StatusCode, headers: &reqwest::header::HeaderMap| {
                limit.observe(headers);
                if status == StatusCode::TOO_MANY_REQUESTS {
                    limit.throttled(ratelimit::retry_after(headers));
                }
            };
            let refused = async |status: StatusCode, response: reqwest::Response| {
                let retry_after_secs = ratelimit::retry_after(response.headers())
                    .map(|d| d.as_secs_f64().ceil() as u64);
                let body: ErrorResponse = upstream::json(response, MAX_ERROR_BODY_BYTES)
                    .await
                    .unwrap_or_default();
                wire::status_error(status, retry_after_secs, &body)
            };
            upstream::call_json(request, timeout, cap, seen, refused).await
        };
        let result = otel::traced(otel::client_span(url), call, LlmError::kind_str).await;
        self.log_refusal(&result);
        result
    }
}

/// A deployment still throttled by a 429 is not called: the error at once.
pub(super) fn refuse_while_throttled(limit: &RateLimit) -> Result<(), LlmError> {
    match limit.refusal() {
        Some(secs) => Err(LlmError::RateLimited {
            retry_after_secs: Some(secs),
        }),
        None => Ok(()),
    }
}

impl upstream::CallError for LlmError {
    const TIMEOUT: Self = Self::Timeout;
    const MALFORMED: Self = Self::Malformed;
    const CONNECT: Self = Self::Connect;
    const TOO_LARGE: Self = Self::TooLarge;

    /// Cut off mid-answer: it answered, so not a connection failure.
    fn cut_off(t: upstream::Transport) -> Self {
        match t {
            upstream::Transport::Connect => Self::Malformed,
            other => <Self as upstream::CallError>::transport(other),
        }
    }
}
