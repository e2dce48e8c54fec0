//! What users add to a post (LinkUp's spec 005), pushed like posts: shared
//! documents and replies — their answers, their errors, and that nothing of
//! a deleted or expired post outlives it.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Options, TestApp, post_body, spawn_app, spawn_app_with};

pub fn share_body(title: &str, url: &str) -> Value {
    json!({"sharerId": "u2", "sharerName": "Bob", "title": title, "url": url,
        "sourceType": "sharepoint", "createdAt": "2026-12-01T10:00:00Z"})
}

pub fn reply_body(text: &str) -> Value {
    json!({"authorId": "u3", "authorName": "Ann", "text": text,
        "createdAt": "2026-12-01T11:00:00Z"})
}

/// `method path` with an optional JSON body: (status, JSON body or Null).
pub async fn call(app: &TestApp, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = app.http.request(method, app.url(path));
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req.send().await.expect("request");
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// The ids of a `GET …/shared-documents` or `…/replies` list.
pub fn item_ids(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| i["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn a_share_is_created_replaced_listed_and_deleted_idempotently() {
    let app = spawn_app().await;
    app.put_post("p-vpn", post_body("VPN keeps dropping at home", &[]))
        .await;
    let path = "/api/posts/p-vpn/shared-documents/d-1";
    let body = share_body(
        "GlobalProtect Setup Guide.docx",
        "https://contoso.sharepoint.com/gp",
    );
    let (status, created) = call(&app, "PUT", path, Some(body.clone())).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["postId"], "p-vpn");
    assert_eq!(created["id"], "d-1");
    let mut renamed = body.clone();
    renamed["title"] = json!("  GlobalProtect Setup Guide v2.docx ");
    let (status, replaced) = call(&app, "PUT", path, Some(renamed)).await;
    assert_eq!(status, 200);
    assert_eq!(
        replaced["title"], "GlobalProtect Setup Guide v2.docx",
        "trimmed"
    );
    let (status, list) = call(&app, "GET", "/api/posts/p-vpn/shared-documents", None).await;
    assert_eq!(status, 200);
    assert_eq!(item_ids(&list), ["d-1"]);
    assert_eq!(list["items"][0]["sharerName"], "Bob");
    for _ in 0..2 {
        assert_eq!(call(&app, "DELETE", path, None).await.0, 204);
    }
    let (_, list) = call(&app, "GET", "/api/posts/p-vpn/shared-documents", None).await;
    assert_eq!(item_ids(&list), Vec::<String>::new());
}

#[tokio::test]
async fn a_url_shared_twice_on_a_post_is_409_naming_the_first_and_nothing_changes() {
    let app = spawn_app().await;
    app.put_post("p-vpn", post_body("VPN keeps dropping at home", &[]))
        .await;
    let url = "https://contoso.sharepoint.com/gp";
    let first = share_body("Guide", url);
    let put = |id: &str| format!("/api/posts/p-vpn/shared-documents/{id}");
    assert_eq!(call(&app, "PUT", &put("d-1"), Some(first)).await.0, 201);
    let (status, body) = call(&app, "PUT", &put("d-2"), Some(share_body("Again", url))).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "url_already_shared");
    assert!(
        body["error"]["message"].as_str().unwrap().contains("d-1"),
        "{body}"
    );
    let (_, list) = call(&app, "GET", "/api/posts/p-vpn/shared-documents", None).await;
    assert_eq!(item_ids(&list), ["d-1"]);
    // The same URL on another post is another share.
    app.put_post("p-other", post_body("GlobalProtect on a new laptop", &[]))
        .await;
    let other = "/api/posts/p-other/shared-documents/d-2";
    assert_eq!(
        call(&app, "PUT", other, Some(share_body("Guide", url)))
            .await
            .0,
        201
    );
}

#[tokio::test]
async fn replies_are_created_replaced_and_listed_newest_first() {
    let app = spawn_app().await;
    app.put_post("p-vpn", post_body("VPN keeps dropping at home", &[]))
        .await;
    let path = |id: &str| format!("/api/posts/p-vpn/replies/{id}");
    let mut early = reply_body("Reinstall the client");
    early["createdAt"] = json!("2026-12-01T09:00:00Z");
    assert_eq!(call(&app, "PUT", &path("r-1"), Some(early)).await.0, 201);
    assert_eq!(
        call(&app, "PUT", &path("r-2"), Some(reply_body("Use the guide")))
            .await
            .0,
        201
    );
    let (status, _) = call(
        &app,
        "PUT",
        &path("r-2"),
        Some(reply_body("Use the v2 guide")),
    )
    .await;
    assert_eq!(status, 200);
    let (_, list) = call(&app, "GET", "/api/posts/p-vpn/replies", None).await;
    assert_eq!(item_ids(&list), ["r-2", "r-1"]);
    assert_eq!(list["items"][0]["text"], "Use the v2 guide");
    assert_eq!(call(&app, "DELETE", &path("r-1"), None).await.0, 204);
    let (_, list) = call(&app, "GET", "/api/posts/p-vpn/replies", None).await;
    assert_eq!(item_ids(&list), ["r-2"]);
}

