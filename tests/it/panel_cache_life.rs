//! The panel cache's bounds: a shared run outlives the client that started
//! it only when its panel will be kept, and the cache stays within
//! `cache.max_bytes` however many panels churn through it, and two callers
//! viewing at once are two runs.

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use crate::{panel_cache::cached_app, support::graph::engineering_corpus};

fn jwt(claims: &str) -> String {
    let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
    format!("{}.{}.sig", b64(r#"{"alg":"RS256"}"#), b64(claims))
}

/// The `i`th of many distinct views.
fn numbered(i: usize) -> Value {
    json!({"postId": format!("p-{i}"), "text": format!("Deployment pipeline question number {i}")})
}

fn question() -> Value {
    json!({"postId": "p-new", "text": "How do I set up a deployment pipeline for our repo?"})
}

/// The value of the one sample of `family` (summed over its labels).
fn sample(metrics: &str, family: &str) -> f64 {
    metrics
        .lines()
        .filter(|l| l.starts_with(family))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[tokio::test]
async fn a_run_outlives_its_client_only_when_its_panel_will_be_kept() {
    let app = cached_app(vec![]).await;
    app.openai
        .latency(Duration::from_millis(400), Duration::ZERO);
    let valid = jwt(r#"{"oid":"a","exp":4102444800}"#);
    let expired = jwt(r#"{"oid":"b","exp":1000000000}"#);
    for token in [&valid, &expired] {
        app.graph.add_for(token, engineering_corpus());
    }
    let impatient = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_millis(150))
        .build()
        .unwrap();
    for token in [&valid, &expired] {
        let sent = impatient
            .post(app.url("/api/suggestions"))
            .bearer_auth(token)
            .json(&question())
            .send()
            .await;
        assert!(
            sent.is_err(),
            "the client gave up before the model answered"
        );
    }
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let metrics = app.get_text("/metrics").await;
    assert_eq!(
        sample(&metrics, "linkup_runs_total{"),
        1.0,
        "the valid token's run finished; the expired one's (nothing would keep it) was cancelled: {metrics}"
    );
    let (_, again) = app.suggest(question(), Some(&valid)).await;
    assert_eq!(again["meta"]["cached"], true, "{again}");
}

#[tokio::test]
async fn under_churn_the_cache_stays_within_max_bytes() {
    let max_bytes = 16_384;
    let app = cached_app(vec![("LINKUP__CACHE__MAX_BYTES", max_bytes.to_string())]).await;
    let views = 40;
    for i in 0..views {
        let (status, _) = app.suggest(numbered(i), None).await;
        assert_eq!(status, 200);
    }
    // Keys reused at once (moka#590: eviction stalled under concurrent
    // reinsertion of a key before 0.12.16): ten panels replaced three times.
    let replace = (0..30).map(|i| {
        let view = numbered(i % 10);
        app.http
            .post(app.url("/api/suggestions"))
            .header("cache-control", "no-cache")
            .json(&view)
            .send()
    });
    for sent in futures::future::join_all(replace).await {
        assert_eq!(sent.unwrap().status(), 200);
    }
    for i in 0..views {
        app.suggest(numbered(i), None).await;
    }
    let metrics = app.get_text("/metrics").await;
    let (bytes, entries) = (
        sample(&metrics, "linkup_panel_cache_bytes "),
        sample(&metrics, "linkup_panel_cache_entries "),
    );
    assert!(
        bytes > 0.0 && bytes <= f64::from(max_bytes),
        "{bytes} bytes of panels against cache.max_bytes {max_bytes}"
    );
    assert!(
        entries >= 1.0 && entries < views as f64,
        "{entries} entries"
    );
    // The latest panel is kept; the oldest went.
    assert_eq!(
        app.suggest(numbered(views - 1), None).await.1["meta"]["cached"],
        true
    );
    assert!(
        app.suggest(numbered(0), None).await.1["meta"]
            .get("cached")
            .is_none()
    );
}

#[tokio::test]
async fn concurrent_views_by_two_callers_are_two_runs_and_neither_sees_the_others_documents() {
    let app = cached_app(vec![]).await;
    app.openai
        .latency(Duration::from_millis(300), Duration::ZERO);
    let claims = r#"{"tid":"contoso","oid":"alice","exp":4102444800}"#;
    let (alice, forged) = (format!("{}x", jwt(claims)), format!("{}y", jwt(claims)));
    let plan = "Alice's deployment pipeline plan";
    app.graph.add_for(
        &alice,
        [crate::support::Doc::file(
            plan,
            "https://contoso.sharepoint.com/alice",
            "deployment pipeline",
        )],
    );
    app.graph.add_for(&forged, []);
    let views = (0..10).map(|i| {
        let token = if i % 2 == 0 {
            alice.clone()
        } else {
            forged.clone()
        };
        let app = &app;
        async move { (i % 2 == 0, app.suggest(question(), Some(&token)).await.1) }
    });
    let answers = futures::future::join_all(views).await;
    let run_of = |alices: bool| -> Vec<Value> {
        answers
            .iter()
            .filter(|(a, _)| *a == alices)
            .map(|(_, b)| b["meta"]["runId"].clone())
            .collect()
    };
    let (a_runs, f_runs) = (run_of(true), run_of(false));
    assert!(
        a_runs.iter().all(|r| *r == a_runs[0]),
        "Alice's five views share one run"
    );
    assert!(
        f_runs.iter().all(|r| *r == f_runs[0]),
        "the forger's share another"
    );
    assert_ne!(a_runs[0], f_runs[0]);
    for (alices, body) in &answers {
        let titles = crate::support::titles(body);
        assert_eq!(titles.contains(&plan.to_owned()), *alices, "{body}");
    }
}
