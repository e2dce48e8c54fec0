//! toolExec: runs the round's tool calls in parallel through the MCP client.
//! Unknown tools, bad arguments and tool failures become tool messages with an
//! error text (the run goes on); calls beyond the per-round cap are skipped;
//! an identical call already made is answered from the run's memo.

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tokio::time::Instant;
use tracing::Instrument;

use super::{
    events::RunEvent,
    graph::{Node, NodeName, StepReport},
    state::{RunCtx, RunState},
};
use crate::{
    degraded::Degraded,
    llm::LlmError,
    llm::wire::{ChatMessage, ToolCall},
};

pub const NAME: NodeName = "toolExec";

pub struct ToolExec<'a>(pub &'a RunCtx<'a>);

/// How one call ended: the content for the model and whether it is an error.
struct Outcome {
    content: String,
    ok: bool,
    /// The call named no offered tool or its arguments were rejected.
    invalid: bool,
    memo_key: Option<(String, String)>,
}

impl<'c> Node<RunState, LlmError> for ToolExec<'c> {
    fn name(&self) -> NodeName {
        NAME
    }

    fn run<'a>(&'a self, state: &'a mut RunState) -> BoxFuture<'a, Result<StepReport, LlmError>> {
        Box::pin(async move {
            let ctx = self.0;
            let calls: Vec<ToolCall> = state.pending_tool_calls().to_vec();
            if calls.len() > ctx.max_tool_calls && !state.degraded.contains(&Degraded::ToolCallCap)
            {
                state.degraded.push(Degraded::ToolCallCap);
            }
            let runs = calls.iter().enumerate().map(|(i, call)| {
                let memo = &state.memo;
                async move {
                    if i >= ctx.max_tool_calls {
                        return Outcome {
                            content: format!(
                                "error: skipped, at most {} tool calls per round",
                                ctx.max_tool_calls
                            ),
                            ok: false,
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
            if outcomes.iter().any(|o| o.invalid) && !state.degraded.contains(&invalid) {
                state.degraded.push(invalid);
            }
            for (call, outcome) in calls.iter().zip(outcomes) {
                if let Some(key) = outcome.memo_key.filter(|_| outcome.ok) {
                    state.memo.insert(key, outcome.content.clone());
                }
                state
                    .messages
                    .push(ChatMessage::tool(call.id.clone(), outcome.content));
            }
            Ok(StepReport {
                tool_calls: calls.iter().map(|c| c.function.name.clone()).collect(),
            })
        })
    }
}

async fn execute(
    ctx: &RunCtx<'_>,
    memo: &std::collections::HashMap<(String, String), String>,
    call: &ToolCall,
) -> Outcome {
    let name = call.function.name.as_str();
    let started = Instant::now();
    let span = tracing::debug_span!("execute_tool", gen_ai.tool.name = name);
    let fail = |kind: &'static str, content: String| {
        let invalid = matches!(kind, "unknown_tool" | "invalid_arguments");
        span.in_scope(|| tracing::warn!(tool = name, error.kind = kind, "tool call failed"));
        ctx.events.emit(RunEvent::Tool {
            tool: name.to_owned(),
            ok: false,
            count: 0,
            elapsed_ms: started.elapsed().as_millis() as u64,
        });
        Outcome {
            content,
            ok: false,
            invalid,
            memo_key: None,
        }
    };
    if !ctx.tools.iter().any(|t| t.function.name == name) {
        return fail(
            "unknown_tool",
            format!("error: unknown tool '{}'", crate::tools::truncate(name, 64)),
        );
    }
    let args: Map<String, Value> = match serde_json::from_str(&call.function.arguments) {
        Ok(Value::Object(map)) => map,
        Ok(_) | Err(_) => {
            return fail(
                "invalid_arguments",
                "error: arguments must be a JSON object".to_owned(),
            );
        }
    };
    let key = (name.to_owned(), Value::Object(args.clone()).to_string());
    if let Some(content) = memo.get(&key) {
        span.in_scope(|| tracing::debug!(tool = name, "answered from the run's memo"));
        return Outcome {
            content: content.clone(),
            ok: true,
            invalid: false,
            memo_key: None,
        };
    }
    let result = ctx
        .conn
        .call(ctx.session, name, args)
        .instrument(span.clone())
        .await;
    let elapsed_ms = started.elapsed().as_millis() as u64;
    match result {
        Ok(out) if !out.is_error => {
            let count = serde_json::from_str::<Vec<serde::de::IgnoredAny>>(&out.text)
                .ok()
                .map(|v| v.len())
                .unwrap_or(usize::from(!out.text.is_empty()));
            span.in_scope(|| tracing::debug!(tool = name, count, elapsed_ms, "tool call done"));
            ctx.events.emit(RunEvent::Tool {
                tool: name.to_owned(),
                ok: true,
                count,
                elapsed_ms,
            });
            Outcome {
                content: out.text,
                ok: true,
                invalid: false,
                memo_key: Some(key),
            }
        }
        // The tool's own argument checks (an empty or too long query).
        Ok(out) if out.text.starts_with("invalid argument") => {
            fail("invalid_arguments", format!("error: {}", out.text))
        }
        Ok(out) => fail("tool_error", format!("error: {}", out.text)),
        Err(_) => fail(
            "invalid_arguments",
            "error: the call was rejected (check the arguments against the tool's schema)"
                .to_owned(),
        ),
    }
}
