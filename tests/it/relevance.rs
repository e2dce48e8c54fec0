//! What decides relevance, as a user of the service sees it: meaning-based
//! post search with nothing configured (the local model), the embedder
//! setting and what `/readyz` and `/metrics` say of it, a missing model
//! named at start-up, and the Graph requests a panel may make.

use std::path::PathBuf;

use linkup_suggestions::{App, settings::Settings};
use serde_json::{Value, json};

use crate::support::{
    Doc, Options, TestApp,
    graph::TOKEN,
    openai::{ChatStep, EmbedBehavior},
    post_ids, spawn_app_with,
};

/// The evaluation set's posts: an index whose spread the floors can read.
pub(crate) async fn with_background_posts(app: &TestApp) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/quality/tuning.json");
    let set: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let posts: Vec<Value> = set["posts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            json!({"id": p["id"], "authorId": "u1", "authorName": "Kim", "text": p["text"],
                "tags": p["tags"], "category": "discussion", "lat": 37.5, "lng": 127.0,
                "createdAt": "2026-11-01T09:00:00Z", "expiresAt": "2099-01-01T00:00:00Z"})
        })
        .collect();
    let (status, body) = app.post_batch(&posts).await;
    assert_eq!(status, 200, "{body}");
}

/// A post that shares no word with the question below, only its meaning.
const SCREEN_POST: &str = "screen blinking display problem";
const SCREEN_QUESTION: &str = "monitor flickering";

#[tokio::test]
async fn with_nothing_configured_a_post_in_other_words_is_found_by_the_local_model() {
    let app = spawn_app_with(Options::default()).await;
    with_background_posts(&app).await;
    app.put_post("p-screen", crate::support::post_body(SCREEN_POST, &[]))
        .await;
    let (status, body) = app
        .suggest(json!({"postId": "p-ask", "text": SCREEN_QUESTION}), None)
        .await;
    assert_eq!(status, 200);
    assert!(post_ids(&body).contains(&"p-screen".to_owned()), "{body}");
    assert!(
        !crate::support::strings(&body["meta"]["degraded"])
            .iter()
            .any(|d| d.starts_with("posts_")),
        "{body}"
    );
}

#[tokio::test]
async fn with_the_embedder_off_posts_are_matched_by_words_only() {
    let app = spawn_app_with(Options {
        env: vec![("LINKUP__POSTS__EMBEDDER", "none".into())],
        ..Default::default()
    })
    .await;
    with_background_posts(&app).await;
    app.put_post("p-screen", crate::support::post_body(SCREEN_POST, &[]))
        .await;
    let (_, body) = app
        .suggest(json!({"postId": "p-ask", "text": SCREEN_QUESTION}), None)
        .await;
    assert!(!post_ids(&body).contains(&"p-screen".to_owned()), "{body}");
    let ready: Value = app.get_json("/readyz").await;
    assert_eq!(ready["embedder"], "none");
    assert!(ready["localModel"].is_null(), "{ready}");
}

#[tokio::test]
async fn readyz_and_metrics_name_the_embedder_and_the_local_model() {
    // The multilingual model ranks with nothing configured; the word model
    // stands in for Azure's embeddings.
    for (embeddings, embedder, local) in [
        (false, "local", "multilingual-e5-small-koen-q4"),
        (true, "azure", "wordllama-l2-supercat-256"),
    ] {
        let app = spawn_app_with(Options {
            embeddings,
            ..Default::default()
        })
        .await;
        let ready: Value = app.get_json("/readyz").await;
        assert_eq!(ready["embedder"], embedder, "{ready}");
        assert_eq!(ready["localModel"], local, "{ready}");
        assert_eq!(ready["wordModel"], "wordllama-l2-supercat-256", "{ready}");
        let metrics = app.get_text("/metrics").await;
        let line =
            format!("linkup_post_embedder{{embedder=\"{embedder}\",local_model=\"{local}\"}} 1");
        assert!(metrics.contains(&line), "{line} not in {metrics}");
    }
}

