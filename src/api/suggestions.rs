//! `POST /api/suggestions` and the old `GET /api/posts/{postId}/suggestions`.

use super::{
    AppState, Arrived,
    error::ApiError,
    extract::{AppJson, PostId},
    validate,
};
use crate::{
    agent::{Emitter, RunInput, Ticket},
    contract::{CombinedSuggestionsResponse, ErrorBody, SuggestionsRequest},
    settings::Secret,
};
use axum::{
    Extension, Json, Router,
    body::{Body, Bytes},
    extract::State,
    http::{HeaderMap, HeaderValue, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/suggestions", post(suggest))
        .route("/api/posts/{post_id}/suggestions", get(suggest_for_post))
}

/// The Suggestions panel for a post. With `Accept: application/x-ndjson`,
/// progress events stream one per line (each a `RunEvent`): a `preview`
/// panel as soon as the first searches answer, the last being
/// `{"type":"result","data":…}`.
#[utoipa::path(post, path = "/api/suggestions", request_body = SuggestionsRequest,
    params(("Authorization" = Option<String>, Header, description = "Bearer <Microsoft Graph delegated token>")),
    responses((status = 200, content(
            (CombinedSuggestionsResponse = "application/json"),
            (crate::agent::RunEvent = "application/x-ndjson"))), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 413, body = ErrorBody), (status = 415, body = ErrorBody)))]
pub async fn suggest(
    State(state): State<AppState>,
    Extension(Arrived(arrived)): Extension<Arrived>,
    headers: HeaderMap,
    AppJson(body): AppJson<SuggestionsRequest>,
) -> Result<Response, ApiError> {
    let graph_token = bearer_token(&headers)?;
    let stream = wants_stream(headers);
    let req = validate::suggestions(body)?;
    let input = RunInput::for_request(req, graph_token, arrived);
    answer(&state, stream, input).await
}

/// The run's id in every answer (JSON or stream), before the run starts.
pub(super) const RUN_ID: header::HeaderName = header::HeaderName::from_static("x-run-id");

/// Whether the caller asks for the NDJSON event stream. Takes the headers
/// to drop them: their values share the connection's read buffer, which the
/// run would otherwise keep alive for its whole length (B4).
fn wants_stream(headers: HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/x-ndjson"))
}

/// JSON, or an NDJSON event stream when the caller asks for one; `X-Run-Id`
/// names the run either way. Refused (503 `overloaded`) before any upstream
/// is called when no run slot is free in time.
async fn answer(state: &AppState, stream: bool, input: RunInput) -> Result<Response, ApiError> {
    let ticket = state
        .orchestrator
        .admit()
        .await
        .map_err(|o| ApiError::Overloaded {
            retry_after_secs: o.retry_after_secs,
        })?;
    let run_id = HeaderValue::from_str(&input.run_id).ok();
    let mut response = run(state, stream, input, ticket).await;
    if let Some(id) = run_id {
        response.headers_mut().insert(RUN_ID, id);
    }
    Ok(response)
}

async fn run(state: &AppState, stream: bool, input: RunInput, ticket: Ticket) -> Response {
    if !stream {
        let panel = state.orchestrator.run(input, Emitter::default(), ticket);
        return Json(panel.await).into_response();
    }
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let orchestrator = state.orchestrator.clone();
    let run = tokio::spawn(async move {
        orchestrator.run(input, Emitter::new(tx), ticket).await;
    });
    // Aborts the run when the client goes away (the stream is dropped).
    let guard = AbortOnDrop(run);
    let lines = futures::stream::unfold((rx, guard), |(mut rx, guard)| async move {
        let event = rx.recv().await?;
        let mut line = serde_json::to_vec(&event).unwrap_or_default();
        line.push(b'\n');
        Some((
            Ok::<_, std::convert::Infallible>(Bytes::from(line)),
            (rx, guard),
        ))
    });
    let mut response = Body::from_stream(lines).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    response
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The Suggestions panel for a stored post (the old Next.js route).
#[utoipa::path(get, path = "/api/posts/{postId}/suggestions",
    params(("postId" = String, Path), ("Authorization" = Option<String>, Header, description = "Bearer <Microsoft Graph delegated token>")),
    responses((status = 200, content(
            (CombinedSuggestionsResponse = "application/json"),
            (crate::agent::RunEvent = "application/x-ndjson"))), (status = 404, body = ErrorBody)))]
pub async fn suggest_for_post(
    State(state): State<AppState>,
    Extension(Arrived(arrived)): Extension<Arrived>,
    PostId(post_id): PostId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let graph_token = bearer_token(&headers)?;
    let stream = wants_stream(headers);
    let post = state
        .deps
        .posts
        .get(&post_id)
        .await?
        .ok_or(ApiError::PostNotFound)?;
    let input = RunInput {
        run_id: RunInput::new_run_id(),
        post_id: post.id,
        text: post.text,
        tags: post.tags,
        category: Some(post.category.as_str().to_owned()),
        graph_token,
        arrived,
    };
    answer(&state, stream, input).await
}

/// The caller's Graph token from `Authorization: Bearer …`, if sent.
fn bearer_token(headers: &HeaderMap) -> Result<Option<Secret>, ApiError> {
    Ok(crate::tools::http::bearer_token(headers)?)
}
