//! HTTP only: the router, shared state, edge middleware (request ids, API
//! keys, body limits, CORS, tracing) and the handlers, one file per resource.

mod board;
mod cached;
mod error;
mod extract;
mod mcp;
mod openapi;
mod posts;
mod probes;
mod runs;
mod strict_json;
mod suggestions;
mod validate;

use secrecy::ExposeSecret;
use std::{sync::Arc, time::Duration};

use axum::{
    Router,
    extract::{DefaultBodyLimit, MatchedPath, Request, State},
    http::{HeaderName, HeaderValue, Method, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use subtle::ConstantTimeEq;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tower::util::{MapRequestLayer, MapResponseLayer};
use tower_http::{
    classify::ServerErrorsFailureClass,
    cors::CorsLayer,
    request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer},
    trace::{DefaultOnFailure, DefaultOnResponse, OnFailure, TraceLayer},
};
use tracing::field::Empty;

pub use error::ApiError;
use extract::BodyTimeout;

pub use crate::server::Arrived;
use crate::{
    agent::Orchestrator, llm::AzureOpenAi, metrics::Metrics, msgraph::GraphClient, otel,
    panels::Panels, posts::PostIndex, runs::RunRecords, settings::Settings, tools::ToolDeps,
};

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
/// The MCP Streamable HTTP session header (browser MCP clients read it).
const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// Shared state of every handler: one `Arc`, so that the clone each
/// middleware and handler takes is one increment (B1: a state of a dozen
/// fields cost ~3 k instructions a request in clones).
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl AppState {
    pub fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What every handler reads.
pub struct Shared {
    /// Every door's panels: cache, coalescing, admission, run, store.
    pub panels: Arc<Panels>,
    /// The runs' orchestrator (for readiness: its MCP connection, its circuit).
    pub orchestrator: Arc<Orchestrator>,
    /// What the tools hold, for `/mcp`'s tool server.
    pub tools: Arc<ToolDeps>,
    pub posts: PostIndex,
    /// The documents shared on posts and their replies.
    pub board: crate::board::Board,
    pub llm: AzureOpenAi,
    pub graph: GraphClient,
    pub metrics: Metrics,
    pub runs: RunRecords,
    pub settings: Arc<Settings>,
    /// Cancelled at SIGTERM: `/readyz` answers 503 from then on.
    pub shutting_down: CancellationToken,
    /// With `posts.auth = "entra"`: the database's token, for `/readyz`.
    pub database_token: Option<crate::azure_auth::TokenKeeper>,
    /// The panel cache, unless `cache.enabled` is false.
    pub cache: Option<crate::cache::PanelCache>,
}

/// The whole HTTP surface; `/mcp` sessions end when `shutdown` is cancelled.
pub fn router(state: AppState, shutdown: CancellationToken) -> Router {
    let mut api = Router::new()
        .merge(suggestions::router())
        .merge(posts::router())
        .merge(board::router())
        .merge(runs::router());
    if state.settings.mcp.enabled {
        api = api.merge(mcp::router(&state, shutdown));
    }
    let api = api.layer(middleware::from_fn_with_state(
        state.clone(),
        require_api_key,
    ));
    let mut app = Router::new()
        .merge(api)
        .merge(probes::router(state.settings.server.admin_addr.is_none()))
        .merge(openapi::router())
        .fallback(|| async { ApiError::NotFound })
        .layer(middleware::from_fn_with_state(state.clone(), record_http))
        .layer(MapResponseLayer::new(error::in_error_shape))
        .layer(DefaultBodyLimit::max(extract::BODY_LIMIT))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(request_span)
                .on_response(DefaultOnResponse::new().level(tracing::Level::INFO))
                .on_failure(FailureLine(DefaultOnFailure::new())),
        )
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid));
    if let Some(cors) = cors(&state.settings.server.cors_origins) {
        app = app.layer(cors);
    }
    // Outermost: the deadline and the body's time count from when the
    // request's head was read, before body, routing and middleware.
    let body_timeout = BodyTimeout(Duration::from_millis(state.settings.server.body_timeout_ms));
    app.layer(MapRequestLayer::new(move |mut req: Request| {
        req.extensions_mut().insert(Arrived(Instant::now()));
        req.extensions_mut().insert(body_timeout);
        req
    }))
    .with_state(state)
}

