//! The HTTP version spoken to Azure OpenAI and Microsoft Graph: by default
//! HTTP/1.1 over plain http (the fakes here), HTTP/2 with
//! `server.upstream_http2 = "always"` (both upstreams speak it).

use std::time::Duration;

use axum::http::Version;
use serde_json::json;

use crate::support::{
    Options,
    binary::Binary,
    graph::{FakeGraph, TOKEN, engineering_corpus},
    openai::ChatStep,
    post_ids, spawn_app_with_corpus, titles,
    tls::test_certs,
};

async fn panel_over(env: Vec<(&'static str, String)>) -> (Vec<Version>, Vec<Version>) {
    let app = spawn_app_with_corpus(Options {
        llm: true,
        env,
        ..Default::default()
    })
    .await;
    app.openai.chat([
        ChatStep::searches("deployment pipeline"),
        ChatStep::Final(
            json!({ "m365": ["m1"], "posts": ["p1"], "actionHint": "Read the runbook." }),
        ),
    ]);
    let request =
        json!({"postId": "p-new", "text": "How do I set up a deployment pipeline for our repo?"});
    let (status, body) = app.suggest(request, Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    assert!(!titles(&body).is_empty(), "documents found: {body}");
    assert_eq!(post_ids(&body), vec!["p-77"], "{body}");
    let chat = app
        .openai
        .chat_requests()
        .iter()
        .map(|r| r.version)
        .collect();
    let graph = app.graph.received().iter().map(|r| r.version).collect();
    (chat, graph)
}

#[tokio::test]
async fn the_upstreams_are_called_over_http1_by_default_over_plain_http() {
    let (chat, graph) = panel_over(vec![]).await;
    assert_eq!(chat, vec![Version::HTTP_11; 2]);
    assert!(
        !graph.is_empty() && graph.iter().all(|v| *v == Version::HTTP_11),
        "{graph:?}"
    );
}

#[tokio::test]
async fn with_upstream_http2_always_both_upstreams_are_called_over_http2() {
    let env = vec![("LINKUP__SERVER__UPSTREAM_HTTP2", "always".to_owned())];
    let (chat, graph) = panel_over(env).await;
    assert_eq!(chat, vec![Version::HTTP_2; 2]);
    assert!(
        !graph.is_empty() && graph.iter().all(|v| *v == Version::HTTP_2),
        "{graph:?}"
    );
}

/// The versions the service's Graph searches for one panel were made in,
/// and the panel: the fake Graph serves TLS offering `alpn` (Graph's front
/// end offers `h2` and `http/1.1`), the service trusts its CA and keeps its
/// default `server.upstream_http2` (no LLM: the fallback searches Graph).
async fn panel_from_graph_over_tls(alpn: &[&str]) -> (Vec<Version>, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let certs = test_certs(dir.path());
    let graph = FakeGraph::start_tls(&certs, alpn).await;
    graph.add(engineering_corpus());
    let db = dir.path().join("posts.db");
    let binary = Binary::start([
        ("LINKUP__MSGRAPH__BASE_URL", graph.url()),
        ("LINKUP__POSTS__DB_PATH", db.display().to_string()),
        ("SSL_CERT_FILE", certs.ca.display().to_string()),
    ]);
    let panel: serde_json::Value = linkup_suggestions::upstream::http_client()
        .unwrap()
        .post(format!("http://{}/api/suggestions", binary.addr))
        .bearer_auth(TOKEN)
        .json(&json!({"postId": "p-new", "text": "How do I set up a deployment pipeline for our repo?"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let versions = graph.received().iter().map(|r| r.version).collect();
    (versions, panel)
}

#[tokio::test]
async fn by_default_an_https_upstream_offering_http2_is_called_over_http2() {
    let (versions, panel) = panel_from_graph_over_tls(&["h2", "http/1.1"]).await;
    assert!(!titles(&panel).is_empty(), "documents found: {panel}");
    assert!(
        !versions.is_empty() && versions.iter().all(|v| *v == Version::HTTP_2),
        "{versions:?}"
    );
}

#[tokio::test]
async fn by_default_an_https_upstream_speaking_only_http1_is_called_over_http1() {
    let (versions, panel) = panel_from_graph_over_tls(&["http/1.1"]).await;
    assert!(!titles(&panel).is_empty(), "documents found: {panel}");
    assert!(
        !versions.is_empty() && versions.iter().all(|v| *v == Version::HTTP_11),
        "{versions:?}"
    );
}

/// Graph connections the app opens over three panels: two in a row, the
/// third after `pause`.
async fn connections_opened(idle_timeout_ms: &str, pause: Duration) -> (usize, usize) {
    let app = spawn_app_with_corpus(Options {
        env: vec![(
            "LINKUP__SERVER__UPSTREAM_IDLE_TIMEOUT_MS",
            idle_timeout_ms.into(),
        )],
        ..Default::default()
    })
    .await;
    let request =
        json!({"postId": "p-new", "text": "How do I set up a deployment pipeline for our repo?"});
    for _ in 0..2 {
        assert_eq!(app.suggest(request.clone(), Some(TOKEN)).await.0, 200);
    }
    let before = app.graph.connections();
    tokio::time::sleep(pause).await;
    assert_eq!(app.suggest(request, Some(TOKEN)).await.0, 200);
    (before, app.graph.connections())
}

#[tokio::test]
async fn upstream_connections_idle_past_the_idle_timeout_are_closed_and_others_reused() {
    let pause = Duration::from_millis(1_000);
    // Idle for less than the timeout: the third panel reuses them.
    let (before, after) = connections_opened("30000", pause).await;
    assert!(before > 0);
    assert_eq!(after, before, "connections idle 1 s of 30 s are reused");
    // Idle for longer: they were closed, so it opens new ones.
    let (before, after) = connections_opened("300", pause).await;
    assert!(after > before, "connections idle 1 s of 0.3 s were closed");
}
