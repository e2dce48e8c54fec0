//! The OpenAPI 3.1 document, generated from the handlers and contract types,
//! and its route.

use axum::{Json, Router, routing::get};
use utoipa::OpenApi;

use super::{board, posts, probes, runs, suggestions};
use crate::contract;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "linkup-suggestions",
        description = "LinkUp's Suggestions panel: Microsoft 365 documents, similar posts and a next-step hint."
    ),
    paths(
        suggestions::suggest,
        suggestions::suggest_for_post,
        posts::upsert,
        posts::fetch,
        posts::remove,
        posts::batch,
        board::put_share,
        board::delete_share,
        board::shares,
        board::put_reply,
        board::delete_reply,
        board::replies,
        runs::fetch,
        probes::healthz,
        probes::readyz,
        probes::metrics
    ),
    components(schemas(
        contract::SuggestionsRequest,
        contract::CombinedSuggestionsResponse,
        contract::McpSuggestion,
        contract::M365Source,
        contract::PostSummary,
        contract::PostMode,
        contract::PostCategory,
        contract::PostInput,
        contract::PostBatch,
        contract::PostBatchResult,
        contract::Counts,
        contract::SharedDocumentInput,
        contract::SharedDocument,
        contract::ReplyInput,
        contract::Reply,
        contract::ResponseMeta,
        contract::RunPath,
        contract::RunRecord,
        contract::RunStep,
        contract::RunToolCall,
        contract::RunUsage,
        contract::ErrorBody,
        contract::ErrorDetail,
        contract::Readiness,
        crate::agent::RunEvent
    ))
)]
pub struct ApiDoc;

pub fn router() -> Router<super::AppState> {
    Router::new().route("/openapi.json", get(openapi))
}

/// This document.
async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}
