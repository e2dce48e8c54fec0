//! The agent graph: START → llmCall → (toolExec → llmCall)* → formatResponse → END.
//!
//! ```text
//! START ─► llmCall ─► shouldContinue? ─► toolExec ─┐
//!             ▲            │                      │
//!             └────────────┼──────────────────────┘
//!                          └─► formatResponse ─► END
//! ```

use super::{
    RunInput,
    events::RunEvent,
    format_response::{self, FormatResponse},
    llm_call::{self, LlmCall},
    prompt,
    run::Run,
    state::{RunCtx, RunState},
    state_graph::{END, Edge, Graph, GraphError, NodeName, START},
    tool_call::CallCtx,
    tool_exec::{self, ToolExec},
};
use crate::{
    llm::{ChatModel, LlmError},
    settings::AgentSettings,
};

pub struct Args<'a> {
    pub llm: &'a dyn ChatModel,
    /// Where tool calls go and their results are collected.
    pub call: CallCtx<'a>,
    pub tools: &'a prompt::OfferedTools,
    pub input: &'a RunInput,
    pub settings: &'a AgentSettings,
    /// The run the nodes write (its findings are `call`'s).
    pub run: &'a Run,
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
    let llm_deadline = llm_deadline(a.input.arrived, a.settings.timeout_ms);
    let ctx = RunCtx {
        llm: a.llm,
        conn: a.call.conn,
        session: a.call.session,
        run: a.run,
        tools: a.tools.for_caller(has_token),
        max_tool_calls: a.settings.max_tool_calls_per_round,
        llm_deadline,
        llm_fair_time: (llm_deadline - a.input.arrived) / 2,
        events: a.call.events.clone(),
        graph_budget: a.call.graph_budget,
    };
    let mut state = RunState {
        messages: vec![
            prompt::system(has_token, &a.input.text),
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
            a.call.events.emit(RunEvent::Node {
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

    use serde_json::json;

    use super::*;
    use crate::{
        degraded::Degraded,
        llm::{
            chat::Role,
            scripted::{Reply, ScriptedModel},
        },
        tools::Caller,
    };

    use super::super::{
        events::Emitter,
        findings::Collected,
        run::Run,
        test_support::{Harness, harness as harness_with},
    };

    async fn harness(max_rounds: u32) -> Harness {
        harness_with(max_rounds, 8).await
    }

    async fn run_with(h: &Harness, model: &ScriptedModel) -> Result<Ran, GraphError<LlmError>> {
        run_collecting(h, model).await.0
    }

    /// What a graph run left: its state's rounds and usage, and what it
    /// wrote to the run.
    #[derive(Debug)]
    struct Ran {
        llm_calls: u32,
        usage: crate::llm::chat::Usage,
        selection: Option<super::super::run::Selection>,
        degraded: Vec<Degraded>,
    }

    /// Runs the graph; also returns what the run's findings hold after it.
    async fn run_collecting(
        h: &Harness,
        model: &ScriptedModel,
    ) -> (Result<Ran, GraphError<LlmError>>, Collected) {
        run_collecting_with(h, model, Emitter::default()).await
    }

    async fn run_collecting_with(
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
        assert!(tool_message.content.as_deref().unwrap().contains("\np1 | "));
        assert!(state.degraded.is_empty(), "{:?}", state.degraded);
    }

    #[tokio::test]
    async fn llm_call_offers_the_tools_and_the_answer_schema_and_counts_rounds_and_tokens() {
        let h = harness(5).await;
        let model = ScriptedModel::new([
            Reply::Tools(vec![("search_posts", json!({"query": "pipeline"}))]),
            answer(&[]),
        ])
        .with_usage(1_000, 50);
        let state = run_with(&h, &model).await.unwrap();
        assert_eq!(state.llm_calls, 2);
        assert_eq!(
            (state.usage.input_tokens, state.usage.output_tokens),
            (2_000, 100)
        );
        let offered = model.offered.lock().unwrap();
        assert_eq!(offered.len(), 2);
        for (tools, schema) in offered.iter() {
            assert_eq!(
                tools,
                &["search_posts"],
                "no Graph token, no search_m365; never generate_action_hint"
            );
            assert!(schema, "the final answer's JSON schema is asked for");
        }
        let first = &model.received.lock().unwrap()[0];
        assert_eq!(first[0].role, Role::System);
        assert!(
            first[1]
                .content
                .as_deref()
                .unwrap()
                .contains("deployment pipeline"),
            "the post is in the user message"
        );
    }

    #[tokio::test]
    async fn tool_exec_collects_typed_results_under_refs_and_the_model_reads_them_compactly() {
        let h = harness(5).await;
        let model = ScriptedModel::new([
            Reply::Tools(vec![("search_posts", json!({"query": "pipeline"}))]),
            answer(&["p1"]),
        ]);
        let (state, found) = run_collecting(&h, &model).await;
        state.unwrap();
        assert_eq!(found.posts.len(), 1);
        assert_eq!(found.posts[0].0, "p1");
        assert_eq!(found.posts[0].1.id, "p-77");
        assert_eq!(
            found.posts[0].1.author_name, "Kim",
            "the whole post is kept"
        );
        let received = model.received.lock().unwrap();
        let read = received[1]
            .iter()
            .find(|m| m.role == Role::Tool)
            .and_then(|m| m.content.clone())
            .unwrap();
        assert_eq!(
            read,
            "ref | category | tags | text\n\
             p1 | question |  | Our deployment pipeline uses GitHub Actions",
            "one line per post, by ref: no ids, coordinates or counts"
        );
    }

    #[tokio::test]
    async fn tool_exec_answers_a_repeated_call_from_the_memo_and_skips_calls_over_the_cap() {
        let h = harness_with(5, 2).await;
        let search = || ("search_posts", json!({"query": "pipeline"}));
        let model = ScriptedModel::new([
            Reply::Tools(vec![
                search(),
                ("search_posts", json!({"query": "actions"})),
                ("search_posts", json!({"query": "third"})),
            ]),
            Reply::Tools(vec![search()]),
            answer(&["p1"]),
        ]);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (state, _) = run_collecting_with(&h, &model, Emitter::new(tx)).await;
        let state = state.unwrap();
        assert!(state.degraded.contains(&Degraded::ToolCallCap));
        let received = model.received.lock().unwrap();
        let tool_texts = |round: usize| -> Vec<String> {
            received[round]
                .iter()
                .filter(|m| m.role == Role::Tool)
                .filter_map(|m| m.content.clone())
                .collect()
        };
        let round1 = tool_texts(1);
        assert!(round1[2].contains("at most 2 tool calls"), "{round1:?}");
        let round2 = tool_texts(2);
        assert!(round1[0].contains("\np1 | question"), "{round1:?}");
        assert_eq!(
            round2[3], "ref | category | tags | text\np1 | (listed above)",
            "the repeated call got the memo's answer, by ref: nothing is sent twice"
        );
        let mut executed = 0;
        while let Ok(event) = rx.try_recv() {
            if matches!(event, RunEvent::Tool { .. }) {
                executed += 1;
            }
        }
        assert_eq!(
            executed, 2,
            "two calls ran: not the skipped one, not the memo's"
        );
    }

    #[tokio::test]
    async fn format_response_selects_by_ref_or_id_and_drops_what_no_tool_returned() {
        let h = harness(5).await;
        let model = ScriptedModel::new([
            Reply::Tools(vec![("search_posts", json!({"query": "pipeline"}))]),
            Reply::Text(
                json!({"m365": [{"url": "https://evil.example/x"}], "posts": ["p-77", "p9"],
                    "actionHint": "Read https://evil.example/x now"})
                .to_string(),
            ),
        ]);
        let state = run_with(&h, &model).await.unwrap();
        let selection = state.selection.unwrap();
        assert!(selection.m365.is_empty());
        assert_eq!(selection.posts, vec!["p1"]);
        assert_eq!(
            selection.action_hint, None,
            "a hint with an invented URL is dropped"
        );
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
