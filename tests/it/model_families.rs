//! Every current chat model family on both API shapes, against a fake that
//! refuses what each family refuses with Azure's documented error bodies:
//! reasoning models take no sampling parameters and no `max_tokens` (o3 no
//! parallel tool calls either), older chat models no `json_schema` format.

use serde_json::{Value, json};

use crate::support::{
    Options, TestApp,
    graph::TOKEN,
    openai::{ChatStep, Received},
    spawn_app_with_corpus,
};

async fn app(deployment: &str, api_version: &str, family: &str) -> TestApp {
    spawn_app_with_corpus(Options {
        llm: true,
        env: vec![
            ("LINKUP__AZURE_OPENAI__CHAT_DEPLOYMENT", deployment.into()),
            ("AZURE_OPENAI_API_VERSION", api_version.into()),
            ("LINKUP__AZURE_OPENAI__MODEL_FAMILY", family.into()),
        ],
        ..Options::default()
    })
    .await
}

/// One agent request (a search round, then the answer); its body.
async fn ask(app: &TestApp) -> Value {
    app.openai.chat([
        ChatStep::ToolCalls(vec![(
            "search_m365",
            json!({"query": "deployment pipeline"}),
        )]),
        ChatStep::Final(json!({"m365": ["m1"], "posts": [], "actionHint": "Read the runbook."})),
    ]);
    let (status, body) = app
        .suggest(
            json!({"postId": "p-1", "text": "How do I set up a deployment pipeline?"}),
            Some(TOKEN),
        )
        .await;
    assert_eq!(status, 200);
    body
}

fn chat_calls(app: &TestApp) -> Vec<Received> {
    app.openai.chat_requests()
}

async fn readyz(app: &TestApp) -> Value {
    app.get_json("/readyz").await
}

#[tokio::test]
async fn every_family_answers_on_the_agent_path_on_both_api_shapes() {
    for api in ["2024-12-01-preview", "v1"] {
        for (deployment, family) in [
            ("gpt-4o-mini", "auto"),
            ("o4-mini", "auto"),
            ("o3", "auto"),
            ("gpt-5-mini", "reasoning"),
            ("gpt-4-0613", "chat"),
        ] {
            let app = app(deployment, api, family).await;
            let body = ask(&app).await;
            let case = format!("{deployment} ({family}) on {api}");
            assert_eq!(body["meta"]["path"], "agent", "{case}: {body}");
            assert_eq!(
                body["m365"][0]["title"], "Deployment pipeline runbook",
                "{case}: {body}"
            );
            let calls = chat_calls(&app);
            let last = calls.last().unwrap();
            if api == "v1" {
                assert_eq!(last.path, "/openai/v1/chat/completions", "{case}");
                assert_eq!(last.body["model"], deployment, "{case}");
            } else {
                assert_eq!(
                    last.path,
                    format!("/openai/deployments/{deployment}/chat/completions"),
                    "{case}"
                );
                assert!(last.body.get("model").is_none(), "{case}");
            }
            assert!(
                last.body.get("max_tokens").is_none(),
                "{case}: {}",
                last.body
            );
            assert!(
                last.body["max_completion_tokens"].is_number(),
                "{case}: {}",
                last.body
            );
            let reasoning = deployment.starts_with('o') || deployment.starts_with("gpt-5");
            if reasoning {
                assert!(
                    last.body.get("temperature").is_none(),
                    "{case}: {}",
                    last.body
                );
                let ready = readyz(&app).await;
                assert_eq!(ready["llmModelFamily"], "reasoning", "{case}: {ready}");
            } else {
                assert_eq!(last.body["temperature"], 0.0, "{case}");
            }
        }
    }
}

#[tokio::test]
async fn a_refused_parameter_is_learnt_once_retried_at_once_and_shown_in_readyz() {
    let app = app("o4-mini", "2024-12-01-preview", "auto").await;
    let first = ask(&app).await;
    assert_eq!(first["meta"]["path"], "agent", "{first}");
    let calls = chat_calls(&app);
    // The first call is refused for temperature and retried without it.
    assert_eq!(calls[0].body["temperature"], 0.0);
    assert!(calls[1].body.get("temperature").is_none());
    let refused = calls.len();
    let second = ask(&app).await;
    assert_eq!(second["meta"]["path"], "agent", "{second}");
    let calls = chat_calls(&app);
    assert_eq!(
        calls.len() - refused,
        2,
        "no refused call any more: {}",
        calls.len()
    );
    let last = &calls.last().unwrap().body;
    assert_eq!(
        last["reasoning_effort"], "low",
        "the reported model is a reasoning one: {last}"
    );
    assert!(last["max_completion_tokens"].is_number(), "{last}");
    let ready = readyz(&app).await;
    assert_eq!(
        ready["llmDroppedParameters"],
        json!(["temperature"]),
        "{ready}"
    );
}

#[tokio::test]
async fn an_older_model_gets_json_object_instead_of_a_json_schema() {
    let app = app("gpt-4o-2024-05-13", "2024-12-01-preview", "auto").await;
    let body = ask(&app).await;
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    assert_eq!(body["actionHint"], "Read the runbook.", "{body}");
    let calls = chat_calls(&app);
    let last = &calls.last().unwrap().body;
    assert_eq!(
        last["response_format"],
        json!({"type": "json_object"}),
        "{last}"
    );
    assert!(!crate::support::strings(&body["meta"]["degraded"]).contains(&"llm_error".to_owned()));
}
