//! `/mcp`: the tool server over MCP Streamable HTTP, driven by rmcp's own
//! Streamable HTTP client (and raw HTTP where the edge answers before MCP).

use std::{collections::HashMap, time::Duration};

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::{
    RoleClient, ServiceExt,
    model::{CallToolRequestParams, CallToolResult},
    service::RunningService,
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde_json::{Value, json};

use crate::support::{
    Doc, Options, TestApp,
    graph::{OTHER_TOKEN, TOKEN},
    spawn_app_with, spawn_app_with_corpus,
};

pub type Client = RunningService<RoleClient, ()>;

/// How a test client connects.
#[derive(Default)]
pub struct Connect<'a> {
    pub token: Option<&'a str>,
    pub api_key: Option<&'a str>,
}

/// An rmcp Streamable HTTP client connected to the app's `/mcp`.
pub async fn connect(app: &TestApp, how: Connect<'_>) -> Result<Client, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(app.url("/mcp"));
    if let Some(token) = how.token {
        config = config.auth_header(token);
    }
    if let Some(key) = how.api_key {
        let headers = HashMap::from([(
            HeaderName::from_static("x-api-key"),
            HeaderValue::from_str(key).unwrap(),
        )]);
        config = config.custom_headers(headers);
    }
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .map_err(|e| e.to_string())
}

/// A client whose requests carry `token` as their Graph token.
async fn connect_as(app: &TestApp, token: &str) -> Client {
    let how = Connect {
        token: Some(token),
        ..Default::default()
    };
    connect(app, how).await.unwrap()
}

pub async fn call(client: &Client, tool: &'static str, args: Value) -> CallToolResult {
    let args = args.as_object().cloned().unwrap();
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .unwrap()
}

pub fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

fn titles(found: &Value) -> Vec<&str> {
    found["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["title"].as_str().unwrap())
        .collect()
}

/// An `initialize` request as any MCP client sends it, over plain HTTP.
async fn raw_initialize(app: &TestApp, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut req = app
        .http
        .post(app.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        );
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().await.unwrap()
}

fn with_env(env: &[(&'static str, &str)]) -> Options {
    Options {
        env: env.iter().map(|(k, v)| (*k, (*v).to_owned())).collect(),
        ..Options::default()
    }
}

#[tokio::test]
async fn an_mcp_client_lists_every_tool_with_both_schemas_and_calls_each() {
    let app = spawn_app_with_corpus(Options::default()).await;
    let client = connect_as(&app, TOKEN).await;
    let info = client.peer_info().unwrap();
    assert_eq!(
        info.server_info.as_ref().unwrap().name,
        "linkup-suggestions"
    );
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "generate_action_hint",
            "get_suggestions",
            "search_m365",
            "search_posts"
        ]
    );
    for tool in &tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        let output = tool.output_schema.as_ref().expect("an output schema");
        assert_eq!(output["type"], "object", "{}", tool.name);
    }

    let m365 = call(
        &client,
        "search_m365",
        json!({"query": "deployment pipeline"}),
    )
    .await;
    assert_eq!(m365.is_error, Some(false));
    let found = m365.structured_content.as_ref().unwrap();
    assert!(
        titles(found).contains(&"Deployment pipeline runbook"),
        "{found}"
    );
    // The compact text for models: no status or sourceType, description ≤ 200.
    let compact: Value = serde_json::from_str(&text(&m365)).unwrap();
    let mut keys: Vec<&String> = compact[0].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["description", "source", "title", "url"]);

    let posts = call(
        &client,
        "search_posts",
        json!({"query": "deployment pipeline"}),
    )
    .await;
    let found = posts.structured_content.as_ref().unwrap();
    assert_eq!(found["posts"][0]["id"], "p-77");
    assert_eq!(found["posts"][0]["authorName"], "Kim");
    let compact: Value = serde_json::from_str(&text(&posts)).unwrap();
    assert_eq!(
        compact,
        json!([{"id": "p-77", "text": "Our deployment pipeline uses GitHub Actions",
            "tags": ["devops"], "category": "question"}])
    );

    let hint = call(
        &client,
        "generate_action_hint",
        json!({"searchResults": [
        {"title": "Deployment pipeline runbook", "sourceType": "m365", "source": "sharepoint"}]}),
    )
    .await;
    assert_eq!(
        hint.structured_content,
        Some(json!({"hint": "Start with 'Deployment pipeline runbook' on SharePoint."}))
    );

    let panel = call(
        &client,
        "get_suggestions",
        json!({"postId": "p-new",
        "text": "How do I set up a deployment pipeline for our repo?", "tags": ["devops"]}),
    )
    .await;
    assert_eq!(panel.is_error, Some(false));
    let panel = panel.structured_content.unwrap();
    assert!(
        crate::support::titles(&panel).contains(&"Deployment pipeline runbook".to_owned()),
        "{panel}"
    );
    assert_eq!(crate::support::post_ids(&panel), ["p-77"]);
    assert_eq!(panel["unavailableSources"], json!([]));
    assert_eq!(panel["meta"]["path"], "fallback");
    assert!(panel["actionHint"].is_string());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn each_client_searches_microsoft_365_as_its_own_token() {
    let app = spawn_app_with_corpus(Options::default()).await;
    app.graph.add_for(
        OTHER_TOKEN,
        [Doc::file(
            "Pipeline notes of the other user",
            "https://contoso-my.sharepoint.com/personal/other/notes.docx",
            "deployment pipeline notes",
        )],
    );
    let first = connect_as(&app, TOKEN).await;
    let other = connect_as(&app, OTHER_TOKEN).await;
    let query = json!({"query": "deployment pipeline"});
    let (mine, theirs) = tokio::join!(
        call(&first, "search_m365", query.clone()),
        call(&other, "search_m365", query.clone())
    );
    let mine = mine.structured_content.unwrap();
    let theirs = theirs.structured_content.unwrap();
    assert!(
        titles(&mine).contains(&"Deployment pipeline runbook"),
        "{mine}"
    );
    assert!(!titles(&mine).contains(&"Pipeline notes of the other user"));
    assert_eq!(titles(&theirs), ["Pipeline notes of the other user"]);
    for received in app.graph.received() {
        let auth = received.authorization.unwrap();
        assert!(auth == format!("Bearer {TOKEN}") || auth == format!("Bearer {OTHER_TOKEN}"));
    }

    // No token: search_m365 says so, and the panel lists m365 unavailable.
    let anonymous = connect(&app, Connect::default()).await.unwrap();
    let refused = call(&anonymous, "search_m365", query).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused).contains("no Microsoft Graph token"),
        "{}",
        text(&refused)
    );
    let panel = call(
        &anonymous,
        "get_suggestions",
        json!({"postId": "p-new",
        "text": "How do I set up a deployment pipeline?"}),
    )
    .await
    .structured_content
    .unwrap();
    assert_eq!(panel["m365"], json!([]));
    assert_eq!(panel["unavailableSources"], json!(["m365"]));
    assert_eq!(crate::support::post_ids(&panel), ["p-77"]);
}

