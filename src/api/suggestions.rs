//! `POST /api/suggestions` and the old `GET /api/posts/{postId}/suggestions`.

use super::cached::{Answer, Conditions, Route};
use super::{
    AppState, Arrived,
    error::ApiError,
    extract::{AppJson, PostId},
    validate,
};
use crate::{
    agent::{Emitter, RunInput, Ticket},
    cache::{self, Entry, Outcome, PanelCache, PanelKey, View},
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
use secrecy::ExposeSecret;
use tracing::Instrument;

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
/// names the run either way. A cached panel is answered before admission
/// (served while shedding); a miss is refused (503 `overloaded`) before any
/// upstream is called when no run slot is free in time, and identical
/// concurrent misses share one run.
async fn answer(state: &AppState, asked: Asked<'_>, input: RunInput) -> Result<Response, ApiError> {
    let (stream, _, conditions) = asked;
    let cache = state.cache.as_ref().filter(|_| !conditions.no_store);
    let view = View {
        post_id: &input.post_id,
        text: &input.text,
        tags: &input.tags,
        category: input.category.as_deref(),
        token: input.graph_token.as_ref(),
    };
    let key = cache.map(|c| PanelKey::of(&view, c.generation()));
    if let (Some(cache), Some(key)) = (cache, &key) {
        if conditions.no_cache {
            cache.invalidate(key).await;
        } else if let Some(entry) = cache.get(key).await {
            cache.count(Outcome::Hit);
            return Ok(serve(state, &entry, asked).await);
        }
        if let Some(response) = coalesce(state, cache, key, &input, asked).await {
            return Ok(response);
        }
    } else if let Some(cache) = &state.cache {
        cache.count(Outcome::Bypass);
    }
    let ticket = match state.orchestrator.admit().await {
        Ok(ticket) => ticket,
        Err(o) => {
            // No slot, but an identical request's run may have started
            // meanwhile: its panel rather than a 503.
            if let (Some(cache), Some(key)) = (cache, &key)
                && let Some(response) = coalesce(state, cache, key, &input, asked).await
            {
                return Ok(response);
            }
            return Err(ApiError::Overloaded {
                retry_after_secs: o.retry_after_secs,
            });
        }
    };
    let token_left = cache::token_left(input.graph_token.as_ref().map(|t| t.expose_secret()));
    let run_id = HeaderValue::from_str(&input.run_id).ok();
    // A panel nothing will keep (the caller's token has expired) is not
    // shared: it ends with its request.
    let kept = token_left != Some(std::time::Duration::ZERO);
    let mut response = match (cache, key) {
        (Some(cache), Some(key)) if !stream && kept => {
            let orchestrator = state.orchestrator.clone();
            let run = async move { orchestrator.run(input, Emitter::default(), ticket).await };
            let (entry, outcome) = cache.get_or_run(key, token_left, run).await;
            cache.count(outcome);
            match entry {
                Some(entry) => fresh(&entry, asked),
                // The shared run's task ended without a panel (it panicked):
                // a bug, logged; the caller may try again at once.
                None => {
                    tracing::error!("a shared suggestions run ended without a panel");
                    return Err(ApiError::Overloaded {
                        retry_after_secs: 1,
                    });
                }
            }
        }
        (cache, key) => {
            // A stream's miss runs as it streams (not shared), stored at its end.
            if let Some(cache) = cache {
                cache.count(Outcome::Miss);
            }
            let keep = cache.cloned().zip(key);
            run(state, stream, input, ticket, keep, token_left).await
        }
    };
    if let Some(id) = run_id {
        response.headers_mut().entry(RUN_ID).or_insert(id);
    }
    Ok(response)
}

/// The panel of an identical request's run under way, waited for without a
/// run slot of its own until this request's own deadline; None when there
/// is no such run (or it gave nothing in time).
async fn coalesce(
    state: &AppState,
    cache: &PanelCache,
    key: &PanelKey,
    input: &RunInput,
    asked: Asked<'_>,
) -> Option<Response> {
    let shared = cache.running(key)?;
    let deadline = std::time::Duration::from_millis(state.settings.agent.timeout_ms)
        + std::time::Duration::from_secs(1);
    let left = deadline.saturating_sub(input.arrived.elapsed());
    let entry = tokio::time::timeout(left, shared).await.ok()??;
    cache.count(Outcome::Coalesced);
    Some(fresh(&entry, asked))
}

/// A cached panel: its posts deleted or expired since left out, marked
/// `meta.cached` with its original run's id.
async fn serve(state: &AppState, entry: &Entry, asked: Asked<'_>) -> Response {
    let (stream, route, conditions) = asked;
    let mut panel = entry.panel.clone();
    let ids: Vec<String> = panel.posts.iter().map(|p| p.id.clone()).collect();
    if !ids.is_empty() {
        let live = state.deps.posts.live(ids).await.unwrap_or_default();
        panel.posts.retain(|p| live.contains(&p.id));
    }
    panel.meta.cached = true;
    // The tag covers content, not `meta`: the stored one holds unless a
    // post was dropped.
    let etag = if panel.posts.len() == entry.panel.posts.len() {
        entry.etag.clone()
    } else {
        cache::etag(&panel)
    };
    let mut response = Answer {
        route,
        conditions,
        stream,
        etag: &etag,
        fresh_for: entry.left(),
        age: Some(entry.stored.elapsed()),
    }
    .respond(panel);
    if let Ok(id) = HeaderValue::from_str(&entry.panel.meta.run_id) {
        response.headers_mut().insert(RUN_ID, id);
    }
    response
}

/// A panel just computed (and stored, when it is kept), named by its run.
fn fresh(entry: &Entry, (stream, route, conditions): Asked<'_>) -> Response {
    let mut response = Answer {
        route,
        conditions,
        stream,
        etag: &entry.etag,
        fresh_for: entry.left(),
        age: None,
    }
    .respond(entry.panel.clone());
    if let Ok(id) = HeaderValue::from_str(&entry.panel.meta.run_id) {
        response.headers_mut().insert(RUN_ID, id);
    }
    response
}

/// A run answered as it goes: JSON when it ends, or its events streamed;
/// its panel stored under `keep` when given.
async fn run(
    state: &AppState,
    stream: bool,
    input: RunInput,
    ticket: Ticket,
    keep: Option<(PanelCache, PanelKey)>,
    token_left: Option<std::time::Duration>,
) -> Response {
    let orchestrator = state.orchestrator.clone();
    if !stream {
        let panel = orchestrator.run(input, Emitter::default(), ticket).await;
        if let Some((cache, key)) = keep {
            cache.store(&key, panel.clone(), token_left).await;
        }
        let etag = cache::etag(&panel);
        let mut response = Json(panel).into_response();
        if let Ok(etag) = HeaderValue::from_str(&etag) {
            response.headers_mut().insert(header::ETAG, etag);
        }
        return response;
    }
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let run = tokio::spawn(
        async move {
            let panel = orchestrator.run(input, Emitter::new(tx), ticket).await;
            if let Some((cache, key)) = keep {
                cache.store(&key, panel, token_left).await;
            }
        }
        .in_current_span(),
    );
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
    answer(&state, (stream, Route::Get, &conditions), input).await
}

/// The caller's Graph token from `Authorization: Bearer …`, if sent.
fn bearer_token(headers: &HeaderMap) -> Result<Option<Secret>, ApiError> {
    Ok(crate::tools::http::bearer_token(headers)?)
}
