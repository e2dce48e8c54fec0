//! PostgreSQL down (answers from memory, writes refused, then convergence),
//! and each post embedded by one replica for all.

use std::{collections::HashMap, time::Duration};

use serde_json::{Value, json};

use crate::support::{post_body, post_ids};

use super::*;

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

/// `linkup_local_embeddings_total{purpose="post"}` on `app` (0 before any).
async fn posts_embedded_here(app: &TestApp) -> f64 {
    let metrics = app.get_text("/metrics").await;
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("linkup_local_embeddings_total{purpose=\"post\"} "))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_multilingual_models_vectors_are_shared_and_a_new_model_embeds_every_post_again() {
    let (_pg, url) = database().await;
    let (a, b) = (replica(&url, false).await, replica(&url, false).await);
    let posts: Vec<Value> = (0..12)
        .map(|i| {
            let mut p = post_body(&format!("사무실 화분 물주기 당번 {i}"), &[]);
            p["id"] = json!(format!("m-{i}"));
            p
        })
        .collect();
    assert_eq!(a.post_batch(&posts).await.0, 200);
    for app in [&a, &b] {
        eventually(
            Duration::from_secs(20),
            "every vector on each replica",
            || async { gauge(app, "linkup_posts_embedded").await == 12.0 },
        )
        .await;
    }
    assert_eq!(
        posts_embedded_here(&a).await + posts_embedded_here(&b).await,
        12.0,
        "each post embedded once, by one replica"
    );

    // Vectors of another model are neither loaded nor kept: a replica
    // starting now embeds every post again, and the others take its vectors.
    let db = {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
    };
    db.execute("UPDATE posts SET embedding_model = 'another-model'", &[])
        .await
        .unwrap();
    let c = replica(&url, false).await;
    eventually(
        Duration::from_secs(30),
        "the posts embedded again by the running model",
        || async { gauge(&c, "linkup_posts_embedded").await == 12.0 },
    )
    .await;
    let stale: i64 = db
        .query_one(
            "SELECT count(*) FROM posts WHERE embedding_model = 'another-model'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(stale, 0);
}
