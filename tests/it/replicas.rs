//! Several replicas on one PostgreSQL (a real server per test, started by
//! support/postgres.rs): replicas are `App`s in this process, or the binary
//! when one must be killed.

use std::{
    collections::HashMap,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use futures::StreamExt;
use linkup_suggestions::store::postgres::{MigrationError, migrate};
use serde_json::{Value, json};

use crate::support::{
    FakeGraph, FakeOpenAi, Options, TestApp, listening_addr, post_body, post_ids,
    postgres::PgServer, spawn_app_with, test_env,
};

/// A fresh server with database `linkup`, and its URL.
async fn database() -> (PgServer, String) {
    let pg = tokio::task::spawn_blocking(PgServer::start).await.unwrap();
    pg.create_db("linkup");
    let url = pg.url("linkup");
    (pg, url)
}

/// A replica on the database at `url`.
async fn replica(url: &str, embeddings: bool) -> TestApp {
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
fn ask(text: &str) -> Value {
    json!({"postId": "asker", "text": text})
}

/// Polls `check` every 10 ms until it holds or `within` has passed.
async fn eventually<F: Future<Output = bool>>(
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

async fn get_status(app: &TestApp, id: &str) -> u16 {
    app.http
        .get(app.url(&format!("/api/posts/{id}")))
        .send()
        .await
        .expect("get")
        .status()
        .as_u16()
}

async fn readiness(app: &TestApp) -> (u16, Value) {
    let res = app
        .http
        .get(app.url("/readyz"))
        .send()
        .await
        .expect("readyz");
    (res.status().as_u16(), res.json().await.expect("json"))
}

/// A gauge's value in `/metrics`.
async fn gauge(app: &TestApp, name: &str) -> f64 {
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

#[tokio::test(flavor = "multi_thread")]
async fn a_post_put_on_one_replica_is_found_on_the_other_and_a_delete_on_it_reaches_the_first() {
    let (_pg, url) = database().await;
    let (a, b) = (replica(&url, false).await, replica(&url, false).await);
    let text = "Who knows how to renew the kubernetes ingress certificate?";

    assert_eq!(a.put_post("k8s-1", post_body(text, &["ops"])).await, 201);
    eventually(Duration::from_secs(1), "B finds A's post", || async {
        post_ids(
            &b.suggest(ask("renew the kubernetes ingress certificate"), None)
                .await
                .1,
        ) == vec!["k8s-1"]
    })
    .await;
    let (_, body) = b.suggest(ask("kubernetes ingress certificate"), None).await;
    assert_eq!(body["posts"][0]["text"], text);
    assert!(
        !body["meta"]["degraded"]
            .as_array()
            .unwrap()
            .contains(&json!("posts_stale")),
        "{body}"
    );
    // Writing again on B updates, not creates: B sees A's post as stored.
    assert_eq!(
        b.put_post("k8s-1", post_body(text, &["ops", "tls"])).await,
        200
    );

    let deleted = b
        .http
        .delete(b.url("/api/posts/k8s-1"))
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    eventually(Duration::from_secs(1), "the delete reaches A", || async {
        get_status(&a, "k8s-1").await == 404
    })
    .await;
    let (status, body) = a.suggest(ask("kubernetes ingress certificate"), None).await;
    assert_eq!(status, 200);
    assert!(post_ids(&body).is_empty(), "{body}");

    let (status, ready) = readiness(&a).await;
    assert_eq!(status, 200);
    assert_eq!(ready["postStore"], "postgres");
    assert_eq!(ready["postStoreReachable"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_started_after_a_thousand_writes_has_every_one_of_them() {
    let (_pg, url) = database().await;
    let a = replica(&url, false).await;
    // 1,000 single writes, 8 at a time; then some deleted, some edited.
    let statuses: Vec<u16> = futures::stream::iter(0..1000)
        .map(|i| {
            let a = &a;
            async move {
                a.put_post(
                    &format!("w-{i}"),
                    post_body(&format!("write number {i} about carpooling"), &[]),
                )
                .await
            }
        })
        .buffer_unordered(8)
        .collect()
        .await;
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
    for i in 0..10 {
        let res = a
            .http
            .delete(a.url(&format!("/api/posts/w-{i}")))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 204);
    }
    for i in 10..20 {
        let edited = post_body(&format!("edited write {i} about parking"), &[]);
        assert_eq!(a.put_post(&format!("w-{i}"), edited).await, 200);
    }

    let late = replica(&url, false).await;
    assert_eq!(gauge(&late, "linkup_posts").await, 990.0);
    for i in 0..1000 {
        let res = late
            .http
            .get(late.url(&format!("/api/posts/w-{i}")))
            .send()
            .await
            .unwrap();
        let expected = if i < 10 { 404 } else { 200 };
        assert_eq!(res.status().as_u16(), expected, "w-{i}");
        if (10..20).contains(&i) {
            let body: Value = res.json().await.unwrap();
            assert_eq!(body["text"], format!("edited write {i} about parking"));
        }
    }
    let (_, body) = late.suggest(ask("edited parking"), None).await;
    assert_eq!(post_ids(&body).len(), 5, "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_killed_during_ingestion_loses_no_acknowledged_post() {
    let (_pg, url) = database().await;
    let (graph, openai) = (FakeGraph::start().await, FakeOpenAi::start().await);
    let dir = tempfile::tempdir().unwrap();
    let mut env: HashMap<String, String> = test_env(
        &graph,
        &openai,
        &dir.path().join("unused.db"),
        &Options::default(),
    );
    env.insert("LINKUP__POSTS__BACKEND".into(), "postgres".into());
    env.insert("DATABASE_URL".into(), url.clone());
    let mut child = Command::new(env!("CARGO_BIN_EXE_linkup-suggestions"))
        .env_clear()
        .envs(&env)
        .env("LINKUP__LOG__FORMAT", "json")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let addr = listening_addr(child.stdout.take().unwrap());
    let http = linkup_suggestions::http_client().unwrap();

    // Four writers (single PUTs and batches of 10) until the process dies.
    let writers = (0..4).map(|w| {
        let (http, addr) = (http.clone(), addr.clone());
        tokio::spawn(async move {
            let mut acknowledged = Vec::new();
            for n in 0.. {
                let ids: Vec<String> = if w % 2 == 0 {
                    vec![format!("k-{w}-{n}")]
                } else {
                    (0..10).map(|i| format!("k-{w}-{n}-{i}")).collect()
                };
                let sent = if w % 2 == 0 {
                    http.put(format!("http://{addr}/api/posts/{}", ids[0]))
                        .json(&post_body("ingested before the crash", &[]))
                        .send()
                        .await
                } else {
                    let posts: Vec<Value> = ids
                        .iter()
                        .map(|id| {
                            let mut p = post_body("ingested before the crash", &[]);
                            p["id"] = json!(id);
                            p
                        })
                        .collect();
                    http.post(format!("http://{addr}/api/posts/batch"))
                        .json(&json!({ "posts": posts }))
                        .send()
                        .await
                };
                match sent {
                    Ok(res) if res.status().is_success() => acknowledged.extend(ids),
                    _ => return acknowledged,
                }
            }
            acknowledged
        })
    });
    let writers: Vec<_> = writers.collect();
    tokio::time::sleep(Duration::from_millis(700)).await;
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let mut acknowledged = Vec::new();
    for w in writers {
        acknowledged.extend(w.await.unwrap());
    }
    assert!(
        acknowledged.len() > 20,
        "only {} acknowledged",
        acknowledged.len()
    );

    let survivor = replica(&url, false).await;
    for id in &acknowledged {
        assert_eq!(
            get_status(&survivor, id).await,
            200,
            "{id} was acknowledged"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn with_postgresql_down_suggestions_answer_from_memory_and_writes_503_then_it_all_converges()
{
    let (mut pg, url) = database().await;
    let (a, b) = (replica(&url, false).await, replica(&url, false).await);
    let text = "Anyone up for the hiking trip to Bukhansan on Saturday?";
    assert_eq!(a.put_post("hike-1", post_body(text, &[])).await, 201);
    eventually(Duration::from_secs(1), "B has the post", || async {
        get_status(&b, "hike-1").await == 200
    })
    .await;

    tokio::task::block_in_place(|| pg.stop());
    eventually(Duration::from_secs(10), "A notices", || async {
        readiness(&a).await.1["postStoreReachable"] == false
    })
    .await;
    let (status, ready) = readiness(&a).await;
    assert_eq!(status, 200, "still ready for suggestions: {ready}");
    assert_eq!(ready["ready"], true);

    let (status, body) = a.suggest(ask("hiking trip Bukhansan"), None).await;
    assert_eq!(status, 200);
    assert_eq!(post_ids(&body), vec!["hike-1"], "{body}");
    assert!(
        body["meta"]["degraded"]
            .as_array()
            .unwrap()
            .contains(&json!("posts_stale")),
        "{body}"
    );
    let res = a
        .http
        .put(a.url("/api/posts/hike-2"))
        .json(&post_body("A second hiking trip, to Dobongsan", &[]))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["retry-after"], "5");
    let error: Value = res.json().await.unwrap();
    assert_eq!(error["error"]["code"], "post_index_unavailable", "{error}");
    let res = b
        .http
        .delete(b.url("/api/posts/hike-1"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 503);

    tokio::task::block_in_place(|| pg.start_again());
    // Writes succeed again once a pooled connection is made (no restart).
    eventually(Duration::from_secs(15), "A writes again", || async {
        a.put_post(
            "hike-2",
            post_body("A second hiking trip, to Dobongsan", &[]),
        )
        .await
            == 201
    })
    .await;
    eventually(
        Duration::from_secs(15),
        "B reconnects and has A's new post",
        || async {
            get_status(&b, "hike-2").await == 200
                && readiness(&b).await.1["postStoreReachable"] == true
        },
    )
    .await;
    let (_, body) = b.suggest(ask("second hiking trip Dobongsan"), None).await;
    assert_eq!(post_ids(&body)[0], "hike-2", "{body}");
    assert!(
        !body["meta"]["degraded"]
            .as_array()
            .unwrap()
            .contains(&json!("posts_stale")),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn each_post_is_embedded_by_one_replica_and_its_vector_reaches_all() {
    let (_pg, url) = database().await;
    let (a, b) = (replica(&url, true).await, replica(&url, true).await);
    let posts: Vec<Value> = (0..40)
        .map(|i| {
            let mut p = post_body(&format!("embed-me number {i} about the office plants"), &[]);
            p["id"] = json!(format!("e-{i}"));
            p
        })
        .collect();
    // Half through each replica, so both start embedding passes.
    let (first, second) = posts.split_at(20);
    let (ra, rb) = tokio::join!(a.post_batch(first), b.post_batch(second));
    assert_eq!((ra.0, rb.0), (200, 200), "{ra:?} {rb:?}");

    for app in [&a, &b] {
        eventually(
            Duration::from_secs(10),
            "every vector on each replica",
            || async { gauge(app, "linkup_posts_embedded").await == 40.0 },
        )
        .await;
    }
    let mut embedded: HashMap<String, usize> = HashMap::new();
    for fake in [&a.openai, &b.openai] {
        for r in fake
            .received()
            .iter()
            .filter(|r| r.path.ends_with("/embeddings"))
        {
            for input in r.body["input"].as_array().unwrap() {
                *embedded
                    .entry(input.as_str().unwrap().to_owned())
                    .or_default() += 1;
            }
        }
    }
    assert_eq!(embedded.len(), 40, "{embedded:?}");
    assert!(
        embedded.values().all(|n| *n == 1),
        "embedded twice: {embedded:?}"
    );
    // B ranks by meaning with vectors A computed, and the other way round.
    let (_, body) = b.suggest(ask("office plants"), None).await;
    assert!(
        !body["meta"]["degraded"]
            .as_array()
            .unwrap()
            .contains(&json!("posts_lexical_only")),
        "{body}"
    );
}

async fn client(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connects");
    tokio::spawn(connection);
    client
}

#[tokio::test(flavor = "multi_thread")]
async fn migrations_run_once_when_three_replicas_start_together() {
    let pg = tokio::task::spawn_blocking(PgServer::start).await.unwrap();
    pg.create_db("linkup");
    let url = pg.url("linkup");
    let replicas = (0..3).map(|_| {
        let url = url.clone();
        tokio::spawn(async move { migrate(&mut client(&url).await).await })
    });
    let mut applied: Vec<Vec<i32>> = Vec::new();
    for replica in replicas {
        applied.push(replica.await.unwrap().expect("migrates"));
    }
    applied.sort();
    assert_eq!(
        applied,
        vec![vec![], vec![], vec![1]],
        "one replica applies, the others find it done"
    );

    let db = client(&url).await;
    let versions: Vec<i32> = db
        .query(
            "SELECT version FROM schema_migrations ORDER BY version",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, vec![1]);
    let counters: i64 = db
        .query_one("SELECT count(*) FROM change_counter", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(counters, 1, "the migration's own inserts ran once");

    // A later start finds nothing to do; a schema from a newer build is refused.
    assert_eq!(
        migrate(&mut client(&url).await).await.unwrap(),
        Vec::<i32>::new()
    );
    db.execute(
        "INSERT INTO schema_migrations (version, name) VALUES (99, 'future')",
        &[],
    )
    .await
    .unwrap();
    let err = migrate(&mut client(&url).await).await.unwrap_err();
    assert!(
        matches!(
            err,
            MigrationError::Newer {
                found: 99,
                known: 1
            }
        ),
        "{err}"
    );
}

/// `linkup-suggestions migrate-posts` with these arguments: (exit code, stdout).
fn migrate_posts(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_linkup-suggestions"))
        .env_clear()
        .arg("migrate-posts")
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn migrate_posts_moves_a_sqlite_index_with_its_vectors_and_run_records_to_postgresql() {
    let (_pg, url) = database().await;
    let mut single = spawn_app_with(Options {
        embeddings: true,
        ..Options::default()
    })
    .await;
    for (id, text) in [
        ("m-1", "Where can I borrow a projector for the town hall?"),
        ("m-2", "Lost a blue umbrella near the cafeteria"),
        ("m-3", "Book club meets on Thursday: this month is Pachinko"),
    ] {
        assert_eq!(single.put_post(id, post_body(text, &[])).await, 201);
    }
    single.wait_until_embedded(3).await;
    let res = single
        .http
        .post(single.url("/api/suggestions"))
        .json(&ask("projector for the town hall"))
        .send()
        .await
        .unwrap();
    let run_id = res.headers()["x-run-id"].to_str().unwrap().to_owned();
    single.shutdown.take().unwrap().send(()).unwrap();
    (&mut single.server).await.unwrap().unwrap();
    let from = format!("sqlite:{}", single.db_path.display());

    let (code, out) = migrate_posts(&["--from", &from, "--to", &url]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("copied 3 posts (3 with vectors) and 1 run records"),
        "{out}"
    );
    // Again: harmless (posts replaced, not doubled).
    assert_eq!(migrate_posts(&["--from", &from, "--to", &url]).0, 0);

    let replica = replica(&url, true).await;
    assert_eq!(gauge(&replica, "linkup_posts").await, 3.0);
    assert_eq!(gauge(&replica, "linkup_posts_embedded").await, 3.0);
    let (_, body) = replica.suggest(ask("projector town hall"), None).await;
    assert_eq!(post_ids(&body)[0], "m-1", "{body}");
    let embedded_posts = replica
        .openai
        .received()
        .iter()
        .filter(|r| r.path.ends_with("/embeddings"))
        .count();
    assert_eq!(
        embedded_posts, 1,
        "only the query is embedded, not the posts"
    );
    let res = replica
        .http
        .get(replica.url(&format!("/api/runs/{run_id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);

    // Mistakes are named, not half-done.
    assert_eq!(
        migrate_posts(&["--from", &from]).0,
        2,
        "no --to, no DATABASE_URL"
    );
    assert_eq!(migrate_posts(&["--to", &url]).0, 2);
    let (code, _) = migrate_posts(&["--from", "sqlite:/nonexistent/posts.db", "--to", &url]);
    assert_eq!(code, 1);
}
