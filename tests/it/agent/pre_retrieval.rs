//! Pre-retrieval (`agent.pre_retrieval`, on by default): the run searches
//! before the first model call, the model answers in one call when those
//! results suffice and searches again when they do not; the stream shows
//! their panel before the model answers; a model failing afterwards makes
//! the fallback reuse them.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{
    Options,
    graph::TOKEN,
    openai::{ChatStep, EmbedBehavior},
    post_ids, spawn_app_with_corpus, strings, titles,
};

use super::*;

/// A post whose most specific words find documents of the corpus.
fn question() -> Value {
    json!({"postId": "p-new", "text": "Where is the runbook of our deployment pipeline?", "tags": []})
}

/// The queries Graph received, each once, in order.
fn distinct(queries: Vec<String>) -> Vec<String> {
    let mut seen = Vec::new();
    for q in queries {
        if !seen.contains(&q) {
            seen.push(q);
        }
    }
    seen
}

/// The result lines (`m1 | …`) of the first results the model was given.
fn first_results(app: &crate::support::TestApp, call: usize) -> String {
    let request = &app.openai.chat_requests()[call].body;
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .find(|c| c.starts_with("Results of a first search"))
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_view_whose_first_results_answer_the_post_takes_one_chat_call() {
    let app = agent_app(vec![]).await;
    app.openai.chat([
        ChatStep::SearchUnlessFound {
            looks_for: vec!["pipeline".into()],
            search: vec![("search_m365", json!({"query": "kubernetes"}))],
        },
        ChatStep::SelectAll,
    ]);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    assert_eq!(body["meta"]["rounds"], 1, "{body}");
    assert_eq!(app.openai.chat_requests().len(), 1, "one chat call");
    assert!(degraded(&body).is_empty(), "{body}");
    // One search, files and mail: the model's four requests are left unused.
    let queries = app.graph.queries();
    assert_eq!(queries.len(), 2, "{queries:?}");
    assert_eq!(distinct(queries).len(), 1);
    // The model read the results, by ref, with the tools still offered.
    let results = first_results(&app, 0);
    assert!(
        results.contains("\nm1 | sharepoint | Deployment pipeline runbook"),
        "{results}"
    );
    assert!(
        results.contains("\np1 | question | devops | Our deployment pipeline"),
        "{results}"
    );
    assert_eq!(offered_tools(&app, 0), ["search_m365", "search_posts"]);
    assert!(titles(&body).contains(&"Deployment pipeline runbook".to_owned()));
    assert_eq!(post_ids(&body), ["p-77"]);
    assert!(body["actionHint"].is_string());
    assert!(body["meta"].get("provisional").is_none(), "{body}");
}

#[tokio::test]
async fn a_view_whose_first_results_do_not_answer_the_post_searches_again_with_expanded_queries() {
    let app = agent_app(vec![]).await;
    app.openai.chat([
        ChatStep::SearchUnlessFound {
            looks_for: vec!["release checklist".into()],
            search: vec![
                ("search_m365", json!({"query": "release process"})),
                ("search_m365", json!({"query": "deployment checklist"})),
                ("search_posts", json!({"query": "release of a repo"})),
            ],
        },
        ChatStep::SelectAll,
    ]);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    assert_eq!(body["meta"]["rounds"], 2, "{body}");
    assert_eq!(app.openai.chat_requests().len(), 2);
    let queries = app.graph.queries();
    assert!(queries.len() <= 6, "the panel's Graph budget: {queries:?}");
    let expanded = distinct(queries);
    assert_eq!(
        expanded.len(),
        3,
        "the first search and two expanded: {expanded:?}"
    );
    assert!(expanded.contains(&"release process".to_owned()));
    assert!(
        titles(&body).contains(&"Release process".to_owned()),
        "what the expanded search found: {body}"
    );
    assert!(
        titles(&body).contains(&"Deployment pipeline runbook".to_owned()),
        "what the first search found: {body}"
    );
}

#[tokio::test]
async fn the_models_search_identical_to_the_first_one_is_answered_from_the_memo() {
    let app = agent_app(vec![]).await;
    app.openai
        .chat([final_answer(json!(["m1"]), json!([]), "Read the runbook.")]);
    app.suggest(question(), Some(TOKEN)).await;
    let first = app.graph.queries()[0].clone();
    let sent = app.graph.queries().len();
    app.openai.chat([
        ChatStep::ToolCalls(vec![("search_m365", json!({ "query": first }))]),
        final_answer(json!(["m1"]), json!([]), "Read the runbook."),
    ]);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(body["meta"]["rounds"], 2, "{body}");
    assert_eq!(
        app.graph.queries().len() - sent,
        2,
        "one search of the run, not a second identical one"
    );
    let tool = first_tool_text(&app, 2);
    assert!(tool.contains("m1 | (listed above)"), "{tool}");
}

#[tokio::test]
async fn a_model_failing_after_the_first_searches_falls_back_without_repeating_them() {
    let app = agent_app(vec![]).await;
    app.openai.chat([ChatStep::Status(500)]);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "fallback");
    assert!(degraded(&body).contains(&"llm_error".to_owned()), "{body}");
    let queries = app.graph.queries();
    assert_eq!(
        queries.len(),
        2 * distinct(queries.clone()).len(),
        "each query once (files and mail): {queries:?}"
    );

    // The same panel as the fallback alone makes.
    let alone = spawn_app_with_corpus(Options::default()).await;
    let (_, fallback) = alone.suggest(question(), Some(TOKEN)).await;
    assert_eq!(titles(&body), titles(&fallback));
    assert_eq!(post_ids(&body), post_ids(&fallback));
    let (mut made, mut made_alone) = (distinct(queries), distinct(alone.graph.queries()));
    made.sort();
    made_alone.sort();
    assert_eq!(made, made_alone, "the fallback's query, once");
}

