//! A scripted chat model for unit tests of the agent's nodes: it answers
//! each call with the next scripted reply and records what it was sent.

use std::{collections::VecDeque, sync::Mutex};

use futures::future::BoxFuture;
use serde_json::Value;

use super::{
    ChatModel, ChatOptions, LlmError,
    chat::{Completion, FinishReason, Message, ToolCall, Usage},
};

/// One scripted reply.
pub enum Reply {
    /// Tool calls: (tool name, arguments).
    Tools(Vec<(&'static str, Value)>),
    /// A text answer (the final JSON, or anything else).
    Text(String),
    Fail(LlmError),
}

/// Answers with its script, in order; fails `Malformed` once it runs out.
#[derive(Default)]
pub struct ScriptedModel {
    script: Mutex<VecDeque<Reply>>,
    /// The messages of every call, in order.
    pub received: Mutex<Vec<Vec<Message>>>,
    /// Per call: the names of the tools offered, and whether the final
    /// answer's JSON schema was asked for.
    pub offered: Mutex<Vec<(Vec<String>, bool)>>,
    /// Token usage each reply reports.
    usage: Option<(u64, u64)>,
}

impl ScriptedModel {
    pub fn new(script: impl IntoIterator<Item = Reply>) -> Self {
        Self {
            script: Mutex::new(script.into_iter().collect()),
            ..Self::default()
        }
    }

    /// Each reply reports `prompt` and `completion` tokens used.
    pub fn with_usage(mut self, prompt: u64, completion: u64) -> Self {
        self.usage = Some((prompt, completion));
        self
    }
}

impl ChatModel for ScriptedModel {
    fn model(&self) -> &str {
        "scripted"
    }

    fn chat<'a>(
        &'a self,
        messages: &'a [Message],
        options: ChatOptions<'a>,
    ) -> BoxFuture<'a, Result<Completion, LlmError>> {
        self.received.lock().unwrap().push(messages.to_vec());
        let names = options.tools.iter().map(|t| t.name.clone());
        self.offered
            .lock()
            .unwrap()
            .push((names.collect(), options.response_format.is_some()));
        let usage = self.usage.map(|(input_tokens, output_tokens)| Usage {
            input_tokens,
            output_tokens,
        });
        let reply = self.script.lock().unwrap().pop_front();
        Box::pin(async move {
            let (message, finish) = match reply.ok_or(LlmError::Malformed)? {
                Reply::Fail(e) => return Err(e),
                Reply::Text(text) => (
                    Message::assistant(Some(text), Vec::new()),
                    FinishReason::Stop,
                ),
                Reply::Tools(calls) => {
                    let calls = calls
                        .into_iter()
                        .enumerate()
                        .map(|(i, (name, args))| ToolCall {
                            id: format!("call_{i}"),
                            name: name.into(),
                            arguments: args.to_string(),
                        })
                        .collect();
                    (Message::assistant(None, calls), FinishReason::ToolCalls)
                }
            };
            Ok(Completion {
                message,
                finish: Some(finish),
                usage,
                id: None,
                model: None,
            })
        })
    }
}
