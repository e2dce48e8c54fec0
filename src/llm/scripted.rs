//! A scripted chat model for unit tests of the agent's nodes: it answers
//! each call with the next scripted reply and records what it was sent.

use std::{collections::VecDeque, sync::Mutex};

use futures::future::BoxFuture;
use serde_json::Value;

use super::{
    ChatModel, ChatOptions, LlmError,
    wire::{ChatMessage, ChatResponse, Choice, FunctionCall, Role, ToolCall},
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
}

impl ScriptedModel {
    pub fn new(script: impl IntoIterator<Item = Reply>) -> Self {
        Self {
            script: Mutex::new(script.into_iter().collect()),
            received: Mutex::default(),
        }
    }
}

impl ChatModel for ScriptedModel {
    fn chat<'a>(
        &'a self,
        messages: &'a [ChatMessage],
        _options: ChatOptions<'a>,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        self.received.lock().unwrap().push(messages.to_vec());
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
                choices: vec![Choice {
                    message,
                    finish_reason: None,
                }],
                usage: None,
            })
        })
    }
}
