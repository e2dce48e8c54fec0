//! `AppJson`: a JSON body extractor whose every rejection (wrong content type,
//! too large, malformed, wrong field type) is an `ApiError` naming the field.

use axum::{
    body::Bytes,
    extract::{FromRequest, Request},
    http::{StatusCode, header},
    response::IntoResponse,
};
use serde::de::DeserializeOwned;

use super::error::ApiError;

/// Largest accepted body, except for batch ingestion.
pub const BODY_LIMIT: usize = 64 * 1024;
/// Largest batch ingestion body (1,000 posts).
pub const BATCH_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// A deserialized JSON request body.
pub struct AppJson<T>(pub T);

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
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.into_response().status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge(limit)
            } else {
                ApiError::Invalid {
                    message: "could not read the request body".into(),
                    field: None,
                }
            }
        })?;
        let de = &mut serde_json::Deserializer::from_slice(&bytes);
        serde_path_to_error::deserialize(de)
            .map(AppJson)
            .map_err(|e| {
                let path = e.path().to_string();
                let inner = e.into_inner();
                let message = match inner.classify() {
                    serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                        format!("malformed JSON: {inner}")
                    }
                    _ => inner.to_string(),
                };
                let field = (path != "." && path != "?").then_some(path);
                ApiError::Invalid { message, field }
            })
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
