//! Every 4xx in the one error shape `{"error": {"code", "message", "field"?}}`,
//! naming the field, on every endpoint and for input serde would accept.

use serde_json::{Value, json};

use crate::support::{TestApp, post_body, spawn_app};

/// Sends `body` (raw bytes) as JSON with `method` to `path`.
async fn send(app: &TestApp, method: reqwest::Method, path: &str, body: &str) -> (u16, Value) {
    let res = app
        .http
        .request(method, app.url(path))
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Asserts a 400 `invalid_request` naming `field`, with `message` in its message.
fn assert_invalid(got: &(u16, Value), field: Option<&str>, message: &str) {
    assert_eq!(got.0, 400, "{}", got.1);
    assert_eq!(got.1["error"]["code"], "invalid_request", "{}", got.1);
    assert_eq!(got.1["error"]["field"].as_str(), field, "{}", got.1);
    let text = got.1["error"]["message"].as_str().unwrap_or_default();
    assert!(text.contains(message), "{message:?} not in {text:?}");
}

#[tokio::test]
async fn a_missing_required_field_is_named_on_every_endpoint() {
    let app = spawn_app().await;
    let got = send(
        &app,
        reqwest::Method::POST,
        "/api/suggestions",
        r#"{"text": "hi"}"#,
    )
    .await;
    assert_invalid(&got, Some("postId"), "postId is required");
    assert_eq!(got.1["error"]["message"], "postId is required");

    let mut post = post_body("hello", &[]);
    post.as_object_mut().unwrap().remove("text");
    let got = send(
        &app,
        reqwest::Method::PUT,
        "/api/posts/p1",
        &post.to_string(),
    )
    .await;
    assert_invalid(&got, Some("text"), "text is required");

    let mut fourth = post_body("hello", &[]);
    fourth["id"] = json!("b4");
    fourth.as_object_mut().unwrap().remove("text");
    let mut posts: Vec<Value> = (0..3)
        .map(|i| {
            let mut p = post_body("hello", &[]);
            p["id"] = json!(format!("b{i}"));
            p
        })
        .collect();
    posts.push(fourth);
    let got = send(
        &app,
        reqwest::Method::POST,
        "/api/posts/batch",
        &json!({ "posts": posts }).to_string(),
    )
    .await;
    assert_invalid(&got, Some("posts[3].text"), "posts[3].text is required");
}

#[tokio::test]
async fn duplicate_keys_trailing_bytes_and_arrays_for_objects_are_400s() {
    let app = spawn_app().await;
    let cases: [(&str, Option<&str>, &str); 5] = [
        (
            r#"{"postId": "p1", "text": "a", "text": "b"}"#,
            Some("text"),
            "more than once",
        ),
        (
            r#"{"postId": "p1", "text": "a", "x": {"k": 1, "k": 2}}"#,
            Some("x.k"),
            "more than once",
        ),
        (
            r#"{"postId": "p1", "text": "a"}xyz"#,
            None,
            "malformed JSON",
        ),
        (
            r#"{"postId": "p1", "text": "a"} {}"#,
            None,
            "malformed JSON",
        ),
        (r#"["p-1", "deployment pipeline"]"#, None, "object"),
    ];
    for (body, field, message) in cases {
        let got = send(&app, reqwest::Method::POST, "/api/suggestions", body).await;
        assert_invalid(&got, field, message);
    }
    let values: Vec<Value> = post_body("hello", &[])
        .as_object()
        .unwrap()
        .values()
        .cloned()
        .collect();
    let array = Value::Array(values).to_string();
    let got = send(&app, reqwest::Method::PUT, "/api/posts/p-arr", &array).await;
    assert_invalid(&got, None, "object");
    let stored = app
        .http
        .get(app.url("/api/posts/p-arr"))
        .send()
        .await
        .unwrap();
    assert_eq!(stored.status(), 404, "a rejected post is not stored");
}

#[tokio::test]
async fn wrong_methods_are_405_with_allow_and_unknown_routes_404_in_the_error_shape() {
    let app = spawn_app().await;
    let res = app
        .http
        .get(app.url("/api/suggestions"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 405);
    assert_eq!(res.headers()["allow"], "POST");
    assert_eq!(res.headers()["content-type"], "application/json");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "method_not_allowed", "{body}");

    let res = app
        .http
        .patch(app.url("/api/posts/p1"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 405);
    let allow = res.headers()["allow"].to_str().unwrap().to_owned();
    for m in ["GET", "PUT", "DELETE"] {
        assert!(allow.contains(m), "{allow}");
    }

    let res = app
        .http
        .get(app.url("/no/such/route"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_found", "{body}");
}

#[tokio::test]
async fn a_path_segment_that_is_not_utf8_is_a_400_naming_post_id() {
    let app = spawn_app().await;
    for path in ["/api/posts/%ff", "/api/posts/%ff/suggestions"] {
        let res = app.http.get(app.url(path)).send().await.unwrap();
        let status = res.status().as_u16();
        let body: Value = res.json().await.unwrap_or(Value::Null);
        assert_invalid(&(status, body), Some("postId"), "UTF-8");
    }
    let res = app
        .http
        .delete(app.url("/api/posts/%ff"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
}

#[tokio::test]
async fn the_authorization_scheme_is_case_insensitive() {
    let app = spawn_app().await;
    app.graph.add(crate::support::graph::engineering_corpus());
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let res = app
            .http
            .post(app.url("/api/suggestions"))
            .header(
                "authorization",
                format!("{scheme} {}", crate::support::graph::TOKEN),
            )
            .json(&json!({"postId": "p1", "text": "deployment pipeline runbook"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{scheme}");
        let body: Value = res.json().await.unwrap();
        assert!(
            !crate::support::titles(&body).is_empty(),
            "{scheme}: M365 searched with the token: {body}"
        );
    }
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_is_a_408_in_the_error_shape() {
    let app = crate::support::spawn_app_with(crate::support::Options {
        env: vec![("LINKUP__SERVER__BODY_TIMEOUT_MS", "400".into())],
        ..Default::default()
    })
    .await;
    let suggest = json!({"postId": "drip", "text": "a body sent one byte at a time"});
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
    // `/mcp` too: rmcp reads bodies without a deadline, the edge reads them first.
    for (path, body) in [("/api/suggestions", suggest), ("/mcp", initialize)] {
        let raw = drip_body(&app, path, &body.to_string()).await;
        assert!(raw.starts_with("HTTP/1.1 408"), "{path}: {raw}");
        let json: Value = serde_json::from_str(&raw[raw.find("\r\n\r\n").unwrap() + 4..]).unwrap();
        assert_eq!(json["error"]["code"], "request_timeout", "{path}: {json}");
    }
}

/// POSTs `body` to `path` a byte every 50 ms; returns what came back.
async fn drip_body(app: &crate::support::TestApp, path: &str, body: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let mut tcp = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    // A byte every 50 ms: each chunk arrives well within any per-chunk timer,
    // the whole body (~60 bytes, ~3 s) never within 400 ms.
    let (mut read, mut write) = tcp.into_split();
    let body = body.to_owned();
    let dripper = tokio::spawn(async move {
        for b in body.bytes() {
            if write.write_all(&[b]).await.is_err() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    });
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&raw).contains("}}") {
        match read.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
    dripper.abort();
    String::from_utf8_lossy(&raw).into_owned()
}
