//! The in-process MCP connection: a `tokio::io::duplex` pipe with the rmcp
//! server on one end and the rmcp client on the other, one per request.

use std::{borrow::Cow, sync::Arc};

use rmcp::{
    RoleClient, ServiceExt,
    model::{CallToolRequestParams, Tool},
    service::RunningService,
};
use serde_json::{Map, Value};

use super::{Session, SuggestionTools, ToolDeps};

/// Duplex buffer size: larger than a typical tool result, so writes rarely wait.
const PIPE_BYTES: usize = 64 * 1024;

/// Why the MCP connection or a call on it failed (not a tool error).
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("MCP handshake failed: {0}")]
    Handshake(String),
    #[error("MCP call failed: {0}")]
    Call(String),
}

/// The text a tool answered, and whether it is a tool error.
#[derive(Debug, Clone)]
pub struct ToolOutput {
    pub text: String,
    pub is_error: bool,
}

/// A connected MCP client; the server task ends when this is dropped.
pub struct McpConnection {
    client: RunningService<RoleClient, ()>,
    server: tokio::task::JoinHandle<()>,
    tools: Vec<Tool>,
}

impl McpConnection {
    /// Starts a server for `session` and connects a client to it; lists the tools.
    pub async fn open(deps: Arc<ToolDeps>, session: Arc<Session>) -> Result<Self, McpError> {
        let (server_io, client_io) = tokio::io::duplex(PIPE_BYTES);
        // The server's handshake must run concurrently with the client's.
        let server = tokio::spawn(async move {
            match SuggestionTools::new(deps, session).serve(server_io).await {
                Ok(running) => {
                    let _ = running.waiting().await;
                }
                Err(e) => tracing::warn!(error.message = %e, "MCP server handshake failed"),
            }
        });
        let client = ().serve(client_io).await.map_err(|e| McpError::Handshake(e.to_string()))?;
        let tools = client
            .list_all_tools()
            .await
            .map_err(|e| McpError::Handshake(e.to_string()))?;
        Ok(Self {
            client,
            server,
            tools,
        })
    }

    /// The tools the server lists (`tools/list`).
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Calls a tool (`tools/call`). Dropping the future cancels the call on the server.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<ToolOutput, McpError> {
        let params =
            CallToolRequestParams::new(Cow::Owned(name.to_owned())).with_arguments(arguments);
        let result = self
            .client
            .call_tool(params)
            .await
            .map_err(|e| McpError::Call(e.to_string()))?;
        let text = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
            .collect::<Vec<_>>()
            .join("");
        Ok(ToolOutput {
            text,
            is_error: result.is_error.unwrap_or(false),
        })
    }
}

impl Drop for McpConnection {
    fn drop(&mut self) {
        self.server.abort();
    }
}
