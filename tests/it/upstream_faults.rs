//! Misbehaving upstreams: whatever Graph or Azure OpenAI do (hang, drip,
//! answer after the deadline, answer 20 MB, cut their answer short), the panel
//! tells the truth — a source whose results were lost is in
//! `unavailableSources` with its reason, a source that answered with nothing
//! is not — and bodies over their cap are abandoned.

use serde_json::{Value, json};

use crate::support::{
    Options, TestApp,
    graph::{Behavior, TOKEN, huge_answer},
    openai::{ChatStep, EmbedBehavior, HUGE_BYTES},
    post_ids, spawn_app_with, spawn_app_with_corpus, strings, titles,
};

async fn app(llm: bool, embeddings: bool, env: Vec<(&'static str, String)>) -> TestApp {
    spawn_app_with_corpus(Options {
        llm,
        embeddings,
        env,
    })
    .await
}

fn question() -> Value {
    json!({"postId": "p-new", "text": "How do I set up a deployment pipeline for our repo?", "tags": ["devops"]})
}

fn degraded(body: &Value) -> Vec<String> {
    strings(&body["meta"]["degraded"])
}

fn unavailable(body: &Value) -> Vec<String> {
    strings(&body["unavailableSources"])
}

#[tokio::test]
async fn m365_cut_by_the_deadline_is_unavailable_not_empty_on_both_paths() {
    let late = Behavior::Delay(std::time::Duration::from_secs(3));
    for (llm, graph) in [
        (false, Behavior::Hang),
        (false, Behavior::Drip),
        (false, late.clone()),
        (true, Behavior::Hang),
        (true, late),
    ] {
        let app = app(
            llm,
            false,
            vec![("LINKUP__AGENT__TIMEOUT_MS", "900".into())],
        )
        .await;
        app.graph.files(graph.clone());
        app.graph.mail(graph.clone());
        app.openai.chat([ChatStep::searches("deployment pipeline")]);
        let (status, body) = app.suggest(question(), Some(TOKEN)).await;
        let case = format!("llm {llm}, Graph {graph:?}: {body}");
        assert_eq!(status, 200, "{case}");
        assert_eq!(body["meta"]["path"], "partial", "{case}");
        assert_eq!(body["m365"], json!([]), "{case}");
        assert_eq!(unavailable(&body), vec!["m365"], "{case}");
        let reasons = degraded(&body);
        assert!(reasons.contains(&"m365_timeout".to_owned()), "{case}");
        assert!(reasons.contains(&"deadline".to_owned()), "{case}");
        assert_eq!(post_ids(&body), vec!["p-77"], "{case}");
    }
}

#[tokio::test]
async fn a_source_that_answered_with_nothing_is_not_listed() {
    let app = spawn_app_with(Options::default()).await;
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(
        (body["m365"].clone(), body["posts"].clone()),
        (json!([]), json!([]))
    );
    assert!(unavailable(&body).is_empty(), "{body}");
}

#[tokio::test]
async fn one_throttled_query_does_not_make_m365_unavailable_when_another_answered() {
    let app = app(true, false, vec![]).await;
    app.graph.fail_query("continuous", 429);
    app.openai.chat([
        ChatStep::ToolCalls(vec![
            ("search_m365", json!({"query": "deployment pipeline"})),
            ("search_m365", json!({"query": "continuous integration"})),
        ]),
        ChatStep::Final(json!({"m365": ["m1"], "posts": [], "actionHint": "Read it."})),
    ]);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(titles(&body), vec!["Deployment pipeline runbook"]);
    assert!(unavailable(&body).is_empty(), "{body}");
    assert!(
        degraded(&body).contains(&"m365_rate_limited".to_owned()),
        "{body}"
    );
}

#[tokio::test]
async fn graph_answers_over_the_cap_are_abandoned_and_reported() {
    let body = huge_answer(HUGE_BYTES);
    for announced in [true, false] {
        let app = app(false, false, vec![]).await;
        let huge = Behavior::Huge {
            body: body.clone(),
            announced,
        };
        app.graph.files(huge.clone());
        app.graph.mail(huge);
        let (status, got) = app.suggest(question(), Some(TOKEN)).await;
        assert_eq!(status, 200);
        assert_eq!(got["m365"], json!([]), "{got}");
        assert_eq!(
            unavailable(&got),
            vec!["m365"],
            "announced {announced}: {got}"
        );
        assert!(
            degraded(&got).contains(&"m365_too_large".to_owned()),
            "{got}"
        );
        assert_eq!(post_ids(&got), vec!["p-77"]);
    }
}

#[tokio::test]
async fn a_graph_answer_under_a_configured_cap_is_read_and_over_it_is_not() {
    let small = app(
        false,
        false,
        vec![("LINKUP__MSGRAPH__MAX_BODY_BYTES", "200".into())],
    )
    .await;
    let (_, got) = small.suggest(question(), Some(TOKEN)).await;
    assert!(
        degraded(&got).contains(&"m365_too_large".to_owned()),
        "{got}"
    );
    let large = app(
        false,
        false,
        vec![("LINKUP__MSGRAPH__MAX_BODY_BYTES", "200000".into())],
    )
    .await;
    let (_, got) = large.suggest(question(), Some(TOKEN)).await;
    assert!(!titles(&got).is_empty(), "{got}");
}

#[tokio::test]
async fn a_truncated_graph_answer_is_a_lost_source() {
    let app = app(false, false, vec![]).await;
    app.graph.files(Behavior::Truncated);
    app.graph.mail(Behavior::Truncated);
    let (status, got) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(unavailable(&got), vec!["m365"], "{got}");
    assert_eq!(post_ids(&got), vec!["p-77"]);
}

#[tokio::test]
async fn a_chat_answer_over_the_cap_switches_to_the_fallback() {
    let app = app(true, false, vec![]).await;
    app.openai.chat([ChatStep::Huge]);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "fallback", "{body}");
    assert!(
        degraded(&body).contains(&"llm_too_large".to_owned()),
        "{body}"
    );
    assert!(
        !titles(&body).is_empty() && !post_ids(&body).is_empty(),
        "{body}"
    );
}

