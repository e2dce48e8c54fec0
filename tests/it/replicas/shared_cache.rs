//! The panel cache's shared tier (`cache.shared`): a panel one replica
//! computed is served by the other, to its own caller only; a write of the
//! post drops it; expired panels are pruned; a database that does not
//! answer is a miss, never an error, and `/readyz` says so.

use std::{collections::HashMap, time::Duration};

use base64::Engine;
use linkup_suggestions::azure_auth::Identity;
use serde_json::{Value, json};

use crate::support::{
    Doc, FakeGraph, FakeOpenAi, Options, TestApp, post_body, spawn_app_on, titles,
};

use super::*;

/// A replica with the shared tier over the fakes `graph` and `openai`
/// (shared by the replicas, as real upstreams are).
async fn shared_replica(
    url: &str,
    graph: &FakeGraph,
    openai: &FakeOpenAi,
    extra: &[(&'static str, &str)],
) -> TestApp {
    let mut env = vec![
        ("LINKUP__POSTS__BACKEND", "postgres".to_owned()),
        ("LINKUP__POSTS__DATABASE_URL", url.to_owned()),
        ("LINKUP__CACHE__ENABLED", "true".to_owned()),
        ("LINKUP__CACHE__SHARED", "true".to_owned()),
    ];
    env.extend(extra.iter().map(|(k, v)| (*k, (*v).to_owned())));
    let options = Options {
        llm: true,
        env,
        ..Options::default()
    };
    spawn_app_on(
        options,
        graph.clone(),
        openai.clone(),
        Identity::default(),
        |_| {},
    )
    .await
}

/// A JWT-shaped token (the service does not verify it; Graph would).
fn jwt(claims: &str, signature: &str) -> String {
    let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
    format!("{}.{}.{signature}", b64(r#"{"alg":"RS256"}"#), b64(claims))
}

fn view() -> Value {
    json!({"postId": "plan-1", "text": "Who owns the deployment pipeline plan?", "tags": ["devops"]})
}

/// Rows of `panel_cache`, read directly.
async fn rows(url: &str, post_id: &str) -> i64 {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connects");
    tokio::spawn(connection);
    client
        .query_one(
            "SELECT count(*) FROM panel_cache WHERE post_id = $1",
            &[&post_id],
        )
        .await
        .expect("counts")
        .get(0)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_panel_computed_on_one_replica_is_served_by_the_other_to_its_caller_only() {
    let (_pg, url) = database().await;
    let (graph, openai) = (FakeGraph::start().await, FakeOpenAi::start().await);
    let claims = r#"{"tid":"contoso","oid":"alice","exp":4102444800}"#;
    let (alice, forged) = (jwt(claims, "alice-signature"), jwt(claims, "forged"));
    let plan = "Alice's deployment pipeline plan";
    graph.add_for(
        &alice,
        [Doc::file(
            plan,
            "https://contoso.sharepoint.com/alice",
            "deployment pipeline",
        )],
    );
    graph.add_for(&forged, []);
    let a = shared_replica(&url, &graph, &openai, &[]).await;
    let b = shared_replica(&url, &graph, &openai, &[]).await;

    let (status, first) = a.suggest(view(), Some(&alice)).await;
    assert_eq!(status, 200);
    assert!(titles(&first).contains(&plan.to_owned()), "{first}");
    eventually(Duration::from_secs(2), "A writes the panel", || async {
        rows(&url, "plan-1").await == 1
    })
    .await;

    let calls = (openai.chat_requests().len(), graph.received().len());
    let (status, on_b) = b.suggest(view(), Some(&alice)).await;
    assert_eq!(status, 200);
    assert_eq!(on_b["meta"]["cached"], true, "{on_b}");
    assert_eq!(on_b["meta"]["runId"], first["meta"]["runId"]);
    assert_eq!(on_b["m365"], first["m365"]);
    assert_eq!(
        (openai.chat_requests().len(), graph.received().len()),
        calls,
        "B called no upstream"
    );
    let metrics = b.get_text("/metrics").await;
    assert!(
        metrics.contains(r#"linkup_panel_cache_shared_total{result="hit"} 1"#),
        "{metrics}"
    );

    // Same claims, another signature: another caller, on either replica.
    let (_, forgers) = b.suggest(view(), Some(&forged)).await;
    assert!(forgers["meta"].get("cached").is_none(), "{forgers}");
    assert!(!titles(&forgers).contains(&plan.to_owned()), "{forgers}");

    let (status, ready) = readiness(&b).await;
    assert_eq!(status, 200);
    assert_eq!(ready["panelCacheSharedReachable"], true, "{ready}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_write_of_the_post_drops_its_shared_panels_and_expired_ones_are_pruned() {
    let (_pg, url) = database().await;
    let (graph, openai) = (FakeGraph::start().await, FakeOpenAi::start().await);
    graph.add(crate::support::graph::engineering_corpus());
    let fast = [
        ("LINKUP__CACHE__TTL_S", "2"),
        ("LINKUP__CACHE__DEGRADED_TTL_S", "2"),
        ("LINKUP__POSTS__PURGE_INTERVAL_SECS", "1"),
    ];
    let a = shared_replica(&url, &graph, &openai, &fast).await;
    let b = shared_replica(&url, &graph, &openai, &fast).await;
    assert_eq!(
        a.put_post(
            "plan-1",
            post_body("Who owns the deployment pipeline plan?", &["devops"])
        )
        .await,
        201
    );
    a.suggest(view(), None).await;
    eventually(Duration::from_secs(2), "A writes the panel", || async {
        rows(&url, "plan-1").await == 1
    })
    .await;
    // Retagged on A: the panel goes in the write's own transaction, so B,
    // which never held it in memory, computes afresh.
    assert_eq!(
        a.put_post(
            "plan-1",
            post_body("Who owns the deployment pipeline plan?", &["ops"])
        )
        .await,
        200
    );
    assert_eq!(rows(&url, "plan-1").await, 0);
    let (_, on_b) = b.suggest(view(), None).await;
    assert!(on_b["meta"].get("cached").is_none(), "{on_b}");

    // Expired panels are deleted by the purge (every second here).
    eventually(Duration::from_secs(2), "B writes its panel", || async {
        rows(&url, "plan-1").await == 1
    })
    .await;
    eventually(
        Duration::from_secs(6),
        "the expired panel is pruned",
        || async { rows(&url, "plan-1").await == 0 },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn with_the_database_down_the_shared_tier_is_a_miss_and_readyz_says_so() {
    let (mut pg, url) = database().await;
    let (graph, openai) = (FakeGraph::start().await, FakeOpenAi::start().await);
    graph.add(crate::support::graph::engineering_corpus());
    let a = shared_replica(&url, &graph, &openai, &[]).await;
    tokio::task::block_in_place(|| pg.stop());
    eventually(Duration::from_secs(10), "A notices", || async {
        readiness(&a).await.1["panelCacheSharedReachable"] == false
    })
    .await;
    let (status, ready) = readiness(&a).await;
    assert_eq!(
        status, 200,
        "a shared tier that does not answer is no reason to stop: {ready}"
    );

    let mut shown = HashMap::new();
    for _ in 0..2 {
        let started = std::time::Instant::now();
        let (status, body) = a.suggest(view(), None).await;
        assert_eq!(status, 200, "{body}");
        assert!(started.elapsed() < Duration::from_secs(5));
        shown.insert(
            body["meta"]["cached"] == true,
            body["meta"]["runId"].clone(),
        );
    }
    // The second view is served from memory, the first tier.
    assert!(shown.contains_key(&true), "{shown:?}");
    let metrics = a.get_text("/metrics").await;
    assert!(
        metrics.contains(r#"linkup_panel_cache_shared_total{result="unavailable"}"#),
        "{metrics}"
    );

    tokio::task::block_in_place(|| pg.start_again());
    eventually(
        Duration::from_secs(15),
        "the tier answers again",
        || async { readiness(&a).await.1["panelCacheSharedReachable"] == true },
    )
    .await;
}

/// Every cache path on two replicas with the shared tier — a miss written
/// to PostgreSQL, a hit from the other replica's row, identical views
/// coalesced, `no-cache`, a 304 — logged at `trace` (the harness's level):
/// no token, post text or result reaches the logs.
#[tokio::test(flavor = "multi_thread")]
async fn no_cache_path_logs_a_token_a_post_text_or_a_result_at_any_level() {
    let (_pg, url) = database().await;
    let (graph, openai) = (FakeGraph::start().await, FakeOpenAi::start().await);
    let token = jwt(
        r#"{"tid":"contoso","oid":"carol","exp":4102444800}"#,
        "SIGNATURE-b7e2",
    );
    graph.add_for(
        &token,
        [Doc::file(
            "Capybara rollout plan",
            "https://contoso.sharepoint.com/capybara.docx",
            "capybara rollout",
        )],
    );
    openai.latency(Duration::from_millis(200), Duration::ZERO);
    let a = shared_replica(&url, &graph, &openai, &[]).await;
    let b = shared_replica(&url, &graph, &openai, &[]).await;
    assert_eq!(
        a.put_post(
            "cap-1",
            post_body("TAPIR-5521 capybara rollout question", &[])
        )
        .await,
        201
    );
    let view = json!({"postId": "cap-1", "text": "TAPIR-5521 capybara rollout question"});
    // Identical views at once: one run, the others coalesced.
    let first =
        futures::future::join_all((0..4).map(|_| a.suggest(view.clone(), Some(&token)))).await;
    assert!(
        titles(&first[0].1).contains(&"Capybara rollout plan".to_owned()),
        "{}",
        first[0].1
    );
    eventually(Duration::from_secs(2), "A writes the panel", || async {
        rows(&url, "cap-1").await == 1
    })
    .await;
    let (_, on_b) = b.suggest(view.clone(), Some(&token)).await;
    assert_eq!(on_b["meta"]["cached"], true, "{on_b}");
    let fresh = b
        .http
        .post(b.url("/api/suggestions"))
        .bearer_auth(&token)
        .header("cache-control", "no-cache")
        .json(&view)
        .send()
        .await
        .unwrap();
    assert_eq!(fresh.status(), 200);
    let get = |tag: Option<String>| {
        let mut req = b
            .http
            .get(b.url("/api/posts/cap-1/suggestions"))
            .bearer_auth(&token);
        if let Some(tag) = tag {
            req = req.header("if-none-match", tag);
        }
        req.send()
    };
    let tag = get(None).await.unwrap().headers()["etag"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(get(Some(tag)).await.unwrap().status(), 304);

    let logs = crate::support::logs::all();
    assert!(logs.contains("\"level\":\"TRACE\"") || logs.contains("\"level\":\"DEBUG\""));
    for secret in [
        token.as_str(),
        "SIGNATURE-b7e2",
        "TAPIR-5521",
        "capybara",
        "Capybara rollout plan",
        "capybara.docx",
    ] {
        assert!(!logs.contains(secret), "{secret} appears in the logs");
    }
}
