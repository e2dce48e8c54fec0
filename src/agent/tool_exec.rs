//! toolExec: runs the round's tool calls in parallel through the MCP client.
//! Unknown tools, bad arguments and tool failures become tool messages with an
//! error text (the run goes on); calls beyond the per-round cap are skipped;
//! an identical call already made is answered from the run's memo.

use futures::future::BoxFuture;
use serde_json::Value;

use super::{
    state::{RunCtx, RunState},
    state_graph::{Node, NodeName, StepReport},
    tool_call::{Answered, Called, Tool, ToolFailure, Traced},
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
    memo_key: Option<(String, String)>,
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
            let runs = calls.iter().enumerate().map(|(i, call)| {
                let memo = &state.memo;
                async move {
                    if i >= ctx.max_tool_calls {
                        return Outcome {
                            reply: Reply::Text(format!(
                                "error: skipped, at most {} tool calls per round",
                                ctx.max_tool_calls
                            )),
                            invalid: false,
                            memo_key: None,
                        };
                    }
                    execute(ctx, memo, call).await
                }
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
                    Reply::Results(answered) => {
                        let content = answered.for_model(&ctx.run.findings);
                        if let Some(key) = outcome.memo_key {
                            state.memo.insert(key, answered);
                        }
                        content
                    }
                };
                state.messages.push(Message::tool(call.id.clone(), content));
            }
            Ok(StepReport {
                tool_calls: calls.iter().map(|c| c.name.clone()).collect(),
            })
        })
    }
}

async fn execute(
    ctx: &RunCtx<'_>,
    memo: &std::collections::HashMap<(String, String), Answered>,
    call: &ToolCall,
) -> Outcome {
    let name = call.name.as_str();
    let traced = Traced::start(name, Some(&call.id), &ctx.events);
    let error = |content: String, invalid: bool| Outcome {
        reply: Reply::Text(content),
        invalid,
        memo_key: None,
    };
    let offered = ctx.tools.iter().any(|t| t.name == name);
    let Some(tool) = Tool::named(name).filter(|_| offered) else {
        traced.failed(ToolFailure::UnknownTool);
        let name = crate::tools::truncate(name, 64);
        return error(format!("error: unknown tool '{name}'"), true);
    };
    let Ok(Value::Object(args)) = serde_json::from_str(&call.arguments) else {
        traced.failed(ToolFailure::InvalidArguments);
        return error("error: arguments must be a JSON object".to_owned(), true);
    };
    let key = (name.to_owned(), Value::Object(args.clone()).to_string());
    if let Some(answered) = memo.get(&key) {
        traced
            .span()
            .in_scope(|| tracing::debug!(tool = name, "answered from the run's memo"));
        return Outcome {
            reply: Reply::Results(answered.clone()),
            invalid: false,
            memo_key: None,
        };
    }
    match traced.call(tool, ctx.call_ctx(), args).await {
        Called::Answered(answered) => Outcome {
            reply: Reply::Results(answered),
            invalid: false,
            memo_key: Some(key),
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
