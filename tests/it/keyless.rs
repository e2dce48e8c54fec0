//! Keyless Azure: Azure OpenAI with Microsoft Entra ID tokens from the
//! Azure SDK's credentials (workload identity, client secret, managed
//! identity), against a fake Entra and the fake Azure OpenAI taking bearer
//! tokens; how each failure answers; and no token in the logs.

use std::time::{Duration, Instant};

use linkup_suggestions::azure_auth::Identity;
use serde_json::{Value, json};

use crate::support::{
    FakeGraph, FakeOpenAi, Options, TestApp,
    binary::{self, Binary},
    entra::{FakeEntra, IDENTITY_HEADER, ToLoopback},
    logs, spawn_app_on, strings,
};

const ASSERTION: &str = "federated-ASSERTION-7f3e";
const CLIENT_SECRET: &str = "client-SECRET-a81c";
const TENANT: &str = "11111111-1111-1111-1111-111111111111";
const CLIENT: &str = "22222222-2222-2222-2222-222222222222";

struct Keyless {
    app: TestApp,
    entra: FakeEntra,
    _dir: tempfile::TempDir,
}

/// The app with `auth` (`workload-identity` or `client-secret`), no API key,
/// Entra's host routed to the fake, whose tokens the fake Azure OpenAI
/// accepts (`accept_issued`) or not.
async fn keyless(auth: &str, prepare: impl FnOnce(&FakeEntra), accept_issued: bool) -> Keyless {
    let graph = FakeGraph::start().await;
    let openai = FakeOpenAi::start().await;
    let accepting = openai.clone();
    let entra = FakeEntra::start(move |token| {
        if accept_issued {
            accepting.accept_bearer(token);
        }
    })
    .await;
    if !accept_issued {
        openai.accept_bearer("some-other-token");
    }
    prepare(&entra);
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("azure-identity-token");
    std::fs::write(&token_file, ASSERTION).unwrap();
    let auth = auth.to_owned();
    let identity = Identity {
        transport: Some(ToLoopback::transport(entra.addr())),
        source: None,
    };
    let options = Options {
        llm: true,
        ..Default::default()
    };
    let app = spawn_app_on(options, graph, openai, identity, |env| {
        env.remove("AZURE_OPENAI_API_KEY");
        env.insert("LINKUP__AZURE_OPENAI__AUTH".into(), auth);
        env.insert("AZURE_TENANT_ID".into(), TENANT.into());
        env.insert("AZURE_CLIENT_ID".into(), CLIENT.into());
        env.insert(
            "AZURE_FEDERATED_TOKEN_FILE".into(),
            token_file.display().to_string(),
        );
        env.insert("AZURE_CLIENT_SECRET".into(), CLIENT_SECRET.into());
    })
    .await;
    Keyless {
        app,
        entra,
        _dir: dir,
    }
}

fn question() -> Value {
    json!({"postId": "p-new", "text": "How do I set up a deployment pipeline for our repo?", "tags": ["devops"]})
}

async fn readyz(app: &TestApp) -> Value {
    app.get_json("/readyz").await
}

#[tokio::test]
async fn workload_identity_answers_on_the_agent_path_with_a_bearer_token() {
    let k = keyless("workload-identity", |_| {}, true).await;
    let (status, body) = k.app.suggest(question(), None).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    // The SDK's client credentials grant, with the token file's assertion.
    let request = &k.entra.requests()[0];
    assert_eq!(request["grant_type"], "client_credentials");
    assert_eq!(request["client_id"], CLIENT);
    assert_eq!(request["client_assertion"], ASSERTION);
    assert_eq!(
        request["scope"],
        "https://cognitiveservices.azure.com/.default"
    );
    let sent = k.app.openai.chat_requests();
    let auth = sent[0].headers.iter().find(|(k, _)| k == "authorization");
    assert_eq!(auth.map(|(_, v)| v.as_str()), Some("Bearer entra-token-1"));
    assert!(!sent[0].headers.iter().any(|(k, _)| k == "api-key"));
    let ready = readyz(&k.app).await;
    assert_eq!(ready["llmAuth"]["mode"], "workload-identity", "{ready}");
    assert_eq!(ready["llmAuth"]["token"]["state"], "ok");
    assert_eq!(ready["llmAuth"]["refused"], false);
}

