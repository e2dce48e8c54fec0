//! `ApiError`: every error the HTTP edge returns, in the one JSON shape
//! `{"error": {"code", "message", "field"}}`. Internal details are logged, not sent.

use axum::{
    Json,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};

use crate::{
    contract::{ErrorBody, ErrorDetail},
    posts::PostIndexError,
    store::StoreError,
};

/// An error answered to the caller.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{message}")]
    Invalid {
        message: String,
        field: Option<String>,
    },
    #[error("Content-Type must be application/json")]
    UnsupportedMediaType,
    #[error("request body is larger than {0} bytes")]
    PayloadTooLarge(usize),
    #[error("the request body did not arrive in time")]
    RequestTimeout,
    #[error("a valid X-Api-Key header is required")]
    Unauthorized,
    #[error("the Origin header is not one of the allowed origins (server.cors_origins)")]
    OriginNotAllowed,
    #[error("too many live MCP sessions; retry later")]
    McpSessionsFull,
    #[error("post not found")]
    PostNotFound,
    /// The URL is shared on the post under another document id (LinkUp's FR-010).
    #[error("this URL is already shared on the post as {id}")]
    UrlAlreadyShared { id: String },
    #[error("no run with this id: unknown, or past its retention")]
    RunNotFound,
    #[error("not found")]
    NotFound,
    #[error("the post index database is unavailable; retry later")]
    PostIndexUnavailable,
    #[error("too many suggestions in progress; retry after the Retry-After seconds")]
    Overloaded { retry_after_secs: u64 },
    #[error("internal error")]
    PostIndex(PostIndexError),
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        PostIndexError::Store(e).into()
    }
}

impl From<PostIndexError> for ApiError {
    fn from(e: PostIndexError) -> Self {
        match e {
            PostIndexError::Store(StoreError::Unavailable(reason)) => {
                tracing::warn!(error.kind = "post_index_unavailable", error.message = %reason, "request refused");
                Self::PostIndexUnavailable
            }
            e => Self::PostIndex(e),
        }
    }
}

impl From<crate::tools::http::NotBearer> for ApiError {
    fn from(_: crate::tools::http::NotBearer) -> Self {
        Self::invalid("Authorization", "Authorization must be 'Bearer <token>'")
    }
}

impl ApiError {
    /// A validation error naming the offending field.
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        Self::Invalid {
            message: message.into(),
            field: Some(field.to_owned()),
        }
    }

    /// The error with its field named within `prefix` (a batch item's:
    /// `sharedDocuments[2].`).
    pub fn within(self, prefix: &str) -> Self {
        match self {
            Self::Invalid {
                message,
                field: Some(field),
            } => Self::Invalid {
                message,
                field: Some(format!("{prefix}{field}")),
            },
            other => other,
        }
    }

    fn status_code(&self) -> StatusCode {
        match self {
            Self::Invalid { .. } => StatusCode::BAD_REQUEST,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::OriginNotAllowed => StatusCode::FORBIDDEN,
            Self::McpSessionsFull | Self::PostIndexUnavailable | Self::Overloaded { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Self::PostNotFound | Self::RunNotFound | Self::NotFound => StatusCode::NOT_FOUND,
            Self::UrlAlreadyShared { .. } => StatusCode::CONFLICT,
            Self::PostIndex(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::Invalid { .. } => "invalid_request",
            Self::UnsupportedMediaType => "unsupported_media_type",
            Self::PayloadTooLarge(_) => "payload_too_large",
            Self::RequestTimeout => "request_timeout",
            Self::Unauthorized => "unauthorized",
            Self::OriginNotAllowed => "origin_not_allowed",
            Self::McpSessionsFull => "mcp_sessions_full",
            Self::PostNotFound => "post_not_found",
            Self::UrlAlreadyShared { .. } => "url_already_shared",
            Self::RunNotFound => "run_not_found",
            Self::NotFound => "not_found",
            Self::PostIndexUnavailable => "post_index_unavailable",
            Self::Overloaded { .. } => "overloaded",
            Self::PostIndex(_) => "internal_error",
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let Self::PostIndex(e) = &self {
            tracing::error!(error.kind = "post_index", error.message = %e, "request failed");
        }
        let field = match &self {
            Self::Invalid { field, .. } => field.clone(),
            _ => None,
        };
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code().to_owned(),
                message: self.to_string(),
                field,
            },
        };
        let mut response = (self.status_code(), Json(body)).into_response();
        // Idle MCP sessions expire, and the post index database reconnects
        // within seconds (backoff up to 10 s): worth retrying soon.
        if let Self::McpSessionsFull | Self::PostIndexUnavailable = self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        }
        if let Self::Overloaded { retry_after_secs } = self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
        }
        response
    }
}

