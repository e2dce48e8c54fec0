//! The MCP server through a real rmcp client over the in-process duplex: typed
//! results (`structuredContent`) with their output schemas, compact text for
//! models, and the caller's context kept out of the arguments.

use std::sync::Arc;

use linkup_suggestions::{
    contract::PostSummary,
    settings::{Secret, Settings},
    tools::{Caller, ToolDeps, connection::McpConnection},
};
use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};

use crate::support::{
    Doc, FakeGraph,
    deps::{Deps, tool_deps},
    graph::TOKEN,
};

struct Harness {
    graph: FakeGraph,
    deps: Arc<ToolDeps>,
    _deps: Deps,
}

async fn harness() -> Harness {
    let graph = FakeGraph::start().await;
    let built = tool_deps(&[("LINKUP__MSGRAPH__BASE_URL", graph.url())]).await;
    Harness {
        graph,
        deps: built.deps.clone(),
        _deps: built,
    }
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// The ids of a `search_posts` result's posts.
fn found_ids(found: &Value) -> Vec<&str> {
    found["posts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect()
}

fn failed(r: &CallToolResult) -> bool {
    r.is_error == Some(true)
}

#[tokio::test]
async fn tools_are_listed_with_json_schemas_of_their_arguments_and_results() {
    let h = harness().await;
    let conn = McpConnection::open(h.deps.clone()).await.unwrap();
    let mut names: Vec<String> = conn.tools().iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(
        names,
        vec!["generate_action_hint", "search_m365", "search_posts"]
    );
    let m365 = conn
        .tools()
        .iter()
        .find(|t| t.name == "search_m365")
        .unwrap();
    let schema = serde_json::to_value(&m365.input_schema).unwrap();
    assert_eq!(schema["properties"]["query"]["type"], "string");
    assert_eq!(schema["required"], json!(["query"]));
    let output = serde_json::to_value(m365.output_schema.as_ref().unwrap()).unwrap();
    assert_eq!(output["properties"]["items"]["type"], "array");
    let posts = conn
        .tools()
        .iter()
        .find(|t| t.name == "search_posts")
        .unwrap();
    let schema = serde_json::to_value(&posts.input_schema).unwrap();
    assert!(schema["properties"].get("excludePostId").is_some());
    assert!(
        !schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .any(|k| k.to_lowercase().contains("token"))
    );
    let output = serde_json::to_value(posts.output_schema.as_ref().unwrap()).unwrap();
    assert_eq!(output["required"], json!(["posts"]));
}

#[tokio::test]
async fn a_search_m365_query_that_finds_nothing_is_tried_again_with_its_terms_or_ed() {
    let h = harness().await;
    h.graph.add([
        Doc::file(
            "CI/CD onboarding guide",
            "https://contoso.sharepoint.com/sites/dev/cicd.docx",
            "Continuous integration for every repo",
        ),
        Doc::file(
            "Lunch menu",
            "https://contoso.sharepoint.com/sites/cafe/menu.docx",
            "What the cafe serves",
        ),
    ]);
    let conn = McpConnection::open(h.deps.clone()).await.unwrap();
    let session = conn.register(Caller::new(Some(Secret::from(TOKEN)), None));
    let search = |query: &'static str| {
        conn.call(session.id(), "search_m365", args(json!({ "query": query })))
    };

    let result = search("\"CI/CD\" setup kubernetes").await.unwrap();
    let found = result.structured_content.as_ref().unwrap();
    assert_eq!(found["broadened"], true, "{found}");
    assert_eq!(found["items"][0]["title"], "CI/CD onboarding guide");
    assert_eq!(found["items"].as_array().unwrap().len(), 1);
    let queries = h.graph.queries();
    assert!(
        queries.contains(&"\"CI/CD\" OR setup OR kubernetes".to_owned()),
        "the phrase is kept whole: {queries:?}"
    );

    let exact = search("continuous integration").await.unwrap();
    let found = exact.structured_content.as_ref().unwrap();
    assert!(found.get("broadened").is_none(), "found as asked: {found}");
    let before = h.graph.received().len();
    let nothing = search("payroll").await.unwrap();
    assert_eq!(nothing.structured_content.unwrap()["items"], json!([]));
    assert_eq!(
        h.graph.received().len() - before,
        2,
        "one term: nothing to broaden (one request per entity group)"
    );
}

#[tokio::test]
async fn each_tool_answers_a_typed_result() {
    let h = harness().await;
    h.graph.add([Doc::file(
        "Pipeline guide",
        "https://contoso.sharepoint.com/sites/dev/guide.docx",
        "deployment pipeline how-to",
    )]);
    h.deps
        .posts
        .upsert(vec![
            PostSummary::example("p1", "my own pipeline post"),
            PostSummary::example("p2", "deployment pipeline tips"),
            PostSummary::example("p3", "pipeline review"),
        ])
        .await
        .unwrap();
    let conn = McpConnection::open(h.deps.clone()).await.unwrap();
    let session = conn.register(Caller::new(Some(Secret::from(TOKEN)), Some("p1".into())));

    let m365 = conn
        .call(
            session.id(),
            "search_m365",
            args(json!({"query": "deployment pipeline"})),
        )
        .await
        .unwrap();
    assert!(!failed(&m365));
    let found = m365.structured_content.as_ref().unwrap();
    assert_eq!(found["items"][0]["title"], "Pipeline guide");
    assert_eq!(
        found["items"][0]["url"],
        "https://contoso.sharepoint.com/sites/dev/guide.docx"
    );
    assert_eq!(found["items"][0]["status"], "available");
    assert!(
        m365.content.is_empty(),
        "the in-process caller writes what its model reads"
    );

    let posts = conn
        .call(
            session.id(),
            "search_posts",
            args(json!({"query": "pipeline", "excludePostId": "p3"})),
        )
        .await
        .unwrap();
    let found = posts.structured_content.as_ref().unwrap();
    assert_eq!(
        found_ids(found),
        vec!["p2"],
        "the caller's post and excludePostId are left out"
    );
    assert_eq!(found["posts"][0]["authorName"], "Kim");
    assert!(posts.content.is_empty());

    let hint = conn
        .call(session.id(), "generate_action_hint", args(json!({"searchResults": [
            {"title": "Pipeline guide", "description": "", "sourceType": "m365", "source": "sharepoint"}]})))
        .await
        .unwrap();
    assert!(!failed(&hint));
    assert_eq!(text(&hint), "Start with 'Pipeline guide' on SharePoint.");
    assert_eq!(
        hint.structured_content,
        Some(json!({"hint": "Start with 'Pipeline guide' on SharePoint."}))
    );
    let nothing = conn
        .call(session.id(), "generate_action_hint", Map::new())
        .await
        .unwrap();
    assert_eq!(nothing.structured_content, Some(json!({"hint": null})));
}

#[tokio::test]
async fn tool_failures_are_mcp_tool_errors_with_a_short_reason() {
    let h = harness().await;
    let conn = McpConnection::open(h.deps.clone()).await.unwrap();
    let registered = conn.register(Caller::new(None, Some("p1".into())));
    let session = registered.id();
    let no_token = conn
        .call(session, "search_m365", args(json!({"query": "pipeline"})))
        .await
        .unwrap();
    assert!(failed(&no_token));
    assert!(
        text(&no_token).contains("no Microsoft Graph token"),
        "{}",
        text(&no_token)
    );
    assert_eq!(
        no_token.meta.as_ref().unwrap().0["linkup/degraded"],
        json!(["m365_no_token"]),
        "the reason travels with the error"
    );
    let too_long = conn
        .call(
            session,
            "search_posts",
            args(json!({"query": "x".repeat(501)})),
        )
        .await
        .unwrap();
    assert!(failed(&too_long));
    assert!(text(&too_long).contains("500"), "{}", text(&too_long));
    assert!(too_long.meta.is_none(), "a wrong call loses no source");
    let wrong_type = conn
        .call(session, "search_posts", args(json!({"query": 5})))
        .await;
    assert!(wrong_type.is_err() || failed(&wrong_type.unwrap()));
    let unknown = conn.call(session, "delete_everything", Map::new()).await;
    assert!(unknown.is_err() || failed(&unknown.unwrap()));
}

#[tokio::test]
async fn graph_token_travels_in_the_session_not_in_tool_arguments() {
    let h = harness().await;
    let conn = McpConnection::open(h.deps.clone()).await.unwrap();
    let session = conn.register(Caller::new(Some(Secret::from(TOKEN)), Some("p1".into())));
    conn.call(
        session.id(),
        "search_m365",
        args(json!({"query": "pipeline"})),
    )
    .await
    .unwrap();
    let received = h.graph.received();
    assert!(!received.is_empty());
    assert!(
        received
            .iter()
            .all(|r| r.authorization.as_deref() == Some(&format!("Bearer {TOKEN}") as &str))
    );
}

#[tokio::test]
async fn a_call_naming_no_live_session_is_refused() {
    let h = harness().await;
    let conn = McpConnection::open(h.deps.clone()).await.unwrap();
    let registered = conn.register(Caller::new(Some(Secret::from(TOKEN)), Some("p1".into())));
    let session = registered.id().to_owned();
    let answered = conn
        .call(&session, "search_posts", args(json!({"query": "x"})))
        .await
        .unwrap();
    assert!(!failed(&answered));
    drop(registered);
    let out = conn
        .call(&session, "search_m365", args(json!({"query": "x"})))
        .await
        .unwrap();
    assert!(failed(&out));
    assert!(text(&out).contains("no such session"));
    assert!(
        h.graph.received().is_empty(),
        "no Graph call without a live session"
    );
}

#[tokio::test]
async fn when_the_mcp_connection_fails_the_answer_is_empty_with_every_source_unavailable() {
    use linkup_suggestions::agent::{Emitter, Orchestrator, RunInput};
    let h = harness().await;
    h.graph.add([Doc::file(
        "Pipeline guide",
        "https://contoso.sharepoint.com/g.docx",
        "pipeline",
    )]);
    let conn = Arc::new(McpConnection::open(h.deps.clone()).await.unwrap());
    let settings = Settings::load_from(std::path::Path::new("config"), Default::default()).unwrap();
    let runs = linkup_suggestions::runs::RunRecords::new(
        h._deps.store.clone(),
        settings.runs.clone(),
        h.deps.metrics.clone(),
    );
    let orchestrator = Orchestrator::new(h.deps.clone(), conn.clone(), settings.agent, runs);
    conn.close();
    let input = RunInput {
        run_id: RunInput::new_run_id(),
        post_id: "p1".into(),
        text: "deployment pipeline".into(),
        tags: vec![],
        category: None,
        graph_token: Some(Secret::from(TOKEN)),
        arrived: tokio::time::Instant::now(),
    };
    let ticket = orchestrator.admit().await.unwrap();
    let response = orchestrator.run(input, Emitter::default(), ticket).await;
    assert!(response.m365.is_empty() && response.posts.is_empty());
    assert_eq!(response.action_hint, None);
    assert_eq!(
        response.unavailable_sources,
        vec!["m365", "posts", "actionHint"]
    );
    assert!(
        response
            .meta
            .degraded
            .contains(&"mcp_call_failed".to_owned())
    );
}

#[tokio::test]
async fn search_posts_with_candidates_returns_the_rankings_best_each_marked_related_or_not() {
    let h = harness().await;
    h.deps
        .posts
        .upsert(vec![
            PostSummary::example("p2", "deployment pipeline tips"),
            PostSummary::example("p4", "Anyone up for noodles at noon?"),
        ])
        .await
        .unwrap();
    h.deps.posts.embed_pending().await;
    let conn = McpConnection::open(h.deps.clone()).await.unwrap();
    let session = conn.register(Caller::new(None, Some("p1".into())));
    let search = |candidates: bool| {
        let arguments = json!({"query": "deployment pipeline tips", "candidates": candidates});
        conn.call(session.id(), "search_posts", args(arguments))
    };
    let related = search(false).await.unwrap();
    let found = related.structured_content.unwrap();
    assert_eq!(found["posts"].as_array().unwrap().len(), 1, "{found}");
    assert!(found.get("related").is_none(), "{found}");
    let candidates = search(true).await.unwrap();
    let found = candidates.structured_content.unwrap();
    assert_eq!(found_ids(&found), ["p2", "p4"], "{found}");
    assert_eq!(found["related"], json!([true, false]));
}
