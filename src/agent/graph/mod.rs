//! The agent graph: START → retrieve → llmCall → (toolExec → llmCall)* →
//! formatResponse → END.
//!
//! ```text
//! START ─► retrieve ─► llmCall ─► shouldContinue? ─► toolExec ─┐
//!                        ▲            │                      │
//!                        └────────────┼──────────────────────┘
//!                                     └─► formatResponse ─► END
//! ```
//!
//! `retrieve` (pre-retrieval, `agent.pre_retrieval`) makes the first
//! searches, so that the model answers in one call when they suffice;
//! without it the graph starts at llmCall.

mod format_response;
mod llm_call;
pub mod prompt;
mod retrieve;
pub mod runtime;
mod state;
mod tool_exec;

use self::{
    format_response::FormatResponse,
    llm_call::LlmCall,
    retrieve::Retrieve,
    runtime::{END, Edge, Graph, NodeName, START, Stopped},
    state::RunState,
    tool_exec::ToolExec,
};
use super::run::{Run, RunCtx, events::RunEvent};
use crate::llm::{LlmError, chat::Message};

/// What the graph is made of for a run.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// LLM rounds at most (`agent.max_rounds`).
    pub max_rounds: u32,
    /// Start with `retrieve` (`agent.pre_retrieval`).
    pub pre_retrieval: bool,
}

/// shouldContinue: to toolExec while the model calls tools and rounds remain
/// (of `max_rounds`), else to formatResponse.
fn should_continue(run: &Run, max_rounds: u32) -> impl Fn(&RunState) -> NodeName + Send + Sync {
    move |state| {
        if !state.pending_tool_calls().is_empty() && run.rounds() < max_rounds {
            tool_exec::NAME
        } else {
            format_response::NAME
        }
    }
}

/// Runs the graph for `ctx`'s run; an LLM failure ends it with that error
/// (`Stopped::Node`). Returns the conversation.
pub async fn run(ctx: RunCtx<'_>, plan: Plan) -> Result<Vec<Message>, Stopped<LlmError>> {
    let input = ctx.input;
    let m365 = input.graph_token.is_some();
    let messages = vec![
        prompt::system(m365, plan.pre_retrieval, &input.text),
        prompt::user(&input.text, &input.tags, input.category.as_deref()),
    ];
    let mut state = RunState { messages };
    let first = if plan.pre_retrieval {
        retrieve::NAME
    } else {
        llm_call::NAME
    };
    let graph = Graph::new(2 * plan.max_rounds as usize + 2)
        .node(Retrieve(&ctx))
        .node(LlmCall(&ctx))
        .node(ToolExec(&ctx))
        .node(FormatResponse(&ctx))
        .edge(START, Edge::To(first))
        .edge(retrieve::NAME, Edge::To(llm_call::NAME))
        .edge(
            llm_call::NAME,
            Edge::branch(should_continue(ctx.run, plan.max_rounds)),
        )
        .edge(tool_exec::NAME, Edge::To(llm_call::NAME))
        .edge(format_response::NAME, Edge::To(END));
    let result = graph
        .run(&mut state, |step, _| {
            ctx.run.emit(RunEvent::Node {
                node: step.node,
                step: step.step,
                round: ctx.run.rounds(),
                elapsed_ms: ctx.run.deadline().elapsed_ms(),
                tool_calls: step.report.tool_calls.clone(),
            });
        })
        .await;
    result.map(|()| state.messages)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{
        agent::test_support::{answer, default_harness, run_with},
        degraded::Degraded,
        llm::{
            chat::Role,
            scripted::{Reply, ScriptedModel},
        },
    };

    #[tokio::test]
    async fn a_tool_round_feeds_the_model_and_its_final_answer_selects_by_ref() {
        let h = default_harness(5).await;
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
    async fn a_model_calling_tools_every_round_stops_at_the_round_cap() {
        let h = default_harness(2).await;
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
    async fn a_failing_model_ends_the_graph_with_its_own_error() {
        let h = default_harness(5).await;
        let limited = LlmError::RateLimited {
            retry_after_secs: Some(6),
        };
        let model = ScriptedModel::new([Reply::Fail(limited.clone())]);
        let result = run_with(&h, &model).await;
        assert!(matches!(result, Err(Stopped::Node(e)) if e == limited));
    }
}
