//! The MCP server "linkup-suggestions" and its tools, one file each. Two doors
//! open on the same server: the in-process connection the agent calls through
//! ([`connection`], a duplex pipe, no HTTP hop) and Streamable HTTP at `/mcp`
//! for any MCP client ([`http`]). A tool gets its arguments and its
//! [`Caller`] (the Graph token and the requesting post) and answers a typed
//! result ([`output`]); it keeps nothing of the call and reads nothing back.
//! What the tools call — Microsoft Graph, Azure OpenAI, the post index,
//! the metrics — is [`ToolDeps`], built once per app.

mod action_hint;
pub mod connection;
mod deps;
mod get_suggestions;
pub mod http;
pub mod output;
mod search_m365;
mod search_posts;
pub mod session;

use std::pin::Pin;
use std::sync::Arc;

use tracing::Instrument;

use rmcp::{
    RoleServer, ServerHandler,
    handler::server::{router::tool::ToolRouter, tool::schema_for_output, wrapper::Parameters},
    model::{CallToolResult, Implementation, ServerCapabilities, ServerConfig},
    service::RequestContext,
    tool, tool_handler, tool_router,
};

pub use action_hint::{BoardAnswer, HintArgs, board_hint, fallback_hint};
pub use deps::ToolDeps;
pub use get_suggestions::{InvalidRequest, PanelSource, Refused};
pub use search_m365::{REQUESTS_PER_SEARCH, SearchM365Args};
pub use search_posts::{
    LIMIT as POSTS_LIMIT, SearchPostsArgs, degraded_of as search_posts_degraded,
};
pub use session::{Caller, GraphBudget, SESSION_META_KEY, SessionRegistry};

use crate::{
    contract::{CombinedSuggestionsResponse, SuggestionsRequest},
    otel,
};
use output::{HintWritten, M365Found, PostsFound};

/// Longest accepted `query` argument.
pub const MAX_QUERY_CHARS: usize = 500;

/// The tool server. One instance serves the in-process connection; `/mcp`
/// clones one per MCP session.
#[derive(Clone)]
pub struct SuggestionTools {
    deps: Arc<ToolDeps>,
    door: Door,
    tool_router: ToolRouter<Self>,
}

/// Which door a server instance serves, and so where its callers come from.
#[derive(Clone)]
enum Door {
    /// The in-process connection: each request registers its caller.
    InProcess(Arc<SessionRegistry>),
    /// `/mcp`: the caller is the HTTP request's; `get_suggestions` is offered.
    Http(Arc<dyn PanelSource>),
}

impl Door {
    /// Whether search results carry their compact text: not for the
    /// in-process caller, which writes what its model reads with its own refs
    /// (the text would cross the pipe and be parsed for nothing).
    fn with_text(&self) -> bool {
        matches!(self, Self::Http(_))
    }
}

#[tool_router]
impl SuggestionTools {
    /// The server of the in-process connection (no `get_suggestions`: the
    /// orchestrator is its caller).
    pub fn in_process(deps: Arc<ToolDeps>, sessions: Arc<SessionRegistry>) -> Self {
        let mut tool_router = Self::tool_router();
        tool_router.remove_route(get_suggestions::NAME);
        Self {
            deps,
            door: Door::InProcess(sessions),
            tool_router,
        }
    }

    /// The server behind `/mcp`: every tool, panels from `panels`.
    pub fn http(deps: Arc<ToolDeps>, panels: Arc<dyn PanelSource>) -> Self {
        Self {
            deps,
            door: Door::Http(panels),
            tool_router: Self::tool_router(),
        }
    }

    /// Keyword search of the caller's Microsoft 365 (OneDrive, SharePoint, Outlook).
    #[tool(
        name = "search_m365",
        description = "Keyword search (KQL) of the user's Microsoft 365 files and mails: a few words, not a sentence.",
        output_schema = schema_for_output::<M365Found>()
    )]
    async fn search_m365(
        &self,
        Parameters(args): Parameters<SearchM365Args>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let with_text = self.door.with_text();
        self.serve_as_caller("search_m365", ctx, async |caller| {
            search_m365::run(&self.deps, &caller, args, with_text).await
        })
        .await
    }

    /// Similar LinkUp posts from the post index.
    #[tool(
        name = "search_posts",
        description = "Find LinkUp posts similar to a query, never the requesting post.",
        output_schema = schema_for_output::<PostsFound>()
    )]
    async fn search_posts(
        &self,
        Parameters(args): Parameters<SearchPostsArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let with_text = self.door.with_text();
        self.serve_as_caller("search_posts", ctx, async |caller| {
            search_posts::run(&self.deps, &caller, args, with_text).await
        })
        .await
    }

    /// One-line next-step hint for the post's author.
    #[tool(
        name = "generate_action_hint",
        description = "Write a one-line hint on what the post's author should do next, naming the most useful of the given results.",
        output_schema = schema_for_output::<HintWritten>()
    )]
    async fn generate_action_hint(
        &self,
        Parameters(args): Parameters<HintArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.serve(
            "generate_action_hint",
            ctx,
            Box::pin(action_hint::run(&self.deps, args)),
        )
        .await
    }

    /// The whole Suggestions panel for a post (`/mcp` only).
    #[tool(
        name = "get_suggestions",
        description = "The whole LinkUp Suggestions panel for a post: Microsoft 365 documents, similar posts and a next-step hint.",
        output_schema = schema_for_output::<CombinedSuggestionsResponse>()
    )]
    async fn get_suggestions(
        &self,
        Parameters(request): Parameters<SuggestionsRequest>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let Door::Http(panels) = &self.door else {
            return output::failed("get_suggestions is offered on /mcp only", None);
        };
        let caller = http::caller(&ctx);
        let arrived = http::arrived(&ctx);
        let work = Box::pin(get_suggestions::run(
            panels.as_ref(),
            caller,
            request,
            arrived,
        ));
        self.serve("get_suggestions", ctx, work).await
    }
}