#[tokio::test]
async fn a_missing_model_stops_start_up_naming_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("LINKUP__SERVER__ADDR", "127.0.0.1:0".to_owned()),
        (
            "LINKUP__POSTS__DB_PATH",
            dir.path().join("posts.db").display().to_string(),
        ),
        (
            "LINKUP__POSTS__MODEL_PATH",
            dir.path().join("no-model").display().to_string(),
        ),
        ("LINKUP__AZURE_OPENAI__EMBEDDING_DEPLOYMENT", String::new()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let settings = Settings::load_from(&PathBuf::from("config"), env).unwrap();
    let err = format!(
        "{:#}",
        App::build(settings).await.err().expect("start-up fails")
    );
    assert!(err.contains("no-model/tokenizer.json"), "{err}");
    assert!(
        err.contains("posts.embedder"),
        "says how to run without it: {err}"
    );
}

/// Graph requests the fake received since `before`.
fn graph_requests(app: &TestApp, before: usize) -> usize {
    app.graph.received().len() - before
}

#[tokio::test]
async fn a_fallback_panel_makes_two_graph_requests_and_an_agent_panel_at_most_six() {
    let app = spawn_app_with(Options {
        llm: true,
        ..Default::default()
    })
    .await;
    app.graph.add([Doc::file(
        "Kubernetes resource limits guide",
        "https://contoso.sharepoint.com/k8s-limits.docx",
        "requests and limits for pods, eviction",
    )]);
    // Fallback (the LLM fails at once): one search, files and mail.
    app.openai.chat([ChatStep::Status(500)]);
    let before = app.graph.received().len();
    let question = json!({"postId": "p-ask",
        "text": "Our pods keep getting evicted on the cluster, any internal guide on k8s resource limits?"});
    let (_, body) = app.suggest(question.clone(), Some(TOKEN)).await;
    assert_eq!(body["meta"]["path"], "fallback", "{body}");
    assert_eq!(graph_requests(&app, before), 2, "{:?}", app.graph.queries());
    assert_eq!(
        body["m365"][0]["title"], "Kubernetes resource limits guide",
        "{body}"
    );

    // An agent whose model searches five times for what finds nothing (each
    // would be retried OR-ed): the panel stops at six requests.
    let calls: Vec<(&'static str, Value)> = (0..5)
        .map(|i| ("search_m365", json!({"query": format!("zzq{i} yyq{i}")})))
        .collect();
    app.openai.chat([
        ChatStep::ToolCalls(calls),
        ChatStep::Final(json!({"m365": [], "posts": [], "actionHint": "Ask your team."})),
    ]);
    let before = app.graph.received().len();
    let (_, body) = app.suggest(question, Some(TOKEN)).await;
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    assert_eq!(graph_requests(&app, before), 6, "{:?}", app.graph.queries());
    assert!(
        body["unavailableSources"].as_array().unwrap().is_empty(),
        "{body}"
    );
}

/// An index where a fifth of the posts share the question's topic: nothing
/// stands out by meaning (they are the crowd), and words still find them.
#[tokio::test]
async fn a_topic_many_posts_share_is_still_found_with_or_without_azure_embeddings() {
    const OTHER: [&str; 4] = [
        "the lunch menu at the cafeteria",
        "parking permits for the garage",
        "booking a meeting room on 5F",
        "the printer jam on 3F",
    ];
    let app = spawn_app_with(Options {
        embeddings: true,
        ..Default::default()
    })
    .await;
    let posts: Vec<Value> = (0..200)
        .map(|i| {
            let text = if i % 5 == 0 {
                format!("Post {i} about the deployment pipeline of repo {}", i % 17)
            } else {
                format!("Post {i} about {}", OTHER[i % OTHER.len()])
            };
            json!({"id": format!("seed-{i}"), "authorId": "u", "authorName": "Kim", "text": text,
                "tags": [], "lat": 37.5, "lng": 127.0, "createdAt": "2026-11-01T00:00:00Z",
                "expiresAt": "2099-01-01T00:00:00Z"})
        })
        .collect();
    let (status, body) = app.post_batch(&posts).await;
    assert_eq!(status, 200, "{body}");
    app.wait_until_embedded(200).await;
    for behavior in [EmbedBehavior::Normal, EmbedBehavior::Status(429)] {
        app.openai.embeddings(behavior);
        let question = json!({"postId": "q-1",
            "text": "How do I set up a deployment pipeline for our team's repo?"});
        let (_, body) = app.suggest(question, Some(TOKEN)).await;
        let ids = post_ids(&body);
        assert!(!ids.is_empty(), "{body}");
        for id in ids {
            let n: usize = id.trim_start_matches("seed-").parse().unwrap();
            assert_eq!(n % 5, 0, "{id} is not about deployment pipelines: {body}");
        }
    }
}