#[tokio::test]
async fn an_unknown_post_is_404_and_a_bad_field_is_400_naming_it() {
    let app = spawn_app().await;
    let share = "/api/posts/p-none/shared-documents/d-1";
    let (status, body) = call(&app, "PUT", share, Some(share_body("Guide", "https://x"))).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (404, json!("post_not_found"))
    );
    let reply = "/api/posts/p-none/replies/r-1";
    assert_eq!(
        call(&app, "PUT", reply, Some(reply_body("Hi"))).await.0,
        404
    );
    assert_eq!(call(&app, "DELETE", share, None).await.0, 204, "idempotent");
    assert_eq!(
        call(&app, "GET", "/api/posts/p-none/replies", None).await.0,
        404
    );

    app.put_post("p-1", post_body("VPN keeps dropping at home", &[]))
        .await;
    let long = "x".repeat(501);
    let cases = [
        ("title", json!("   ")),
        ("title", json!(long)),
        ("url", json!("")),
        ("sourceType", json!("dropbox")),
        ("createdAt", json!("yesterday")),
        ("sharerId", json!("")),
    ];
    for (field, value) in cases {
        let mut body = share_body("Guide", "https://x");
        body[field] = value;
        let path = "/api/posts/p-1/shared-documents/d-1";
        let (status, answer) = call(&app, "PUT", path, Some(body)).await;
        assert_eq!(status, 400, "{field}: {answer}");
        if field != "sourceType" {
            assert_eq!(answer["error"]["field"], field, "{answer}");
        }
    }
    let mut body = reply_body("x");
    body["text"] = json!(long);
    let (status, answer) = call(&app, "PUT", "/api/posts/p-1/replies/r-1", Some(body)).await;
    assert_eq!(
        (status, answer["error"]["field"].clone()),
        (400, json!("text"))
    );
    let bad_id = "/api/posts/p-1/shared-documents/not%20an%20id";
    let (status, answer) = call(&app, "PUT", bad_id, Some(share_body("G", "https://x"))).await;
    assert_eq!(
        (status, answer["error"]["field"].clone()),
        (400, json!("docId"))
    );
    let mut other_post = share_body("G", "https://x");
    other_post["postId"] = json!("p-2");
    let path = "/api/posts/p-1/shared-documents/d-1";
    let (status, answer) = call(&app, "PUT", path, Some(other_post)).await;
    assert_eq!(
        (status, answer["error"]["field"].clone()),
        (400, json!("postId"))
    );
    let (_, list) = call(&app, "GET", "/api/posts/p-1/shared-documents", None).await;
    assert_eq!(
        item_ids(&list),
        Vec::<String>::new(),
        "nothing half-written"
    );
}

#[tokio::test]
async fn shares_and_replies_go_with_their_post_when_it_is_deleted_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("posts.db").display().to_string();
    let options = || Options {
        env: vec![("LINKUP__POSTS__DB_PATH", db.clone())],
        ..Default::default()
    };
    let app = spawn_app_with(options()).await;
    for id in ["p-gone", "p-kept"] {
        app.put_post(id, post_body("VPN keeps dropping at home", &[]))
            .await;
        let share = format!("/api/posts/{id}/shared-documents/d-1");
        call(&app, "PUT", &share, Some(share_body("Guide", "https://x"))).await;
        let reply = format!("/api/posts/{id}/replies/r-1");
        call(&app, "PUT", &reply, Some(reply_body("Use the guide"))).await;
    }
    assert_eq!(call(&app, "DELETE", "/api/posts/p-gone", None).await.0, 204);
    // Put again, the post starts with nothing: its old shares went with it.
    app.put_post("p-gone", post_body("VPN keeps dropping at home", &[]))
        .await;
    let (_, list) = call(&app, "GET", "/api/posts/p-gone/shared-documents", None).await;
    assert_eq!(item_ids(&list), Vec::<String>::new());
    let (_, list) = call(&app, "GET", "/api/posts/p-gone/replies", None).await;
    assert_eq!(item_ids(&list), Vec::<String>::new());
    // A post's own PUT keeps what users added to it.
    app.put_post("p-kept", post_body("VPN drops every hour at home", &[]))
        .await;
    drop(app);
    let restarted = spawn_app_with(options()).await;
    let (_, list) = call(
        &restarted,
        "GET",
        "/api/posts/p-kept/shared-documents",
        None,
    )
    .await;
    assert_eq!(item_ids(&list), ["d-1"]);
    let (_, list) = call(&restarted, "GET", "/api/posts/p-kept/replies", None).await;
    assert_eq!(item_ids(&list), ["r-1"]);
}

