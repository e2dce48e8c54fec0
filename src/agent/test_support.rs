//! What the agent's unit tests share: the real in-process MCP tools over a
//! temporary post index holding one post, `p-77`, about a deployment
//! pipeline; no Azure OpenAI endpoint, so only a scripted model answers;
//! and the agent's graph run over them, for the nodes' tests.

use std::sync::Arc;

use serde_json::json;

use super::{
    graph::{Plan, prompt, run, runtime::Stopped},
    run::{Deadline, Emitter, Run, RunCtx, RunInput, findings::Collected},
};
use crate::{
    contract::PostSummary,
    degraded::Degraded,
    llm::{
        LlmError,
        chat::Usage,
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
    let parts = crate::parts::Parts::open(
        &settings,
        crate::upstream::Upstreams::new(&settings).unwrap(),
        Default::default(),
        Default::default(),
        None,
    )
    .await
    .unwrap();
    let (deps, store) = (parts.tools(), parts.store);
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

pub async fn run_with(h: &Harness, model: &ScriptedModel) -> Result<Ran, Stopped<LlmError>> {
    run_collecting(h, model).await.0
}

/// What a graph run left: its rounds, the tokens its trail counted, and
/// what it wrote to the run.
#[derive(Debug)]
pub struct Ran {
    pub llm_calls: u32,
    pub usage: Usage,
    pub selection: Option<super::run::Selection>,
    pub degraded: Vec<Degraded>,
}

/// Runs the graph; also returns what the run's findings hold after it.
pub async fn run_collecting(
    h: &Harness,
    model: &ScriptedModel,
) -> (Result<Ran, Stopped<LlmError>>, Collected) {
    run_collecting_with(h, model, Emitter::default()).await
}

pub async fn run_collecting_with(
    h: &Harness,
    model: &ScriptedModel,
    events: Emitter,
) -> (Result<Ran, Stopped<LlmError>>, Collected) {
    run_planned(h, model, events, false).await
}

/// Runs the graph, starting with `retrieve` when `pre_retrieval` (else the
/// loop as the model drives it: no searches of the run's own first).
pub async fn run_planned(
    h: &Harness,
    model: &ScriptedModel,
    events: Emitter,
    pre_retrieval: bool,
) -> (Result<Ran, Stopped<LlmError>>, Collected) {
    let text = "How do I set up a deployment pipeline?";
    let registered = h.conn.register(Caller::new(None, Some("p-new".into())));
    let input = RunInput {
        run_id: RunInput::new_run_id(),
        post_id: "p-new".into(),
        text: text.into(),
        tags: vec![],
        category: None,
        graph_token: None,
        arrived: tokio::time::Instant::now(),
    };
    let timeout = std::time::Duration::from_millis(h.settings.timeout_ms);
    let ran = Run::new(Deadline::new(input.arrived, timeout), events);
    let ctx = RunCtx {
        input: &input,
        posts: &h.deps.posts,
        board: &h.deps.board,
        conn: &h.conn,
        session: registered.id(),
        run: &ran,
        llm: model,
        tools: h.tools.for_caller(false),
        max_tool_calls: h.settings.max_tool_calls_per_round,
        brownout: false,
    };
    let plan = Plan {
        max_rounds: h.settings.max_rounds,
        pre_retrieval,
    };
    let result = run(ctx, plan).await;
    let trail = ran.take_trail();
    let result = result.map(|_| Ran {
        llm_calls: ran.rounds(),
        usage: trail
            .llm_usage
            .iter()
            .fold(Usage::default(), |sum, u| Usage {
                input_tokens: sum.input_tokens + u.input_tokens,
                output_tokens: sum.output_tokens + u.output_tokens,
            }),
        selection: ran.selection(),
        degraded: ran.degraded(&[]),
    });
    (result, ran.findings.take())
}

pub fn answer(posts: &[&str]) -> Reply {
    Reply::Text(json!({"m365": [], "posts": posts, "actionHint": "Ask Kim."}).to_string())
}
