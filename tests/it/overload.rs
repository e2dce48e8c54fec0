//! Overload (issue 34): at most `server.max_in_flight` suggestions runs; past
//! three quarters of it new runs take the fallback (`overloaded`), beyond it
//! they are refused with 503 `overloaded` and a `Retry-After`, while probes,
//! metrics and post writes are served.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{
    mcp_http,
    support::{
        Options, TestApp,
        graph::{Behavior, OTHER_TOKEN, TOKEN, engineering_corpus},
        logs,
        openai::ChatStep,
        post_body, spawn_app_with_corpus, strings,
    },
};

async fn app(max_in_flight: usize) -> TestApp {
    app_with(max_in_flight, Vec::new()).await
}

/// [`app`] with more settings.
pub(crate) async fn app_with(
    max_in_flight: usize,
    mut env: Vec<(&'static str, String)>,
) -> TestApp {
    env.extend([
        ("LINKUP__SERVER__MAX_IN_FLIGHT", max_in_flight.to_string()),
        ("LINKUP__SERVER__ADMISSION_WAIT_MS", "50".into()),
        // One token for every run: no per-caller allowance here.
        ("LINKUP__AGENT__RUNS_PER_CALLER_PER_MINUTE", "0".into()),
    ]);
    let app = spawn_app_with_corpus(Options {
        llm: true,
        env,
        ..Options::default()
    })
    .await;
    // Each model call takes a while: the runs stay in flight.
    app.openai
        .latency(Duration::from_millis(1500), Duration::ZERO);
    app.openai.chat_default(ChatStep::Final(
        json!({"m365": ["m1"], "posts": [], "actionHint": "Read the runbook."}),
    ));
    app
}

fn question(i: usize) -> Value {
    json!({"postId": format!("p-{i}"), "text": "Where is the deployment pipeline runbook?"})
}

/// Starts `n` requests and returns once all of them wait on the model.
pub(crate) async fn hold(app: &TestApp, n: usize) -> Vec<tokio::task::JoinHandle<(u16, Value)>> {
    hold_with_key(app, n, "").await
}

/// [`hold`], the requests carrying `api_key` (when not empty).
async fn hold_with_key(
    app: &TestApp,
    n: usize,
    api_key: &'static str,
) -> Vec<tokio::task::JoinHandle<(u16, Value)>> {
    let held: Vec<_> = (0..n)
        .map(|i| {
            let (http, url) = (app.http.clone(), app.url("/api/suggestions"));
            tokio::spawn(async move {
                let mut req = http.post(url).bearer_auth(TOKEN).json(&question(i));
                if !api_key.is_empty() {
                    req = req.header("x-api-key", api_key);
                }
                let res = req.send().await.unwrap();
                (res.status().as_u16(), res.json().await.unwrap())
            })
        })
        .collect();
    for _ in 0..1000 {
        if app.openai.chat_waiting() == n {
            return held;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the held runs never all waited on the model");
}

/// A refusal is the service working as designed: its access line says 503,
/// and no error line is written for it (one a refusal flooded the logs).
#[tokio::test]
async fn a_refusal_logs_its_access_line_and_no_error() {
    let app = app(1).await;
    let held = hold(&app, 1).await;
    let res = app
        .http
        .post(app.url("/api/suggestions"))
        .bearer_auth(TOKEN)
        .header("x-request-id", "req-refused-for-load")
        .json(&question(9))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 503);
    let logs = logs::all();
    let lines: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("\"request_id\":\"req-refused-for-load\""))
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("\"level\":\"INFO\"") && l.contains("\"status\":503")),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("\"level\":\"ERROR\"")),
        "{lines:#?}"
    );
    for h in held {
        assert_eq!(h.await.unwrap().0, 200);
    }
}

#[tokio::test]
async fn a_full_service_refuses_runs_with_503_overloaded_and_retry_after_and_serves_the_rest() {
    let app = app(1).await;
    let held = hold(&app, 1).await;
    let graph_before = app.graph.received().len();

    let res = app
        .http
        .post(app.url("/api/suggestions"))
        .bearer_auth(TOKEN)
        .json(&question(9))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 503);
    let retry: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3).contains(&retry), "{retry}");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "overloaded", "{body}");
    assert_eq!(
        app.graph.received().len(),
        graph_before,
        "refused before any upstream is called"
    );
    let stored = app
        .http
        .get(app.url("/api/posts/p-77/suggestions"))
        .send()
        .await
        .unwrap();
    assert_eq!(stored.status(), 503, "the GET route counts too");
    let how = mcp_http::Connect {
        token: Some(TOKEN),
        ..Default::default()
    };
    let client = mcp_http::connect(&app, how).await.unwrap();
    let refused = mcp_http::call(&client, "get_suggestions", question(11)).await;
    assert_eq!(
        refused.is_error,
        Some(true),
        "/mcp's get_suggestions counts too"
    );
    assert!(
        mcp_http::text(&refused).contains("overloaded"),
        "{}",
        mcp_http::text(&refused)
    );

    // Probes, metrics and post writes are never refused for load.
    for probe in ["/healthz", "/readyz", "/metrics"] {
        let res = app.http.get(app.url(probe)).send().await.unwrap();
        assert_eq!(res.status(), 200, "{probe}");
    }
    assert!(
        app.put_post("p-78", post_body("Release checklist", &[]))
            .await
            < 300
    );
    let metrics = app.get_text("/metrics").await;
    assert!(metrics.contains("linkup_runs_in_flight 1"), "{metrics}");
    assert!(
        metrics.contains("linkup_run_admissions_total{outcome=\"shed\"} 3"),
        "{metrics}"
    );

    let (status, body) = held.into_iter().next().unwrap().await.unwrap();
    assert_eq!(
        (status, body["meta"]["path"].as_str()),
        (200, Some("agent"))
    );
    let (status, _) = app.suggest(question(10), Some(TOKEN)).await;
    assert_eq!(status, 200, "a slot again once the run is over");
}

