//! What the agent's unit tests share: the real in-process MCP tools over a
//! temporary post index holding one post, `p-77`, about a deployment
//! pipeline; no Azure OpenAI endpoint, so only a scripted model answers;
//! and the agent's graph run over them, for the nodes' tests.

use std::sync::Arc;

use serde_json::json;

use super::{
    RunInput,
    agent_graph::{Args, run},
    events::Emitter,
    findings::Collected,
    prompt,
    run::Run,
    state_graph::GraphError,
    tool_call::CallCtx,
};
use crate::{
    contract::PostSummary,
    degraded::Degraded,
    llm::{
        LlmError,
        scripted::{Reply, ScriptedModel},
    },
    settings::{AgentSettings, Settings},
    tools::Caller,
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

/// The harness with `max_rounds` and the default cap of tool calls (8).
pub async fn default_harness(max_rounds: u32) -> Harness {
    harness(max_rounds, 8).await
}

pub async fn run_with(h: &Harness, model: &ScriptedModel) -> Result<Ran, GraphError<LlmError>> {
    run_collecting(h, model).await.0
}

/// What a graph run left: its state's rounds and usage, and what it
/// wrote to the run.
#[derive(Debug)]
pub struct Ran {
    pub llm_calls: u32,
    pub usage: crate::llm::chat::Usage,
    pub selection: Option<super::run::Selection>,
    pub degraded: Vec<Degraded>,
}

/// Runs the graph; also returns what the run's findings hold after it.
pub async fn run_collecting(
    h: &Harness,
    model: &ScriptedModel,
) -> (Result<Ran, GraphError<LlmError>>, Collected) {
    run_collecting_with(h, model, Emitter::default()).await
}

pub async fn run_collecting_with(
    h: &Harness,
    model: &ScriptedModel,
    events: Emitter,
) -> (Result<Ran, GraphError<LlmError>>, Collected) {
    let text = "How do I set up a deployment pipeline?";
    let registered = h.conn.register(Caller::new(None, Some("p-new".into())));
    let ran = Run::default();
    let input = RunInput {
        run_id: RunInput::new_run_id(),
        post_id: "p-new".into(),
        text: text.into(),
        tags: vec![],
        category: None,
        graph_token: None,
        arrived: tokio::time::Instant::now(),
    };
    let result = run(Args {
        llm: model,
        call: CallCtx {
            conn: &h.conn,
            session: registered.id(),
            findings: &ran.findings,
            events: &events,
            graph_budget: &crate::tools::GraphBudget::new(6),
        },
        tools: &h.tools,
        input: &input,
        settings: &h.settings,
        run: &ran,
    })
    .await;
    let result = result.map(|state| Ran {
        llm_calls: state.llm_calls,
        usage: state.usage,
        selection: ran.selection(),
        degraded: ran.degraded(&[]),
    });
    (result, ran.findings.take())
}

pub fn answer(posts: &[&str]) -> Reply {
    Reply::Text(json!({"m365": [], "posts": posts, "actionHint": "Ask Kim."}).to_string())
}