impl SuggestionTools {
    /// Serves a call of `tool` made by a caller of this door: `work` with
    /// the caller, as [`Self::serve`] does.
    async fn serve_as_caller(
        &self,
        tool: &'static str,
        ctx: RequestContext<RoleServer>,
        work: impl AsyncFnOnce(Arc<Caller>) -> CallToolResult,
    ) -> CallToolResult {
        match self.caller(&ctx) {
            Ok(caller) => self.serve(tool, ctx, Box::pin(work(caller))).await,
            Err(refused) => self.serve(tool, ctx, Box::pin(async { refused })).await,
        }
    }

    /// Serves a call of `tool`: `work` in the call's span, stopped when the
    /// caller cancels, its outcome counted by door. `work` comes boxed: a
    /// tool's future holds its upstream requests (kilobytes), and each layer
    /// here and in rmcp would otherwise copy it when it moves.
    async fn serve(
        &self,
        tool: &'static str,
        ctx: RequestContext<RoleServer>,
        work: Pin<Box<impl Future<Output = CallToolResult>>>,
    ) -> CallToolResult {
        let span = call_span(tool, &ctx);
        let work = cancellable(ctx, work);
        self.recorded(tool, span, work).await
    }

    /// Runs a tool call in `span` and records it: `ok`, `error` (its source
    /// failed) or `invalid` (the call itself was wrong), by door.
    async fn recorded(
        &self,
        tool: &'static str,
        span: tracing::Span,
        work: impl Future<Output = CallToolResult>,
    ) -> CallToolResult {
        let result = work.instrument(span).await;
        let outcome = match result.is_error {
            Some(true) if output::degraded_of(&result).is_empty() => "invalid",
            Some(true) => "error",
            _ => "ok",
        };
        let door = match self.door {
            Door::InProcess(_) => "in_process",
            Door::Http(_) => "mcp",
        };
        self.deps.metrics.tool_call(tool, door, outcome);
        result
    }

    /// The caller of this call: registered in-process, or the HTTP request's.
    fn caller(&self, ctx: &RequestContext<RoleServer>) -> Result<Arc<Caller>, CallToolResult> {
        match &self.door {
            Door::InProcess(sessions) => ctx
                .meta
                .0
                .get(SESSION_META_KEY)
                .and_then(|v| v.as_str())
                .and_then(|id| sessions.get(id))
                .ok_or_else(|| {
                    output::failed(
                        "no such session: tool calls must name a live session in _meta",
                        None,
                    )
                }),
            Door::Http(_) => Ok(Arc::new(http::caller(ctx))),
        }
    }
}

/// The span of a tool call on this server: in a trace, an MCP server span
/// continuing the caller's trace when its `_meta` carries a `traceparent`
/// (the in-process agent's calls do).
fn call_span(tool: &'static str, ctx: &RequestContext<RoleServer>) -> tracing::Span {
    let span = tracing::debug_span!(
        "tools/call",
        otel.name = format!("tools/call {tool}"),
        otel.kind = "server",
        mcp.method.name = "tools/call",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool,
    );
    otel::continue_trace_in_meta(&span, &ctx.meta.0);
    span
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SuggestionTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("linkup-suggestions", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// Stops a tool when its caller cancels the call (`notifications/cancelled`).
async fn cancellable(
    ctx: RequestContext<RoleServer>,
    work: impl Future<Output = CallToolResult>,
) -> CallToolResult {
    tokio::select! {
        result = work => result,
        () = ctx.ct.cancelled() => output::failed("cancelled", None),
    }
}

/// Checks a `query` argument: 1–500 chars after trimming.
fn check_query(query: &str) -> Result<&str, CallToolResult> {
    let query = query.trim();
    let invalid = |text: String| output::failed(text, None);
    match query.chars().count() {
        0 => Err(invalid(
            "invalid argument: query must not be empty".to_owned(),
        )),
        n if n > MAX_QUERY_CHARS => Err(invalid(format!(
            "invalid argument: query is longer than {MAX_QUERY_CHARS} characters"
        ))),
        _ => Ok(query),
    }
}

/// The first `max` chars of `s`, with an ellipsis when cut.
pub fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}
