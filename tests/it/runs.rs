//! `GET /api/runs/{runId}`: what a run did, by the id its answer names;
//! kept across restarts, purged beyond `runs.max_records`, no user text.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{
    Options, TestApp,
    graph::{Behavior, TOKEN},
    openai::{self, ChatStep},
    spawn_app_with, spawn_app_with_corpus,
};

const KEY: &str = "key-1";
const SECRET_TEXT: &str = "SECRET-POST-TEXT deployment pipeline";

fn with_key(env: Vec<(&'static str, String)>) -> Vec<(&'static str, String)> {
    let mut env = env;
    env.push(("LINKUP__SERVER__API_KEYS", KEY.into()));
    env
}

/// Asks for suggestions; returns the run id from `X-Run-Id` (checked
/// against `meta.runId`) and the body.
async fn ask(app: &TestApp, text: &str) -> (String, Value) {
    let res = app
        .http
        .post(app.url("/api/suggestions"))
        .header("x-api-key", KEY)
        .bearer_auth(TOKEN)
        .json(&json!({"postId": "q-1", "text": text, "tags": ["devops"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let run_id = res.headers()["x-run-id"].to_str().unwrap().to_owned();
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["meta"]["runId"], run_id.as_str());
    (run_id, body)
}

/// `GET /api/runs/{id}` with the API key: status and raw body.
async fn run_record(app: &TestApp, run_id: &str) -> (u16, String) {
    let res = app
        .http
        .get(app.url(&format!("/api/runs/{run_id}")))
        .header("x-api-key", KEY)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.text().await.unwrap())
}

fn nodes(record: &Value) -> Vec<&str> {
    record["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["node"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn an_agent_run_is_looked_up_by_its_run_id_with_steps_tool_calls_and_tokens_and_no_user_text()
{
    // The model's two rounds alone (pre-retrieval's record: `pre_retrieval`).
    let app = spawn_app_with_corpus(Options {
        llm: true,
        env: with_key(vec![("LINKUP__AGENT__PRE_RETRIEVAL", "false".into())]),
        ..Options::default()
    })
    .await;
    app.openai.chat([
        ChatStep::ToolCalls(vec![
            (
                "search_m365",
                json!({"query": "SECRET-QUERY deployment pipeline"}),
            ),
            ("search_posts", json!({"query": "deployment pipeline"})),
        ]),
        ChatStep::Final(
            json!({"m365": ["m1"], "posts": ["p1"], "actionHint": "SECRET-HINT read it."}),
        ),
    ]);
    let (run_id, body) = ask(&app, SECRET_TEXT).await;
    assert_eq!(body["meta"]["path"], "agent");

    // Without the API key: refused like the rest of /api.
    let anonymous = app
        .http
        .get(app.url(&format!("/api/runs/{run_id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);

    // At once (the record may not be written yet) and after it is.
    for _ in 0..2 {
        let (status, raw) = run_record(&app, &run_id).await;
        assert_eq!(status, 200, "{raw}");
        let record: Value = serde_json::from_str(&raw).unwrap();
        assert_eq!(record["runId"], run_id.as_str());
        assert_eq!(record["path"], "agent");
        assert_eq!(record["rounds"], 2);
        assert_eq!(record["degraded"], json!([]));
        assert_eq!(record["unavailableSources"], json!([]));
        assert_eq!(
            nodes(&record),
            ["llmCall", "toolExec", "llmCall", "formatResponse"]
        );
        let mut tools: Vec<(String, bool, u64)> = record["toolCalls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["tool"].as_str().unwrap().to_owned(),
                    c["ok"].as_bool().unwrap(),
                    c["count"].as_u64().unwrap(),
                )
            })
            .collect();
        tools.sort();
        assert_eq!(tools[0].0, "search_m365");
        assert!(tools[0].1 && tools[0].2 > 0, "{tools:?}");
        assert_eq!((tools[1].0.as_str(), tools[1].1), ("search_posts", true));
        assert_eq!(
            record["llmUsage"],
            json!([
                {"round": 1, "inputTokens": 120, "outputTokens": 14},
                {"round": 2, "inputTokens": 120, "outputTokens": 14}
            ])
        );
        assert!(record["startedAt"].as_str().unwrap().ends_with('Z'));
        for secret in ["SECRET", TOKEN, openai::API_KEY, KEY, "Pipeline", "q-1"] {
            assert!(!raw.contains(secret), "the record holds {secret}: {raw}");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test]
async fn a_degraded_run_records_its_reasons_and_the_failed_tool_call() {
    let app = spawn_app_with_corpus(Options {
        env: with_key(vec![]),
        ..Options::default()
    })
    .await;
    app.graph.files(Behavior::Status(503));
    app.graph.mail(Behavior::Status(503));
    let (run_id, body) = ask(&app, "deployment pipeline runbook").await;
    let (status, raw) = run_record(&app, &run_id).await;
    assert_eq!(status, 200);
    let record: Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(record["path"], "fallback");
    assert_eq!(record["degraded"], body["meta"]["degraded"]);
    assert!(
        record["degraded"]
            .as_array()
            .unwrap()
            .contains(&json!("llm_unconfigured"))
    );
    assert_eq!(record["unavailableSources"], body["unavailableSources"]);
    assert!(
        record["unavailableSources"]
            .as_array()
            .unwrap()
            .contains(&json!("m365"))
    );
    let m365: Vec<&Value> = record["toolCalls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["tool"] == "search_m365")
        .collect();
    assert!(!m365.is_empty());
    for call in m365 {
        assert_eq!(call["ok"], false, "{call}");
        assert_eq!(call["errorKind"], "tool_error", "{call}");
    }
    assert_eq!(
        record["steps"],
        json!([]),
        "the fallback has no graph steps"
    );
}

#[tokio::test]
async fn an_unknown_or_purged_run_id_answers_404_in_the_error_shape() {
    let app = spawn_app_with_corpus(Options {
        env: with_key(vec![("LINKUP__RUNS__MAX_RECORDS", "2".into())]),
        ..Options::default()
    })
    .await;
    for id in ["no-such-run", &"x".repeat(300)] {
        let (status, raw) = run_record(&app, id).await;
        assert_eq!(status, 404);
        let body: Value = serde_json::from_str(&raw).unwrap();
        assert_eq!(body["error"]["code"], "run_not_found");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("retention")
        );
    }

    let mut ids = Vec::new();
    for _ in 0..4 {
        ids.push(ask(&app, "deployment pipeline").await.0);
    }
    // Once written, only the newest two are kept.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let mut statuses = Vec::new();
        for id in &ids {
            statuses.push(run_record(&app, id).await.0);
        }
        if statuses == [404, 404, 200, 200] {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "statuses stayed {statuses:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn run_records_are_written_before_shutdown_and_read_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let env = || {
        with_key(vec![(
            "LINKUP__POSTS__DB_PATH",
            dir.path().join("posts.db").display().to_string(),
        )])
    };
    let mut first = spawn_app_with(Options {
        env: env(),
        ..Options::default()
    })
    .await;
    let (run_id, _) = ask(&first, "deployment pipeline").await;
    first.shutdown.take().unwrap().send(()).unwrap();
    (&mut first.server).await.unwrap().unwrap();

    let second = spawn_app_with(Options {
        env: env(),
        ..Options::default()
    })
    .await;
    let (status, raw) = run_record(&second, &run_id).await;
    assert_eq!(status, 200, "{raw}");
    assert_eq!(
        serde_json::from_str::<Value>(&raw).unwrap()["runId"],
        run_id.as_str()
    );
}
