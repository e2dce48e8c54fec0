//! Shutdown that fits a rolling update, through the real binary: on SIGTERM
//! `/readyz` answers 503 at once while new requests (and connections) are
//! still served for `server.shutdown_delay_ms`; then new connections are
//! refused, the request in flight completes, and the process exits 0 within
//! the delay plus the grace period.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{
    FakeGraph, FakeOpenAi, Options, binary::Binary, openai::ChatStep, post_body, test_env,
};

const DELAY: Duration = Duration::from_millis(1500);
const GRACE: Duration = Duration::from_millis(5000);

/// A client with no connection pool: every request opens a new connection.
fn fresh_client() -> reqwest::Client {
    // The app's own client installs the TLS provider reqwest is built without.
    linkup_suggestions::upstream::http_client().unwrap();
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .no_proxy()
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_makes_it_unready_serves_through_the_delay_then_drains_and_exits_0() {
    let (graph, openai) = (FakeGraph::start().await, FakeOpenAi::start().await);
    // A chat call takes 2.5 s: a suggestion asked before SIGTERM is still in
    // flight when the delay (1.5 s) ends and the listener closes.
    openai.chat([ChatStep::Final(
        json!({"m365": [], "posts": [], "actionHint": null}),
    )]);
    openai.latency(Duration::from_millis(2500), Duration::ZERO);
    let dir = tempfile::tempdir().unwrap();
    let mut env = test_env(
        &graph,
        &openai,
        &dir.path().join("posts.db"),
        &Options {
            llm: true,
            ..Options::default()
        },
    );
    env.insert(
        "LINKUP__SERVER__SHUTDOWN_DELAY_MS".into(),
        DELAY.as_millis().to_string(),
    );
    env.insert(
        "LINKUP__SERVER__SHUTDOWN_GRACE_MS".into(),
        GRACE.as_millis().to_string(),
    );
    env.insert("LINKUP__AGENT__TIMEOUT_MS".into(), "8000".into());
    let mut binary = Binary::start(&env);
    let base = format!("http://{}", binary.addr);
    let http = fresh_client();
    let put = http
        .put(format!("{base}/api/posts/p-1"))
        .json(&post_body("carpool to the campus", &[]))
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 201);
    let ready = http.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);

    let in_flight = tokio::spawn({
        let (http, base) = (http.clone(), base.clone());
        async move {
            let res = http
                .post(format!("{base}/api/suggestions"))
                .json(&json!({"postId": "p-2", "text": "how do I get to the campus"}))
                .send()
                .await
                .unwrap();
            (res.status().as_u16(), res.json::<Value>().await.unwrap())
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;

    let sigterm = Instant::now();
    binary.terminate();
    let unready = loop {
        let res = http.get(format!("{base}/readyz")).send().await.unwrap();
        if res.status() == 503 {
            break (sigterm.elapsed(), res.json::<Value>().await.unwrap());
        }
        assert!(sigterm.elapsed() < Duration::from_secs(1), "never unready");
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert!(
        unready.0 < Duration::from_millis(100),
        "503 after {:?}",
        unready.0
    );
    assert_eq!(unready.1["shuttingDown"], true, "{}", unready.1);
    assert_eq!(unready.1["ready"], false);

    // During the delay: new connections and requests are served.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let healthz = http.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(healthz.status(), 200, "alive until it exits");
    let post = http
        .get(format!("{base}/api/posts/p-1"))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), 200, "a new request during the delay");
    assert!(sigterm.elapsed() < DELAY, "still within the delay");

    // After it: new connections are refused, the one in flight completes.
    tokio::time::sleep(DELAY + Duration::from_millis(300) - sigterm.elapsed()).await;
    let refused = http.get(format!("{base}/healthz")).send().await;
    assert!(
        refused.is_err(),
        "a new connection after the delay: {refused:?}"
    );
    let (status, body) = in_flight.await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["meta"]["path"], "agent", "{body}");

    let exited = loop {
        if let Some(status) = binary.try_exit() {
            break status;
        }
        assert!(
            sigterm.elapsed() < DELAY + GRACE,
            "still running after the delay and the grace period"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(exited.success(), "exit status {exited}");
}