#[tokio::test]
async fn nothing_of_an_expired_post_outlives_it() {
    let app = spawn_app_with(Options {
        env: vec![("LINKUP__POSTS__PURGE_INTERVAL_SECS", "1".into())],
        ..Default::default()
    })
    .await;
    let soon = time::OffsetDateTime::now_utc() + Duration::from_secs(2);
    let soon = soon
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let mut post = post_body("VPN keeps dropping at home", &[]);
    post["expiresAt"] = json!(soon);
    app.put_post("p-brief", post).await;
    let share = "/api/posts/p-brief/shared-documents/d-1";
    assert_eq!(
        call(&app, "PUT", share, Some(share_body("Guide", "https://x")))
            .await
            .0,
        201
    );
    let reply = "/api/posts/p-brief/replies/r-1";
    assert_eq!(
        call(&app, "PUT", reply, Some(reply_body("Use the guide")))
            .await
            .0,
        201
    );
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    let list = "/api/posts/p-brief/shared-documents";
    assert_eq!(call(&app, "GET", list, None).await.0, 404);
    assert_eq!(
        call(&app, "PUT", reply, Some(reply_body("Late"))).await.0,
        404
    );
    let conn = rusqlite::Connection::open(&app.db_path).unwrap();
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM posts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 0, "the post and its shares and replies are purged");
}

#[tokio::test]
async fn a_batch_takes_posts_shares_and_replies_in_one_transaction_all_or_none() {
    let app = spawn_app().await;
    let mut post = post_body("VPN keeps dropping at home", &[]);
    post["id"] = json!("p-vpn");
    let mut share = share_body("Guide", "https://x/guide");
    share["postId"] = json!("p-vpn");
    share["id"] = json!("d-1");
    let mut reply = reply_body("Use the guide");
    reply["postId"] = json!("p-vpn");
    reply["id"] = json!("r-1");
    let batch = json!({"posts": [post], "sharedDocuments": [share.clone()], "replies": [reply]});
    let (status, body) = call(&app, "POST", "/api/posts/batch", Some(batch)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"created": 1, "updated": 0, "sharedDocuments": {"created": 1, "updated": 0},
            "replies": {"created": 1, "updated": 0}})
    );
    let (_, list) = call(&app, "GET", "/api/posts/p-vpn/shared-documents", None).await;
    assert_eq!(item_ids(&list), ["d-1"]);

    // A refused item (the same URL under another id) writes nothing of the batch.
    let mut post2 = post_body("Printer on floor 3 is jammed", &[]);
    post2["id"] = json!("p-printer");
    let mut again = share;
    again["id"] = json!("d-2");
    let batch = json!({"posts": [post2], "sharedDocuments": [again]});
    let (status, body) = call(&app, "POST", "/api/posts/batch", Some(batch)).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (409, json!("url_already_shared"))
    );
    assert_eq!(
        call(&app, "GET", "/api/posts/p-printer", None).await.0,
        404,
        "not half-written"
    );
    // A share on a post that is neither stored nor in the batch: 404, nothing written.
    let mut post3 = post_body("Parking permits", &[]);
    post3["id"] = json!("p-parking");
    let mut orphan = share_body("Guide", "https://x/other");
    orphan["postId"] = json!("p-none");
    orphan["id"] = json!("d-3");
    let batch = json!({"posts": [post3], "sharedDocuments": [orphan]});
    assert_eq!(
        call(&app, "POST", "/api/posts/batch", Some(batch)).await.0,
        404
    );
    assert_eq!(call(&app, "GET", "/api/posts/p-parking", None).await.0, 404);
    // A bad item is named by its place.
    let mut bad = reply_body("");
    bad["postId"] = json!("p-vpn");
    bad["id"] = json!("r-2");
    let (status, body) = call(
        &app,
        "POST",
        "/api/posts/batch",
        Some(json!({"replies": [bad]})),
    )
    .await;
    assert_eq!(
        (status, body["error"]["field"].clone()),
        (400, json!("replies[0].text"))
    );
    let mut no_id = reply_body("Hi");
    no_id["postId"] = json!("p-vpn");
    let (status, body) = call(
        &app,
        "POST",
        "/api/posts/batch",
        Some(json!({"replies": [no_id]})),
    )
    .await;
    assert_eq!(
        (status, body["error"]["field"].clone()),
        (400, json!("replies[0].id"))
    );
}