#[tokio::test]
async fn auto_picks_workload_identity_when_its_token_file_is_there() {
    let k = keyless("auto", |_| {}, true).await;
    let (_, body) = k.app.suggest(question(), None).await;
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    assert_eq!(readyz(&k.app).await["llmAuth"]["mode"], "workload-identity");
}

#[tokio::test]
async fn client_secret_answers_on_the_agent_path() {
    let k = keyless("client-secret", |_| {}, true).await;
    let (_, body) = k.app.suggest(question(), None).await;
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    let request = &k.entra.requests()[0];
    assert_eq!(request["client_secret"], CLIENT_SECRET);
    assert_eq!(request["grant_type"], "client_credentials");
}

#[tokio::test]
async fn a_token_close_to_expiry_is_refreshed_before_it_is_used() {
    // Six-second tokens: refreshed at half their life, in the background.
    let k = keyless("workload-identity", |e| e.expires_in(6), true).await;
    tokio::time::sleep(Duration::from_secs(7)).await;
    assert!(k.entra.issued() >= 2, "refreshed: {}", k.entra.issued());
    // The fake takes only the latest token: the first has expired.
    let (_, body) = k.app.suggest(question(), None).await;
    assert_eq!(body["meta"]["path"], "agent", "{body}");
}

#[tokio::test]
async fn a_slow_refresh_does_not_hold_requests() {
    let k = keyless(
        "workload-identity",
        |e| {
            e.expires_in(10);
            e.slow_after_first(Duration::from_secs(8));
        },
        true,
    )
    .await;
    // The refresh starts at 5 s and takes 8: requests meanwhile use the
    // token held, at the agent's usual time, not after the refresh.
    tokio::time::sleep(Duration::from_millis(5300)).await;
    for _ in 0..3 {
        let started = Instant::now();
        let (_, body) = k.app.suggest(question(), None).await;
        assert_eq!(body["meta"]["path"], "agent", "{body}");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "a request waited on the refresh: {:?}",
            started.elapsed()
        );
    }
    assert_eq!(k.entra.requests().len(), 2, "the refresh was in flight");
    let ready = readyz(&k.app).await;
    assert_eq!(ready["llmAuth"]["token"]["state"], "ok", "{ready}");
}

#[tokio::test]
async fn entra_refusing_sends_runs_to_the_fallback_and_says_why() {
    let k = keyless("workload-identity", |e| e.refuse(true), true).await;
    let (status, body) = k.app.suggest(question(), None).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "fallback", "{body}");
    assert!(
        strings(&body["meta"]["degraded"]).contains(&"llm_token_unavailable".to_owned()),
        "{body}"
    );
    assert!(
        k.app.openai.chat_requests().is_empty(),
        "no call without a token"
    );
    let ready = readyz(&k.app).await;
    assert_eq!(ready["ready"], true, "the fallback still answers");
    assert_eq!(ready["llmAuth"]["token"]["state"], "refused", "{ready}");
    let metrics = k.app.get_text("/metrics").await;
    assert!(
        metrics.contains(
            r#"linkup_entra_token_fetches_total{upstream="azure_openai",outcome="refused"}"#
        ),
        "{metrics}"
    );
    // Logged once, with what to fix and Entra's number.
    let logs = logs::all();
    assert!(logs.contains("700016"), "the AADSTS number is logged");
    assert!(logs.contains("Cognitive Services OpenAI User"));
}

#[tokio::test]
async fn azure_openai_refusing_the_token_says_llm_unauthorized_and_opens_the_circuit() {
    let k = keyless("workload-identity", |_| {}, false).await;
    let mut reasons = Vec::new();
    for _ in 0..6 {
        let (status, body) = k.app.suggest(question(), None).await;
        assert_eq!(status, 200);
        assert_eq!(body["meta"]["path"], "fallback", "{body}");
        reasons.push(strings(&body["meta"]["degraded"]));
    }
    assert!(
        reasons[0].contains(&"llm_unauthorized".to_owned()),
        "{reasons:?}"
    );
    // A refused token is not tried on every request.
    assert!(
        reasons
            .last()
            .unwrap()
            .contains(&"llm_circuit_open".to_owned()),
        "{reasons:?}"
    );
    assert!(k.app.openai.chat_requests().len() < 6);
    assert_eq!(readyz(&k.app).await["llmAuth"]["refused"], true);
}