/// tower-http's `error` line for a failed response, except for a 503: a
/// refusal for load (or a probe answering "not ready") is the service
/// working as designed, and the access line says so already. Under a burst
/// that was an error line per refusal, 1,000 a second (B14).
#[derive(Clone)]
struct FailureLine(DefaultOnFailure);

impl OnFailure<ServerErrorsFailureClass> for FailureLine {
    fn on_failure(
        &mut self,
        class: ServerErrorsFailureClass,
        latency: Duration,
        span: &tracing::Span,
    ) {
        let refused = matches!(class, ServerErrorsFailureClass::StatusCode(s)
            if s == axum::http::StatusCode::SERVICE_UNAVAILABLE);
        if !refused {
            self.0.on_failure(class, latency, span);
        }
    }
}

/// The request's span; in a trace, the HTTP server span, continuing the
/// caller's `traceparent`.
fn request_span(req: &Request) -> tracing::Span {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", MatchedPath::as_str);
    let request_id = req
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let span = tracing::info_span!(
        "http_request",
        method = %req.method(),
        route,
        request_id,
        run_id = Empty,
        otel.name = Empty,
        otel.kind = Empty,
        http.request.method = Empty,
        http.route = Empty,
        url.scheme = Empty,
        http.response.status_code = Empty,
    );
    if otel::enabled() {
        let name = format!("{} {route}", req.method());
        otel::record(
            &span,
            &[
                ("otel.name", &name),
                ("otel.kind", "server"),
                ("http.request.method", req.method().as_str()),
                ("http.route", route),
                ("url.scheme", "http"),
            ],
        );
        otel::continue_trace(&span, req.headers());
    }
    span
}

/// Records each request in the metrics: route template (`unmatched` for
/// none), method (`other` beyond the usual ones), status, latency.
async fn record_http(
    State(state): State<AppState>,
    req: Request,
    next: middleware::Next,
) -> Response {
    let started = Instant::now();
    let route = crate::metrics::intern(
        req.extensions()
            .get::<MatchedPath>()
            .map_or("unmatched", MatchedPath::as_str),
    );
    let method = match *req.method() {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    };
    let metrics = &state.metrics;
    let _in_flight = metrics.http_started();
    let response = next.run(req).await;
    let seconds = started.elapsed().as_secs_f64();
    let status = response.status();
    metrics.http_done(route, method, status.as_str(), seconds);
    if otel::enabled() {
        let span = tracing::Span::current();
        span.record("http.response.status_code", status.as_u16());
        if status.is_server_error() {
            otel::set_error(&span, status.as_str());
        }
    }
    response
}

/// The admin listener's surface (`server.admin_addr`): `/metrics` only.
pub fn admin_router(state: AppState) -> Router {
    Router::new()
        .route("/metrics", axum::routing::get(probes::metrics))
        .fallback(|| async { ApiError::NotFound })
        .layer(MapResponseLayer::new(error::in_error_shape))
        .with_state(state)
}

fn cors(origins: &[String]) -> Option<CorsLayer> {
    let origins: Vec<HeaderValue> = origins.iter().filter_map(|o| o.parse().ok()).collect();
    (!origins.is_empty()).then(|| {
        CorsLayer::new()
            .allow_origin(origins)
            .allow_methods([Method::GET, Method::POST, Method::PUT, Method::DELETE])
            .allow_headers([
                header::CONTENT_TYPE,
                header::AUTHORIZATION,
                header::ACCEPT,
                REQUEST_ID,
                HeaderName::from_static("x-api-key"),
                MCP_SESSION_ID,
                HeaderName::from_static("mcp-protocol-version"),
                HeaderName::from_static("last-event-id"),
            ])
            .expose_headers([REQUEST_ID, MCP_SESSION_ID, suggestions::RUN_ID])
    })
}

/// Rejects `/api` and `/mcp` requests without a configured `X-Api-Key`, when keys are configured.
async fn require_api_key(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let keys = &state.settings.server.api_keys;
    if keys.is_empty() {
        return next.run(req).await;
    }
    let given = req
        .headers()
        .get("x-api-key")
        .map(|v| v.as_bytes())
        .unwrap_or_default();
    // Every key is compared, in constant time for keys of the given length.
    let matched = keys.iter().fold(subtle::Choice::from(0), |found, k| {
        found | k.expose_secret().as_bytes().ct_eq(given)
    });
    if bool::from(matched) {
        next.run(req).await
    } else {
        ApiError::Unauthorized.into_response()
    }
}
