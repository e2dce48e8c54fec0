//! llmCall: one chat completion with the MCP tools offered and the final
//! answer's schema; appends the assistant message and counts the round.

use futures::future::BoxFuture;
use tracing::Instrument;

use super::{
    graph::{GraphError, Node, NodeName, StepReport},
    prompt,
    state::{RunCtx, RunState},
};
use crate::llm::ChatOptions;

pub const NAME: NodeName = "llmCall";

pub struct LlmCall<'a>(pub &'a RunCtx<'a>);

impl<'c> Node<RunState> for LlmCall<'c> {
    fn name(&self) -> NodeName {
        NAME
    }

    fn run<'a>(&'a self, state: &'a mut RunState) -> BoxFuture<'a, Result<StepReport, GraphError>> {
        Box::pin(async move {
            let ctx = self.0;
            let options = ChatOptions {
                max_tokens: Some(800),
                tools: ctx.tools,
                response_format: Some(prompt::response_format()),
            };
            let round = state.llm_calls + 1;
            let span = tracing::debug_span!("chat", gen_ai.operation.name = "chat", round);
            let call = ctx
                .llm
                .chat(&state.messages, options)
                .instrument(span.clone());
            let result = tokio::time::timeout_at(ctx.llm_deadline, call)
                .await
                .unwrap_or(Err(crate::llm::LlmError::Timeout));
            let response = match result {
                Ok(r) => r,
                Err(e) => {
                    span.in_scope(|| {
                        tracing::warn!(round, error.kind = e.kind(), "LLM call failed")
                    });
                    state.llm_error = Some(e);
                    return Err(GraphError::Node("llm call failed".into()));
                }
            };
            if let Some(u) = response.usage {
                span.in_scope(|| {
                    tracing::debug!(
                        gen_ai.usage.input_tokens = u.prompt_tokens,
                        gen_ai.usage.output_tokens = u.completion_tokens,
                        "chat done"
                    );
                });
                state.usage.prompt_tokens += u.prompt_tokens;
                state.usage.completion_tokens += u.completion_tokens;
            }
            state.llm_calls += 1;
            let mut message = response
                .choices
                .into_iter()
                .next()
                .map(|c| c.message)
                .ok_or_else(|| GraphError::Node("no choice".into()))?;
            message.role = crate::llm::wire::Role::Assistant;
            let report = StepReport {
                tool_calls: message
                    .tool_calls
                    .iter()
                    .map(|c| c.function.name.clone())
                    .collect(),
            };
            state.messages.push(message);
            Ok(report)
        })
    }
}

/// shouldContinue: to toolExec while the model calls tools and rounds remain.
pub fn should_continue(state: &RunState) -> NodeName {
    if !state.pending_tool_calls().is_empty() && state.llm_calls < state.max_rounds {
        super::tool_exec::NAME
    } else {
        super::format_response::NAME
    }
}
