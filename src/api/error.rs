//! `ApiError`: every error the HTTP edge returns, in the one JSON shape
//! `{"error": {"code", "message", "field"}}`. Internal details are logged, not sent.

use axum::{
    Json,
    http::StatusCode,
    response::{IntoResponse, Response},
};

use crate::{
    contract::{ErrorBody, ErrorDetail},
    posts::PostIndexError,
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
    #[error("a valid X-Api-Key header is required")]
    Unauthorized,
    #[error("post not found")]
    PostNotFound,
    #[error("not found")]
    NotFound,
    #[error("internal error")]
    PostIndex(#[from] PostIndexError),
}

impl ApiError {
    /// A validation error naming the offending field.
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        Self::Invalid {
            message: message.into(),
            field: Some(field.to_owned()),
        }
    }

    fn status_code(&self) -> StatusCode {
        match self {
            Self::Invalid { .. } => StatusCode::BAD_REQUEST,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::PostNotFound | Self::NotFound => StatusCode::NOT_FOUND,
            Self::PostIndex(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::Invalid { .. } => "invalid_request",
            Self::UnsupportedMediaType => "unsupported_media_type",
            Self::PayloadTooLarge(_) => "payload_too_large",
            Self::Unauthorized => "unauthorized",
            Self::PostNotFound => "post_not_found",
            Self::NotFound => "not_found",
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
        (self.status_code(), Json(body)).into_response()
    }
}
