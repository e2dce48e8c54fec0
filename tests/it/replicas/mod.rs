//! Several replicas on one PostgreSQL (a real server per test, started by
//! support/postgres.rs): replicas are `App`s in this process, or the binary
//! when one must be killed.
//! - [`sync`]: writes on one replica reach the others, late starters and
//!   killed writers included;
//! - [`outage`]: the database down, and embedding shared between replicas;
//! - [`schema`]: migrations and `migrate-posts`;
//! - [`shared_cache`]: the panel cache's shared tier.

mod entra;
mod outage;
mod schema;
mod shared_cache;
mod sync;
mod tls;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Options, TestApp, postgres::PgServer, spawn_app_with};

/// A fresh server with database `linkup`, and its URL.
pub(super) async fn database() -> (PgServer, String) {
    let pg = tokio::task::spawn_blocking(PgServer::start).await.unwrap();
    pg.create_db("linkup");
    let url = pg.url("linkup");
    (pg, url)
}

/// A replica on the database at `url`.
pub(super) async fn replica(url: &str, embeddings: bool) -> TestApp {
    spawn_app_with(Options {
        embeddings,
        env: vec![
            ("LINKUP__POSTS__BACKEND", "postgres".to_owned()),
            ("LINKUP__POSTS__DATABASE_URL", url.to_owned()),
            ("LINKUP__POSTS__EMBED_RETRY_INTERVAL_SECS", "1".to_owned()),
        ],
        ..Options::default()
    })
    .await
}

/// A suggestions request about `text` (from another post).
pub(super) fn ask(text: &str) -> Value {
    json!({"postId": "asker", "text": text})
}

/// Polls `check` every 10 ms until it holds or `within` has passed.
pub(super) async fn eventually<F: Future<Output = bool>>(
    within: Duration,
    what: &str,
    mut check: impl FnMut() -> F,
) {
    let started = Instant::now();
    loop {
        if check().await {
            return;
        }
        assert!(started.elapsed() < within, "{what}: not within {within:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

pub(super) async fn get_status(app: &TestApp, id: &str) -> u16 {
    app.http
        .get(app.url(&format!("/api/posts/{id}")))
        .send()
        .await
        .expect("get")
        .status()
        .as_u16()
}

pub(super) async fn readiness(app: &TestApp) -> (u16, Value) {
    let res = app
        .http
        .get(app.url("/readyz"))
        .send()
        .await
        .expect("readyz");
    (res.status().as_u16(), res.json().await.expect("json"))
}

/// A gauge's value in `/metrics`.
pub(super) async fn gauge(app: &TestApp, name: &str) -> f64 {
    let text = app
        .http
        .get(app.url("/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("{name} in /metrics"))
}
