//! `POST /api/suggestions` and the old `GET /api/posts/{postId}/suggestions`.

use super::cached::{Answer, Conditions, Route};
use super::{
    AppState, Arrived,
    error::ApiError,
    extract::{AppJson, PostId},
    validate,
};
use crate::{
    agent::RunInput,
    contract::{CombinedSuggestionsResponse, ErrorBody, SuggestionsRequest},
    panels::{self, Events, Panel},
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
    params(("Authorization" = Option<String>, Header, description = "Bearer <Microsoft Graph delegated token>"),
        ("If-None-Match" = Option<String>, Header, description = "A panel's ETag: 412 when it matches (a POST cannot be 304)"),
        ("Cache-Control" = Option<String>, Header, description = "no-cache or max-age=0: computed afresh; no-store: the panel cache neither read nor written")),
    responses((status = 200, headers(
            ("ETag" = String, description = "over the panel's content (not meta)"),
            ("Age" = Option<u64>, description = "seconds since a cached panel was computed")),
        content(
            (CombinedSuggestionsResponse = "application/json"),
            (crate::agent::RunEvent = "application/x-ndjson"))), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 412, description = "If-None-Match matched the panel's ETag"),
        (status = 413, body = ErrorBody), (status = 415, body = ErrorBody)))]
pub async fn suggest(
    State(state): State<AppState>,
    Extension(Arrived(arrived)): Extension<Arrived>,
    headers: HeaderMap,
    AppJson(body): AppJson<SuggestionsRequest>,
) -> Result<Response, ApiError> {
    let graph_token = bearer_token(&headers)?;
    let conditions = Conditions::read(&headers);
    let stream = wants_stream(headers);
    let req = validate::suggestions(body)?;
    let input = RunInput::for_request(req, graph_token, arrived);
    answer(&state, (stream, Route::Post, &conditions), input).await
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

/// How the caller asked: a stream or JSON, on which route, with which
/// cache conditions.
type Asked<'a> = (bool, Route, &'a Conditions);

/// JSON, or an NDJSON event stream when the caller asks for one; `X-Run-Id`
/// names the run either way. The panels service decides (cache,
/// coalescing, admission, run, store); this writes its answer.
async fn answer(state: &AppState, asked: Asked<'_>, input: RunInput) -> Result<Response, ApiError> {
    let (stream, route, conditions) = asked;
    let how = panels::Asked {
        stream,
        no_cache: conditions.no_cache,
        no_store: conditions.no_store,
    };
    let answer = state
        .panels
        .answer(input, how)
        .await
        .map_err(|o| ApiError::Overloaded {
            retry_after_secs: o.retry_after_secs,
        })?;
    let (mut response, run_id) = match answer {
        panels::Answer::Panel(served) => {
            let run_id = served.panel.meta.run_id.clone();
            (respond(served, stream, route, conditions), run_id)
        }
        panels::Answer::Stream(events) => {
            let run_id = events.run_id.clone();
            (event_stream(events), run_id)
        }
    };
    if let Ok(id) = HeaderValue::from_str(&run_id) {
        response.headers_mut().insert(RUN_ID, id);
    }
    Ok(response)
}

/// A panel with its validators (when the cache holds it: `Age`, and on the
/// GET route `Cache-Control` and `Vary`; 304/412 on a matching
/// `If-None-Match`), else as JSON with its `ETag`.
fn respond(served: Panel, stream: bool, route: Route, conditions: &Conditions) -> Response {
    let Some(kept) = served.kept else {
        let mut response = Json(served.panel).into_response();
        if let Ok(etag) = HeaderValue::from_str(&served.etag) {
            response.headers_mut().insert(header::ETAG, etag);
        }
        return response;
    };
    Answer {
        route,
        conditions,
        stream,
        etag: &served.etag,
        fresh_for: kept.fresh_for,
        age: kept.age,
    }
    .respond(served.panel)
}

/// A run's events, one JSON object a line, as they happen; the run stops
/// when the client goes away (the body, and the events with it, dropped).
fn event_stream(events: Events) -> Response {
    let lines = futures::stream::unfold(events, |mut events| async move {
        let event = events.next().await?;
        let mut line = serde_json::to_vec(&event).unwrap_or_default();
        line.push(b'\n');
        Some((Ok::<_, std::convert::Infallible>(Bytes::from(line)), events))
    });
    let mut response = Body::from_stream(lines).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    response
}

/// The Suggestions panel for a stored post (the old Next.js route).
#[utoipa::path(get, path = "/api/posts/{postId}/suggestions",
    params(("postId" = String, Path), ("Authorization" = Option<String>, Header, description = "Bearer <Microsoft Graph delegated token>"),
        ("If-None-Match" = Option<String>, Header, description = "A panel's ETag: 304 when it matches"),
        ("Cache-Control" = Option<String>, Header, description = "no-cache or max-age=0: computed afresh; no-store: the panel cache neither read nor written")),
    responses((status = 200, headers(
            ("ETag" = String, description = "over the panel's content (not meta)"),
            ("Cache-Control" = String, description = "private, max-age=<seconds the panel is still served>"),
            ("Vary" = String, description = "Authorization"),
            ("Age" = Option<u64>, description = "seconds since a cached panel was computed")),
        content(
            (CombinedSuggestionsResponse = "application/json"),
            (crate::agent::RunEvent = "application/x-ndjson"))),
        (status = 304, description = "If-None-Match matched the panel's ETag: no body"),
        (status = 404, body = ErrorBody)))]
pub async fn suggest_for_post(
    State(state): State<AppState>,
    Extension(Arrived(arrived)): Extension<Arrived>,
    PostId(post_id): PostId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let graph_token = bearer_token(&headers)?;
    let conditions = Conditions::read(&headers);
    let stream = wants_stream(headers);
    let post = state
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
    answer(&state, (stream, Route::Get, &conditions), input).await
}

/// The caller's Graph token from `Authorization: Bearer …`, if sent.
fn bearer_token(headers: &HeaderMap) -> Result<Option<Secret>, ApiError> {
    Ok(crate::tools::http::bearer_token(headers)?)
}
