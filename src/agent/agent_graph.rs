//! The agent graph: START → llmCall → (toolExec → llmCall)* → formatResponse → END.
//!
//! ```text
//! START ─► llmCall ─► shouldContinue? ─► toolExec ─┐
//!             ▲            │                      │
//!             └────────────┼──────────────────────┘
//!                          └─► formatResponse ─► END
//! ```

use std::sync::atomic::{AtomicU32, Ordering};

use super::{
    RunInput,
    events::{Emitter, RunEvent},
    format_response::{self, FormatResponse},
    graph::{END, Edge, Graph, GraphError, NodeName, START},
    llm_call::{self, LlmCall},
    prompt,
    state::{RunCtx, RunState},
    tool_exec::{self, ToolExec},
};
use crate::{
    llm::{ChatModel, LlmError},
    settings::AgentSettings,
    tools::{Session, connection::McpConnection},
};

pub struct Args<'a> {
    pub llm: &'a dyn ChatModel,
    pub conn: &'a McpConnection,
    pub tools: &'a prompt::OfferedTools,
    pub session: &'a Session,
    pub input: &'a RunInput,
    pub events: &'a Emitter,
    pub settings: &'a AgentSettings,
    /// Updated after every step, so a deadline still knows the round count.
    pub rounds: &'a AtomicU32,
}

/// When LLM calls must end: the deadline minus a reserve for the fallback
/// (a quarter of the budget, at most 3 s).
fn llm_deadline(arrived: tokio::time::Instant, timeout_ms: u64) -> tokio::time::Instant {
    let reserve = (timeout_ms / 4).min(3_000);
    arrived + std::time::Duration::from_millis(timeout_ms - reserve)
}

/// shouldContinue: to toolExec while the model calls tools and rounds remain,
/// else to formatResponse.
fn should_continue(state: &RunState) -> NodeName {
    if !state.pending_tool_calls().is_empty() && state.llm_calls < state.max_rounds {
        tool_exec::NAME
    } else {
        format_response::NAME
    }
}

/// Runs the graph; an LLM failure ends it with that error (`GraphError::Node`).
pub async fn run(a: Args<'_>) -> Result<RunState, GraphError<LlmError>> {
    let has_token = a.input.graph_token.is_some();
    let ctx = RunCtx {
        llm: a.llm,
        conn: a.conn,
        session: a.session,
        tools: a.tools.for_caller(has_token),
        max_tool_calls: a.settings.max_tool_calls_per_round,
        llm_deadline: llm_deadline(a.input.arrived, a.settings.timeout_ms),
        events: a.events.clone(),
    };
    let mut state = RunState {
        messages: vec![
            prompt::system(has_token),
            prompt::user(&a.input.text, &a.input.tags, a.input.category.as_deref()),
        ],
        max_rounds: a.settings.max_rounds,
        ..RunState::default()
    };
    let graph = Graph::new(2 * a.settings.max_rounds as usize + 1)
        .node(LlmCall(&ctx))
        .node(ToolExec(&ctx))
        .node(FormatResponse(&ctx))
        .edge(START, Edge::To(llm_call::NAME))
        .edge(llm_call::NAME, Edge::Branch(should_continue))
        .edge(tool_exec::NAME, Edge::To(llm_call::NAME))
        .edge(format_response::NAME, Edge::To(END));
    let result = graph
        .run(&mut state, |step, s| {
            a.rounds.store(s.llm_calls, Ordering::Relaxed);
            a.events.emit(RunEvent::Node {
                node: step.node,
                step: step.step,
                round: s.llm_calls,
                elapsed_ms: a.input.arrived.elapsed().as_millis() as u64,
                tool_calls: step.report.tool_calls.clone(),
            });
        })
        .await;
    result.map(|()| state)
}

/// llmCall → toolExec → formatResponse driven by a scripted model (no HTTP
/// to an LLM), over the real in-process MCP tools and a temporary post index.
#[cfg(test)]
mod tests {
    use std::sync::{Arc, atomic::AtomicU32};

    use serde_json::json;

    use super::*;
    use crate::{
        contract::{PostCategory, PostMode, PostSummary},
        degraded::Degraded,
        llm::{
            scripted::{Reply, ScriptedModel},
            wire::Role,
        },
        settings::Settings,
        tools::{Session, ToolDeps},
    };

    struct Harness {
        conn: McpConnection,
        tools: prompt::OfferedTools,
        settings: AgentSettings,
        _dir: tempfile::TempDir,
    }

