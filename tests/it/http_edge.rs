//! The HTTP edge: probes, OpenAPI, request ids, API keys and input validation.

use serde_json::{Value, json};

use crate::support::{Options, spawn_app, spawn_app_with};

#[tokio::test]
async fn liveness_is_ok_and_readiness_lists_the_mcp_tools_and_upstreams() {
    let app = spawn_app().await;
    let live = app.http.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(live.status(), 200);
    let ready = app.http.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    let body: Value = ready.json().await.unwrap();
    assert_eq!(body["ready"], true);
    assert_eq!(body["postIndex"], true);
    assert_eq!(
        body["mcpTools"],
        json!(["generate_action_hint", "search_m365", "search_posts"])
    );
    assert_eq!(body["llmConfigured"], false);
    assert_eq!(body["llmCircuitOpen"], false);
}

#[tokio::test]
async fn openapi_document_describes_every_route_and_the_response_contract() {
    let app = spawn_app().await;
    let doc: Value = app.get_json("/openapi.json").await;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    for path in [
        "/api/suggestions",
        "/api/posts/{postId}/suggestions",
        "/api/posts/{postId}",
        "/api/posts/batch",
        "/healthz",
        "/readyz",
    ] {
        assert!(doc["paths"].get(path).is_some(), "missing {path}");
    }
    let response = &doc["components"]["schemas"]["CombinedSuggestionsResponse"]["properties"];
    for field in [
        "m365",
        "posts",
        "actionHint",
        "source",
        "unavailableSources",
        "meta",
    ] {
        assert!(response.get(field).is_some(), "missing {field}");
    }
}

#[tokio::test]
async fn request_id_is_echoed_when_given_and_generated_when_absent() {
    let app = spawn_app().await;
    let res = app
        .http
        .get(app.url("/healthz"))
        .header("x-request-id", "req-42")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["x-request-id"], "req-42");
    let res = app.http.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(res.headers()["x-request-id"].to_str().unwrap().len(), 36);
}

