//! Microsoft Graph search client: `POST /v1.0/search/query` as the caller
//! (delegated token), files + list items and mails in two parallel requests,
//! hits mapped to `McpSuggestion`.

use std::{sync::Arc, time::Duration};

use reqwest::{StatusCode, header};
use serde_json::{Value, json};

mod hits;

pub use hits::strip_highlights;
use hits::{SearchResponse, map_hit};

use crate::{
    contract::McpSuggestion,
    metrics::{self, Metrics},
    otel,
    ratelimit::{self, PerCaller},
    upstream,
};

/// Results per entity group (Graph's `size`).
const PAGE_SIZE: u32 = 10;
/// The message properties a search asks for: Graph's documented message hit
/// carries `subject`, `bodyPreview` and `from` but no `webLink` unless the
/// request names it in `fields`.
const MESSAGE_FIELDS: [&str; 5] = [
    "subject",
    "bodyPreview",
    "from",
    "webLink",
    "receivedDateTime",
];
/// Largest search answer read by default (`msgraph.max_body_bytes`): ten
/// hits with summaries are a few tens of KB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 512 * 1024;

/// Why a Graph search failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("Graph rejected the token (401)")]
    Unauthorized,
    #[error("Graph denied access (403)")]
    Forbidden,
    #[error("Graph throttled the request (429)")]
    RateLimited { retry_after_secs: Option<u64> },
    #[error("Graph failed with status {0}")]
    Upstream(u16),
    #[error("Graph did not answer in time")]
    Timeout,
    #[error("Graph could not be reached")]
    Connect,
    #[error("Graph answered with an unexpected body")]
    Malformed,
    #[error("Graph's answer was larger than the configured cap")]
    TooLarge,
}

/// A [`GraphError`]'s kind, named as `meta.degraded` (`m365_<kind>`), logs
/// and metrics name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum GraphErrorKind {
    Unauthorized,
    Forbidden,
    RateLimited,
    UpstreamError,
    Timeout,
    Unreachable,
    MalformedResponse,
    TooLarge,
}

impl GraphErrorKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl GraphError {
    /// What kind of failure it is.
    pub fn kind(&self) -> GraphErrorKind {
        match self {
            Self::Unauthorized => GraphErrorKind::Unauthorized,
            Self::Forbidden => GraphErrorKind::Forbidden,
            Self::RateLimited { .. } => GraphErrorKind::RateLimited,
            Self::Upstream(_) => GraphErrorKind::UpstreamError,
            Self::Timeout => GraphErrorKind::Timeout,
            Self::Connect => GraphErrorKind::Unreachable,
            Self::Malformed => GraphErrorKind::MalformedResponse,
            Self::TooLarge => GraphErrorKind::TooLarge,
        }
    }

    /// The kind's name.
    pub fn kind_str(&self) -> &'static str {
        self.kind().as_str()
    }
}

impl upstream::CallError for GraphError {
    const TIMEOUT: Self = Self::Timeout;
    const MALFORMED: Self = Self::Malformed;
    const CONNECT: Self = Self::Connect;
    const TOO_LARGE: Self = Self::TooLarge;
}

/// Hits of one search; `partial` names the failure when one group failed.
#[derive(Debug, Default)]
pub struct GraphSearch {
    pub items: Vec<McpSuggestion>,
    pub partial: Option<GraphError>,
}

/// Graph search as a signed-in user.
#[derive(Clone)]
pub struct GraphClient {
    http: upstream::Lanes,
    /// Parsed once (None only for a base URL the settings would have rejected).
    endpoint: Option<reqwest::Url>,
    timeout: Duration,
    max_body_bytes: usize,
    metrics: Metrics,
    /// After a 429, none of that caller's searches until its retry time
    /// (shared by the clones).
    limits: Arc<PerCaller>,
}

impl GraphClient {
    pub fn new(http: upstream::Lanes, base_url: &str, timeout: Duration) -> Self {
        let endpoint = reqwest::Url::parse(&format!(
            "{}/v1.0/search/query",
            base_url.trim_end_matches('/')
        ))
        .ok();
        Self {
            http,
            endpoint,
            timeout,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            metrics: Metrics::default(),
            limits: Arc::default(),
        }
    }

