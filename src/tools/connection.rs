//! The in-process MCP connection: a `tokio::io::duplex` pipe with the rmcp
//! server on one end and the rmcp client on the other. One per process, opened
//! at start-up: each request registers its caller and names it in each call's
//! `_meta` (measured: a connection per request cost 0.3 ms CPU and 87 KB).

use std::{borrow::Cow, sync::Arc};

use rmcp::{
    RoleClient, ServiceExt,
    model::{CallToolRequestParams, CallToolResult, RequestMetaObject, Tool},
    service::RunningService,
};
use serde_json::{Map, Value};

use super::{
    Caller, SESSION_META_KEY, SessionRegistry, SuggestionTools, ToolDeps, session::Registered,
};

/// Duplex buffer size: larger than a typical tool result (a few KB), so a
/// call rarely waits to be written. The pipe's buffers keep the largest size
/// they reached: at 256 KiB they had grown to 0.9–1.1 MB after a burst (B14).
const PIPE_BYTES: usize = 64 * 1024;

/// Why the MCP connection or a call on it failed (not a tool error).
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("MCP handshake failed")]
    Handshake(#[source] Box<rmcp::service::ClientInitializeError>),
    /// Listing the tools or calling one failed. Its message is not logged:
    /// rmcp's can quote the arguments.
    #[error("MCP call failed")]
    Call(#[source] rmcp::ServiceError),
}

/// A connected MCP client; the server task ends when this is dropped.
pub struct McpConnection {
    client: RunningService<RoleClient, ()>,
    server: tokio::task::JoinHandle<()>,
    tools: Vec<Tool>,
    sessions: Arc<SessionRegistry>,
}

impl McpConnection {
    /// Starts the server and connects a client to it; lists the tools.
    pub async fn open(deps: Arc<ToolDeps>) -> Result<Self, McpError> {
        let sessions = Arc::new(SessionRegistry::default());
        let (server_io, client_io) = tokio::io::duplex(PIPE_BYTES);
        let tools_server = SuggestionTools::in_process(deps, sessions.clone());
        // The server's handshake must run concurrently with the client's.
        let server = tokio::spawn(async move {
            match tools_server.serve(server_io).await {
                Ok(running) => {
                    let _ = running.waiting().await;
                }
                Err(e) => tracing::warn!(error.message = %e, "MCP server handshake failed"),
            }
        });
        let client = ().serve(client_io).await.map_err(|e| McpError::Handshake(Box::new(e)))?;
        let tools = client.list_all_tools().await.map_err(McpError::Call)?;
        Ok(Self {
            client,
            server,
            tools,
            sessions,
        })
    }

    /// The tools the server listed at connection (`tools/list`).
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Lists the tools again (a liveness check of the connection).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, McpError> {
        self.client.list_all_tools().await.map_err(McpError::Call)
    }

    /// Makes `caller` known to the server until the guard is dropped; calls
    /// name it by the guard's id.
    pub fn register(&self, caller: Caller) -> Registered {
        self.sessions.register(caller)
    }

    /// Stops the server: calls fail from now on (shutdown; failure tests).
    pub fn close(&self) {
        self.server.abort();
    }

    /// Calls a tool (`tools/call`) for the caller registered as `session`.
    /// Dropping the future cancels the call on the server
    /// (`notifications/cancelled`).
    pub async fn call(
        &self,
        session: &str,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, McpError> {
        let mut meta = RequestMetaObject::new();
        meta.0.insert(
            SESSION_META_KEY.to_owned(),
            Value::String(session.to_owned()),
        );
        let mut params =
            CallToolRequestParams::new(Cow::Owned(name.to_owned())).with_arguments(arguments);
        crate::otel::inject_into_meta(&mut meta.0);
        params.meta = Some(meta);
        self.client.call_tool(params).await.map_err(McpError::Call)
    }
}

impl Drop for McpConnection {
    fn drop(&mut self) {
        self.server.abort();
    }
}