#[tokio::test]
async fn get_suggestions_refuses_what_post_api_suggestions_refuses() {
    let app = spawn_app_with_corpus(Options::default()).await;
    let client = connect(&app, Connect::default()).await.unwrap();
    let refused = call(
        &client,
        "get_suggestions",
        json!({"postId": "p 1", "text": "hi"}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("postId"), "{}", text(&refused));
    let blank = call(
        &client,
        "get_suggestions",
        json!({"postId": "p1", "text": "   "}),
    )
    .await;
    assert_eq!(blank.is_error, Some(true));
    assert!(text(&blank).contains("text"), "{}", text(&blank));
}

#[tokio::test]
async fn with_api_keys_configured_mcp_needs_one() {
    let app = spawn_app_with_corpus(with_env(&[("LINKUP__SERVER__API_KEYS", "k-1,k-2")])).await;
    assert!(connect(&app, Connect::default()).await.is_err());
    let refused = raw_initialize(&app, &[]).await;
    assert_eq!(refused.status(), 401);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "unauthorized");
    let wrong = raw_initialize(&app, &[("x-api-key", "k-3")]).await;
    assert_eq!(wrong.status(), 401);

    let client = connect(
        &app,
        Connect {
            api_key: Some("k-2"),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let posts = call(&client, "search_posts", json!({"query": "pipeline"})).await;
    assert_eq!(posts.is_error, Some(false));
}

#[tokio::test]
async fn a_browser_origin_must_be_an_allowed_one() {
    let app = spawn_app_with_corpus(with_env(&[(
        "LINKUP__SERVER__CORS_ORIGINS",
        "https://linkup.contoso.com",
    )]))
    .await;
    let foreign = raw_initialize(&app, &[("origin", "https://evil.example")]).await;
    assert_eq!(foreign.status(), 403);
    let body: Value = foreign.json().await.unwrap();
    assert_eq!(body["error"]["code"], "origin_not_allowed");
    let allowed = raw_initialize(&app, &[("origin", "https://linkup.contoso.com")]).await;
    assert_eq!(allowed.status(), 200);
    assert!(allowed.headers().contains_key("mcp-session-id"));
    // Clients that are not browsers send no Origin.
    assert_eq!(raw_initialize(&app, &[]).await.status(), 200);

    // With no origins configured, any browser origin is refused.
    let closed = spawn_app_with_corpus(Options::default()).await;
    let page = raw_initialize(&closed, &[("origin", "http://localhost:3000")]).await;
    assert_eq!(page.status(), 403);
}

#[tokio::test]
async fn live_sessions_are_capped_and_a_closed_one_frees_its_slot() {
    let app = spawn_app_with_corpus(with_env(&[("LINKUP__MCP__MAX_SESSIONS", "2")])).await;
    let first = connect(&app, Connect::default()).await.unwrap();
    let _second = connect(&app, Connect::default()).await.unwrap();
    let full = raw_initialize(&app, &[]).await;
    assert_eq!(full.status(), 503);
    assert!(full.headers().contains_key("retry-after"));
    let body: Value = full.json().await.unwrap();
    assert_eq!(body["error"]["code"], "mcp_sessions_full");
    assert!(connect(&app, Connect::default()).await.is_err());

    // A client that leaves ends its session (DELETE): its slot is free.
    first.cancel().await.unwrap();
    let mut third = connect(&app, Connect::default()).await;
    for _ in 0..50 {
        if third.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        third = connect(&app, Connect::default()).await;
    }
    let third = third.expect("a freed slot takes a new session");
    let posts = call(&third, "search_posts", json!({"query": "pipeline"})).await;
    assert_eq!(posts.is_error, Some(false));
}

#[tokio::test]
async fn an_idle_session_expires_and_frees_its_slot() {
    let app = spawn_app_with_corpus(with_env(&[
        ("LINKUP__MCP__MAX_SESSIONS", "1"),
        ("LINKUP__MCP__SESSION_IDLE_MS", "300"),
    ]))
    .await;
    let opened = raw_initialize(&app, &[]).await;
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    drop(opened);
    assert_eq!(raw_initialize(&app, &[]).await.status(), 503);
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let stale = app
        .http
        .post(app.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), 404, "the expired session is gone");
    let client = connect(&app, Connect::default()).await.unwrap();
    assert_eq!(client.list_all_tools().await.unwrap().len(), 4);
}

#[tokio::test]
async fn an_mcp_body_over_64_kib_is_refused_before_rmcp_reads_it() {
    let app = spawn_app_with_corpus(Options::default()).await;
    let huge = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"padding": "x".repeat(70 * 1024)}});
    let refused = app
        .http
        .post(app.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(&huge)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 413);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "payload_too_large");
}

