//! What LinkUp's users add to a post, pushed like posts: the documents
//! shared on it and its replies (LinkUp's spec 005). A `PUT` answers 201
//! created or 200 replaced, a `DELETE` 204 (idempotent), a `GET` the
//! post's list; an unknown or expired post is 404.

use axum::{
    Json, Router,
    extract::{FromRequestParts, Path, State},
    http::{StatusCode, request::Parts},
    routing::{get, put},
};

use super::{AppState, error::ApiError, extract::AppJson, extract::PostId, validate};
use crate::{
    contract::{ErrorBody, Items, Reply, ReplyInput, SharedDocument, SharedDocumentInput},
    store::knowledge::{Change, Changed, Refused},
};

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/api/posts/{post_id}/shared-documents/{doc_id}",
            put(put_share).delete(delete_share),
        )
        .route("/api/posts/{post_id}/shared-documents", get(shares))
        .route(
            "/api/posts/{post_id}/replies/{reply_id}",
            put(put_reply).delete(delete_reply),
        )
        .route("/api/posts/{post_id}/replies", get(replies))
}

/// The two path segments: the post's id and the item's (raw; validated
/// with the body, which names the field).
pub struct Ids(String, String);

impl<S: Send + Sync> FromRequestParts<S> for Ids {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path((post, item)) = Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::invalid("postId", "the path must be valid UTF-8"))?;
        Ok(Self(post, item))
    }
}

/// Shares a document on a post.
#[utoipa::path(put, path = "/api/posts/{postId}/shared-documents/{docId}", request_body = SharedDocumentInput,
    params(("postId" = String, Path), ("docId" = String, Path)),
    responses((status = 201, body = SharedDocument), (status = 200, body = SharedDocument),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn put_share(
    State(state): State<AppState>,
    Ids(post_id, doc_id): Ids,
    AppJson(input): AppJson<SharedDocumentInput>,
) -> Result<(StatusCode, Json<SharedDocument>), ApiError> {
    let share = validate::shared_document(&post_id, &doc_id, input)?;
    let changed = change(&state, &post_id, Change::PutShare(share.clone())).await?;
    Ok((status(changed), Json(share)))
}

/// Removes a shared document (idempotent).
#[utoipa::path(delete, path = "/api/posts/{postId}/shared-documents/{docId}",
    params(("postId" = String, Path), ("docId" = String, Path)), responses((status = 204)))]
pub async fn delete_share(
    State(state): State<AppState>,
    Ids(post_id, doc_id): Ids,
) -> Result<StatusCode, ApiError> {
    validate::post_id("postId", &post_id)?;
    validate::post_id("docId", &doc_id)?;
    remove(&state, &post_id, Change::DeleteShare(doc_id)).await
}

/// The documents shared on a live post, oldest first.
#[utoipa::path(get, path = "/api/posts/{postId}/shared-documents", params(("postId" = String, Path)),
    responses((status = 200, body = Items<SharedDocument>), (status = 404, body = ErrorBody)))]
pub async fn shares(
    State(state): State<AppState>,
    PostId(post_id): PostId,
) -> Result<Json<Items<SharedDocument>>, ApiError> {
    live(&state, &post_id).await?;
    let items = state.board.knowledge(&post_id).shares.clone();
    Ok(Json(Items { items }))
}

/// Adds or replaces a reply to a post.
#[utoipa::path(put, path = "/api/posts/{postId}/replies/{replyId}", request_body = ReplyInput,
    params(("postId" = String, Path), ("replyId" = String, Path)),
    responses((status = 201, body = Reply), (status = 200, body = Reply),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn put_reply(
    State(state): State<AppState>,
    Ids(post_id, reply_id): Ids,
    AppJson(input): AppJson<ReplyInput>,
) -> Result<(StatusCode, Json<Reply>), ApiError> {
    let reply = validate::reply(&post_id, &reply_id, input)?;
    let changed = change(&state, &post_id, Change::PutReply(reply.clone())).await?;
    Ok((status(changed), Json(reply)))
}

/// Removes a reply (idempotent).
#[utoipa::path(delete, path = "/api/posts/{postId}/replies/{replyId}",
    params(("postId" = String, Path), ("replyId" = String, Path)), responses((status = 204)))]
pub async fn delete_reply(
    State(state): State<AppState>,
    Ids(post_id, reply_id): Ids,
) -> Result<StatusCode, ApiError> {
    validate::post_id("postId", &post_id)?;
    validate::post_id("replyId", &reply_id)?;
    remove(&state, &post_id, Change::DeleteReply(reply_id)).await
}

/// A live post's replies, newest first.
#[utoipa::path(get, path = "/api/posts/{postId}/replies", params(("postId" = String, Path)),
    responses((status = 200, body = Items<Reply>), (status = 404, body = ErrorBody)))]
pub async fn replies(
    State(state): State<AppState>,
    PostId(post_id): PostId,
) -> Result<Json<Items<Reply>>, ApiError> {
    live(&state, &post_id).await?;
    let items = state.board.knowledge(&post_id).replies.clone();
    Ok(Json(Items { items }))
}

/// 404 unless the post is live.
async fn live(state: &AppState, post_id: &str) -> Result<(), ApiError> {
    match state.posts.get(post_id).await? {
        Some(_) => Ok(()),
        None => Err(ApiError::PostNotFound),
    }
}

async fn change(state: &AppState, post_id: &str, change: Change) -> Result<Changed, ApiError> {
    state.board.change(post_id, change).await?.map_err(refusal)
}

/// The answer to a refused change.
pub fn refusal(refused: Refused) -> ApiError {
    match refused {
        Refused::NoPost => ApiError::PostNotFound,
        Refused::UrlShared { id } => ApiError::UrlAlreadyShared { id },
    }
}

/// A delete on a post that is gone is done already.
async fn remove(state: &AppState, post_id: &str, change: Change) -> Result<StatusCode, ApiError> {
    // Refused only when the post is gone: the item went with it.
    let _done_or_gone = state.board.change(post_id, change).await?;
    Ok(StatusCode::NO_CONTENT)
}

fn status(changed: Changed) -> StatusCode {
    match changed {
        Changed::Created => StatusCode::CREATED,
        Changed::Replaced | Changed::Deleted => StatusCode::OK,
    }
}