#[tokio::test]
async fn entra_down_at_start_up_then_back_brings_the_agent_back_without_a_restart() {
    let k = keyless("workload-identity", |e| e.down(true), true).await;
    let (_, body) = k.app.suggest(question(), None).await;
    assert_eq!(body["meta"]["path"], "fallback", "{body}");
    assert_eq!(
        readyz(&k.app).await["llmAuth"]["token"]["state"],
        "unreachable"
    );
    k.entra.down(false);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let ready = readyz(&k.app).await;
        if ready["llmAuth"]["token"]["state"] == "ok" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no token after Entra came back: {ready}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (_, body) = k.app.suggest(question(), None).await;
    assert_eq!(body["meta"]["path"], "agent", "{body}");
}

#[tokio::test]
async fn no_token_assertion_or_secret_reaches_the_logs_at_trace_level() {
    let k = keyless("client-secret", |e| e.expires_in(4), true).await;
    k.app.suggest(question(), None).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    k.app.suggest(question(), None).await;
    let logs = logs::all();
    assert!(!logs.is_empty());
    for secret in [CLIENT_SECRET, ASSERTION, "entra-token-"] {
        assert!(!logs.contains(secret), "{secret} logged");
    }
}

#[test]
fn managed_identity_takes_app_services_identity_endpoint() {
    // The SDK reads IDENTITY_ENDPOINT from the process: the real binary.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (entra, openai, graph) = rt.block_on(async {
        let openai = FakeOpenAi::start().await;
        let accepting = openai.clone();
        let entra = FakeEntra::start(move |token| accepting.accept_bearer(token)).await;
        (entra, openai, FakeGraph::start().await)
    });
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("posts.db");
    let service = Binary::start([
        ("LINKUP__POSTS__DB_PATH", db.display().to_string()),
        ("LINKUP__MSGRAPH__BASE_URL", graph.url()),
        ("AZURE_OPENAI_ENDPOINT", openai.url()),
        ("LINKUP__POSTS__EMBEDDER", "none".to_owned()),
        ("IDENTITY_ENDPOINT", entra.identity_endpoint()),
        ("IDENTITY_HEADER", IDENTITY_HEADER.to_owned()),
    ]);
    let (ready, body) = rt.block_on(async {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder().no_proxy().build().unwrap();
        let ready: Value = http
            .get(format!("http://{}/readyz", service.addr))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let body: Value = http
            .post(format!("http://{}/api/suggestions", service.addr))
            .json(&question())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        (ready, body)
    });
    assert_eq!(ready["llmAuth"]["mode"], "managed-identity", "{ready}");
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    let request = &entra.requests()[0];
    assert_eq!(request["resource"], "https://cognitiveservices.azure.com");
    assert!(!service.logs().join("\n").contains(IDENTITY_HEADER));
}

#[test]
fn explicit_keyless_modes_refuse_to_start_without_their_variables() {
    let out = binary::run(
        &[],
        &[
            ("AZURE_OPENAI_ENDPOINT", "https://contoso.openai.azure.com"),
            ("LINKUP__AZURE_OPENAI__AUTH", "workload-identity"),
            ("AZURE_CLIENT_ID", CLIENT),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("azure_openai.auth"), "{err}");
    assert!(
        err.contains("AZURE_FEDERATED_TOKEN_FILE, AZURE_TENANT_ID"),
        "{err}"
    );
}

#[test]
fn entra_for_postgres_refuses_a_connection_that_may_skip_tls() {
    for url in [
        "postgres://linkup@db.example.com/linkup",
        "postgres://linkup@db.example.com/linkup?sslmode=prefer",
        "postgres://linkup@db.example.com/linkup?sslmode=disable",
    ] {
        let out = binary::run(
            &[],
            &[
                ("LINKUP__POSTS__BACKEND", "postgres"),
                ("LINKUP__POSTS__AUTH", "entra"),
                ("DATABASE_URL", url),
                ("IDENTITY_ENDPOINT", "http://127.0.0.1:9/msi/token"),
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{url}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("sslmode=verify-full"), "{err}");
    }
}
