//! A scripted chat model for unit tests of the agent's nodes: it answers
//! each call with the next scripted reply and records what it was sent.

use std::{collections::VecDeque, sync::Mutex};

use futures::future::BoxFuture;
use serde_json::Value;

use super::{
    ChatModel, ChatOptions, LlmError,
    wire::{ChatMessage, ChatResponse, Choice, FunctionCall, Role, ToolCall, Usage},
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
    pub received: Mutex<Vec<Vec<ChatMessage>>>,
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
        messages: &'a [ChatMessage],
        options: ChatOptions<'a>,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        self.received.lock().unwrap().push(messages.to_vec());
        let names = options.tools.iter().map(|t| t.function.name.clone());
        self.offered
            .lock()
            .unwrap()
            .push((names.collect(), options.response_format.is_some()));
        let usage = self.usage.map(|(prompt_tokens, completion_tokens)| Usage {
            prompt_tokens,
            completion_tokens,
        });
        let reply = self.script.lock().unwrap().pop_front();
        Box::pin(async move {
            let message = match reply.ok_or(LlmError::Malformed)? {
                Reply::Fail(e) => return Err(e),
                Reply::Text(text) => ChatMessage {
                    role: Role::Assistant,
                    content: Some(text),
                    tool_calls: Vec::new(),
                    tool_call_id: None,
                },
                Reply::Tools(calls) => ChatMessage {
                    role: Role::Assistant,
                    content: None,
                    tool_calls: calls
                        .into_iter()
                        .enumerate()
                        .map(|(i, (name, args))| ToolCall {
                            id: format!("call_{i}"),
                            kind: "function".into(),
                            function: FunctionCall {
                                name: name.into(),
                                arguments: args.to_string(),
                            },
                        })
                        .collect(),
                    tool_call_id: None,
                },
            };
            Ok(ChatResponse {
                id: None,
                model: None,
                choices: vec![Choice {
                    message,
                    finish_reason: None,
                }],
                usage,
            })
        })
    }
}
