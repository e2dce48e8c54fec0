//! The panel the agent answers: its tool results merged, the fallback on an
//! LLM failure, partial results by the deadline.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{
    Options,
    graph::{Behavior, TOKEN},
    openai::ChatStep,
    post_ids, spawn_app_with, titles,
};

use super::*;

#[tokio::test]
async fn agent_returns_the_combined_response_from_its_tool_results_without_duplicates() {
    let app = loop_app(vec![]).await;
    app.openai.chat([
        ChatStep::ToolCalls(vec![
            ("search_m365", json!({"query": "deployment pipeline"})),
            ("search_m365", json!({"query": "pipeline runbook"})),
            ("search_posts", json!({"query": "deployment pipeline"})),
        ]),
        final_answer(
            json!(["m1", "m1", "m2"]),
            json!(["p1"]),
            "Start with the 'Deployment pipeline runbook'.",
        ),
    ]);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    assert_eq!(body["meta"]["rounds"], 2);
    assert_eq!(
        titles(&body),
        vec!["Deployment pipeline runbook"],
        "both queries found it; it appears once"
    );
    assert_eq!(post_ids(&body), vec!["p-77"]);
    assert_eq!(
        body["actionHint"],
        "Start with the 'Deployment pipeline runbook'."
    );
    assert_eq!(body["unavailableSources"], json!([]));
    let second = &app.openai.chat_requests()[1].body;
    let tool_messages: Vec<&Value> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(tool_messages.len(), 3, "one tool message per call");
    let content = |i: usize| tool_messages[i]["content"].as_str().unwrap();
    assert!(
        content(0).contains("\nm1 | sharepoint | Deployment pipeline runbook | "),
        "{}",
        content(0)
    );
    assert_eq!(
        content(1),
        "ref | source | title | description\nm1 | (listed above)",
        "a result the model has read is not sent again"
    );
}

#[tokio::test]
async fn all_tools_empty_give_empty_arrays_and_a_null_hint() {
    let app = spawn_app_with(Options {
        llm: true,
        ..Default::default()
    })
    .await;
    app.openai.chat([
        ChatStep::searches("quantum origami"),
        final_answer(json!([]), json!([]), "Nothing found, ask your team."),
    ]);
    let (status, body) = app
        .suggest(
            json!({"postId": "p1", "text": "quantum origami"}),
            Some(TOKEN),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        (
            body["m365"].clone(),
            body["posts"].clone(),
            body["actionHint"].clone()
        ),
        (json!([]), json!([]), Value::Null)
    );
    assert_eq!(body["meta"]["path"], "agent");
}

