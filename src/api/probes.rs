//! Liveness, readiness and the metrics.

use axum::{
    Json, Router,
    extract::State,
    http::{StatusCode, header},
    response::IntoResponse,
    routing::get,
};

use super::AppState;
use crate::{
    contract::{RateLimits, Readiness},
    posts::Embedder,
    settings::PostsBackend,
};

fn rate_limits(state: &AppState) -> RateLimits {
    let (chat, embeddings) = state.llm.rate_limits();
    RateLimits {
        azure_openai_chat: chat.to_owned(),
        azure_openai_embeddings: embeddings.to_owned(),
        graph: state.graph.rate_limit().to_owned(),
    }
}

/// The probes, and `/metrics` when `with_metrics` (not when an admin
/// listener serves it).
pub fn router(with_metrics: bool) -> Router<AppState> {
    let router = Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz));
    if with_metrics {
        router.route("/metrics", get(metrics))
    } else {
        router
    }
}

/// The Prometheus metrics (OpenMetrics text); not behind the API keys, like the probes.
#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "OpenMetrics text", content_type = "application/openmetrics-text")))]
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let m = &state.metrics;
    let (posts, embedded) = state.posts.counts();
    m.post_embedder(
        state.posts.embedder().as_str(),
        &state.posts.in_process_model().unwrap_or_default(),
    );
    let backlog = if state.posts.embedder() != Embedder::None {
        posts.saturating_sub(embedded)
    } else {
        0
    };
    m.post_index(posts as i64, embedded as i64, backlog as i64);
    m.llm_circuit(state.orchestrator.circuit_open());
    let limits = rate_limits(&state);
    m.rate_limit("azure_openai_chat", &limits.azure_openai_chat);
    m.rate_limit("azure_openai_embeddings", &limits.azure_openai_embeddings);
    m.rate_limit("graph", &limits.graph);
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        m.render(),
    )
}

/// Always 200 while the process serves.
#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "alive")))]
pub async fn healthz() -> &'static str {
    "ok"
}

/// 200 when the post index answers and the MCP tools list, 503 from SIGTERM
/// on (`shuttingDown`); says which upstreams are configured and whether the
/// post store (and the panel cache's shared tier) is reachable.
#[utoipa::path(get, path = "/readyz", responses((status = 200, body = Readiness), (status = 503, body = Readiness)))]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Readiness>) {
    let post_index = state.posts.get("readyz-probe").await.is_ok();
    let post_store = match state.settings.posts.backend {
        PostsBackend::Sqlite => "sqlite",
        PostsBackend::Postgres => "postgres",
    };
    // SQLite is read by the probe itself; PostgreSQL is reachable while
    // this replica follows its changes.
    let post_store_reachable = post_index && !state.posts.stale();
    let mcp_tools = match state.orchestrator.connection().list_tools().await {
        Ok(tools) => tools.iter().map(|t| t.name.to_string()).collect(),
        Err(_) => Vec::new(),
    };
    let panel_cache_shared_reachable = match &state.cache {
        Some(cache) => cache.shared_reachable().await,
        None => None,
    };
    let shutting_down = state.shutting_down.is_cancelled();
    let ready = post_index && !mcp_tools.is_empty() && !shutting_down;
    let (llm_model_family, llm_dropped_parameters) = state.llm.chat_family();
    let body = Readiness {
        ready,
        shutting_down,
        post_index,
        post_store: post_store.to_owned(),
        post_store_reachable,
        mcp_tools,
        llm_configured: state.llm.chat_configured(),
        llm_model_family: llm_model_family.to_owned(),
        llm_dropped_parameters,
        embeddings_configured: state.llm.embeddings_configured(),
        embedder: state.posts.embedder().as_str().to_owned(),
        local_model: state.posts.in_process_model(),
        word_model: state.posts.word_model(),
        graph_base_url: state.settings.msgraph.base_url.clone(),
        llm_circuit_open: state.orchestrator.circuit_open(),
        llm_auth: state
            .llm
            .auth_status(state.settings.azure_openai.auth.as_str()),
        post_store_token: state.database_token.as_ref().map(|k| k.status()),
        panel_cache_shared_reachable,
        rate_limits: rate_limits(&state),
    };
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(body))
}
