//! What a chat deployment takes, by its model family: sampling parameters
//! and `max_tokens` for chat models, `reasoning_effort` and none of those
//! for reasoning models (o1, o3, o4-mini, the gpt-5 family); and what its
//! documented refusals teach (a parameter left out from then on).

use std::collections::BTreeSet;

use super::{
    AzureOpenAi, ChatOptions, LlmError,
    chat::Message,
    wire::{self, ChatRequest, ChatResponse},
};
use crate::settings::ModelFamily;

/// What a chat deployment's answers taught.
#[derive(Debug, Default, Clone)]
pub(super) struct Learned {
    /// Azure reported a reasoning model answering.
    reasoning: bool,
    /// Parameters it refused, left out from then on.
    dropped: BTreeSet<String>,
}

/// Retries of a chat call that taught a refused parameter.
pub(super) const MAX_LEARNING_RETRIES: u32 = 3;

/// Dropped after `json_object` was refused as well: no `response_format`.
const JSON_OBJECT: &str = "response_format:json_object";

/// Model name prefixes of the reasoning families (as Azure reports them:
/// `o4-mini-2025-04-16`, `gpt-5-mini-2025-08-07`).
const REASONING_MODELS: [&str; 4] = ["o1", "o3", "o4", "gpt-5"];

impl AzureOpenAi {
    /// The chat deployment's family as used now (`chat` or `reasoning`) and
    /// the parameters it refused (left out since).
    pub fn chat_family(&self) -> (&'static str, Vec<String>) {
        let learned = self.learned();
        let family = if self.reasoning(&learned) {
            "reasoning"
        } else {
            "chat"
        };
        (family, learned.dropped.into_iter().collect())
    }

    pub(super) fn learned(&self) -> Learned {
        self.inner
            .learned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn reasoning(&self, learned: &Learned) -> bool {
        match self.inner.family {
            ModelFamily::Reasoning => true,
            ModelFamily::Chat => false,
            ModelFamily::Auto => learned.reasoning,
        }
    }

    /// The request for this deployment as it is known now.
    pub(super) fn chat_request<'a>(
        &'a self,
        messages: &'a [Message],
        options: &ChatOptions<'a>,
        learned: &Learned,
    ) -> ChatRequest<'a> {
        let takes = |param: &str| !learned.dropped.contains(param);
        let reasoning = self.reasoning(learned);
        let (max_completion_tokens, max_tokens) = if takes("max_completion_tokens") {
            (options.max_tokens, None)
        } else {
            (None, options.max_tokens)
        };
        ChatRequest {
            model: self.inner.v1.then_some(self.inner.chat_deployment.as_str()),
            messages: wire::Messages(messages),
            temperature: (!reasoning && takes("temperature")).then_some(0.0),
            max_completion_tokens,
            max_tokens,
            tools: wire::Tools(options.tools),
            parallel_tool_calls: (!options.tools.is_empty() && takes("parallel_tool_calls"))
                .then_some(true),
            reasoning_effort: (reasoning && takes("reasoning_effort"))
                .then_some(self.inner.reasoning_effort.as_str()),
            response_format: match options.response_format {
                Some(_) if !takes(JSON_OBJECT) => None,
                // A model without structured outputs is asked for JSON; the
                // answer is checked against the schema where it is parsed.
                Some(_) if !takes("response_format") => Some(wire::ResponseFormat::JsonObject),
                Some(answer) => Some(wire::ResponseFormat::JsonSchema {
                    json_schema: wire::JsonSchema {
                        name: answer.name,
                        strict: true,
                        schema: &answer.schema,
                    },
                }),
                None => None,
            },
        }
    }

    /// Learns from an answer: a refused parameter (true: worth a retry
    /// without it) or the model Azure reports.
    pub(super) fn learn(&self, result: &Result<ChatResponse, LlmError>) -> bool {
        let mut learned = self.inner.learned.lock().unwrap_or_else(|p| p.into_inner());
        match result {
            Ok(response) => {
                let model = response.model.as_deref().unwrap_or_default();
                if !learned.reasoning && REASONING_MODELS.iter().any(|p| model.starts_with(p)) {
                    learned.reasoning = true;
                    tracing::info!(
                        deployment = %self.inner.chat_deployment,
                        model,
                        "the chat deployment is a reasoning model: no sampling parameters from now on"
                    );
                }
                false
            }
            Err(LlmError::Unsupported { param })
                if learned.dropped.insert(param.clone())
                    || (param == "response_format"
                        && learned.dropped.insert(JSON_OBJECT.into())) =>
            {
                tracing::warn!(
                    deployment = %self.inner.chat_deployment,
                    param = %param,
                    "the chat deployment refused a parameter: left out from now on"
                );
                true
            }
            Err(_) => false,
        }
    }
}