#[tokio::test]
async fn expanded_queries_run_in_parallel_and_find_more_than_the_raw_text() {
    let app = loop_app(vec![]).await;
    app.graph.files(Behavior::Delay(Duration::from_millis(300)));
    app.graph.mail(Behavior::Delay(Duration::from_millis(300)));
    let raw = "How do I set up a deployment pipeline for our repo?";
    app.openai.chat([
        ChatStep::ToolCalls(vec![
            ("search_m365", json!({"query": "deployment pipeline"})),
            (
                "search_m365",
                json!({"query": "CI/CD continuous integration"}),
            ),
            ("search_m365", json!({"query": "release process"})),
        ]),
        final_answer(json!(["m1", "m2", "m3"]), json!([]), "Read the runbook."),
    ]);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(titles(&body).len(), 3, "{body}");
    assert!(
        app.graph.max_in_flight() >= 6,
        "3 queries x 2 entity groups at once, saw {}",
        app.graph.max_in_flight()
    );

    // The same corpus searched with the raw sentence, as the old service did:
    let single = reqwest::Client::new()
        .post(format!("{}/v1.0/search/query", app.graph.url()))
        .bearer_auth(TOKEN)
        .json(&json!({"requests": [{"entityTypes": ["driveItem", "listItem"], "query": {"queryString": raw}, "size": 10}]}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    let raw_hits = single["value"][0]["hitsContainers"][0]["hits"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(raw_hits < titles(&body).len());
}

#[tokio::test]
async fn llm_errors_switch_to_the_fallback_at_once_without_a_second_llm_call() {
    for (step, reason) in [
        (ChatStep::Status(500), "llm_error"),
        (ChatStep::Status(429), "llm_rate_limited"),
        (ChatStep::ContentFilter, "llm_content_filter"),
        (ChatStep::Malformed, "llm_error"),
    ] {
        let app = agent_app(vec![]).await;
        app.openai.chat([step.clone()]);
        let (status, body) = app.suggest(question(), Some(TOKEN)).await;
        assert_eq!(status, 200, "{step:?}");
        assert_eq!(body["meta"]["path"], "fallback", "{step:?}");
        assert!(
            degraded(&body).contains(&reason.to_owned()),
            "{step:?}: {body}"
        );
        assert_eq!(
            app.openai.chat_requests().len(),
            1,
            "{step:?}: no retry, template hint"
        );
        assert!(
            titles(&body).contains(&"Deployment pipeline runbook".to_owned()),
            "{step:?}"
        );
        assert_eq!(post_ids(&body), vec!["p-77"]);
        assert!(
            body["actionHint"]
                .as_str()
                .unwrap()
                .starts_with("Start with '")
        );
    }
}

#[tokio::test]
async fn hanging_or_dripping_llm_is_answered_by_the_deadline_with_fallback_results() {
    for step in [ChatStep::Hang, ChatStep::Drip] {
        let app = agent_app(vec![("LINKUP__AGENT__TIMEOUT_MS", "1200".into())]).await;
        app.openai.chat([step.clone()]);
        let (status, body) = app.suggest(question(), Some(TOKEN)).await;
        assert_eq!(status, 200);
        assert!(
            body["meta"]["elapsedMs"].as_u64().unwrap() <= 1300,
            "{step:?}: {body}"
        );
        assert_eq!(body["meta"]["path"], "fallback", "{step:?}");
        assert!(
            degraded(&body).contains(&"llm_timeout".to_owned()),
            "{step:?}: {body}"
        );
        assert!(!titles(&body).is_empty());
        assert_eq!(post_ids(&body), vec!["p-77"]);
    }
}

#[tokio::test]
async fn slow_tools_give_partial_results_by_the_deadline() {
    let app = agent_app(vec![("LINKUP__AGENT__TIMEOUT_MS", "1000".into())]).await;
    app.graph.files(Behavior::Hang);
    app.graph.mail(Behavior::Hang);
    app.openai.chat([ChatStep::searches("pipeline")]);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "partial");
    assert!(degraded(&body).contains(&"deadline".to_owned()));
    assert_eq!(body["meta"]["rounds"], 1);
    assert_eq!(post_ids(&body), vec!["p-77"]);
}

#[tokio::test]
async fn a_deadline_before_any_posts_search_still_answers_with_posts_found_by_words() {
    // No posts search before the model (pre-retrieval makes one).
    let app = agent_app_with_embeddings(vec![
        ("LINKUP__AGENT__TIMEOUT_MS", "1000".into()),
        ("LINKUP__AGENT__PRE_RETRIEVAL", "false".into()),
    ])
    .await;
    app.graph.files(Behavior::Hang);
    app.graph.mail(Behavior::Hang);
    // The model searches Microsoft 365 only, and Graph hangs past the deadline.
    app.openai.chat([ChatStep::ToolCalls(vec![(
        "search_m365",
        json!({"query": "pipeline"}),
    )])]);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "partial");
    assert_eq!(post_ids(&body), vec!["p-77"]);
    assert!(degraded(&body).contains(&"deadline".to_owned()));
    assert!(degraded(&body).contains(&"posts_lexical_only".to_owned()));
}

#[tokio::test]
async fn when_the_model_searches_posts_the_run_embeds_one_query_not_two() {
    // The model's search alone (pre-retrieval's would embed the post's text).
    let app =
        agent_app_with_embeddings(vec![("LINKUP__AGENT__PRE_RETRIEVAL", "false".into())]).await;
    app.openai.chat([
        ChatStep::ToolCalls(vec![(
            "search_posts",
            json!({"query": "deployment pipeline"}),
        )]),
        final_answer(json!([]), json!(["p1"]), "Ask the platform team."),
    ]);
    // The stored post's own embedding first (in the background after ingestion).
    for _ in 0..100 {
        if embedding_calls(&app) >= 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let embeds_before = embedding_calls(&app);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(body["meta"]["path"], "agent");
    assert_eq!(post_ids(&body), vec!["p-77"]);
    assert_eq!(
        embedding_calls(&app) - embeds_before,
        1,
        "the model's query only"
    );
}
