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
use crate::{
    contract::{Counts, ErrorBody, PostBatch, PostBatchResult, PostInput, PostSummary},
    store::knowledge::{Change, Changed},
};

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

/// Creates or replaces up to 1,000 posts, and up to 1,000 shared documents
/// and replies, in one transaction (all or none).
#[utoipa::path(post, path = "/api/posts/batch", request_body = PostBatch,
    responses((status = 200, body = PostBatchResult), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn batch(
    State(state): State<AppState>,
    AppJson(batch): AppJson<PostBatch>,
) -> Result<Json<PostBatchResult>, ApiError> {
    for (name, len) in [
        ("posts", batch.posts.len()),
        ("sharedDocuments", batch.shared_documents.len()),
        ("replies", batch.replies.len()),
    ] {
        if len > MAX_BATCH {
            return Err(ApiError::invalid(
                name,
                format!("at most {MAX_BATCH} {name} per batch"),
            ));
        }
    }
    let mut posts = Vec::with_capacity(batch.posts.len());
    for (i, input) in batch.posts.into_iter().enumerate() {
        let prefix = format!("posts[{i}].");
        let id = input.id.clone().ok_or_else(|| {
            ApiError::invalid(&format!("{prefix}id"), "id is required in a batch")
        })?;
        posts.push(validate::post(&id, input, &prefix)?);
    }
    let (shares, replies) = (batch.shared_documents.len(), batch.replies.len());
    let mut changes = Vec::with_capacity(shares + replies);
    for (i, input) in batch.shared_documents.into_iter().enumerate() {
        let prefix = format!("sharedDocuments[{i}].");
        let (post_id, id) = batch_ids(&prefix, input.post_id.clone(), input.id.clone())?;
        let share =
            validate::shared_document(&post_id, &id, input).map_err(|e| e.within(&prefix))?;
        changes.push((post_id, Change::PutShare(share)));
    }
    for (i, input) in batch.replies.into_iter().enumerate() {
        let prefix = format!("replies[{i}].");
        let (post_id, id) = batch_ids(&prefix, input.post_id.clone(), input.id.clone())?;
        let reply = validate::reply(&post_id, &id, input).map_err(|e| e.within(&prefix))?;
        changes.push((post_id, Change::PutReply(reply)));
    }
    let (created, changed) = state
        .posts
        .write(posts, changes.clone())
        .await?
        .map_err(|(_, refused)| super::board::refusal(refused))?;
    state.board.count_use(&changes, &changed).await;
    let new = created.iter().filter(|c| **c).count();
    let counts = |items: &[Changed]| {
        (!items.is_empty()).then(|| {
            let created = items.iter().filter(|c| **c == Changed::Created).count();
            Counts {
                created,
                updated: items.len() - created,
            }
        })
    };
    Ok(Json(PostBatchResult {
        created: new,
        updated: created.len() - new,
        shared_documents: counts(&changed[..shares]),
        replies: counts(&changed[shares..]),
    }))
}

/// A batch item's post id and id, both required.
fn batch_ids(
    prefix: &str,
    post_id: Option<String>,
    id: Option<String>,
) -> Result<(String, String), ApiError> {
    let required = |name: &str, value: Option<String>| {
        value.ok_or_else(|| {
            ApiError::invalid(
                &format!("{prefix}{name}"),
                format!("{name} is required in a batch"),
            )
        })
    };
    let (post_id, id) = (required("postId", post_id)?, required("id", id)?);
    validate::post_id(&format!("{prefix}postId"), &post_id)?;
    validate::post_id(&format!("{prefix}id"), &id)?;
    Ok((post_id, id))
}
