//! The panel cache: a repeat view is a lookup, one caller's panel never
//! reaches another, identical concurrent views share one run, a written
//! post drops its panels, degraded panels live briefly, and HTTP's own
//! validators (ETag, 304, 412, no-cache, no-store).

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use crate::support::{
    Doc, Options, TestApp,
    graph::{Behavior, TOKEN},
    post_body, spawn_app_with_corpus, strings, titles,
};

/// The app over the engineering corpus with the panel cache on.
pub(crate) async fn cached_app(env: Vec<(&'static str, String)>) -> TestApp {
    let mut env = env;
    env.push(("LINKUP__CACHE__ENABLED", "true".to_owned()));
    spawn_app_with_corpus(Options {
        llm: true,
        env,
        ..Default::default()
    })
    .await
}

fn question() -> Value {
    json!({"postId": "p-new", "text": "How do I set up a deployment pipeline for our repo?", "tags": ["devops"]})
}

/// A JWT-shaped token with `claims` and `signature` (the service does not
/// verify it; Graph would).
fn jwt(claims: &str, signature: &str) -> String {
    let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
    format!(
        "{}.{}.{signature}",
        b64(r#"{"alg":"RS256","typ":"JWT"}"#),
        b64(claims)
    )
}

/// Upstream calls so far: chat completions and Graph requests.
fn calls(app: &TestApp) -> (usize, usize) {
    (app.openai.chat_requests().len(), app.graph.received().len())
}

#[tokio::test]
async fn a_repeat_view_is_a_lookup_naming_the_original_run() {
    let app = cached_app(vec![]).await;
    let (status, first) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(first["meta"]["path"], "agent", "{first}");
    assert!(first["meta"].get("cached").is_none());
    let before = calls(&app);
    let (status, again) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(calls(&app), before, "no model call, no Graph request");
    assert_eq!(again["meta"]["cached"], true);
    assert_eq!(again["meta"]["runId"], first["meta"]["runId"]);
    for field in ["m365", "posts", "actionHint", "unavailableSources"] {
        assert_eq!(again[field], first[field], "{field}");
    }
    // A changed text is a new panel.
    let mut changed = question();
    changed["text"] = json!("How do I set up a release pipeline for our repo?");
    let (_, other) = app.suggest(changed, Some(TOKEN)).await;
    assert!(other["meta"].get("cached").is_none());
    let metrics = app.get_text("/metrics").await;
    assert!(
        metrics.contains(r#"linkup_panel_cache_requests_total{result="hit"} 1"#),
        "{metrics}"
    );
}

#[tokio::test]
async fn one_callers_panel_never_reaches_another_with_the_same_claims() {
    let app = cached_app(vec![]).await;
    let claims = r#"{"tid":"contoso","oid":"alice","exp":4102444800}"#;
    let alice = jwt(claims, "alice-signature");
    let forged = jwt(claims, "forged-signature");
    app.graph.add_for(
        &alice,
        [Doc::file(
            "Alice's deployment pipeline plan",
            "https://contoso.sharepoint.com/alice",
            "deployment pipeline",
        )],
    );
    app.graph.add_for(&forged, []);
    let (_, a) = app.suggest(question(), Some(&alice)).await;
    assert!(
        titles(&a).contains(&"Alice's deployment pipeline plan".to_owned()),
        "{a}"
    );
    let (_, b) = app.suggest(question(), Some(&forged)).await;
    assert!(
        b["meta"].get("cached").is_none(),
        "a new run for another caller"
    );
    assert!(
        !titles(&b).contains(&"Alice's deployment pipeline plan".to_owned()),
        "{b}"
    );
    // Nor through a 304: Alice's tag on the GET route is not the forger's.
    let get = |token: &str| {
        app.http
            .get(app.url("/api/posts/p-77/suggestions"))
            .bearer_auth(token)
    };
    let alices = get(&alice).send().await.unwrap();
    let tag = alices.headers()["etag"].to_str().unwrap().to_owned();
    let forgers = get(&forged)
        .header("if-none-match", tag)
        .send()
        .await
        .unwrap();
    assert_eq!(forgers.status(), 200);
    let body: Value = forgers.json().await.unwrap();
    assert!(
        !titles(&body).contains(&"Alice's deployment pipeline plan".to_owned()),
        "{body}"
    );
}

#[tokio::test]
async fn twenty_identical_concurrent_views_are_one_run() {
    let app = cached_app(vec![]).await;
    app.openai
        .latency(Duration::from_millis(300), Duration::ZERO);
    let views = (0..20).map(|_| app.suggest(question(), Some(TOKEN)));
    let answers = futures::future::join_all(views).await;
    let (chat, graph) = calls(&app);
    // One run: pre-retrieval's Graph search (files and mail) and one call
    // of the model.
    assert_eq!(chat, 1, "one model call for 20 views");
    assert_eq!(graph, 2, "one Graph search for 20 views");
    let first = &answers[0].1;
    for (status, body) in &answers {
        assert_eq!(*status, 200);
        assert_eq!(body["meta"]["runId"], first["meta"]["runId"]);
        assert_eq!(body["m365"], first["m365"]);
        assert_eq!(body["posts"], first["posts"]);
    }
    let metrics = app.get_text("/metrics").await;
    assert!(
        metrics.contains(r#"linkup_panel_cache_requests_total{result="coalesced"} 19"#),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_written_post_drops_its_panels_and_a_deleted_one_leaves_cached_panels() {
    let app = cached_app(vec![]).await;
    app.put_post(
        "p-new",
        post_body(
            "How do I set up a deployment pipeline for our repo?",
            &["devops"],
        ),
    )
    .await;
    // The answer's ETag and body.
    let view = || async {
        let res = app.suggest_response(question(), Some(TOKEN)).await;
        let tag = res.headers()["etag"].to_str().unwrap().to_owned();
        (tag, res.json::<Value>().await.unwrap())
    };
    let (tag, first) = view().await;
    assert!(
        crate::support::post_ids(&first).contains(&"p-77".to_owned()),
        "{first}"
    );
    let (hit_tag, hit) = view().await;
    assert_eq!(hit["meta"]["cached"], true);
    assert_eq!(hit_tag, tag, "the same content keeps its tag");
    // p-77, shown in p-new's panel, is deleted: the cached panel leaves it out.
    let deleted = app
        .http
        .delete(app.url("/api/posts/p-77"))
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success());
    let (again_tag, again) = view().await;
    assert_eq!(again["meta"]["cached"], true);
    assert!(
        !crate::support::post_ids(&again).contains(&"p-77".to_owned()),
        "{again}"
    );
    assert_ne!(
        again_tag, tag,
        "a client holding the old tag must not be told its copy (with p-77) is current"
    );
    // p-new itself is written: its panels go.
    app.put_post(
        "p-new",
        post_body(
            "How do I set up a deployment pipeline for our repo? (edited)",
            &["devops"],
        ),
    )
    .await;
    let (_, after) = app.suggest(question(), Some(TOKEN)).await;
    assert!(after["meta"].get("cached").is_none(), "{after}");
}

#[tokio::test]
async fn a_degraded_panel_lives_degraded_ttl_s() {
    let app = cached_app(vec![("LINKUP__CACHE__DEGRADED_TTL_S", "1".to_owned())]).await;
    app.graph.files(Behavior::Status(500));
    let (_, first) = app.suggest(question(), Some(TOKEN)).await;
    assert!(
        strings(&first["meta"]["degraded"])
            .iter()
            .any(|r| r.starts_with("m365_")),
        "{first}"
    );
    let (_, again) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(again["meta"]["cached"], true, "kept a second");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (_, later) = app.suggest(question(), Some(TOKEN)).await;
    assert!(later["meta"].get("cached").is_none(), "recomputed: {later}");
}

#[tokio::test]
async fn validators_answer_304_on_get_and_412_on_post_and_malformed_ones_are_ignored() {
    let app = cached_app(vec![]).await;
    let get = |headers: Vec<(&'static str, String)>| {
        let mut request = app
            .http
            .get(app.url("/api/posts/p-77/suggestions"))
            .bearer_auth(TOKEN);
        for (k, v) in headers {
            request = request.header(k, v);
        }
        request.send()
    };
    let first = get(vec![]).await.unwrap();
    assert_eq!(first.status(), 200);
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    let control = first.headers()["cache-control"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(control.starts_with("private, max-age="), "{control}");
    assert_eq!(first.headers()["vary"], "Authorization");
    let not_modified = get(vec![("if-none-match", etag.clone())]).await.unwrap();
    assert_eq!(not_modified.status(), 304);
    assert!(not_modified.headers().contains_key("age"));
    assert!(not_modified.bytes().await.unwrap().is_empty());
    let weak = get(vec![("if-none-match", format!("W/{etag}"))])
        .await
        .unwrap();
    assert_eq!(weak.status(), 304, "If-None-Match compares weakly");
    for malformed in ["no-quotes", "\"unterminated"] {
        let r = get(vec![("if-none-match", malformed.to_owned())])
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{malformed} is ignored");
    }
    let r = get(vec![("cache-control", "max-age=banana, ,".to_owned())])
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // The same tag on POST: a POST cannot be 304.
    let post = app
        .http
        .post(app.url("/api/suggestions"))
        .bearer_auth(TOKEN)
        .header("if-none-match", "*")
        .json(&question())
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), 412);
}

#[tokio::test]
async fn no_cache_recomputes_and_replaces_no_store_neither_reads_nor_writes() {
    let app = cached_app(vec![]).await;
    let post = |control: Option<&'static str>| {
        let mut request = app
            .http
            .post(app.url("/api/suggestions"))
            .bearer_auth(TOKEN)
            .json(&question());
        if let Some(c) = control {
            request = request.header("cache-control", c);
        }
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let first = post(None).await;
    let fresh = post(Some("no-cache")).await;
    assert!(fresh["meta"].get("cached").is_none());
    assert_ne!(fresh["meta"]["runId"], first["meta"]["runId"]);
    let again = post(None).await;
    assert_eq!(again["meta"]["runId"], fresh["meta"]["runId"], "replaced");
    let unstored = post(Some("no-store")).await;
    assert!(unstored["meta"].get("cached").is_none());
    let after = post(None).await;
    assert_eq!(
        after["meta"]["runId"], fresh["meta"]["runId"],
        "no-store wrote nothing"
    );
}

#[tokio::test]
async fn a_cached_panel_streams_as_one_result_event() {
    let app = cached_app(vec![]).await;
    app.suggest(question(), Some(TOKEN)).await;
    let text = app
        .stream(question(), Some(TOKEN))
        .await
        .text()
        .await
        .unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert_eq!(lines[0]["type"], "result");
    assert_eq!(lines[0]["data"]["meta"]["cached"], true);
}

#[tokio::test]
async fn identical_views_wait_for_the_run_under_way_without_a_run_slot() {
    let app = cached_app(vec![
        ("LINKUP__SERVER__MAX_IN_FLIGHT", "1".to_owned()),
        ("LINKUP__SERVER__ADMISSION_WAIT_MS", "10".to_owned()),
    ])
    .await;
    app.openai
        .latency(Duration::from_millis(300), Duration::ZERO);
    app.graph.files(Behavior::Delay(Duration::from_millis(200)));
    let views = (0..20).map(|_| app.suggest(question(), Some(TOKEN)));
    let answers = futures::future::join_all(views).await;
    let first = &answers[0].1;
    for (status, body) in &answers {
        assert_eq!(*status, 200, "one run slot, twenty views: {body}");
        assert_eq!(body["meta"]["runId"], first["meta"]["runId"]);
    }
}

#[tokio::test]
async fn a_cached_panel_is_served_while_the_service_sheds_load() {
    let app = cached_app(vec![
        ("LINKUP__SERVER__MAX_IN_FLIGHT", "1".to_owned()),
        ("LINKUP__SERVER__ADMISSION_WAIT_MS", "10".to_owned()),
    ])
    .await;
    let (_, first) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(first["meta"]["path"], "agent", "{first}");
    // Another post's slow run holds the only slot.
    app.openai.latency(Duration::from_secs(2), Duration::ZERO);
    let holder = {
        let other = json!({"postId": "p-other", "text": "Who has the projector remote?"});
        let request = app
            .http
            .post(app.url("/api/suggestions"))
            .bearer_auth(TOKEN)
            .json(&other)
            .send();
        tokio::spawn(request)
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, again) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200, "a hit needs no run slot: {again}");
    assert_eq!(again["meta"]["cached"], true);
    let mut changed = question();
    changed["text"] = json!("How do I set up a release pipeline for our repo?");
    let (status, _) = app.suggest(changed, Some(TOKEN)).await;
    assert_eq!(status, 503, "a miss does");
    let _ = holder.await;
}