    /// The rate-limit state: `throttled` while some caller waits for a
    /// 429's retry time (its own searches only), else `ok`.
    pub fn rate_limit(&self) -> &'static str {
        if self.limits.throttled_callers() > 0 {
            "throttled"
        } else {
            "ok"
        }
    }

    /// Records its calls into `metrics`.
    pub fn with_metrics(mut self, metrics: Metrics) -> Self {
        self.metrics = metrics;
        self
    }

    /// Caps the size of a search answer read (larger ones fail `TooLarge`).
    pub fn with_max_body_bytes(mut self, max_body_bytes: usize) -> Self {
        self.max_body_bytes = max_body_bytes;
        self
    }

    /// Searches files/list items and mails in parallel. Fails only when both fail.
    pub async fn search(&self, token: &str, query: &str) -> Result<GraphSearch, GraphError> {
        let caller = self.limits.key(token);
        if let Some(secs) = self.limits.refusal(caller) {
            return Err(GraphError::RateLimited {
                retry_after_secs: Some(secs),
            });
        }
        let files = self.timed("files", token, caller, query, &["driveItem", "listItem"]);
        let mails = self.timed("mail", token, caller, query, &["message"]);
        match futures::join!(files, mails) {
            (Ok(mut a), Ok(b)) => {
                a.extend(b);
                Ok(GraphSearch {
                    items: a,
                    partial: None,
                })
            }
            (Ok(items), Err(e)) | (Err(e), Ok(items)) => Ok(GraphSearch {
                items,
                partial: Some(e),
            }),
            (Err(e), Err(_)) => Err(e),
        }
    }

    /// One entity group's search, recorded in the metrics as `group`.
    async fn timed(
        &self,
        group: &'static str,
        token: &str,
        caller: u64,
        query: &str,
        entity_types: &[&str],
    ) -> Result<Vec<McpSuggestion>, GraphError> {
        let started = std::time::Instant::now();
        let span = self
            .endpoint
            .as_ref()
            .map_or_else(tracing::Span::none, otel::client_span);
        let call = self.search_group(token, caller, query, entity_types);
        let result = otel::traced(span, call, GraphError::kind_str).await;
        let seconds = started.elapsed().as_secs_f64();
        self.metrics.graph_call(
            group,
            metrics::outcome(&result, GraphError::kind_str),
            seconds,
        );
        result
    }

    async fn search_group(
        &self,
        token: &str,
        caller: u64,
        query: &str,
        entity_types: &[&str],
    ) -> Result<Vec<McpSuggestion>, GraphError> {
        let endpoint = self.endpoint.clone().ok_or(GraphError::Connect)?;
        // Held until the answer is read: the call's HTTP/2 stream.
        let http = self.http.lease();
        let request = http
            .post(endpoint)
            .bearer_auth(token)
            .json(&search_request(query, entity_types));
        let seen = |status: StatusCode, headers: &header::HeaderMap| {
            if status == StatusCode::TOO_MANY_REQUESTS {
                self.limits
                    .throttled(caller, ratelimit::retry_after(headers));
            }
        };
        let refused = async |status: StatusCode, response: reqwest::Response| {
            status_error(status, response.headers())
        };
        let body: SearchResponse =
            upstream::call_json(request, self.timeout, self.max_body_bytes, seen, refused).await?;
        let mut items = Vec::new();
        for hit in body
            .value
            .into_iter()
            .flat_map(|r| r.hits_containers)
            .flat_map(|c| c.hits)
        {
            match map_hit(hit) {
                Some(item) => items.push(item),
                // Nothing to link to: counted, never silently lost.
                None => self.metrics.graph_hit_dropped("no_link"),
            }
        }
        Ok(items)
    }
}

/// The search request's body. Built as a `Value` and serialized at once, so
/// the tree (a few KB) is not held while the call is in flight (B4).
fn search_request(query: &str, entity_types: &[&str]) -> Value {
    let mut request = json!({
        "entityTypes": entity_types,
        "query": { "queryString": query },
        "from": 0,
        "size": PAGE_SIZE,
        // A misspelt query that finds nothing is answered for its correction.
        "queryAlterationOptions": { "enableModification": true },
    });
    if entity_types.contains(&"message") {
        request["fields"] = json!(MESSAGE_FIELDS);
    }
    json!({ "requests": [request] })
}

fn status_error(status: StatusCode, headers: &header::HeaderMap) -> GraphError {
    match status {
        StatusCode::UNAUTHORIZED => GraphError::Unauthorized,
        StatusCode::FORBIDDEN => GraphError::Forbidden,
        StatusCode::TOO_MANY_REQUESTS => GraphError::RateLimited {
            retry_after_secs: ratelimit::retry_after(headers)
                .map(|d| d.as_secs_f64().ceil() as u64),
        },
        other => GraphError::Upstream(other.as_u16()),
    }
}