    async fn harness(max_rounds: u32) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("posts.db").display().to_string();
        let env = [("LINKUP__POSTS__DB_PATH".to_owned(), db)].into();
        let mut settings = Settings::load_from(std::path::Path::new("config"), env).unwrap();
        settings.azure_openai.endpoint = None;
        settings.agent.max_rounds = max_rounds;
        let deps = ToolDeps::build(&settings, crate::http_client().unwrap())
            .await
            .unwrap();
        deps.posts
            .upsert(vec![PostSummary {
                id: "p-77".into(),
                author_id: "u".into(),
                author_name: "Kim".into(),
                text: "Our deployment pipeline uses GitHub Actions".into(),
                tags: vec![],
                lat: 0.0,
                lng: 0.0,
                mode: PostMode::Online,
                category: PostCategory::Question,
                created_at: "2026-11-01T00:00:00Z".into(),
                expires_at: "2099-01-01T00:00:00Z".into(),
                interested_count: 0,
                join_count: 0,
            }])
            .await
            .unwrap();
        let conn = McpConnection::open(Arc::new(deps)).await.unwrap();
        Harness {
            tools: prompt::OfferedTools::new(conn.tools()),
            conn,
            settings: settings.agent,
            _dir: dir,
        }
    }

    async fn run_with(
        h: &Harness,
        model: &ScriptedModel,
    ) -> Result<RunState, GraphError<LlmError>> {
        let text = "How do I set up a deployment pipeline?";
        let session = Session::new(None, "p-new".into(), text.into());
        let _registered = h.conn.register(session.clone());
        let input = RunInput {
            post_id: "p-new".into(),
            text: text.into(),
            tags: vec![],
            category: None,
            graph_token: None,
            arrived: tokio::time::Instant::now(),
        };
        run(Args {
            llm: model,
            conn: &h.conn,
            tools: &h.tools,
            session: &session,
            input: &input,
            events: &Emitter::default(),
            settings: &h.settings,
            rounds: &AtomicU32::new(0),
        })
        .await
    }

    fn answer(posts: &[&str]) -> Reply {
        Reply::Text(json!({"m365": [], "posts": posts, "actionHint": "Ask Kim."}).to_string())
    }

    #[tokio::test]
    async fn a_tool_round_feeds_the_model_and_its_final_answer_selects_by_ref() {
        let h = harness(5).await;
        let model = ScriptedModel::new([
            Reply::Tools(vec![(
                "search_posts",
                json!({"query": "deployment pipeline"}),
            )]),
            answer(&["p1"]),
        ]);
        let state = run_with(&h, &model).await.unwrap();
        assert_eq!(state.llm_calls, 2);
        let selection = state.selection.unwrap();
        assert_eq!(selection.posts, vec!["p1"]);
        assert_eq!(selection.action_hint.as_deref(), Some("Ask Kim."));
        let received = model.received.lock().unwrap();
        let tool_message = received[1].iter().find(|m| m.role == Role::Tool).unwrap();
        assert!(tool_message.content.as_deref().unwrap().contains("p-77"));
        assert!(state.degraded.is_empty(), "{:?}", state.degraded);
    }

    #[tokio::test]
    async fn an_unparseable_final_answer_keeps_the_run_and_says_so() {
        let h = harness(5).await;
        let model = ScriptedModel::new([Reply::Text("Here you go!".into())]);
        let state = run_with(&h, &model).await.unwrap();
        assert!(state.selection.is_none());
        assert_eq!(state.degraded, vec![Degraded::LlmOutputUnparseable]);
    }

    #[tokio::test]
    async fn a_model_calling_tools_every_round_stops_at_the_round_cap() {
        let h = harness(2).await;
        let search = || Reply::Tools(vec![("search_posts", json!({"query": "pipeline"}))]);
        let model = ScriptedModel::new([search(), search(), search()]);
        let state = run_with(&h, &model).await.unwrap();
        assert_eq!(state.llm_calls, 2);
        assert!(
            state.degraded.contains(&Degraded::RoundCap),
            "{:?}",
            state.degraded
        );
    }

    #[tokio::test]
    async fn invalid_tool_calls_become_tool_errors_for_the_model_and_are_named() {
        let h = harness(5).await;
        let model = ScriptedModel::new([
            Reply::Tools(vec![
                ("drop_database", json!({})),
                ("search_posts", json!({"q": "pipeline"})),
            ]),
            answer(&[]),
        ]);
        let state = run_with(&h, &model).await.unwrap();
        assert!(state.degraded.contains(&Degraded::ToolArgumentsInvalid));
        let received = model.received.lock().unwrap();
        let errors: Vec<&str> = received[1]
            .iter()
            .filter(|m| m.role == Role::Tool)
            .filter_map(|m| m.content.as_deref())
            .collect();
        assert_eq!(errors.len(), 2);
        assert!(
            errors[0].contains("unknown tool 'drop_database'"),
            "{errors:?}"
        );
        assert!(errors[1].starts_with("error:"), "{errors:?}");
    }

    #[tokio::test]
    async fn a_failing_model_ends_the_graph_with_its_own_error() {
        let h = harness(5).await;
        let limited = LlmError::RateLimited {
            retry_after_secs: Some(6),
        };
        let model = ScriptedModel::new([Reply::Fail(limited.clone())]);
        let result = run_with(&h, &model).await;
        assert!(matches!(result, Err(GraphError::Node(e)) if e == limited));
    }
}