#[tokio::test]
async fn mcp_can_be_switched_off() {
    let app = spawn_app_with(with_env(&[("LINKUP__MCP__ENABLED", "false")])).await;
    let off = raw_initialize(&app, &[]).await;
    assert_eq!(off.status(), 404);
    let body: Value = off.json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_found");
}

#[tokio::test]
async fn a_repeated_get_suggestions_is_served_from_the_panel_cache() {
    let app = spawn_app_with_corpus(with_env(&[("LINKUP__CACHE__ENABLED", "true")])).await;
    let client = connect_as(&app, TOKEN).await;
    let args = json!({"postId": "p-new", "text": "How do I set up a deployment pipeline?"});
    let first = call(&client, "get_suggestions", args.clone())
        .await
        .structured_content
        .unwrap();
    let graph_requests = app.graph.queries().len();
    let again = call(&client, "get_suggestions", args)
        .await
        .structured_content
        .unwrap();
    assert_ne!(first["meta"]["cached"], json!(true), "{first}");
    assert_eq!(again["meta"]["cached"], json!(true), "{again}");
    assert_eq!(again["meta"]["runId"], first["meta"]["runId"]);
    assert_eq!(again["m365"], first["m365"]);
    assert_eq!(
        app.graph.queries().len(),
        graph_requests,
        "no second search"
    );
    // Another caller (another token, the same claims' tenant) gets a run of
    // its own, never the first caller's panel.
    let other = connect_as(&app, OTHER_TOKEN).await;
    let theirs = call(
        &other,
        "get_suggestions",
        json!({"postId": "p-new", "text": "How do I set up a deployment pipeline?"}),
    )
    .await
    .structured_content
    .unwrap();
    assert_ne!(theirs["meta"]["cached"], json!(true), "{theirs}");
    assert_ne!(theirs["meta"]["runId"], first["meta"]["runId"]);
    // The HTTP door serves the same caller's entry: one policy, two doors.
    let (status, body) = app
        .suggest(
            json!({"postId": "p-new", "text": "How do I set up a deployment pipeline?"}),
            Some(TOKEN),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["runId"], first["meta"]["runId"], "{body}");
}

#[tokio::test]
async fn get_suggestions_counts_its_deadline_from_the_http_requests_arrival() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let app = spawn_app_with_corpus(Options::default()).await;
    let init = raw_initialize(&app, &[]).await;
    assert_eq!(init.status(), 200);
    let session = init.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = app
        .http
        .post(app.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .send()
        .await
        .unwrap();
    assert!(initialized.status().is_success());
    // The call's body comes 600 ms after its head, as a slow client's would.
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "get_suggestions",
        "arguments": {"postId": "p-new", "text": "How do I set up a deployment pipeline?"}}})
    .to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-session-id: {session}\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n",
        app.addr,
        body.len()
    );
    let mut tcp = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    tcp.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    tcp.write_all(body.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).await.unwrap();
    let elapsed = answer
        .split("\"elapsedMs\":")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|ms| ms.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no panel in {answer}"));
    assert!(
        elapsed >= 600,
        "elapsedMs {elapsed} counts from the body: {answer}"
    );
}