#[tokio::test]
async fn the_stream_shows_the_first_results_before_the_model_answers() {
    let app = agent_app(vec![]).await;
    app.openai
        .latency(Duration::from_millis(800), Duration::ZERO);
    app.openai.chat([final_answer(
        json!(["m1"]),
        json!(["p1"]),
        "Read the runbook.",
    )]);
    let mut res = app.stream(question(), Some(TOKEN)).await;
    let mut lines: Vec<Value> = Vec::new();
    let mut buffer = Vec::new();
    let mut model_waiting_at_preview = None;
    while let Some(chunk) = res.chunk().await.unwrap() {
        buffer.extend_from_slice(&chunk);
        while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            let event: Value = serde_json::from_slice(&line).unwrap();
            if event["type"] == "preview" {
                model_waiting_at_preview = Some(app.openai.chat_waiting());
            }
            lines.push(event);
        }
    }
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    let preview = kinds
        .iter()
        .position(|k| *k == "preview")
        .expect("a preview");
    let result = kinds.iter().position(|k| *k == "result").unwrap();
    assert!(preview < result, "{kinds:?}");
    assert_eq!(
        model_waiting_at_preview,
        Some(1),
        "the preview came while the model was still answering"
    );
    assert!(
        !lines[..preview].iter().any(|l| l["node"] == "llmCall"),
        "{kinds:?}"
    );
    let preview = &lines[preview]["data"];
    assert_eq!(preview["meta"]["provisional"], true);
    assert_eq!(preview["actionHint"], Value::Null);
    // The fallback's items: what the fallback alone shows, in its order,
    // of what the first search found.
    let alone = spawn_app_with_corpus(Options::default()).await;
    let (_, fallback) = alone.suggest(question(), Some(TOKEN)).await;
    let shown = titles(preview);
    assert!(!shown.is_empty(), "{preview}");
    let order: Vec<String> = titles(&fallback)
        .into_iter()
        .filter(|t| shown.contains(t))
        .collect();
    assert_eq!(shown, order, "{preview} vs {fallback}");
    assert_eq!(post_ids(preview), post_ids(&fallback));
    let last = &lines[result]["data"];
    assert_eq!(last["actionHint"], "Read the runbook.");
    assert!(last["meta"].get("provisional").is_none(), "{last}");
}

