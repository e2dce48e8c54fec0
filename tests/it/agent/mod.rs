//! The agent path: a scripted tool-calling model (the fake Azure OpenAI) drives
//! the real graph, the real MCP tools and the fake Graph.
//! - [`panel`]: the panel it answers, and how it falls back or is cut;
//! - [`guardrails`]: what the model cannot do (repeat, loop, flood, invent);
//! - [`model_io`]: what the model is offered and told, and what a run reports;
//! - [`pre_retrieval`]: the first searches, before the model.

mod guardrails;
mod model_io;
mod panel;
mod pre_retrieval;

use serde_json::{Value, json};

use crate::support::{
    Options, TestApp, openai::ChatStep, post_body, spawn_app_with, spawn_app_with_corpus, strings,
};

pub(super) async fn agent_app(env: Vec<(&'static str, String)>) -> TestApp {
    spawn_app_with_corpus(Options {
        llm: true,
        env,
        ..Default::default()
    })
    .await
}

/// The agent app whose model decides every search (`agent.pre_retrieval`
/// off): the loop's own mechanics, nothing searched before the model.
pub(super) async fn loop_app(mut env: Vec<(&'static str, String)>) -> TestApp {
    env.push(("LINKUP__AGENT__PRE_RETRIEVAL", "false".into()));
    agent_app(env).await
}

pub(super) fn question() -> Value {
    json!({"postId": "p-new", "text": "How do I set up a deployment pipeline for our repo?", "tags": ["devops"]})
}

pub(super) fn final_answer(m365: Value, posts: Value, hint: &str) -> ChatStep {
    ChatStep::Final(json!({ "m365": m365, "posts": posts, "actionHint": hint }))
}

pub(super) fn degraded(body: &Value) -> Vec<String> {
    strings(&body["meta"]["degraded"])
}

/// The agent app with ranking by meaning: one stored post, no Graph corpus.
pub(super) async fn agent_app_with_embeddings(env: Vec<(&'static str, String)>) -> TestApp {
    let app = spawn_app_with(Options {
        llm: true,
        embeddings: true,
        env,
    })
    .await;
    app.put_post(
        "p-77",
        post_body("Our deployment pipeline uses GitHub Actions", &["devops"]),
    )
    .await;
    app
}

pub(super) fn embedding_calls(app: &TestApp) -> usize {
    app.openai
        .received()
        .iter()
        .filter(|r| r.path.ends_with("/embeddings"))
        .count()
}

/// The text of the first tool message of chat request `call`.
pub(super) fn first_tool_text(app: &TestApp, call: usize) -> String {
    app.openai.chat_requests()[call].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .unwrap()
        .to_owned()
}

pub(super) fn offered_tools(app: &TestApp, call: usize) -> Vec<String> {
    app.openai.chat_requests()[call].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}
