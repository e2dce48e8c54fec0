//! The multilingual model with nothing configured (issue 50): posts embedded
//! once when written and their vectors stored with the model's id; a view
//! of a stored post spends no inference, a new text one; a restart loads
//! the vectors, a change of model embeds again; Korean and English posts
//! find each other.

use serde_json::{Value, json};

use crate::support::{Options, TestApp, post_body, post_ids, spawn_app_with};

/// The tuning half's posts, Korean and English: an index whose spread the
/// floors can read.
async fn with_background_posts(app: &TestApp) {
    let mut posts = Vec::new();
    for file in ["tuning.json", "korean.json"] {
        let path = format!("{}/tests/quality/{file}", env!("CARGO_MANIFEST_DIR"));
        let set: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        posts.extend(set["posts"].as_array().unwrap().iter().map(|p| {
            json!({"id": p["id"], "authorId": "u1", "authorName": "Kim", "text": p["text"],
                "tags": p["tags"], "category": "discussion", "lat": 37.5, "lng": 127.0,
                "createdAt": "2026-11-01T09:00:00Z", "expiresAt": "2099-01-01T00:00:00Z"})
        }));
    }
    let (status, body) = app.post_batch(&posts).await;
    assert_eq!(status, 200, "{body}");
}

/// `linkup_local_embeddings_total{purpose}` as `/metrics` says it (0 before any).
pub(crate) async fn embedded(app: &TestApp, purpose: &str) -> u64 {
    let metrics = app.get_text("/metrics").await;
    let prefix = format!("linkup_local_embeddings_total{{purpose=\"{purpose}\"}} ");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map_or(0, |v| v.trim().parse().unwrap())
}

fn uncached() -> Options {
    Options {
        env: vec![("LINKUP__CACHE__ENABLED", "false".into())],
        ..Options::default()
    }
}

#[tokio::test]
async fn korean_and_english_posts_on_one_topic_find_each_other() {
    let app = spawn_app_with(uncached()).await;
    with_background_posts(&app).await;
    app.put_post(
        "p-ev-en",
        post_body(
            "Is there a charger for electric cars in the office parking garage?",
            &[],
        ),
    )
    .await;
    app.put_post(
        "p-library-ko",
        post_body("사내 도서관에서 책을 빌리려면 어떻게 해야 하나요?", &[]),
    )
    .await;
    let (_, body) = app
        .suggest(
            json!({"postId": "q-ko", "text": "회사 주차장에 전기차 충전기 있나요?"}),
            None,
        )
        .await;
    assert!(post_ids(&body).contains(&"p-ev-en".to_owned()), "{body}");
    let (_, body) = app
        .suggest(
            json!({"postId": "q-en", "text": "How can I borrow books from the company library?"}),
            None,
        )
        .await;
    assert!(
        post_ids(&body).contains(&"p-library-ko".to_owned()),
        "{body}"
    );
}

#[tokio::test]
async fn a_view_of_a_stored_post_embeds_nothing_and_a_new_text_is_embedded_once() {
    let app = spawn_app_with(uncached()).await;
    for (id, text) in [
        ("p-1", "How do I reset my VPN password?"),
        ("p-2", "VPN password expired while travelling"),
        ("p-3", "Where is the cafeteria menu for this week?"),
    ] {
        app.put_post(id, post_body(text, &["it"])).await;
    }
    assert_eq!(
        embedded(&app, "post").await,
        3,
        "each post once, when written"
    );
    assert_eq!(embedded(&app, "query").await, 0);

    for _ in 0..2 {
        let res = app
            .http
            .get(app.url("/api/posts/p-1/suggestions"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
    assert_eq!(embedded(&app, "query").await, 0, "the stored vector serves");

    for _ in 0..2 {
        let (status, _) = app
            .suggest(
                json!({"postId": "p-new", "text": "My VPN token stopped working"}),
                None,
            )
            .await;
        assert_eq!(status, 200);
    }
    assert_eq!(
        embedded(&app, "query").await,
        1,
        "a new text once, then remembered"
    );
}

#[tokio::test]
async fn a_restart_loads_the_stored_vectors_and_a_new_model_embeds_every_post_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("posts.db");
    let options = || Options {
        env: vec![("LINKUP__POSTS__DB_PATH", db.display().to_string())],
        ..Options::default()
    };
    let mut first = spawn_app_with(options()).await;
    for i in 0..5 {
        first
            .put_post(
                &format!("p-{i}"),
                post_body(&format!("Team lunch plan number {i}"), &[]),
            )
            .await;
    }
    assert_eq!(embedded(&first, "post").await, 5);
    first.shutdown.take().unwrap().send(()).unwrap();
    (&mut first.server).await.unwrap().unwrap();

    let mut second = spawn_app_with(options()).await;
    let metrics = second.get_text("/metrics").await;
    assert!(
        metrics.contains("linkup_posts_embedded 5"),
        "loaded: {metrics}"
    );
    assert_eq!(
        embedded(&second, "post").await,
        0,
        "nothing embedded at start-up"
    );
    second.shutdown.take().unwrap().send(()).unwrap();
    (&mut second.server).await.unwrap().unwrap();

    // Vectors of another model (or of an older way of embedding) are not
    // loaded: the posts are embedded again in the background.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE posts SET embedding_model = 'another-model'", [])
        .unwrap();
    drop(conn);
    let third = spawn_app_with(options()).await;
    third.wait_until_local_vectors().await;
    assert_eq!(embedded(&third, "post").await, 5, "every post again, once");
}