#[tokio::test]
async fn without_pre_retrieval_the_model_decides_every_search() {
    let app = loop_app(vec![]).await;
    app.openai
        .chat([final_answer(json!([]), json!([]), "Ask the team.")]);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(body["meta"]["rounds"], 1);
    assert!(app.graph.received().is_empty(), "nothing searched first");
    assert!(first_results(&app, 0).is_empty());
}

/// A view on the agent path while Azure's embeddings endpoint misbehaves
/// as `fault` does: the model answers from the first results at once.
async fn view_with_slow_embeddings(fault: EmbedBehavior) -> Value {
    let app = agent_app_with_embeddings(vec![("LINKUP__AGENT__TIMEOUT_MS", "2000".into())]).await;
    app.openai.embeddings(fault);
    app.openai.chat([ChatStep::SelectAll]);
    let (status, body) = app.suggest(question(), None).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "agent", "{body}");
    assert_eq!(app.openai.chat_requests().len(), 1, "one chat call: {body}");
    body
}

/// The posts search pre-retrieval left behind was completed in process:
/// the stored post is in the panel, ranked by the local model, and the
/// panel says why.
fn posts_by_the_local_model(body: &Value) {
    assert_eq!(post_ids(body), ["p-77"], "{body}");
    let reasons = degraded(body);
    assert!(reasons.contains(&"posts_local_model".to_owned()), "{body}");
    assert!(reasons.contains(&"embeddings_timeout".to_owned()), "{body}");
    assert!(
        !strings(&body["unavailableSources"]).contains(&"posts".to_owned()),
        "{body}"
    );
}

#[tokio::test]
async fn a_hanging_embeddings_endpoint_leaves_the_posts_to_the_local_model_not_out() {
    posts_by_the_local_model(&view_with_slow_embeddings(EmbedBehavior::Hang).await);
}

#[tokio::test]
async fn a_dripping_embeddings_endpoint_leaves_the_posts_to_the_local_model_not_out() {
    posts_by_the_local_model(&view_with_slow_embeddings(EmbedBehavior::Drip).await);
}

#[tokio::test]
async fn embeddings_answering_after_the_first_searches_leave_the_posts_to_the_local_model() {
    let late = EmbedBehavior::Slow(Duration::from_millis(2_500));
    posts_by_the_local_model(&view_with_slow_embeddings(late).await);
}

/// [`question`] as the view of another post.
fn view_of(post_id: &str) -> Value {
    let mut view = question();
    view["postId"] = post_id.into();
    view
}

/// The agent app with a second post the floors do not show for
/// [`question`] (it shares none of its words, and its meaning is far).
async fn app_with_a_weak_post() -> crate::support::TestApp {
    let app = agent_app(vec![]).await;
    app.put_post("p-lunch", post_body("Anyone up for noodles at noon?", &[]))
        .await;
    app
}

#[tokio::test]
async fn the_model_reads_the_rankings_next_best_post_marked_weak_and_may_choose_it() {
    let app = app_with_a_weak_post().await;
    app.openai
        .chat([final_answer(json!(["m1", "m2"]), json!(["p1", "p2"]), "x")]);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    let results = first_results(&app, 0);
    assert!(
        results.contains("rows marked weak are the search's next best"),
        "{results}"
    );
    assert!(
        results
            .contains("\np1 | question | devops | Our deployment pipeline uses GitHub Actions\n"),
        "the related post is not marked: {results}"
    );
    assert!(
        results.contains("Anyone up for noodles at noon? | weak"),
        "{results}"
    );
    // Documents under the floors too, by their titles.
    assert!(
        results.contains("\nm2 | sharepoint | CI/CD onboarding guide | … | weak"),
        "{results}"
    );
    // The model judged: what it chose is shown, the weak results included.
    assert_eq!(post_ids(&body), ["p-77", "p-lunch"], "{body}");
    assert_eq!(
        titles(&body),
        ["Deployment pipeline runbook", "CI/CD onboarding guide"]
    );
}

