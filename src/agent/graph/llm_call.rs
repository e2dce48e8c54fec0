//! llmCall: one chat completion with the MCP tools offered and the final
//! answer's schema; appends the assistant message and counts the round.

use futures::future::BoxFuture;
use tracing::{Instrument, field::Empty};

use super::{
    prompt,
    runtime::{Node, NodeName, StepReport},
    state::RunState,
};
use crate::agent::run::RunCtx;
use crate::{
    llm::{ChatOptions, LlmError, chat::Completion},
    otel,
};

pub const NAME: NodeName = "llmCall";

/// The most tokens an answer may have.
const MAX_TOKENS: u32 = 800;

pub struct LlmCall<'a>(pub &'a RunCtx<'a>);

impl<'c> Node<RunState, LlmError> for LlmCall<'c> {
    fn name(&self) -> NodeName {
        NAME
    }

    fn run<'a>(&'a self, state: &'a mut RunState) -> BoxFuture<'a, Result<StepReport, LlmError>> {
        Box::pin(async move {
            let ctx = self.0;
            let options = ChatOptions {
                max_tokens: Some(MAX_TOKENS),
                tools: ctx.tools,
                response_format: Some(prompt::response_format()),
            };
            let round = ctx.run.rounds() + 1;
            // Slow tools may have spent the run's LLM time: then no call is
            // made, and a call cut before its fair share is not the model's
            // failure.
            let deadline = ctx.run.deadline();
            let given = deadline
                .llm_until()
                .saturating_duration_since(tokio::time::Instant::now());
            if given.is_zero() {
                ctx.run.llm_cut_short();
                return Err(LlmError::Timeout);
            }
            let span = chat_span(ctx.llm.model(), round);
            let call = ctx
                .llm
                .chat(&state.messages, options)
                .instrument(span.clone());
            let result = tokio::time::timeout_at(deadline.llm_until(), call)
                .await
                .unwrap_or_else(|_| {
                    if given < deadline.llm_fair_time() {
                        ctx.run.llm_cut_short();
                    }
                    Err(LlmError::Timeout)
                });
            let completion = match result {
                Ok(c) => c,
                Err(e) => {
                    span.in_scope(|| {
                        tracing::warn!(round, error.kind = e.kind_str(), "LLM call failed")
                    });
                    otel::set_error(&span, e.kind_str());
                    return Err(e);
                }
            };
            record(&span, &completion, round, ctx);
            ctx.run.round_done();
            let message = completion.message;
            let report = StepReport {
                tool_calls: message.tool_calls.iter().map(|c| c.name.clone()).collect(),
            };
            state.messages.push(message);
            Ok(report)
        })
    }
}

/// The `chat` span of round `round` (OpenTelemetry GenAI conventions).
fn chat_span(model: &str, round: u32) -> tracing::Span {
    tracing::debug_span!(
        "chat",
        otel.name = format!("chat {model}"),
        otel.kind = "client",
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = otel::PROVIDER,
        gen_ai.request.model = model,
        gen_ai.request.temperature = 0.0,
        gen_ai.request.max_tokens = MAX_TOKENS,
        gen_ai.response.model = Empty,
        gen_ai.response.id = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        round,
    )
}

/// What the answer says about itself, on its span and the run's stream.
fn record(span: &tracing::Span, completion: &Completion, round: u32, ctx: &RunCtx<'_>) {
    span.record("gen_ai.response.model", completion.model.as_deref());
    span.record("gen_ai.response.id", completion.id.as_deref());
    otel::set_strings(
        span,
        "gen_ai.response.finish_reasons",
        completion.finish.map(|f| f.as_str().to_owned()),
    );
    if let Some(u) = completion.usage {
        span.record("gen_ai.usage.input_tokens", u.input_tokens);
        span.record("gen_ai.usage.output_tokens", u.output_tokens);
        span.in_scope(|| {
            tracing::debug!(
                gen_ai.usage.input_tokens = u.input_tokens,
                gen_ai.usage.output_tokens = u.output_tokens,
                "chat done"
            );
        });
        ctx.run.usage(round, u.input_tokens, u.output_tokens);
    }
}

/// llmCall in a graph run driven by a scripted model.
#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{
        agent::test_support::{answer, default_harness, run_with},
        llm::{
            chat::Role,
            scripted::{Reply, ScriptedModel},
        },
    };

    #[tokio::test]
    async fn llm_call_offers_the_tools_and_the_answer_schema_and_counts_rounds_and_tokens() {
        let h = default_harness(5).await;
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
}
