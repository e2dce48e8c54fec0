//! The MCP server "linkup-suggestions" and its tools. One long-lived server
//! and client pair per process; each request registers its [`Session`] (the
//! caller's Graph token, post, collected results) server-side and its tool
//! calls name that session in the request's `_meta`, never in the arguments.
//! The transport lives in [`connection`], the tools in one file each.

mod action_hint;
pub mod connection;
mod search_m365;
mod search_posts;
pub mod session;

use std::sync::Arc;

use rmcp::{
    RoleServer, ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{Implementation, ServerCapabilities, ServerConfig},
    service::RequestContext,
    tool, tool_handler, tool_router,
};

pub use action_hint::{HintArgs, fallback_hint};
pub use search_m365::SearchM365Args;
pub use search_posts::SearchPostsArgs;
pub use session::{SESSION_META_KEY, Session, SessionRegistry, Source};

use std::time::Duration;

use crate::{
    llm::AzureOpenAi,
    msgraph::GraphClient,
    posts::{PostIndex, PostIndexError},
    settings::Settings,
};

/// Longest accepted `query` argument.
pub const MAX_QUERY_CHARS: usize = 500;
/// Longest description given back to the model.
pub const MAX_DESCRIPTION_CHARS: usize = 300;

/// The upstream clients every session's tools use.
pub struct ToolDeps {
    pub graph: GraphClient,
    pub posts: PostIndex,
    pub llm: AzureOpenAi,
}

impl ToolDeps {
    /// The upstream clients as `settings` configure them, sharing `http`'s
    /// connection pool, and the post index opened: the one wiring used by the
    /// app, the tests and the benches.
    pub async fn build(settings: &Settings, http: reqwest::Client) -> Result<Self, PostIndexError> {
        let llm = AzureOpenAi::new(http.clone(), &settings.azure_openai);
        let graph = GraphClient::new(
            http,
            &settings.msgraph.base_url,
            Duration::from_millis(settings.msgraph.timeout_ms),
        )
        .with_max_body_bytes(settings.msgraph.max_body_bytes);
        let posts = PostIndex::open(&settings.posts.db_path, llm.clone()).await?;
        Ok(Self { graph, posts, llm })
    }
}

/// The MCP tool server; sessions are looked up per call.
#[derive(Clone)]
pub struct SuggestionTools {
    deps: Arc<ToolDeps>,
    sessions: Arc<SessionRegistry>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl SuggestionTools {
    pub fn new(deps: Arc<ToolDeps>, sessions: Arc<SessionRegistry>) -> Self {
        Self {
            deps,
            sessions,
            tool_router: Self::tool_router(),
        }
    }

    /// Keyword search of the caller's Microsoft 365 (OneDrive, SharePoint, Outlook).
    #[tool(
        name = "search_m365",
        description = "Search the user's Microsoft 365 files, SharePoint pages and mails. Keyword based (KQL): pass a few keywords, not a sentence. Returns [{ref,title,url,description,source,sourceType,status}]."
    )]
    async fn search_m365(
        &self,
        Parameters(args): Parameters<SearchM365Args>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        let session = self.session(&ctx)?;
        cancellable(ctx, search_m365::run(&self.deps, &session, args)).await
    }

    /// Similar LinkUp posts from the post index.
    #[tool(
        name = "search_posts",
        description = "Find LinkUp posts similar to a query (the requesting post is always excluded). Returns [{ref,id,text,tags,category,authorName,...}]."
    )]
    async fn search_posts(
        &self,
        Parameters(args): Parameters<SearchPostsArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        let session = self.session(&ctx)?;
        cancellable(ctx, search_posts::run(&self.deps, &session, args)).await
    }

    /// One-line next-step hint for the post's author.
    #[tool(
        name = "generate_action_hint",
        description = "Write a one-line hint on what the post's author should do next, from results already collected in this session (pass their refs, e.g. [\"m1\",\"p2\"])."
    )]
    async fn generate_action_hint(
        &self,
        Parameters(args): Parameters<HintArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        let session = self.session(&ctx)?;
        cancellable(ctx, action_hint::run(&self.deps, &session, args)).await
    }
}

impl SuggestionTools {
    /// The session named in the call's `_meta`.
    fn session(&self, ctx: &RequestContext<RoleServer>) -> Result<Arc<Session>, String> {
        ctx.meta
            .0
            .get(SESSION_META_KEY)
            .and_then(|v| v.as_str())
            .and_then(|id| self.sessions.get(id))
            .ok_or_else(|| {
                "no such session: tool calls must name a live session in _meta".to_owned()
            })
    }
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
    work: impl Future<Output = Result<String, String>>,
) -> Result<String, String> {
    tokio::select! {
        result = work => result,
        () = ctx.ct.cancelled() => Err("cancelled".to_owned()),
    }
}

/// Checks a `query` argument: 1–500 chars after trimming.
fn check_query(query: &str) -> Result<&str, String> {
    let query = query.trim();
    match query.chars().count() {
        0 => Err("invalid argument: query must not be empty".to_owned()),
        n if n > MAX_QUERY_CHARS => Err(format!(
            "invalid argument: query is longer than {MAX_QUERY_CHARS} characters"
        )),
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
