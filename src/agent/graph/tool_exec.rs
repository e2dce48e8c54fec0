//! toolExec: runs the round's tool calls in parallel through the MCP client.
//! Unknown tools, bad arguments and tool failures become tool messages with an
//! error text (the run goes on); calls beyond the per-round cap are skipped;
//! an identical call already made is answered from the run's memo.

use futures::future::BoxFuture;
use serde_json::Value;

use super::{
    runtime::{Node, NodeName, StepReport},
    state::RunState,
};
use crate::agent::run::{
    RunCtx,
    answered::Answered,
    tool_call::{Called, Tool, ToolFailure, Traced},
};
use crate::{
    degraded::Degraded,
    llm::LlmError,
    llm::chat::{Message, ToolCall},
};

pub const NAME: NodeName = "toolExec";

pub struct ToolExec<'a>(pub &'a RunCtx<'a>);

/// How one call ended: what the model reads of it.
struct Outcome {
    reply: Reply,
    /// The call named no offered tool or its arguments were rejected.
    invalid: bool,
}

/// What the model reads of a call.
enum Reply {
    /// An error or a skip.
    Text(String),
    /// Results, written once the round is over, in call order, so that a
    /// result already read is sent by its ref alone.
    Results(Answered),
}

impl<'c> Node<RunState, LlmError> for ToolExec<'c> {
    fn name(&self) -> NodeName {
        NAME
    }

    fn run<'a>(&'a self, state: &'a mut RunState) -> BoxFuture<'a, Result<StepReport, LlmError>> {
        Box::pin(async move {
            let ctx = self.0;
            let calls: Vec<ToolCall> = state.pending_tool_calls().to_vec();
            if calls.len() > ctx.max_tool_calls {
                ctx.run.note(Degraded::ToolCallCap);
            }
            let runs = calls.iter().enumerate().map(|(i, call)| async move {
                if i >= ctx.max_tool_calls {
                    return Outcome {
                        reply: Reply::Text(format!(
                            "error: skipped, at most {} tool calls per round",
                            ctx.max_tool_calls
                        )),
                        invalid: false,
                    };
                }
                execute(ctx, call).await
            });
            let outcomes = futures::future::join_all(runs).await;
            // The orchestrator completes what the model missed.
            let invalid = Degraded::ToolArgumentsInvalid;
            if outcomes.iter().any(|o| o.invalid) {
                ctx.run.note(invalid);
            }
            for (call, outcome) in calls.iter().zip(outcomes) {
                let content = match outcome.reply {
                    Reply::Text(text) => text,
                    Reply::Results(answered) => answered.for_model(&ctx.run.findings),
                };
                state.messages.push(Message::tool(call.id.clone(), content));
            }
            Ok(StepReport {
                tool_calls: calls.iter().map(|c| c.name.clone()).collect(),
            })
        })
    }
}

/// One of the model's calls, through the run's door to the tools (an
/// identical call already made is answered from the run's memo).
async fn execute(ctx: &RunCtx<'_>, call: &ToolCall) -> Outcome {
    let name = call.name.as_str();
    let error = |content: String, invalid: bool| Outcome {
        reply: Reply::Text(content),
        invalid,
    };
    let offered = ctx.tools.iter().any(|t| t.name == name);
    let Some(tool) = Tool::named(name).filter(|_| offered) else {
        Traced::start(name, Some(&call.id), ctx.run).failed(ToolFailure::UnknownTool);
        let name = crate::tools::truncate(name, 64);
        return error(format!("error: unknown tool '{name}'"), true);
    };
    let Ok(Value::Object(args)) = serde_json::from_str(&call.arguments) else {
        Traced::start(name, Some(&call.id), ctx.run).failed(ToolFailure::InvalidArguments);
        return error("error: arguments must be a JSON object".to_owned(), true);
    };
    match ctx.search(tool, args, Some(&call.id)).await {
        Called::Answered(answered) => Outcome {
            reply: Reply::Results(answered),
            invalid: false,
        },
        Called::InvalidArguments(text) => error(format!("error: {text}"), true),
        Called::ToolError(text) => error(format!("error: {text}"), false),
        // rmcp rejects arguments that do not match the tool's schema.
        Called::Failed => error(
            "error: the call was rejected (check the arguments against the tool's schema)"
                .to_owned(),
            true,
        ),
    }
}

/// toolExec in a graph run driven by a scripted model, over the real
/// in-process MCP tools.
#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{
        agent::{
            run::events::{Emitter, RunEvent},
            test_support::{
                answer, default_harness, harness, run_collecting, run_collecting_with, run_with,
            },
        },
        degraded::Degraded,
        llm::{
            chat::Role,
            scripted::{Reply, ScriptedModel},
        },
    };

    #[tokio::test]
    async fn tool_exec_collects_typed_results_under_refs_and_the_model_reads_them_compactly() {
        let h = default_harness(5).await;
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
        let h = harness(5, 2).await;
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
    async fn invalid_tool_calls_become_tool_errors_for_the_model_and_are_named() {
        let h = default_harness(5).await;
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
}