#[tokio::test]
async fn past_three_quarters_new_runs_take_the_fallback_and_the_agent_returns_as_load_falls() {
    let app = app(4).await;
    let held = hold(&app, 3).await;
    let calls = app.openai.chat_requests().len();
    let searched = app.graph.received().len();

    let (status, body) = app.suggest(question(9), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "fallback", "{body}");
    assert!(
        strings(&body["meta"]["degraded"]).contains(&"overloaded".to_owned()),
        "{body}"
    );
    assert!(!body["m365"].as_array().unwrap().is_empty(), "{body}");
    assert_eq!(app.openai.chat_requests().len(), calls, "no model call");
    assert_eq!(
        app.graph.received().len() - searched,
        2,
        "fewer upstream calls than an agent run (a search and the model): one search"
    );
    let streamed = app
        .stream(question(11), Some(TOKEN))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        streamed.contains(r#"{"type":"fallback","reason":"overloaded"}"#),
        "the stream says so too: {streamed}"
    );

    for run in held {
        let (status, body) = run.await.unwrap();
        assert_eq!(
            (status, body["meta"]["path"].as_str()),
            (200, Some("agent"))
        );
    }
    let (_, body) = app.suggest(question(10), Some(TOKEN)).await;
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    assert!(strings(&body["meta"]["degraded"]).is_empty(), "{body}");
}

/// Authentication comes before admission: a flood without a key takes no
/// slot and is not counted as shed.
#[tokio::test]
async fn requests_without_the_api_key_are_refused_401_before_admission() {
    let app = app_with(1, vec![("LINKUP__SERVER__API_KEYS", "k1".into())]).await;
    let held = hold_with_key(&app, 1, "k1").await;
    let (status, _) = app.suggest(question(9), Some(TOKEN)).await;
    assert_eq!(status, 401, "no key: refused as such, full or not");
    let metrics = app.get_text("/metrics").await;
    assert!(
        !metrics.contains("linkup_run_admissions_total{outcome=\"shed\"}"),
        "{metrics}"
    );
    drop(held);
}

/// The fallback's 32 slots bound fallbacks that come together (an LLM
/// outage); a run sent to the fallback by admission is bounded by admission
/// already, and queueing it behind the others' Graph searches kept every
/// slot busy and ended runs at their deadline (B14).
#[tokio::test]
async fn runs_past_the_soft_threshold_search_at_once_not_32_at_a_time() {
    let app = app(160).await;
    app.openai.latency(Duration::from_secs(6), Duration::ZERO);
    let held = hold(&app, 120).await;
    app.graph.files(Behavior::Delay(Duration::from_millis(400)));
    app.graph.mail(Behavior::Delay(Duration::from_millis(400)));

    // One such run alone: how many Graph requests a run has in flight.
    app.graph.reset_max_in_flight();
    let (_, body) = app.suggest(question(200), Some(TOKEN)).await;
    assert!(
        strings(&body["meta"]["degraded"]).contains(&"overloaded".to_owned()),
        "{body}"
    );
    let one = app.graph.max_in_flight();
    assert!(one > 0);

    app.graph.reset_max_in_flight();
    let many =
        futures::future::join_all((0..36).map(|i| app.suggest(question(300 + i), Some(TOKEN))))
            .await;
    for (status, body) in &many {
        assert_eq!(*status, 200);
        assert_eq!(body["meta"]["path"], "fallback", "{body}");
        assert!(!body["m365"].as_array().unwrap().is_empty(), "{body}");
    }
    assert!(
        app.graph.max_in_flight() > 32 * one,
        "36 runs searching at once: {} requests in flight, {one} for one run",
        app.graph.max_in_flight()
    );
    drop(held);
}

#[tokio::test]
async fn one_caller_past_its_allowance_gets_the_fallback_and_another_keeps_the_model() {
    let app = spawn_app_with_corpus(Options {
        llm: true,
        env: vec![("LINKUP__AGENT__RUNS_PER_CALLER_PER_MINUTE", "2".into())],
        ..Options::default()
    })
    .await;
    app.graph.add_for(OTHER_TOKEN, engineering_corpus());
    app.openai.chat_default(ChatStep::Final(
        json!({"m365": ["m1"], "posts": [], "actionHint": "Read the runbook."}),
    ));
    let path = |body: &Value| body["meta"]["path"].as_str().unwrap_or_default().to_owned();
    for i in 0..2 {
        let (_, body) = app.suggest(question(i), Some(TOKEN)).await;
        assert_eq!(path(&body), "agent", "{body}");
    }
    let calls = app.openai.chat_requests().len();
    let (status, body) = app.suggest(question(2), Some(TOKEN)).await;
    assert_eq!(
        (status, path(&body)),
        (200, "fallback".to_owned()),
        "{body}"
    );
    assert!(
        strings(&body["meta"]["degraded"]).contains(&"caller_rate_limited".to_owned()),
        "{body}"
    );
    assert!(
        !body["m365"].as_array().unwrap().is_empty(),
        "still a panel: {body}"
    );
    assert_eq!(
        app.openai.chat_requests().len(),
        calls,
        "no model call for it"
    );
    let (_, other) = app.suggest(question(3), Some(OTHER_TOKEN)).await;
    assert_eq!(
        path(&other),
        "agent",
        "another caller keeps the model: {other}"
    );
    let metrics = app.get_text("/metrics").await;
    assert!(
        metrics.contains("linkup_run_degraded_total{reason=\"caller_rate_limited\"} 1"),
        "{metrics}"
    );
}
