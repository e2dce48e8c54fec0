//! OpenTelemetry traces over OTLP (HTTP/protobuf), on when the standard
//! variables say so (`OTEL_EXPORTER_OTLP_ENDPOINT` or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; the exporter and the SDK read
//! `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`/`_ARG`
//! and the batch settings themselves), off and free otherwise. It owns the
//! exporter, the W3C `traceparent` in (from callers) and out (to Azure OpenAI
//! and Microsoft Graph), and the attributes only a trace needs.
//!
//! Spans are batched and exported on the SDK's own thread, off the request
//! path; an unreachable collector costs a warning in the logs.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::Duration,
};

use bytes::Bytes;
use opentelemetry::{
    Array, KeyValue, StringValue, Value,
    propagation::{Extractor, Injector, TextMapPropagator},
    trace::{Status, TracerProvider as _},
};
use opentelemetry_http::{
    HeaderExtractor, HeaderInjector, HttpClient, HttpError, Request, Response,
};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::{Resource, propagation::TraceContextPropagator, trace::SdkTracerProvider};
use tracing::{Instrument, Span};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;

use crate::telemetry::BoxedLayer;

/// The GenAI conventions' name for Azure OpenAI (`gen_ai.provider.name`).
pub const PROVIDER: &str = "azure.ai.openai";
/// The agent's name in `invoke_agent` spans (`gen_ai.agent.name`).
pub const AGENT: &str = "linkup-suggestions";

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Whether traces are exported (decided once, at start-up).
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// The trace export of this process; shut it down to send what is left.
pub struct Traces {
    provider: SdkTracerProvider,
}

/// The tracing layer that turns spans into OpenTelemetry spans, and its
/// export over `http` (`upstream::http_client`'s, made only when needed),
/// when the environment asks for traces; None otherwise. Call inside the
/// tokio runtime (the exporter sends through it).
pub fn from_env<E>(
    http: impl FnOnce() -> Result<reqwest::Client, E>,
) -> anyhow::Result<Option<(BoxedLayer, Traces)>>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let set = |name| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    let disabled = std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.eq_ignore_ascii_case("true"))
        || std::env::var("OTEL_TRACES_EXPORTER").is_ok_and(|v| v.eq_ignore_ascii_case("none"));
    if disabled
        || !(set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
    {
        return Ok(None);
    }
    let http = http()?;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(ExportClient {
            http,
            runtime: tokio::runtime::Handle::current(),
            timeout: export_timeout(),
        })
        .with_protocol(Protocol::HttpBinary)
        .build()?;
    let mut resource = Resource::builder();
    if !set("OTEL_SERVICE_NAME") {
        resource = resource.with_service_name(AGENT);
    }
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(
            resource
                .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
                .build(),
        )
        .build();
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    // Our spans (debug and up) and our warnings and errors; no code
    // locations, thread names or busy/idle timers: each costs every span
    // (or every poll) and says nothing the span tree does not.
    let ours = tracing_subscriber::filter::filter_fn(|meta| {
        meta.target().starts_with("linkup_suggestions")
            && (meta.is_span() || *meta.level() <= tracing::Level::WARN)
    });
    let layer = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("linkup-suggestions"))
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_tracked_inactivity(false)
        .with_context_activation(false)
        .with_filter(ours)
        .boxed();
    ENABLED.store(true, Ordering::Relaxed);
    Ok(Some((layer, Traces { provider })))
}

impl Traces {
    /// Exports the spans still batched, then stops (blocking up to the
    /// exporter's timeout, on a blocking thread).
    pub async fn shutdown(self) {
        let provider = self.provider;
        let done = tokio::task::spawn_blocking(move || provider.shutdown()).await;
        if let Ok(Err(e)) = done {
            tracing::warn!(error.message = %e, "trace export shutdown incomplete");
        }
    }
}

/// Continues the caller's trace (its `traceparent`) in `span`, which must
/// not have been entered yet.
pub fn continue_trace(span: &Span, headers: &http::HeaderMap) {
    if !enabled() {
        return;
    }
    let parent = TraceContextPropagator::new().extract(&HeaderExtractor(headers));
    let _ = span.set_parent(parent);
}

/// Continues the trace an MCP request's `_meta` names (`traceparent`, as
/// the MCP conventions of OpenTelemetry carry it) in `span`.
pub fn continue_trace_in_meta(span: &Span, meta: &serde_json::Map<String, serde_json::Value>) {
    if !enabled() || !meta.contains_key("traceparent") {
        return;
    }
    let parent = TraceContextPropagator::new().extract(&Meta(meta));
    let _ = span.set_parent(parent);
}

