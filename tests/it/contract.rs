//! The contract with LinkUp's TypeScript clients: ingestion enforces
//! `PostSummary` as `app/types/index.ts` types it, and real responses of every
//! endpoint validate against the schemas of the served `/openapi.json`.

use serde_json::{Value, json};

use crate::support::{Options, TestApp, graph::TOKEN, post_body, spawn_app, spawn_app_with};

/// The served OpenAPI document.
async fn openapi(app: &TestApp) -> Value {
    let res = app.http.get(app.url("/openapi.json")).send().await.unwrap();
    res.json().await.unwrap()
}

/// Asserts that `value` is valid against `#/components/schemas/{name}` of `doc`.
fn assert_valid(doc: &Value, name: &str, value: &Value) {
    let mut schema = doc.clone();
    schema["$ref"] = json!(format!("#/components/schemas/{name}"));
    let validator = jsonschema::draft202012::new(&schema)
        .unwrap_or_else(|e| panic!("schema {name} does not compile: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{value}");
}

#[tokio::test]
async fn every_event_of_an_agent_stream_matches_the_served_openapi_schema() {
    let app = crate::support::spawn_app_with_corpus(Options {
        llm: true,
        ..Options::default()
    })
    .await;
    let doc = openapi(&app).await;
    let question = json!({"postId": "q-1", "text": "Where is the deployment pipeline runbook?"});
    let streamed = app
        .stream(question, Some(TOKEN))
        .await
        .text()
        .await
        .unwrap();
    let kinds: Vec<String> = streamed
        .lines()
        .map(|line| {
            let event: Value = serde_json::from_str(line).unwrap();
            assert_valid(&doc, "RunEvent", &event);
            event["type"].as_str().unwrap().to_owned()
        })
        .collect();
    for kind in ["tool", "preview", "node", "result"] {
        assert!(kinds.iter().any(|k| k == kind), "{kind}: {kinds:?}");
    }
    let streams = &doc["paths"]["/api/suggestions"]["post"]["responses"]["200"]["content"];
    assert!(
        streams["application/x-ndjson"].is_object(),
        "the stream is described: {streams}"
    );
    // A schema that accepts anything would accept this too.
    let wrong = json!({"type": "preview", "data": {"m365": "not a list"}});
    let mut schema = doc.clone();
    schema["$ref"] = json!("#/components/schemas/RunEvent");
    assert!(
        !jsonschema::draft202012::new(&schema)
            .unwrap()
            .is_valid(&wrong)
    );
}

async fn json_of(res: reqwest::Response) -> (u16, Value) {
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn responses_of_every_endpoint_match_the_served_openapi_schemas() {
    let app = spawn_app().await;
    app.graph.add(crate::support::graph::engineering_corpus());
    let doc = openapi(&app).await;
    let mut legacy_like = post_body("How do we run the deployment pipeline?", &["devops"]);
    legacy_like.as_object_mut().unwrap().remove("category");
    let (status, created) = app.put("p-1", legacy_like).await;
    assert_eq!(status, 201);
    assert_valid(&doc, "PostSummary", &created);
    assert_eq!(created["category"], "discussion");
    let (status, updated) = app
        .put("p-1", post_body("Deployment pipeline help", &[]))
        .await;
    assert_eq!(status, 200);
    assert_valid(&doc, "PostSummary", &updated);
    let (_, fetched) = json_of(
        app.http
            .get(app.url("/api/posts/p-1"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_valid(&doc, "PostSummary", &fetched);
    let mut item = post_body("another deployment pipeline post", &[]);
    item["id"] = json!("p-2");
    let (status, batch) = app.post_batch(&[item]).await;
    assert_eq!(status, 200);
    assert_valid(&doc, "PostBatchResult", &batch);

    let (status, panel) = app
        .suggest(
            json!({"postId": "q-1", "text": "deployment pipeline"}),
            Some(TOKEN),
        )
        .await;
    assert_eq!(status, 200);
    assert!(!panel["posts"].as_array().unwrap().is_empty(), "{panel}");
    assert!(!panel["m365"].as_array().unwrap().is_empty(), "{panel}");
    assert_valid(&doc, "CombinedSuggestionsResponse", &panel);
    let run = format!("/api/runs/{}", panel["meta"]["runId"].as_str().unwrap());
    let (status, record) = json_of(app.http.get(app.url(&run)).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_valid(&doc, "RunRecord", &record);
    let (_, empty) = app
        .suggest(json!({"postId": "q-2", "text": "zzzz qqqq"}), None)
        .await;
    assert!(empty["actionHint"].is_null(), "{empty}");
    assert_valid(&doc, "CombinedSuggestionsResponse", &empty);
    let (_, old_route) = json_of(
        app.http
            .get(app.url("/api/posts/p-2/suggestions"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_valid(&doc, "CombinedSuggestionsResponse", &old_route);
    let streamed = app
        .stream(
            json!({"postId": "q-3", "text": "deployment pipeline"}),
            None,
        )
        .await
        .text()
        .await
        .unwrap();
    let last: Value = serde_json::from_str(streamed.lines().last().unwrap()).unwrap();
    assert_valid(&doc, "CombinedSuggestionsResponse", &last["data"]);
    for line in streamed.lines() {
        assert_valid(&doc, "RunEvent", &serde_json::from_str(line).unwrap());
    }

    let (_, ready) = json_of(app.http.get(app.url("/readyz")).send().await.unwrap()).await;
    assert_valid(&doc, "Readiness", &ready);
    let errors = [
        app.http
            .get(app.url("/api/posts/missing"))
            .send()
            .await
            .unwrap(),
        app.http
            .get(app.url("/api/suggestions"))
            .send()
            .await
            .unwrap(),
        app.http.get(app.url("/nowhere")).send().await.unwrap(),
        app.http
            .get(app.url("/api/runs/no-such-run"))
            .send()
            .await
            .unwrap(),
        app.http
            .post(app.url("/api/suggestions"))
            .body("{}")
            .send()
            .await
            .unwrap(),
        app.http
            .post(app.url("/api/suggestions"))
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
    ];
    for res in errors {
        let (status, body) = json_of(res).await;
        assert!((400..500).contains(&status), "{status}");
        assert_valid(&doc, "ErrorBody", &body);
    }
}

#[tokio::test]
async fn the_openapi_document_states_the_post_contract() {
    let app = spawn_app().await;
    let doc = openapi(&app).await;
    let post = &doc["components"]["schemas"]["PostSummary"];
    let required: Vec<&str> = post["required"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for field in [
        "id",
        "authorId",
        "authorName",
        "text",
        "tags",
        "lat",
        "lng",
        "mode",
        "category",
        "createdAt",
        "expiresAt",
        "interestedCount",
        "joinCount",
    ] {
        assert!(required.contains(&field), "{field} not required: {post}");
    }
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas["PostMode"]["enum"],
        json!(["online", "offline", "both"])
    );
    assert_eq!(
        schemas["PostCategory"]["enum"],
        json!(["question", "discussion", "share", "help", "meetup"])
    );
    // Nothing of a post may be null: a post with a null field fails the schema.
    let mut with_null = post_body("t", &[]);
    with_null["id"] = json!("p");
    with_null["expiresAt"] = Value::Null;
    let mut schema = doc.clone();
    schema["$ref"] = json!("#/components/schemas/PostSummary");
    assert!(
        !jsonschema::draft202012::new(&schema)
            .unwrap()
            .is_valid(&with_null)
    );
}

#[tokio::test]
async fn ingestion_rejects_what_the_typescript_types_do_not_allow_naming_the_field() {
    let app = spawn_app().await;
    let cases: Vec<(&str, Value, &str)> = vec![
        ("mode", json!("bar"), "mode"),
        ("category", json!("foo"), "category"),
        ("category", Value::Null, "category"),
        ("expiresAt", Value::Null, "expiresAt"),
        ("expiresAt", json!("next week"), "expiresAt"),
        ("lat", json!(90.5), "lat"),
        ("lat", json!(-91), "lat"),
        ("lng", json!(180.01), "lng"),
        ("lng", json!("east"), "lng"),
        ("interestedCount", json!(-1), "interestedCount"),
        ("joinCount", json!(1.5), "joinCount"),
        ("tags", json!("devops"), "tags"),
    ];
    for (key, value, field) in cases {
        let mut body = post_body("valid text", &[]);
        body[key] = value.clone();
        let (status, got) = app.put("p-bad", body).await;
        assert_eq!(status, 400, "{key}={value}: {got}");
        assert_eq!(got["error"]["field"], field, "{key}={value}: {got}");
    }
    let mut no_expiry = post_body("valid text", &[]);
    no_expiry.as_object_mut().unwrap().remove("expiresAt");
    let (status, got) = app.put("p-bad", no_expiry).await;
    assert_eq!(
        (status, got["error"]["message"].as_str()),
        (400, Some("expiresAt is required"))
    );
    let (status, _) = json_of(
        app.http
            .get(app.url("/api/posts/p-bad"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 404, "nothing invalid was stored");

    for (mode, category) in [("offline", "meetup"), ("both", "help")] {
        let mut body = post_body("valid text", &[]);
        body["mode"] = json!(mode);
        body["category"] = json!(category);
        let (status, got) = app.put("p-ok", body).await;
        assert!(status == 200 || status == 201, "{got}");
        assert_eq!(
            (got["mode"].as_str(), got["category"].as_str()),
            (Some(mode), Some(category))
        );
    }
}

#[tokio::test]
async fn posts_stored_with_nulls_by_an_older_version_are_served_complete() {
    // A database written before ingestion enforced the contract.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("posts.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE posts (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, body TEXT NOT NULL,
               search_text TEXT NOT NULL, expires_at INTEGER, embedding BLOB);",
        )
        .unwrap();
        let body = json!({"id": "old-1", "authorId": "u", "authorName": "Kim",
            "text": "Legacy deployment pipeline post", "tags": [], "lat": 1.0, "lng": 2.0,
            "mode": "online", "category": null, "createdAt": "2026-01-01T00:00:00Z",
            "expiresAt": null, "interestedCount": 0, "joinCount": 0});
        conn.execute(
            "INSERT INTO posts (id, body, search_text) VALUES ('old-1', ?1, 'Legacy deployment pipeline post')",
            [body.to_string()],
        )
        .unwrap();
    }
    let app = spawn_app_with(Options {
        env: vec![("LINKUP__POSTS__DB_PATH", db.display().to_string())],
        ..Default::default()
    })
    .await;
    let doc = openapi(&app).await;
    let (status, post) = json_of(
        app.http
            .get(app.url("/api/posts/old-1"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{post}");
    assert_valid(&doc, "PostSummary", &post);
    assert_eq!(post["category"], "discussion");
    assert_eq!(post["expiresAt"], "9999-12-31T23:59:59Z");
    let (_, panel) = app
        .suggest(json!({"postId": "q", "text": "deployment pipeline"}), None)
        .await;
    assert_eq!(crate::support::post_ids(&panel), vec!["old-1"]);
    assert_valid(&doc, "CombinedSuggestionsResponse", &panel);
}

#[tokio::test]
async fn a_cached_answer_matches_the_schema_and_the_document_names_the_validators() {
    let app = spawn_app_with(Options {
        env: vec![("LINKUP__CACHE__ENABLED", "true".to_owned())],
        ..Options::default()
    })
    .await;
    app.put_post(
        "p-77",
        post_body("Our deployment pipeline uses GitHub Actions", &[]),
    )
    .await;
    let doc = openapi(&app).await;
    let question = json!({"postId": "p-new", "text": "Where is the deployment pipeline?"});
    app.suggest(question.clone(), Some(TOKEN)).await;
    let (_, cached) = app.suggest(question, Some(TOKEN)).await;
    assert_eq!(cached["meta"]["cached"], true);
    assert_valid(&doc, "CombinedSuggestionsResponse", &cached);
    let get = &doc["paths"]["/api/posts/{postId}/suggestions"]["get"];
    for header in ["ETag", "Cache-Control", "Vary", "Age"] {
        assert!(
            get["responses"]["200"]["headers"][header].is_object(),
            "{header}"
        );
    }
    assert!(get["responses"]["304"].is_object());
    let post = &doc["paths"]["/api/suggestions"]["post"];
    assert!(post["responses"]["200"]["headers"]["ETag"].is_object());
    assert!(post["responses"]["412"].is_object());
}
