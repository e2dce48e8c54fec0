//! Run records: what a run did, looked up by the id that `meta.runId` and
//! `X-Run-Id` give.

use axum::{
    Json, Router,
    extract::{Path, State},
    routing::get,
};

use super::{AppState, error::ApiError};
use crate::contract::{ErrorBody, RunRecord};

/// Run ids are UUIDs (36 chars); anything longer is not looked up.
const MAX_RUN_ID: usize = 64;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/runs/{run_id}", get(fetch))
}

/// What a run did: path, rounds, graph steps, tool calls, LLM usage,
/// degraded reasons and unavailable sources (no user text). Kept 7 days,
/// 30 for failed or degraded runs.
#[utoipa::path(get, path = "/api/runs/{runId}", params(("runId" = String, Path)),
    responses((status = 200, body = RunRecord), (status = 404, body = ErrorBody)))]
pub async fn fetch(
    State(state): State<AppState>,
    run_id: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Json<RunRecord>, ApiError> {
    let Ok(Path(run_id)) = run_id else {
        return Err(ApiError::RunNotFound);
    };
    if run_id.len() > MAX_RUN_ID {
        return Err(ApiError::RunNotFound);
    }
    state
        .runs
        .get(&run_id)
        .await?
        .map(Json)
        .ok_or(ApiError::RunNotFound)
}