#[tokio::test]
async fn a_weak_post_is_never_shown_unless_the_model_chooses_it() {
    let app = app_with_a_weak_post().await;
    // The model leaves it out.
    app.openai
        .chat([final_answer(json!(["m1"]), json!(["p1"]), "x")]);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(post_ids(&body), ["p-77"], "{body}");
    // Nobody judged (the answer is unparseable): the floors' panel. (Each
    // view is of another post: the panel cache would answer a repeat.)
    app.openai.chat([ChatStep::Reply("no JSON here".into())]);
    let (_, body) = app.suggest(view_of("p-new-2"), Some(TOKEN)).await;
    assert!(
        degraded(&body).contains(&"llm_output_unparseable".to_owned()),
        "{body}"
    );
    assert_eq!(post_ids(&body), ["p-77"], "{body}");
    // The preview is the floors' panel too.
    app.openai
        .chat([final_answer(json!([]), json!(["p1", "p2"]), "x")]);
    let mut stream = app.stream(view_of("p-new-3"), Some(TOKEN)).await;
    let mut text = String::new();
    while let Some(chunk) = stream.chunk().await.unwrap() {
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    let preview: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "preview")
        .expect("a preview");
    assert_eq!(post_ids(&preview["data"]), ["p-77"], "{text}");
    assert_eq!(titles(&preview["data"]), ["Deployment pipeline runbook"]);
}

/// The events of a streamed view, in order.
async fn events(mut res: reqwest::Response) -> Vec<Value> {
    let (mut lines, mut buffer) = (Vec::new(), Vec::new());
    while let Some(chunk) = res.chunk().await.unwrap() {
        buffer.extend_from_slice(&chunk);
        while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            lines.push(serde_json::from_slice(&line).unwrap());
        }
    }
    lines
}

#[tokio::test]
async fn the_model_reads_what_colleagues_shared_on_the_similar_post_and_the_preview_shows_it_first()
{
    let app = agent_app(vec![]).await;
    let title = "GitHub Actions deployment checklist.docx";
    let share = crate::board::share_body(title, "https://contoso.sharepoint.com/eng/gha.docx");
    let path = "/api/posts/p-77/shared-documents/d-1";
    assert_eq!(
        crate::board::call(&app, "PUT", path, Some(share)).await.0,
        201
    );
    app.openai.chat([ChatStep::SelectAll]);
    let lines = events(app.stream(question(), Some(TOKEN)).await).await;
    let results = first_results(&app, 0);
    assert!(
        results.contains("\nshared by colleagues on those similar posts (documents, by ref)\n"),
        "{results}"
    );
    assert!(
        results.contains(&format!(
            "| sharepoint | {title} | Shared by Bob on a similar post: 'Our deployment pipeline uses GitHub Actions'"
        )),
        "{results}"
    );
    let preview = lines
        .iter()
        .find(|l| l["type"] == "preview")
        .expect("a preview");
    assert_eq!(
        titles(&preview["data"]).first().map(String::as_str),
        Some(title)
    );
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "result");
    assert!(
        titles(&result["data"]).contains(&title.to_owned()),
        "{result}"
    );
}

#[tokio::test]
async fn the_model_reads_the_newest_replies_to_the_similar_posts() {
    let app = agent_app(vec![]).await;
    let reply = crate::board::reply_body("The runbook is pinned in #deployments");
    let path = "/api/posts/p-77/replies/r-1";
    assert_eq!(
        crate::board::call(&app, "PUT", path, Some(reply)).await.0,
        201
    );
    app.openai.chat([ChatStep::SelectAll]);
    app.suggest(question(), Some(TOKEN)).await;
    let results = first_results(&app, 0);
    assert!(
        results.contains(
            "\ncolleagues' replies to those similar posts (the hint may use them)\npost | author | reply\np1 | Ann | The runbook is pinned in #deployments"
        ),
        "{results}"
    );
}
