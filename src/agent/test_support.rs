//! What the agent's unit tests share: the real in-process MCP tools over a
//! temporary post index holding one post, `p-77`, about a deployment
//! pipeline; no Azure OpenAI endpoint, so only a scripted model answers.

use std::sync::Arc;

use super::prompt;
use crate::{
    contract::PostSummary,
    settings::{AgentSettings, Settings},
    tools::{ToolDeps, connection::McpConnection},
};

pub struct Harness {
    pub deps: Arc<ToolDeps>,
    /// The store the post index was opened over.
    pub store: Arc<dyn crate::store::Store>,
    pub conn: Arc<McpConnection>,
    pub tools: prompt::OfferedTools,
    pub settings: AgentSettings,
    _dir: tempfile::TempDir,
}

/// The harness with `max_rounds` and at most `max_tool_calls` per round.
pub async fn harness(max_rounds: u32, max_tool_calls: usize) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("posts.db").display().to_string();
    let env = [("LINKUP__POSTS__DB_PATH".to_owned(), db)].into();
    let mut settings = Settings::load_from(std::path::Path::new("config"), env).unwrap();
    settings.azure_openai.endpoint = None;
    settings.agent.max_rounds = max_rounds;
    settings.agent.max_tool_calls_per_round = max_tool_calls;
    let (deps, store) = ToolDeps::open(
        &settings,
        crate::upstream::Upstreams::new(&settings).unwrap(),
        Default::default(),
    )
    .await
    .unwrap();
    deps.posts
        .upsert(vec![PostSummary::example(
            "p-77",
            "Our deployment pipeline uses GitHub Actions",
        )])
        .await
        .unwrap();
    let deps = Arc::new(deps);
    let conn = McpConnection::open(deps.clone()).await.unwrap();
    Harness {
        tools: prompt::OfferedTools::new(conn.tools()),
        conn: Arc::new(conn),
        deps,
        store,
        settings: settings.agent,
        _dir: dir,
    }
}
