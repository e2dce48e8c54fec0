//! Post index ingestion: LinkUp pushes its posts here.

use axum::{
    Extension, Json, Router,
    extract::{DefaultBodyLimit, State},
    http::StatusCode,
    routing::{post, put},
};

use super::{
    AppState,
    error::ApiError,
    extract::{AppJson, BATCH_BODY_LIMIT, BodyLimit, PostId},
    validate,
};
use crate::contract::{ErrorBody, PostBatch, PostBatchResult, PostInput, PostSummary};

/// Most posts in one batch.
const MAX_BATCH: usize = 1_000;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/api/posts/{post_id}",
            put(upsert).get(fetch).delete(remove),
        )
        .route(
            "/api/posts/batch",
            post(batch).layer((
                DefaultBodyLimit::max(BATCH_BODY_LIMIT),
                Extension(BodyLimit(BATCH_BODY_LIMIT)),
            )),
        )
}

/// Creates or replaces a post.
#[utoipa::path(put, path = "/api/posts/{postId}", request_body = PostInput, params(("postId" = String, Path)),
    responses((status = 201, body = PostSummary), (status = 200, body = PostSummary), (status = 400, body = ErrorBody)))]
pub async fn upsert(
    State(state): State<AppState>,
    PostId(post_id): PostId,
    AppJson(input): AppJson<PostInput>,
) -> Result<(StatusCode, Json<PostSummary>), ApiError> {
    let post = validate::post(&post_id, input, "")?;
    let created = state.posts.upsert(vec![post.clone()]).await?;
    let status = if created.first() == Some(&true) {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(post)))
}

/// A stored, unexpired post.
#[utoipa::path(get, path = "/api/posts/{postId}", params(("postId" = String, Path)),
    responses((status = 200, body = PostSummary), (status = 404, body = ErrorBody)))]
pub async fn fetch(
    State(state): State<AppState>,
    PostId(post_id): PostId,
) -> Result<Json<PostSummary>, ApiError> {
    state
        .posts
        .get(&post_id)
        .await?
        .map(Json)
        .ok_or(ApiError::PostNotFound)
}

/// Deletes a post (idempotent).
#[utoipa::path(delete, path = "/api/posts/{postId}", params(("postId" = String, Path)), responses((status = 204)))]
pub async fn remove(
    State(state): State<AppState>,
    PostId(post_id): PostId,
) -> Result<StatusCode, ApiError> {
    state.posts.delete(&post_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Creates or replaces up to 1,000 posts in one transaction (all or none).
#[utoipa::path(post, path = "/api/posts/batch", request_body = PostBatch,
    responses((status = 200, body = PostBatchResult), (status = 400, body = ErrorBody)))]
pub async fn batch(
    State(state): State<AppState>,
    AppJson(batch): AppJson<PostBatch>,
) -> Result<Json<PostBatchResult>, ApiError> {
    if batch.posts.len() > MAX_BATCH {
        return Err(ApiError::invalid(
            "posts",
            format!("at most {MAX_BATCH} posts per batch"),
        ));
    }
    let mut posts = Vec::with_capacity(batch.posts.len());
    for (i, input) in batch.posts.into_iter().enumerate() {
        let prefix = format!("posts[{i}].");
        let id = input.id.clone().ok_or_else(|| {
            ApiError::invalid(&format!("{prefix}id"), "id is required in a batch")
        })?;
        posts.push(validate::post(&id, input, &prefix)?);
    }
    let created = state.posts.upsert(posts).await?;
    let new = created.iter().filter(|c| **c).count();
    Ok(Json(PostBatchResult {
        created: new,
        updated: created.len() - new,
    }))
}
