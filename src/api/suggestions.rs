//! `POST /api/suggestions` and the old `GET /api/posts/{postId}/suggestions`.

use axum::{
    Json, Router,
    extract::{Path, State},
    http::{HeaderMap, header},
    routing::{get, post},
};
use tokio::time::Instant;

use super::{AppState, error::ApiError, extract::AppJson, validate};
use crate::{
    agent::RunInput,
    contract::{CombinedSuggestionsResponse, ErrorBody, SuggestionsRequest},
    settings::Secret,
};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/suggestions", post(suggest))
        .route("/api/posts/{post_id}/suggestions", get(suggest_for_post))
}

/// The Suggestions panel for a post.
#[utoipa::path(post, path = "/api/suggestions", request_body = SuggestionsRequest,
    params(("Authorization" = Option<String>, Header, description = "Bearer <Microsoft Graph delegated token>")),
    responses((status = 200, body = CombinedSuggestionsResponse), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 413, body = ErrorBody), (status = 415, body = ErrorBody)))]
pub async fn suggest(
    State(state): State<AppState>,
    headers: HeaderMap,
    AppJson(body): AppJson<SuggestionsRequest>,
) -> Result<Json<CombinedSuggestionsResponse>, ApiError> {
    let arrived = Instant::now();
    let graph_token = bearer_token(&headers)?;
    let req = validate::suggestions(body)?;
    let input = RunInput {
        post_id: req.post_id,
        text: req.text,
        tags: req.tags,
        graph_token,
        arrived,
    };
    Ok(Json(state.orchestrator.run(input).await))
}

/// The Suggestions panel for a stored post (the old Next.js route).
#[utoipa::path(get, path = "/api/posts/{postId}/suggestions",
    params(("postId" = String, Path), ("Authorization" = Option<String>, Header, description = "Bearer <Microsoft Graph delegated token>")),
    responses((status = 200, body = CombinedSuggestionsResponse), (status = 404, body = ErrorBody)))]
pub async fn suggest_for_post(
    State(state): State<AppState>,
    Path(post_id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<CombinedSuggestionsResponse>, ApiError> {
    let arrived = Instant::now();
    validate::post_id("postId", &post_id)?;
    let graph_token = bearer_token(&headers)?;
    let post = state
        .posts
        .get(&post_id)
        .await?
        .ok_or(ApiError::PostNotFound)?;
    let input = RunInput {
        post_id: post.id,
        text: post.text,
        tags: post.tags,
        graph_token,
        arrived,
    };
    Ok(Json(state.orchestrator.run(input).await))
}

/// The caller's Graph token from `Authorization: Bearer …`, if sent.
fn bearer_token(headers: &HeaderMap) -> Result<Option<Secret>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .filter(|t| !t.is_empty());
    match token {
        Some(t) => Ok(Some(Secret::new(t))),
        None => Err(ApiError::invalid(
            "Authorization",
            "Authorization must be 'Bearer <token>'",
        )),
    }
}
