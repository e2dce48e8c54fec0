//! Request extractors whose every rejection is an `ApiError` naming the field:
//! `AppJson` (a strict JSON body, read within the body deadline) and `PostId`
//! (the `{postId}` path segment).

use std::time::Duration;

use axum::{
    body::Bytes,
    extract::{FromRequest, FromRequestParts, Path, Request},
    http::{Extensions, StatusCode, header, request::Parts},
    response::IntoResponse,
};
use serde::de::DeserializeOwned;
use tokio::time::Instant;

use super::{Arrived, error::ApiError, strict_json, validate};

/// Largest accepted body, except for batch ingestion.
pub const BODY_LIMIT: usize = 64 * 1024;
/// Largest batch ingestion body (1,000 posts).
pub const BATCH_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// A deserialized JSON request body.
pub struct AppJson<T>(pub T);

/// How long a request's whole body may take to arrive, from its head
/// (`server.body_timeout_ms`), set as a request extension by the router.
#[derive(Clone, Copy)]
pub struct BodyTimeout(pub Duration);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for AppJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        if !is_json(&req) {
            return Err(ApiError::UnsupportedMediaType);
        }
        let limit = req
            .extensions()
            .get::<BodyLimit>()
            .map_or(BODY_LIMIT, |l| l.0);
        let deadline = body_deadline(req.extensions());
        let read = Bytes::from_request(req, state);
        let bytes = match deadline {
            Some(deadline) => tokio::time::timeout_at(deadline, read)
                .await
                .map_err(|_| ApiError::RequestTimeout)?,
            None => read.await,
        };
        let bytes = bytes.map_err(|rejection| {
            if rejection.into_response().status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge(limit)
            } else {
                ApiError::Invalid {
                    message: "could not read the request body".into(),
                    field: None,
                }
            }
        })?;
        strict_json::from_slice(&bytes).map(AppJson)
    }
}

/// When the request's whole body must have arrived: its head's arrival plus
/// `server.body_timeout_ms`. The whole body, not each chunk: a client
/// dripping a byte a second would reset a per-chunk timer forever.
pub fn body_deadline(extensions: &Extensions) -> Option<Instant> {
    match (extensions.get::<Arrived>(), extensions.get::<BodyTimeout>()) {
        (Some(arrived), Some(timeout)) => Some(arrived.0 + timeout.0),
        _ => None,
    }
}

/// The body limit a route runs with (set next to its `DefaultBodyLimit`).
#[derive(Clone, Copy)]
pub struct BodyLimit(pub usize);

fn is_json(req: &Request) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|mime| {
            let mime = mime.trim().to_ascii_lowercase();
            mime == "application/json"
                || (mime.starts_with("application/") && mime.ends_with("+json"))
        })
        .unwrap_or(false)
}

/// A valid `{postId}` path segment (1–128 chars of `[A-Za-z0-9._:-]`).
pub struct PostId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PostId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::invalid("postId", "postId must be valid UTF-8"))?;
        validate::post_id("postId", &id)?;
        Ok(Self(id))
    }
}