/// Puts every error the router answers by itself (405 with its `Allow`
/// header, a rejection of an extractor we do not own) in the one shape.
pub fn in_error_shape(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let code = match status {
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::REQUEST_TIMEOUT => "request_timeout",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        s if s.is_server_error() => "internal_error",
        _ => "invalid_request",
    };
    let message = match status {
        StatusCode::METHOD_NOT_ALLOWED => {
            "method not allowed here; the Allow header lists those that are".to_owned()
        }
        s => s.canonical_reason().unwrap_or("error").to_lowercase(),
    };
    let body = serde_json::to_vec(&ErrorBody {
        error: ErrorDetail {
            code: code.to_owned(),
            message,
            field: None,
        },
    })
    .unwrap_or_default();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, axum::body::Body::from(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One error of each kind, and what the router answers by itself: a
    /// new kind fails to compile here until it is listed (and documented).
    fn every() -> Vec<(u16, &'static str)> {
        let kinds = [
            ApiError::invalid("postId", "x"),
            ApiError::UnsupportedMediaType,
            ApiError::PayloadTooLarge(1),
            ApiError::RequestTimeout,
            ApiError::Unauthorized,
            ApiError::OriginNotAllowed,
            ApiError::McpSessionsFull,
            ApiError::PostNotFound,
            ApiError::UrlAlreadyShared { id: "d".into() },
            ApiError::RunNotFound,
            ApiError::NotFound,
            ApiError::PostIndexUnavailable,
            ApiError::Overloaded {
                retry_after_secs: 2,
            },
            ApiError::PostIndex(PostIndexError::Poisoned),
        ];
        for kind in &kinds {
            match kind {
                ApiError::Invalid { .. }
                | ApiError::UnsupportedMediaType
                | ApiError::PayloadTooLarge(_)
                | ApiError::RequestTimeout
                | ApiError::Unauthorized
                | ApiError::OriginNotAllowed
                | ApiError::McpSessionsFull
                | ApiError::PostNotFound
                | ApiError::UrlAlreadyShared { .. }
                | ApiError::RunNotFound
                | ApiError::NotFound
                | ApiError::PostIndexUnavailable
                | ApiError::Overloaded { .. }
                | ApiError::PostIndex(_) => {}
            }
        }
        let mut all: Vec<(u16, &str)> = kinds
            .iter()
            .map(|k| (k.status_code().as_u16(), k.code()))
            .collect();
        all.push((405, "method_not_allowed"));
        all
    }

    /// The (status, code) pairs of docs/http-api.md's errors table.
    fn documented() -> Vec<(u16, String)> {
        let docs = include_str!("../../docs/http-api.md");
        let start = docs
            .find("| status | code | when |")
            .expect("docs/http-api.md has the errors table");
        docs[start..]
            .lines()
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .flat_map(|row| {
                let mut cells = row.trim_matches('|').split(" | ").map(str::trim);
                let status: u16 = cells.next().and_then(|s| s.parse().ok()).expect("a status");
                let codes: Vec<String> = cells
                    .next()
                    .unwrap_or_default()
                    .split('`')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_owned)
                    .collect();
                codes.into_iter().map(move |c| (status, c))
            })
            .collect()
    }

    #[test]
    fn the_docs_list_every_error_code_with_its_status_and_no_other() {
        let mut answered: Vec<(u16, String)> = every()
            .into_iter()
            .map(|(s, c)| (s, c.to_owned()))
            .collect();
        let mut documented = documented();
        answered.sort();
        answered.dedup();
        documented.sort();
        documented.dedup();
        assert_eq!(documented, answered);
    }
}