async fn post_raw(
    app: &crate::support::TestApp,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> (u16, Value) {
    let mut req = app.http.post(app.url("/api/suggestions")).body(body);
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    let res = req.send().await.unwrap();
    (
        res.status().as_u16(),
        res.json().await.unwrap_or(Value::Null),
    )
}

fn assert_error(got: (u16, Value), status: u16, code: &str, field: Option<&str>) {
    assert_eq!(got.0, status, "{}", got.1);
    assert_eq!(got.1["error"]["code"], code, "{}", got.1);
    assert!(
        got.1["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
    match field {
        Some(f) => assert_eq!(got.1["error"]["field"], f, "{}", got.1),
        None => assert!(got.1["error"].get("field").is_none(), "{}", got.1),
    }
}

fn json_body(v: Value) -> Vec<u8> {
    serde_json::to_vec(&v).unwrap()
}

#[tokio::test]
async fn empty_text_is_rejected_naming_the_text_field() {
    let app = spawn_app().await;
    let got = post_raw(
        &app,
        Some("application/json"),
        json_body(json!({"postId": "p1", "text": "   "})),
    )
    .await;
    assert_error(got, 400, "invalid_request", Some("text"));
}

#[tokio::test]
async fn text_of_10001_characters_is_rejected_and_10000_accepted() {
    let app = spawn_app().await;
    let long = "a".repeat(10_001);
    let got = post_raw(
        &app,
        Some("application/json"),
        json_body(json!({"postId": "p1", "text": long})),
    )
    .await;
    assert_error(got, 400, "invalid_request", Some("text"));
    let ok = post_raw(
        &app,
        Some("application/json"),
        json_body(json!({"postId": "p1", "text": "é".repeat(10_000)})),
    )
    .await;
    assert_eq!(ok.0, 200);
}

#[tokio::test]
async fn malformed_post_ids_are_rejected_naming_post_id() {
    let app = spawn_app().await;
    for id in ["", "has space", "slash/inside", &"x".repeat(129)] {
        let got = post_raw(
            &app,
            Some("application/json"),
            json_body(json!({"postId": id, "text": "hello"})),
        )
        .await;
        assert_error(got, 400, "invalid_request", Some("postId"));
    }
}

#[tokio::test]
async fn wrongly_typed_and_missing_fields_are_named() {
    let app = spawn_app().await;
    let got = post_raw(
        &app,
        Some("application/json"),
        json_body(json!({"postId": "p1", "text": 7})),
    )
    .await;
    assert_error(got, 400, "invalid_request", Some("text"));
    let got = post_raw(
        &app,
        Some("application/json"),
        json_body(json!({"postId": "p1", "text": "x", "tags": ["a", 1]})),
    )
    .await;
    assert_error(got, 400, "invalid_request", Some("tags[1]"));
    let got = post_raw(
        &app,
        Some("application/json"),
        json_body(json!({"text": "hello"})),
    )
    .await;
    assert_eq!(got.0, 400);
    assert!(
        got.1["error"]["message"]
            .as_str()
            .unwrap()
            .contains("postId")
    );
}

#[tokio::test]
async fn too_many_or_too_long_tags_are_rejected() {
    let app = spawn_app().await;
    let tags: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    let got = post_raw(
        &app,
        Some("application/json"),
        json_body(json!({"postId": "p1", "text": "x", "tags": tags})),
    )
    .await;
    assert_error(got, 400, "invalid_request", Some("tags"));
    let got = post_raw(
        &app,
        Some("application/json"),
        json_body(json!({"postId": "p1", "text": "x", "tags": ["ok", "y".repeat(51)]})),
    )
    .await;
    assert_error(got, 400, "invalid_request", Some("tags[1]"));
}

#[tokio::test]
async fn non_json_body_is_a_400_in_the_error_shape() {
    let app = spawn_app().await;
    let got = post_raw(&app, Some("application/json"), b"{not json".to_vec()).await;
    assert_error(got, 400, "invalid_request", None);
}

#[tokio::test]
async fn wrong_or_missing_content_type_is_a_415() {
    let app = spawn_app().await;
    let body = json_body(json!({"postId": "p1", "text": "hello"}));
    assert_error(
        post_raw(&app, Some("text/plain"), body.clone()).await,
        415,
        "unsupported_media_type",
        None,
    );
    assert_error(
        post_raw(&app, None, body).await,
        415,
        "unsupported_media_type",
        None,
    );
}

#[tokio::test]
async fn body_over_64_kib_is_a_413() {
    let app = spawn_app().await;
    let body = json_body(json!({"postId": "p1", "text": "a".repeat(65 * 1024)}));
    assert_error(
        post_raw(&app, Some("application/json"), body).await,
        413,
        "payload_too_large",
        None,
    );
}

#[tokio::test]
async fn unknown_fields_are_ignored() {
    let app = spawn_app().await;
    let got = post_raw(
        &app,
        Some("application/json"),
        json_body(json!({"postId": "p1", "text": "hello", "future": {"x": 1}})),
    )
    .await;
    assert_eq!(got.0, 200);
}

#[tokio::test]
async fn malformed_authorization_header_is_a_400_naming_it() {
    let app = spawn_app().await;
    let res = app
        .http
        .post(app.url("/api/suggestions"))
        .header("authorization", "Basic dXNlcjpwYXNz")
        .json(&json!({"postId": "p1", "text": "hello"}))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    assert_error(
        (status, res.json().await.unwrap()),
        400,
        "invalid_request",
        Some("Authorization"),
    );
}

#[tokio::test]
async fn an_empty_bearer_token_is_no_token_and_microsoft_365_is_unavailable() {
    let app = spawn_app().await;
    app.graph.add(crate::support::graph::engineering_corpus());
    for value in ["Bearer ", "Bearer", "bearer   "] {
        let res = app
            .http
            .post(app.url("/api/suggestions"))
            .header("authorization", value)
            .json(&json!({"postId": "p1", "text": "deployment pipeline runbook"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{value:?}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["m365"], json!([]), "{value:?}: {body}");
        assert_eq!(
            body["unavailableSources"],
            json!(["m365"]),
            "{value:?}: {body}"
        );
    }
    assert!(app.graph.received().is_empty(), "Graph is not called");
    for value in ["Token abc", "Bearerabc", "Basic"] {
        let res = app
            .http
            .post(app.url("/api/suggestions"))
            .header("authorization", value)
            .json(&json!({"postId": "p1", "text": "hello"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400, "{value:?}");
    }
}

#[tokio::test]
async fn api_key_is_required_on_the_api_when_configured_but_not_on_probes() {
    let app = spawn_app_with(Options {
        // A stray comma is no empty key that a request without one matches.
        env: vec![("LINKUP__SERVER__API_KEYS", "k1,,k2".into())],
        ..Default::default()
    })
    .await;
    let body = json!({"postId": "p1", "text": "hello"});
    let keys = [
        (None, 401),
        (Some(""), 401),
        (Some("nope"), 401),
        (Some("k2"), 200),
    ];
    for (key, expected) in keys {
        let mut req = app.http.post(app.url("/api/suggestions")).json(&body);
        if let Some(k) = key {
            req = req.header("x-api-key", k);
        }
        assert_eq!(req.send().await.unwrap().status(), expected, "{key:?}");
    }
    assert_eq!(
        app.http
            .get(app.url("/healthz"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
}

#[tokio::test]
async fn cors_allows_configured_origins_only() {
    let app = spawn_app_with(Options {
        env: vec![(
            "LINKUP__SERVER__CORS_ORIGINS",
            "https://linkup.contoso.com".into(),
        )],
        ..Default::default()
    })
    .await;
    let preflight = |origin: &'static str| {
        app.http
            .request(reqwest::Method::OPTIONS, app.url("/api/suggestions"))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .send()
    };
    let ok = preflight("https://linkup.contoso.com").await.unwrap();
    assert_eq!(
        ok.headers()["access-control-allow-origin"],
        "https://linkup.contoso.com"
    );
    let other = preflight("https://evil.example").await.unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn in_flight_requests_finish_after_shutdown_is_requested() {
    let mut app = spawn_app().await;
    app.graph.files(crate::support::graph::Behavior::Delay(
        std::time::Duration::from_millis(600),
    ));
    let url = app.url("/api/suggestions");
    let http = app.http.clone();
    let pending = tokio::spawn(async move {
        http.post(url)
            .bearer_auth(crate::support::graph::TOKEN)
            .json(&json!({"postId": "p1", "text": "deployment pipeline"}))
            .send()
            .await
            .map(|r| r.status().as_u16())
    });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    app.shutdown.take().unwrap().send(()).unwrap();
    assert_eq!(pending.await.unwrap().unwrap(), 200);
    app.server.await.unwrap().unwrap();
}

#[tokio::test]
async fn the_deadline_counts_from_the_request_head_not_from_a_slow_body() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let app = spawn_app().await;
    let body =
        json!({"postId": "slow", "text": "How do I rotate the VPN certificate?"}).to_string();
    let mut tcp = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    let head = format!(
        "POST /api/suggestions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    tcp.write_all(body.as_bytes()).await.unwrap();
    let mut raw = String::new();
    tcp.read_to_string(&mut raw).await.unwrap();
    let json_start = raw.find("\r\n\r\n").unwrap() + 4;
    let res: Value = serde_json::from_str(&raw[json_start..]).unwrap();
    let elapsed = res["meta"]["elapsedMs"].as_u64().unwrap();
    assert!(
        elapsed >= 400,
        "elapsedMs {elapsed} misses the body's 400 ms"
    );
}
