//! The post index through the ingestion API and `search_posts`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{
    Options,
    binary::Binary,
    openai::{ChatStep, EmbedBehavior},
    post_body, post_ids, spawn_app, spawn_app_with, strings,
};

#[tokio::test]
async fn a_post_is_created_then_updated_fetched_and_deleted_idempotently() {
    let app = spawn_app().await;
    assert_eq!(
        app.put_post("p-1", post_body("first text", &["a"])).await,
        201
    );
    assert_eq!(
        app.put_post("p-1", post_body("second text", &["a"])).await,
        200
    );
    let got: Value = app.get_json("/api/posts/p-1").await;
    assert_eq!(got["id"], "p-1");
    assert_eq!(got["text"], "second text");
    assert_eq!(got["joinCount"], 1);
    for _ in 0..2 {
        let res = app
            .http
            .delete(app.url("/api/posts/p-1"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 204);
    }
    assert_eq!(
        app.http
            .get(app.url("/api/posts/p-1"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
}

#[tokio::test]
async fn invalid_posts_are_rejected_naming_the_field() {
    let app = spawn_app().await;
    for (field, value) in [
        ("createdAt", json!("yesterday")),
        ("lat", json!(123.0)),
        ("lng", json!(-181)),
        ("id", json!("other")),
    ] {
        let mut body = post_body("text", &[]);
        body[field] = value;
        let (status, answer) = app.put("p-1", body).await;
        assert_eq!(status, 400, "{field}");
        assert_eq!(answer["error"]["field"], field);
    }
}

#[tokio::test]
async fn batch_upserts_many_posts_and_names_the_bad_item() {
    // Words only: a thousand posts' vectors are not what this is about.
    let app = spawn_app_with(Options {
        env: vec![("LINKUP__POSTS__EMBEDDER", "none".into())],
        ..Default::default()
    })
    .await;
    let posts: Vec<Value> = (0..1000)
        .map(|i| {
            let mut p = post_body(&format!("post number {i} about pipelines"), &[]);
            p["id"] = json!(format!("b-{i}"));
            p
        })
        .collect();
    assert_eq!(
        app.post_batch(&posts).await,
        (200, json!({"created": 1000, "updated": 0}))
    );
    let mut again = posts[..2].to_vec();
    again[1]["text"] = json!("");
    let (status, body) = app.post_batch(&again).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["field"], "posts[1].text");
    let mut too_many = posts.clone();
    too_many.push(posts[0].clone());
    assert_eq!(app.post_batch(&too_many).await.0, 400);
}

#[tokio::test]
async fn expired_posts_are_never_returned_and_are_purged() {
    let app = spawn_app_with(Options {
        env: vec![("LINKUP__POSTS__PURGE_INTERVAL_SECS", "1".into())],
        ..Default::default()
    })
    .await;
    let mut expired = post_body("carpool to the office on friday", &[]);
    expired["expiresAt"] = json!("2021-06-01T00:00:00Z");
    app.put_post("p-old", expired).await;
    app.put_post("p-live", post_body("carpool to the office on monday", &[]))
        .await;
    assert_eq!(
        app.http
            .get(app.url("/api/posts/p-old"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let (_, body) = app
        .suggest(json!({"postId": "p-x", "text": "carpool office"}), None)
        .await;
    assert_eq!(post_ids(&body), vec!["p-live"]);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let conn = rusqlite::Connection::open(&app.db_path).unwrap();
    let ids: Vec<String> = conn
        .prepare("SELECT id FROM posts")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(ids, vec!["p-live"]);
}

#[tokio::test]
async fn at_most_five_similar_posts_are_returned_best_first() {
    let app = spawn_app().await;
    for i in 0..8 {
        app.put_post(
            &format!("p-{i}"),
            post_body(&format!("kubernetes cluster upgrade notes {i}"), &[]),
        )
        .await;
    }
    app.put_post(
        "p-best",
        post_body(
            "kubernetes cluster upgrade, kubernetes cluster upgrade",
            &["kubernetes"],
        ),
    )
    .await;
    let (_, body) = app
        .suggest(
            json!({"postId": "p-x", "text": "kubernetes cluster upgrade"}),
            None,
        )
        .await;
    let ids = post_ids(&body);
    assert_eq!(ids.len(), 5);
    assert_eq!(ids[0], "p-best");
}

#[tokio::test]
async fn a_post_sharing_only_common_words_is_not_suggested() {
    let app = spawn_app().await;
    app.put_post(
        "p-related",
        post_body("How we upgrade a kubernetes cluster without downtime", &[]),
    )
    .await;
    for (id, text) in [
        ("p-sales", "Our sales cluster meeting moved to Friday"),
        ("p-lunch", "Lunch cluster near the office: who is in?"),
        ("p-chess", "Chess club meeting on Friday"),
    ] {
        app.put_post(id, post_body(text, &[])).await;
    }
    let (_, body) = app
        .suggest(
            json!({"postId": "p-x", "text": "Kubernetes cluster upgrade: any downtime?"}),
            None,
        )
        .await;
    assert_eq!(
        post_ids(&body),
        vec!["p-related"],
        "one related post, not padded with ones sharing a common word: {body}"
    );
}

#[tokio::test]
async fn with_embeddings_posts_are_found_by_meaning_not_only_words() {
    let app = spawn_app_with(Options {
        embeddings: true,
        ..Default::default()
    })
    .await;
    app.put_post("p-car", post_body("Anyone up for a carpool?", &[]))
        .await;
    app.put_post("p-lunch", post_body("Best restaurant near the office", &[]))
        .await;
    app.wait_until_embedded(2).await;
    let (_, body) = app
        .suggest(json!({"postId": "p-x", "text": "automobile sharing"}), None)
        .await;
    assert_eq!(
        post_ids(&body).first().map(String::as_str),
        Some("p-car"),
        "{body}"
    );
    assert!(!strings(&body["meta"]["degraded"]).contains(&"posts_lexical_only".to_owned()));
    let embeds: Vec<_> = app
        .openai
        .received()
        .into_iter()
        .filter(|r| r.path.ends_with("/embeddings"))
        .collect();
    assert!(
        embeds
            .iter()
            .all(|r| r.path.contains("text-embedding-3-small") && r.body["dimensions"] == 256)
    );
}

#[tokio::test]
async fn with_azure_embeddings_down_the_local_model_ranks_and_posts_are_embedded_later() {
    let app = spawn_app_with(Options {
        embeddings: true,
        env: vec![("LINKUP__POSTS__EMBED_RETRY_INTERVAL_SECS", "1".into())],
        ..Default::default()
    })
    .await;
    app.openai.embeddings(EmbedBehavior::Status(500));
    app.put_post(
        "p-car",
        post_body("Looking for a carpool to the campus", &[]),
    )
    .await;
    let (status, body) = app
        .suggest(json!({"postId": "p-x", "text": "carpool campus"}), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(post_ids(&body), vec!["p-car"]);
    let reasons = strings(&body["meta"]["degraded"]);
    assert!(reasons.contains(&"posts_local_model".to_owned()), "{body}");
    assert!(
        reasons.contains(&"embeddings_upstream_error".to_owned()),
        "{body}"
    );
    assert_eq!(app.embedded_count(), 0);

    app.openai.embeddings(EmbedBehavior::Normal);
    app.wait_until_embedded(1).await;
    let (_, body) = app
        .suggest(json!({"postId": "p-x", "text": "automobile"}), None)
        .await;
    assert_eq!(
        post_ids(&body),
        vec!["p-car"],
        "found by meaning once embedded"
    );
}

#[tokio::test]
async fn a_backlog_of_several_embedding_batches_is_embedded_in_full() {
    let app = spawn_app_with(Options {
        embeddings: true,
        ..Default::default()
    })
    .await;
    // 150 posts: three calls to the embeddings deployment (64 inputs each at most).
    let posts: Vec<Value> = (0..150)
        .map(|i| {
            let text = if i == 149 {
                "Anyone driving to the campus? Looking for a carpool".to_owned()
            } else {
                format!("post number {i} about the quarterly budget review")
            };
            let mut p = post_body(&text, &[]);
            p["id"] = json!(format!("b-{i}"));
            p
        })
        .collect();
    assert_eq!(app.post_batch(&posts).await.0, 200);
    app.wait_until_embedded(150).await;
    let (_, body) = app
        .suggest(json!({"postId": "p-x", "text": "automobile"}), None)
        .await;
    assert_eq!(
        post_ids(&body).first().map(String::as_str),
        Some("b-149"),
        "the last batch's post is found by meaning: {body}"
    );
}

#[tokio::test]
async fn acknowledged_writes_survive_a_kill_9_of_the_process() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("posts.db");
    let http = linkup_suggestions::upstream::http_client().unwrap();
    let binary = Binary::start([("LINKUP__POSTS__DB_PATH", &db)]);
    let addr = binary.addr.clone();
    for i in 0..20 {
        let res = http
            .put(format!("http://{addr}/api/posts/k-{i}"))
            .json(&post_body("durable post", &[]))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
    }
    binary.kill(); // SIGKILL: no shutdown, no checkpoint

    let binary = Binary::start([("LINKUP__POSTS__DB_PATH", &db)]);
    let addr = binary.addr.clone();
    for i in 0..20 {
        let res = http
            .get(format!("http://{addr}/api/posts/k-{i}"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "post k-{i} lost");
    }
    // The text index is rebuilt from the database: the posts are found by their words.
    let res: Value = http
        .post(format!("http://{addr}/api/suggestions"))
        .json(&json!({"postId": "q", "text": "Is there a durable post?"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(res["posts"].as_array().map(Vec::len), Some(5), "{res}");
}

#[tokio::test]
async fn hanging_embeddings_hand_the_ranking_to_the_local_model_within_their_timeout() {
    let app = spawn_app_with(Options {
        embeddings: true,
        env: vec![("LINKUP__AZURE_OPENAI__EMBEDDINGS_TIMEOUT_MS", "300".into())],
        ..Default::default()
    })
    .await;
    app.openai.embeddings(EmbedBehavior::Hang);
    app.put_post(
        "p-car",
        post_body("Looking for a carpool to the campus", &[]),
    )
    .await;
    let (status, body) = app
        .suggest(json!({"postId": "p-x", "text": "carpool campus"}), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "fallback");
    assert_eq!(post_ids(&body), vec!["p-car"]);
    let reasons = strings(&body["meta"]["degraded"]);
    assert!(reasons.contains(&"posts_local_model".to_owned()), "{body}");
    assert!(reasons.contains(&"embeddings_timeout".to_owned()), "{body}");
}

#[tokio::test]
async fn a_query_embedding_slower_than_the_deadline_gives_way_to_the_local_model_before_it() {
    // The model asks for a posts search in each run; Azure's query embedding
    // would take longer than the whole run (its own timeout is 10 s).
    let app = spawn_app_with(Options {
        llm: true,
        embeddings: true,
        env: vec![
            ("LINKUP__AGENT__TIMEOUT_MS", "1500".into()),
            ("LINKUP__AGENT__CIRCUIT_FAILURE_THRESHOLD", "1".into()),
        ],
    })
    .await;
    app.put_post(
        "p-car",
        post_body("Looking for a carpool to the campus", &[]),
    )
    .await;
    // Its own words: not the first search's, which the run would answer
    // from its memo.
    app.openai.chat_by_round(vec![
        ChatStep::searches("carpool to the campus"),
        ChatStep::Final(json!({"m365": [], "posts": ["p1"], "actionHint": "Ask the carpool."})),
    ]);
    app.openai.embeddings(EmbedBehavior::Hang);
    for run in 0..2 {
        let (status, body) = app
            .suggest(json!({"postId": "p-x", "text": "carpool campus"}), None)
            .await;
        assert_eq!(status, 200);
        // The search answered before the deadline, by meaning, rather than
        // leaving the deadline to find posts by words.
        assert_eq!(post_ids(&body), vec!["p-car"], "run {run}: {body}");
        let reasons = strings(&body["meta"]["degraded"]);
        assert!(
            reasons.contains(&"posts_local_model".to_owned()),
            "run {run}: {body}"
        );
        assert!(
            reasons.contains(&"embeddings_timeout".to_owned()),
            "run {run}: {body}"
        );
        assert!(
            !reasons.contains(&"deadline".to_owned()),
            "run {run}: {body}"
        );
        // The slow search spent the model's time: that is not the model
        // failing, so the next run still tries the agent.
        assert!(
            !reasons.contains(&"llm_circuit_open".to_owned()),
            "run {run}: {body}"
        );
    }
    assert_eq!(
        app.openai.chat_requests().len(),
        2,
        "one model call per run: none made without time for it"
    );
}

#[tokio::test]
async fn vectors_of_another_size_than_the_deployment_was_asked_for_are_never_stored() {
    let app = spawn_app_with(Options {
        embeddings: true,
        env: vec![("LINKUP__POSTS__EMBED_RETRY_INTERVAL_SECS", "1".into())],
        ..Default::default()
    })
    .await;
    let text = "Looking for a carpool to the campus";
    // The service asks for 256 dimensions; this deployment answers 3.
    let wrong = [(text.to_owned(), vec![0.6, 0.8, 0.0])];
    app.openai.vectors(wrong.into_iter().collect());
    app.put_post("p-car", post_body(text, &[])).await;
    for _ in 0..200 {
        let asked = app.openai.received().iter().any(|r| {
            r.path.contains("embeddings") && r.body["input"].to_string().contains("carpool")
        });
        if asked {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(app.embedded_count(), 0, "a 3-dimension vector was stored");
    let (status, body) = app
        .suggest(json!({"postId": "p-x", "text": "carpool campus"}), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(post_ids(&body), vec!["p-car"], "still found by words");
}