/// Puts the current span's `traceparent` into an MCP request's `_meta`.
pub fn inject_into_meta(meta: &mut serde_json::Map<String, serde_json::Value>) {
    if !enabled() {
        return;
    }
    let cx = Span::current().context();
    TraceContextPropagator::new().inject_context(&cx, &mut MetaMut(meta));
}

struct Meta<'a>(&'a serde_json::Map<String, serde_json::Value>);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.as_str())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

struct MetaMut<'a>(&'a mut serde_json::Map<String, serde_json::Value>);

impl Injector for MetaMut<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0
            .insert(key.to_owned(), serde_json::Value::String(value));
    }
}

/// The `traceparent` header naming the current span, for an upstream request;
/// empty when traces are off.
pub fn trace_headers() -> http::HeaderMap {
    let mut headers = http::HeaderMap::new();
    if enabled() {
        let cx = Span::current().context();
        TraceContextPropagator::new().inject_context(&cx, &mut HeaderInjector(&mut headers));
    }
    headers
}

/// The HTTP client span of a POST to an upstream's `url` (no query text or
/// token is in our upstream URLs).
pub fn client_span(url: &reqwest::Url) -> Span {
    tracing::debug_span!(
        "POST",
        otel.kind = "client",
        http.request.method = "POST",
        server.address = url.host_str(),
        server.port = url.port_or_known_default(),
        url.full = url.as_str(),
        http.response.status_code = tracing::field::Empty,
    )
}

/// Records an upstream's answer status on the current (client) span; 4xx
/// and 5xx mark it failed.
pub fn client_status(status: http::StatusCode) {
    if !enabled() {
        return;
    }
    let span = Span::current();
    span.record("http.response.status_code", status.as_u16());
    if status.is_client_error() || status.is_server_error() {
        set_error(&span, status.as_str());
    }
}

/// Runs `call` in `span`; an error marks the span failed with its `kind`.
pub async fn traced<T, E>(
    span: Span,
    call: impl Future<Output = Result<T, E>>,
    kind: impl Fn(&E) -> &'static str,
) -> Result<T, E> {
    let result = call.instrument(span.clone()).await;
    if let Err(e) = &result {
        set_error(&span, kind(e));
    }
    result
}

/// Records `fields` (declared `Empty` on `span`) when traces are on: what
/// only a trace needs costs the logs nothing.
pub fn record(span: &Span, fields: &[(&str, &str)]) {
    if !enabled() {
        return;
    }
    for (name, value) in fields {
        span.record(*name, *value);
    }
}

/// Sets a string-array attribute (e.g. `gen_ai.response.finish_reasons`).
pub fn set_strings(span: &Span, key: &'static str, values: impl IntoIterator<Item = String>) {
    if !enabled() {
        return;
    }
    let values = values.into_iter().map(StringValue::from).collect();
    span.set_attribute(key, Value::Array(Array::String(values)));
}

/// Marks `span` failed with `kind` (`error.type`: an error kind or an HTTP status).
pub fn set_error(span: &Span, kind: impl Into<String>) {
    if !enabled() {
        return;
    }
    let kind: String = kind.into();
    span.set_attribute("error.type", kind.clone());
    span.set_status(Status::error(kind));
}

/// `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`, else `OTEL_EXPORTER_OTLP_TIMEOUT`
/// (milliseconds), else 10 s: what the exporter gives a request.
fn export_timeout() -> Duration {
    [
        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
        "OTEL_EXPORTER_OTLP_TIMEOUT",
    ]
    .iter()
    .find_map(|name| std::env::var(name).ok()?.trim().parse().ok())
    .map_or(Duration::from_secs(10), Duration::from_millis)
}

/// Sends the exporter's requests with the service's reqwest client. The SDK
/// exports from its own thread, outside tokio, so each request runs on the
/// runtime and is awaited from there.
#[derive(Debug)]
struct ExportClient {
    http: reqwest::Client,
    runtime: tokio::runtime::Handle,
    timeout: Duration,
}

#[async_trait::async_trait]
impl HttpClient for ExportClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let (http, timeout) = (self.http.clone(), self.timeout);
        let sent = self.runtime.spawn(async move {
            let mut request = reqwest::Request::try_from(request)?;
            *request.timeout_mut() = Some(timeout);
            let response = http.execute(request).await?;
            let (status, headers) = (response.status(), response.headers().clone());
            let body = response.bytes().await?;
            let mut out = Response::builder().status(status).body(body)?;
            *out.headers_mut() = headers;
            Ok::<_, HttpError>(out)
        });
        sent.await?
    }
}
