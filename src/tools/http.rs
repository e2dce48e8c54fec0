//! The `/mcp` door: the tool server over MCP Streamable HTTP (rmcp's server
//! transport), a server instance per MCP session, live sessions capped and
//! idle ones closed. The caller of a call is its HTTP request's: the Graph
//! token of its `Authorization: Bearer` header. The HTTP edge (API keys,
//! `Origin`, body deadline, the cap's 503) is the app's (`api::mcp`).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::http::{HeaderMap, header, request::Parts};
use futures::Stream;
use rmcp::{
    RoleServer,
    model::{ClientJsonRpcMessage, ServerJsonRpcMessage},
    service::RequestContext,
    transport::streamable_http_server::{
        SessionId, SessionManager, StreamableHttpServerConfig, StreamableHttpService,
        session::{
            ServerSseMessage,
            local::{LocalSessionManager, LocalSessionManagerError},
        },
    },
};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use super::{Caller, SuggestionTools};
use crate::{
    server::Arrived,
    settings::{McpSettings, Secret},
};

/// The `/mcp` service.
pub type McpService = StreamableHttpService<SuggestionTools, CappedSessions>;

/// The Streamable HTTP service over `tools`, its sessions in `sessions`; every
/// session ends when `shutdown` is cancelled.
pub fn service(
    tools: SuggestionTools,
    sessions: Arc<CappedSessions>,
    max_body_bytes: usize,
    shutdown: CancellationToken,
) -> McpService {
    let config = StreamableHttpServerConfig::default()
        // A deployed service answers to names the operator chooses; the
        // DNS-rebinding defence the MCP specification asks for is the
        // `Origin` check (the app's, against `server.cors_origins`).
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(max_body_bytes)
        .with_cancellation_token(shutdown);
    StreamableHttpService::new(move || Ok(tools.clone()), sessions, config)
}

/// The caller of a `/mcp` call: the Graph token of its HTTP request.
pub(super) fn caller(ctx: &RequestContext<RoleServer>) -> Caller {
    let token = ctx
        .extensions
        .get::<Parts>()
        .and_then(|parts| bearer_token(&parts.headers).ok().flatten());
    Caller::new(token, None)
}

/// When the HTTP request of a `/mcp` call arrived (its head read); now,
/// when the door did not say.
pub(super) fn arrived(ctx: &RequestContext<RoleServer>) -> tokio::time::Instant {
    ctx.extensions
        .get::<Parts>()
        .and_then(|parts| parts.extensions.get::<Arrived>())
        .map_or_else(tokio::time::Instant::now, |a| a.0)
}

/// An `Authorization` header that is not `Bearer <token>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotBearer;

/// The bearer token of `headers`' `Authorization`, if there is one. An
/// empty token (`Bearer ` alone) is no token: the LinkUp frontend may send
/// one for a user without Microsoft 365.
pub fn bearer_token(headers: &HeaderMap) -> Result<Option<Secret>, NotBearer> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value.to_str().map_err(|_| NotBearer)?.trim();
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    // The scheme is case-insensitive (RFC 9110 §11.1).
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(NotBearer);
    }
    let token = token.trim();
    Ok((!token.is_empty()).then(|| Secret::from(token)))
}

/// rmcp's in-memory sessions, at most `mcp.max_sessions` of them, each closed
/// after `mcp.session_idle_ms` without a request.
pub struct CappedSessions {
    inner: LocalSessionManager,
    slots: Arc<Semaphore>,
    held: Mutex<HashMap<SessionId, OwnedSemaphorePermit>>,
}

/// Why a session could not be created or used.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("MCP session limit reached")]
    Full,
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

impl CappedSessions {
    pub fn new(settings: &McpSettings) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(Duration::from_millis(settings.session_idle_ms));
        Self {
            inner,
            slots: Arc::new(Semaphore::new(settings.max_sessions)),
            held: Mutex::default(),
        }
    }

    /// Whether a new session would be refused now.
    pub fn full(&self) -> bool {
        self.slots.available_permits() == 0
    }
}

impl SessionManager for CappedSessions {
    type Error = SessionError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), SessionError> {
        let permit = self
            .slots
            .clone()
            .try_acquire_owned()
            .map_err(|_| SessionError::Full)?;
        let (id, transport) = self.inner.create_session().await?;
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), permit);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionError> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, SessionError> {
        Ok(self.inner.has_session(id).await?)
    }

    /// Called on DELETE and when a session's worker ends (idle expiry, shutdown).
    async fn close_session(&self, id: &SessionId) -> Result<(), SessionError> {
        let closed = self.inner.close_session(id).await;
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        Ok(closed?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), SessionError> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}
