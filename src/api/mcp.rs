//! `/mcp`: the tool server's Streamable HTTP door (`tools::http`) mounted in
//! the app behind the same edge as `/api` — API keys, then the `Origin`
//! check, a well-formed `Authorization`, the body's size cap and deadline,
//! and the session cap's 503. `get_suggestions` answers through the same
//! panels service as `POST /api/suggestions` (cache, coalescing, admission,
//! a deadline counted from the HTTP request's arrival).

use std::sync::Arc;

use axum::{
    Router,
    body::Body,
    extract::{Request, State},
    http::{Method, StatusCode, header},
    middleware::{self, Next},
    response::Response,
};
use futures::future::BoxFuture;
use serde::Deserialize;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{AppState, error::ApiError, extract, validate};
use crate::{
    agent::RunInput,
    contract::{CombinedSuggestionsResponse, SuggestionsRequest},
    panels::{Asked, Overloaded, Panels},
    settings::Secret,
    tools::{
        InvalidRequest, PanelSource, Refused, SuggestionTools,
        http::{self as door, CappedSessions},
    },
};

/// The `/mcp` route; its sessions end when `shutdown` is cancelled.
pub fn router(state: &AppState, shutdown: CancellationToken) -> Router<AppState> {
    let sessions = Arc::new(CappedSessions::new(&state.settings.mcp));
    let panels = Arc::new(McpPanels(state.panels.clone()));
    let tools = SuggestionTools::http(state.tools.clone(), panels);
    let service = door::service(tools, sessions.clone(), extract::BODY_LIMIT, shutdown);
    let edge = Edge {
        sessions,
        origins: state.settings.server.cors_origins.clone().into(),
    };
    Router::new()
        .route_service("/mcp", service)
        .layer(middleware::from_fn_with_state(edge, guard))
}

/// What the edge checks `/mcp` requests against.
#[derive(Clone)]
struct Edge {
    sessions: Arc<CappedSessions>,
    origins: Arc<[String]>,
}

/// The fields of a JSON-RPC message the edge looks at.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    method: Option<&'a str>,
}

async fn guard(State(edge): State<Edge>, req: Request, next: Next) -> Result<Response, ApiError> {
    // The MCP specification's DNS-rebinding defence: a browser page may reach
    // the tools only from an origin the operator allowed (as CORS does).
    if let Some(origin) = req.headers().get(header::ORIGIN)
        && !edge
            .origins
            .iter()
            .any(|o| o.as_bytes() == origin.as_bytes())
    {
        return Err(ApiError::OriginNotAllowed);
    }
    door::bearer_token(req.headers())?;
    if req.method() == Method::DELETE {
        // rmcp answers a session's DELETE 202; MCP clients (the official
        // Python SDK among them) expect the session gone: 204.
        let mut response = next.run(req).await;
        if response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        return Ok(response);
    }
    if req.method() != Method::POST {
        return Ok(next.run(req).await);
    }
    // rmcp reads bodies without a deadline: read it here, within the same
    // size cap and deadline as `/api`.
    let deadline = extract::body_deadline(req.extensions());
    let (parts, body) = req.into_parts();
    let read = axum::body::to_bytes(body, extract::BODY_LIMIT);
    let bytes = match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline, read)
            .await
            .map_err(|_| ApiError::RequestTimeout)?,
        None => read.await,
    }
    .map_err(|_| ApiError::PayloadTooLarge(extract::BODY_LIMIT))?;
    // Only when no session is free does it matter what the message is.
    if edge.sessions.full()
        && serde_json::from_slice::<Message>(&bytes).is_ok_and(|m| m.method == Some("initialize"))
    {
        return Err(ApiError::McpSessionsFull);
    }
    Ok(next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await)
}

/// `get_suggestions`' panels: validated as `POST /api/suggestions` bodies,
/// answered by the panels service as JSON bodies are.
struct McpPanels(Arc<Panels>);

impl PanelSource for McpPanels {
    fn panel(
        &self,
        request: SuggestionsRequest,
        graph_token: Option<Secret>,
        arrived: Instant,
    ) -> BoxFuture<'_, Result<CombinedSuggestionsResponse, Refused>> {
        Box::pin(async move {
            let req = validate::suggestions(request).map_err(|e| Refused::Invalid(explain(e)))?;
            let input = RunInput::for_request(req, graph_token, arrived);
            match self.0.panel(input, Asked::default()).await {
                Ok(served) => Ok(served.panel),
                Err(Overloaded { retry_after_secs }) => {
                    Err(Refused::Overloaded { retry_after_secs })
                }
            }
        })
    }
}

/// A validation error, with its field.
fn explain(e: ApiError) -> InvalidRequest {
    match e {
        ApiError::Invalid { message, field } => InvalidRequest { field, message },
        e => InvalidRequest {
            field: None,
            message: e.to_string(),
        },
    }
}
