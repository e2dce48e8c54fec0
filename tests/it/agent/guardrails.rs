//! What the model cannot do: repeat a call, loop past the round cap, flood a
//! round with calls, invent results, break the final answer.

use serde_json::{Value, json};

use crate::support::{
    graph::{Behavior, TOKEN},
    logs,
    openai::ChatStep,
    post_body, post_ids, strings, titles,
};

use super::*;

#[tokio::test]
async fn an_identical_repeated_call_is_answered_from_the_memo() {
    let app = loop_app(vec![]).await;
    let call = || ChatStep::ToolCalls(vec![("search_m365", json!({"query": "pipeline"}))]);
    app.openai.chat([
        call(),
        call(),
        final_answer(json!(["m1"]), json!([]), "Read it."),
    ]);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(body["meta"]["rounds"], 3);
    assert_eq!(
        app.graph.received().len(),
        2,
        "one search (two entity groups), not two"
    );
}

#[tokio::test]
async fn endless_tool_calls_stop_at_the_round_cap() {
    let app = agent_app(vec![("LINKUP__AGENT__MAX_ROUNDS", "3".into())]).await;
    app.openai.chat_default(ChatStep::ToolCalls(vec![(
        "search_posts",
        json!({"query": "pipeline again"}),
    )]));
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["rounds"], 3);
    assert_eq!(app.openai.chat_requests().len(), 3);
    assert!(degraded(&body).contains(&"round_cap".to_owned()));
    assert_eq!(
        post_ids(&body),
        vec!["p-77"],
        "collected results still answer"
    );
    assert!(body["actionHint"].is_string());
}

#[tokio::test]
async fn fifty_calls_in_one_round_are_capped() {
    let app = agent_app(vec![]).await;
    let calls: Vec<(&'static str, Value)> = (0..50)
        .map(|i| ("search_m365", json!({"query": format!("pipeline {i}")})))
        .collect();
    app.openai.chat([
        ChatStep::ToolCalls(calls),
        final_answer(json!([]), json!([]), "x"),
    ]);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(
        app.graph.received().len(),
        6,
        "8 calls made; three searched Graph, two requests each: the panel's Graph budget"
    );
    assert!(degraded(&body).contains(&"tool_call_cap".to_owned()));
    let second = &app.openai.chat_requests()[1].body;
    let skipped = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["content"].as_str().is_some_and(|c| c.contains("skipped")))
        .count();
    assert_eq!(skipped, 42, "every call gets a tool message");
}

#[tokio::test]
async fn hallucinated_urls_and_foreign_posts_never_reach_the_response() {
    // The model's searches only: the foreign post is in the index, but no
    // search of the run returns it (pre-retrieval would, as a weak match).
    let app = loop_app(vec![]).await;
    app.put_post("p-foreign", post_body("unrelated lunch", &[]))
        .await;
    app.openai.chat([
        ChatStep::searches("deployment pipeline"),
        final_answer(
            json!([{"title": "Fake", "url": "https://evil.example/phish"}, "m1", "m7"]),
            json!(["p-foreign", {"id": "p-77"}]),
            "Open https://evil.example/phish now",
        ),
    ]);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    let text = body.to_string();
    assert!(!text.contains("evil.example"), "{body}");
    assert_eq!(titles(&body), vec!["Deployment pipeline runbook"]);
    assert_eq!(post_ids(&body), vec!["p-77"]);
    assert!(
        body["actionHint"]
            .as_str()
            .unwrap()
            .starts_with("Start with '"),
        "the invented hint is replaced"
    );
}

#[tokio::test]
async fn unparseable_or_fenced_final_answers_keep_the_collected_results() {
    let app = loop_app(vec![]).await;
    let search = || {
        ChatStep::ToolCalls(vec![(
            "search_m365",
            json!({"query": "deployment pipeline"}),
        )])
    };
    app.openai.chat([
        search(),
        ChatStep::Reply("Here are some great documents for you!".into()),
    ]);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert!(degraded(&body).contains(&"llm_output_unparseable".to_owned()));
    assert_eq!(titles(&body), vec!["Deployment pipeline runbook"]);

    let app = agent_app(vec![]).await;
    app.openai.chat([search(), ChatStep::Reply("```json\n{\"m365\": [\"m1\"], \"posts\": [], \"actionHint\": \"Read the runbook.\"}\n```".into())]);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(body["meta"]["path"], "agent");
    assert_eq!(body["actionHint"], "Read the runbook.");
    assert!(degraded(&body).is_empty(), "{body}");
}

#[tokio::test]
async fn bad_arguments_unknown_tools_and_failing_tools_become_tool_errors_and_the_run_continues() {
    let app = loop_app(vec![]).await;
    app.graph.files(Behavior::Status(500));
    app.graph.mail(Behavior::Status(500));
    app.openai.chat([
        ChatStep::RawToolCall("search_posts", "{not json"),
        ChatStep::ToolCalls(vec![
            ("drop_database", json!({})),
            ("search_posts", json!({"query": 42})),
            ("search_m365", json!({"query": "pipeline"})),
        ]),
        final_answer(json!([]), json!([]), "x"),
    ]);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["rounds"], 3);
    let requests = app.openai.chat_requests();
    let contents = |i: usize| -> Vec<String> {
        requests[i].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(contents(1)[0].starts_with("error: arguments must be a JSON object"));
    let round2 = contents(2);
    assert!(
        round2[1].contains("unknown tool 'drop_database'"),
        "{round2:?}"
    );
    assert!(round2[2].starts_with("error:"), "{round2:?}");
    assert!(
        round2[3].contains("Microsoft Graph search failed"),
        "{round2:?}"
    );
    assert!(strings(&body["unavailableSources"]).contains(&"m365".to_owned()));
    let logs = logs::all();
    assert!(logs.contains("drop_database") && logs.contains("unknown_tool"));
    assert!(logs.contains("\"error.kind\":\"tool_error\""));
}

#[tokio::test]
async fn graph_429_on_one_expanded_query_still_merges_the_others() {
    let app = loop_app(vec![]).await;
    app.graph.fail_query("continuous", 429);
    app.openai.chat([
        ChatStep::ToolCalls(vec![
            ("search_m365", json!({"query": "deployment pipeline"})),
            ("search_m365", json!({"query": "continuous integration"})),
            ("search_m365", json!({"query": "release process"})),
        ]),
        final_answer(json!(["m1", "m2"]), json!([]), "Read the runbook."),
    ]);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(
        titles(&body),
        vec!["Deployment pipeline runbook", "Release process"]
    );
    assert_eq!(body["meta"]["path"], "agent");
}