#[tokio::test]
async fn an_embedding_answer_over_the_cap_hands_the_ranking_to_the_local_model() {
    let app = app(false, true, vec![]).await;
    app.openai.embeddings(EmbedBehavior::Huge);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(post_ids(&body), vec!["p-77"], "{body}");
    let reasons = degraded(&body);
    assert!(reasons.contains(&"posts_local_model".to_owned()), "{body}");
    assert!(
        reasons.contains(&"embeddings_too_large".to_owned()),
        "{body}"
    );
    assert!(unavailable(&body).is_empty(), "{body}");
}

#[tokio::test]
async fn a_round_of_invalid_tool_calls_is_named_and_completed_by_the_fallback() {
    // The model's round is the run's only search (no pre-retrieval).
    let app = app(
        true,
        false,
        vec![("LINKUP__AGENT__PRE_RETRIEVAL", "false".into())],
    )
    .await;
    app.openai.chat([
        ChatStep::ToolCalls(vec![
            ("search_everything", json!({"query": "pipeline"})),
            ("search_m365", json!({"q": "pipeline"})),
            ("search_posts", json!({"query": ""})),
        ]),
        ChatStep::Final(json!({"m365": [], "posts": [], "actionHint": null})),
    ]);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert!(
        degraded(&body).contains(&"tool_arguments_invalid".to_owned()),
        "{body}"
    );
    assert!(
        !titles(&body).is_empty(),
        "M365 completed by the fallback: {body}"
    );
    assert_eq!(post_ids(&body), vec!["p-77"], "{body}");
    assert!(body["actionHint"].is_string(), "{body}");
    assert!(unavailable(&body).is_empty(), "{body}");
}

#[tokio::test]
async fn one_users_graph_throttling_is_that_users_and_a_dated_retry_after_is_honoured() {
    let app = app(false, false, vec![]).await;
    app.graph.add_for(
        crate::support::graph::OTHER_TOKEN,
        crate::support::graph::engineering_corpus(),
    );
    let in_a_minute =
        httpdate::fmt_http_date(std::time::SystemTime::now() + std::time::Duration::from_secs(60));
    app.graph.throttle_user(TOKEN, &in_a_minute);
    let (_, first) = app.suggest(question(), Some(TOKEN)).await;
    assert!(
        degraded(&first).contains(&"m365_rate_limited".to_owned()),
        "{first}"
    );

    // The throttled user's next panel does not call Graph (the date is a minute away)…
    let before = app.graph.received().len();
    let (_, again) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(
        app.graph.received().len(),
        before,
        "no Graph request while throttled"
    );
    assert!(
        degraded(&again).contains(&"m365_rate_limited".to_owned()),
        "{again}"
    );
    // …while another user's is searched and answered.
    let (_, other) = app
        .suggest(question(), Some(crate::support::graph::OTHER_TOKEN))
        .await;
    assert!(
        app.graph.received().len() > before,
        "the other user searched Graph"
    );
    assert!(!titles(&other).is_empty(), "{other}");
    assert!(unavailable(&other).is_empty(), "{other}");
}
