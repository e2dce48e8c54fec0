//! Liveness and readiness.

use axum::{Json, Router, extract::State, http::StatusCode, routing::get};

use super::AppState;
use crate::contract::Readiness;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
}

/// Always 200 while the process serves.
#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "alive")))]
pub async fn healthz() -> &'static str {
    "ok"
}

/// 200 when the post index answers and the MCP tools list; says which upstreams are configured.
#[utoipa::path(get, path = "/readyz", responses((status = 200, body = Readiness), (status = 503, body = Readiness)))]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Readiness>) {
    let post_index = state.posts.get("readyz-probe").await.is_ok();
    let mcp_tools = match state.orchestrator.connection().list_tools().await {
        Ok(tools) => tools.iter().map(|t| t.name.to_string()).collect(),
        Err(_) => Vec::new(),
    };
    let ready = post_index && !mcp_tools.is_empty();
    let body = Readiness {
        ready,
        post_index,
        mcp_tools,
        llm_configured: state.deps.llm.chat_configured(),
        embeddings_configured: state.deps.llm.embeddings_configured(),
        graph_base_url: state.settings.msgraph.base_url.clone(),
        llm_circuit_open: state.orchestrator.circuit_open(),
    };
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(body))
}
