//! `POST /api/suggestions` on the fallback path (no LLM orchestration).

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{
    Doc, Options, TestApp,
    graph::{Behavior, MailLinks, TOKEN},
    post_body, post_ids, spawn_app, spawn_app_with, strings, titles,
};

fn corpus() -> Vec<Doc> {
    vec![
        Doc::file(
            "CI/CD onboarding guide",
            "https://contoso.sharepoint.com/sites/dev/Shared%20Documents/cicd.docx",
            "How to create a deployment pipeline for a team repo with GitHub Actions",
        ),
        Doc::file(
            "My pipeline notes",
            "https://contoso-my.sharepoint.com/personal/kim_contoso_com/Documents/notes.docx",
            "Personal notes on the deployment pipeline",
        ),
        Doc::list_item(
            "Pipeline request form",
            "https://contoso.sharepoint.com/sites/dev/SitePages/Pipeline-request-form.aspx",
            "Request a new deployment pipeline for a repo",
        ),
        Doc::mail(
            "Re: pipeline for the payments repo",
            "https://outlook.office365.com/owa/?ItemID=AAMkAD1&exvsurl=1&viewmodel=ReadMessageItem",
            "The deployment pipeline template is attached",
        ),
        Doc::file(
            "Lunch menu",
            "https://contoso.sharepoint.com/sites/hr/menu.docx",
            "Cafeteria lunch for the week",
        ),
    ]
}

async fn app_with_corpus() -> TestApp {
    let app = spawn_app().await;
    app.graph.add(corpus());
    app
}

fn question() -> Value {
    json!({"postId": "p-new", "text": "How do I set up a deployment pipeline for our team's repo?", "tags": ["devops"], "category": "question"})
}

#[tokio::test]
async fn fallback_answers_with_m365_results_similar_posts_and_a_hint() {
    let app = app_with_corpus().await;
    app.put_post(
        "p-77",
        post_body(
            "We set up our deployment pipeline with GitHub Actions",
            &["devops"],
        ),
    )
    .await;
    app.put_post(
        "p-new",
        post_body(
            "How do I set up a deployment pipeline for our team's repo?",
            &[],
        ),
    )
    .await;

    let (status, body) = app.suggest(question(), Some(TOKEN)).await;

    assert_eq!(status, 200, "{body}");
    let t = titles(&body);
    for expected in [
        "CI/CD onboarding guide",
        "My pipeline notes",
        "Pipeline request form",
        "Re: pipeline for the payments repo",
    ] {
        assert!(
            t.contains(&expected.to_owned()),
            "{expected} missing from {t:?}"
        );
    }
    assert!(!t.contains(&"Lunch menu".to_owned()));
    let by_title = |title: &str| {
        body["m365"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["title"] == title)
            .unwrap()
            .clone()
    };
    assert_eq!(by_title("My pipeline notes")["source"], "onedrive");
    assert_eq!(by_title("CI/CD onboarding guide")["source"], "sharepoint");
    assert_eq!(by_title("Pipeline request form")["source"], "sharepoint");
    assert_eq!(
        by_title("Re: pipeline for the payments repo")["source"],
        "email"
    );
    let guide = by_title("CI/CD onboarding guide");
    assert_eq!(guide["sourceType"], "m365");
    assert_eq!(guide["status"], "available");
    let description = guide["description"].as_str().unwrap();
    assert!(
        description.contains("deployment pipeline")
            && !description.contains("<c0>")
            && !description.contains("<ddd/>"),
        "{description}"
    );
    assert_eq!(
        post_ids(&body),
        vec!["p-77"],
        "the requesting post is excluded"
    );
    assert_eq!(body["posts"][0]["authorName"], "Kim");
    assert_eq!(body["posts"][0]["interestedCount"], 3);
    // The hint names the top result, where it lives (mails and files are
    // ranked in one list).
    let place = match body["m365"][0]["source"].as_str() {
        Some("email") => "in your Outlook mail",
        Some("onedrive") => "on OneDrive",
        _ => "on SharePoint",
    };
    assert_eq!(
        body["actionHint"],
        format!("Start with '{}' {place}.", t[0]),
        "{body}"
    );
    assert_eq!(body["source"], "mcp");
    assert_eq!(body["unavailableSources"], json!([]));
    assert_eq!(body["meta"]["path"], "fallback");
    assert_eq!(body["meta"]["rounds"], 0);
    assert_eq!(strings(&body["meta"]["degraded"]), vec!["llm_unconfigured"]);
}

#[tokio::test]
async fn a_korean_posts_graph_queries_are_its_stems_and_english_terms_never_its_particles() {
    let app = spawn_app().await;
    for (text, wanted, never) in [
        (
            "AWS 비용이 갑자기 두 배가 됐어요",
            &["aws", "비용"][..],
            &["비용이", "갑자기", "됐어요"][..],
        ),
        (
            "연차 휴가 신청은 어디서 하나요?",
            &["휴가", "신청"],
            &["신청은", "어디서", "하나요"],
        ),
        (
            "쿠버네티스 파드가 계속 재시작돼요ㅠㅠ",
            &["쿠버네티스", "파드", "재시작"],
            &["파드가", "계속", "재시작돼요", "ㅠㅠ"],
        ),
    ] {
        let before = app.graph.queries().len();
        app.suggest(json!({"postId": "p-ko", "text": text}), Some(TOKEN))
            .await;
        let queries = app.graph.queries()[before..].to_vec();
        assert!(!queries.is_empty(), "{text}");
        let terms: Vec<String> = queries
            .iter()
            .flat_map(|q| q.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .filter(|t| t != "OR")
            .collect();
        for w in wanted {
            assert!(terms.iter().any(|t| t == w), "{text}: {w} in {queries:?}");
        }
        for n in never {
            assert!(
                !terms.iter().any(|t| t == n),
                "{text}: no {n} in {queries:?}"
            );
        }
    }
}

#[tokio::test]
async fn graph_is_searched_with_keywords_not_the_raw_sentence_in_two_entity_groups() {
    let app = app_with_corpus().await;
    app.suggest(question(), Some(TOKEN)).await;
    let received = app.graph.received();
    let queries = app.graph.queries();
    assert_eq!(queries.len(), 2, "one search, files and mail: {queries:?}");
    for q in &queries {
        assert!(
            !q.contains("How do I") && !q.contains('?'),
            "raw sentence sent: {q}"
        );
        let terms: Vec<&str> = q.split_whitespace().filter(|t| *t != "OR").collect();
        assert!(terms.len() <= 4, "at most four key words: {q}");
        assert!(
            !terms.contains(&"set"),
            "an everyday word is not the topic: {q}"
        );
    }
    let broad = queries
        .iter()
        .find(|q| q.contains(" OR "))
        .expect("an OR-ed search");
    assert!(
        broad.contains("deployment") && broad.contains("pipeline"),
        "the topic's words: {broad}"
    );
    assert!(
        received
            .iter()
            .all(|r| r.body["requests"][0]["queryAlterationOptions"]["enableModification"] == true),
        "a misspelt query is answered for its correction"
    );
    let groups: Vec<Value> = received
        .iter()
        .map(|r| r.body["requests"][0]["entityTypes"].clone())
        .collect();
    assert!(groups.contains(&json!(["driveItem", "listItem"])));
    assert!(groups.contains(&json!(["message"])));
    assert!(received.iter().all(|r| r.body["requests"][0]["size"] == 10));
}

#[tokio::test]
async fn when_the_mail_group_fails_files_are_still_returned() {
    let app = app_with_corpus().await;
    app.graph.mail(Behavior::Status(503));
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    let t = titles(&body);
    assert!(t.contains(&"CI/CD onboarding guide".to_owned()));
    assert!(!t.iter().any(|t| t.starts_with("Re:")));
    assert_eq!(body["unavailableSources"], json!([]));
    assert!(
        strings(&body["meta"]["degraded"]).contains(&"m365_partial_upstream_error".to_owned()),
        "{body}"
    );
}

#[tokio::test]
async fn graph_rejecting_the_token_marks_m365_unavailable_and_still_serves_posts() {
    let app = app_with_corpus().await;
    app.put_post(
        "p-77",
        post_body("Our deployment pipeline uses GitHub Actions", &[]),
    )
    .await;
    let (status, body) = app.suggest(question(), Some("expired-token")).await;
    assert_eq!(status, 200);
    assert_eq!(body["m365"], json!([]));
    assert_eq!(post_ids(&body), vec!["p-77"]);
    assert_eq!(strings(&body["unavailableSources"]), vec!["m365"]);
    assert!(strings(&body["meta"]["degraded"]).contains(&"m365_unauthorized".to_owned()));
    assert!(body["actionHint"].is_string());
}

#[tokio::test]
async fn each_graph_failure_is_reported_with_its_own_reason_and_never_a_5xx() {
    for (behavior, reason) in [
        (Behavior::Status(403), "m365_forbidden"),
        (Behavior::Status(429), "m365_rate_limited"),
        (Behavior::Status(500), "m365_upstream_error"),
        (Behavior::Malformed, "m365_malformed_response"),
    ] {
        let app = app_with_corpus().await;
        app.graph.files(behavior.clone());
        app.graph.mail(behavior.clone());
        let (status, body) = app.suggest(question(), Some(TOKEN)).await;
        assert_eq!(status, 200, "{behavior:?}");
        assert_eq!(
            strings(&body["unavailableSources"]),
            vec!["m365"],
            "{behavior:?}"
        );
        assert!(
            strings(&body["meta"]["degraded"]).contains(&reason.to_owned()),
            "{behavior:?}: {body}"
        );
    }
}

#[tokio::test]
async fn graph_timeout_is_reported_as_m365_timeout() {
    let app = spawn_app_with(Options {
        env: vec![("LINKUP__MSGRAPH__TIMEOUT_MS", "300".into())],
        ..Default::default()
    })
    .await;
    app.graph.files(Behavior::Hang);
    app.graph.mail(Behavior::Hang);
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["path"], "fallback");
    assert!(
        strings(&body["meta"]["degraded"]).contains(&"m365_timeout".to_owned()),
        "{body}"
    );
}

#[tokio::test]
async fn without_a_token_m365_is_unavailable_graph_is_not_called_and_posts_are_served() {
    let app = app_with_corpus().await;
    app.put_post(
        "p-77",
        post_body("Deployment pipeline with GitHub Actions", &[]),
    )
    .await;
    let (status, body) = app.suggest(question(), None).await;
    assert_eq!(status, 200);
    assert_eq!(body["m365"], json!([]));
    assert_eq!(strings(&body["unavailableSources"]), vec!["m365"]);
    assert_eq!(post_ids(&body), vec!["p-77"]);
    assert!(app.graph.received().is_empty());
}

#[tokio::test]
async fn nothing_found_gives_empty_arrays_and_a_null_hint() {
    let app = app_with_corpus().await;
    let (status, body) = app
        .suggest(
            json!({"postId": "p1", "text": "quantum origami festival"}),
            Some(TOKEN),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["m365"], json!([]));
    assert_eq!(body["posts"], json!([]));
    assert_eq!(body["actionHint"], Value::Null);
    assert_eq!(body["unavailableSources"], json!([]));
}

#[tokio::test]
async fn hanging_graph_is_cut_by_the_deadline_and_collected_posts_are_returned() {
    let app = spawn_app_with(Options {
        env: vec![("LINKUP__AGENT__TIMEOUT_MS", "700".into())],
        ..Default::default()
    })
    .await;
    app.graph.files(Behavior::Hang);
    app.graph.mail(Behavior::Hang);
    app.put_post(
        "p-77",
        post_body("Deployment pipeline with GitHub Actions", &[]),
    )
    .await;
    let started = std::time::Instant::now();
    let (status, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the deadline did not cut the run"
    );
    assert_eq!(body["meta"]["path"], "partial");
    assert!(strings(&body["meta"]["degraded"]).contains(&"deadline".to_owned()));
    assert_eq!(post_ids(&body), vec!["p-77"]);
}

#[tokio::test]
async fn stored_post_route_answers_like_post_and_404s_for_unknown_or_expired_posts() {
    let app = app_with_corpus().await;
    app.put_post(
        "p-new",
        post_body("How do I set up a deployment pipeline?", &[]),
    )
    .await;
    app.put_post(
        "p-77",
        post_body("Deployment pipeline with GitHub Actions", &[]),
    )
    .await;
    let mut expired = post_body("Old deployment pipeline question", &[]);
    expired["expiresAt"] = json!("2020-01-01T00:00:00Z");
    app.put_post("p-old", expired).await;

    let res = app
        .http
        .get(app.url("/api/posts/p-new/suggestions"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert!(titles(&body).contains(&"CI/CD onboarding guide".to_owned()));
    assert_eq!(post_ids(&body), vec!["p-77"]);

    for id in ["p-missing", "p-old"] {
        let res = app
            .http
            .get(app.url(&format!("/api/posts/{id}/suggestions")))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 404);
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"]["code"], "post_not_found");
    }
}

#[tokio::test]
async fn x_run_id_names_the_run_in_json_and_stream_answers() {
    let app = app_with_corpus().await;
    let res = app
        .http
        .post(app.url("/api/suggestions"))
        .bearer_auth(TOKEN)
        .json(&question())
        .send()
        .await
        .unwrap();
    let header = res.headers()["x-run-id"].to_str().unwrap().to_owned();
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["meta"]["runId"], header.as_str());

    let res = app
        .http
        .post(app.url("/api/suggestions"))
        .header("accept", "application/x-ndjson")
        .bearer_auth(TOKEN)
        .json(&question())
        .send()
        .await
        .unwrap();
    let header = res.headers()["x-run-id"].to_str().unwrap().to_owned();
    let text = res.text().await.unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["data"]["meta"]["runId"], header.as_str());
    assert_ne!(
        header,
        body["meta"]["runId"].as_str().unwrap(),
        "one id per run"
    );
}

/// The mail of `corpus()` in a panel, by its title.
fn mail_url(body: &Value) -> Option<String> {
    body["m365"]
        .as_array()?
        .iter()
        .find(|i| i["source"] == "email")
        .and_then(|i| i["url"].as_str())
        .map(str::to_owned)
}

#[tokio::test]
async fn mail_hits_keep_their_links_asked_for_or_built_from_their_id_and_unlinkable_ones_are_counted()
 {
    let mail =
        "https://outlook.office365.com/owa/?ItemID=AAMkAD1&exvsurl=1&viewmodel=ReadMessageItem";
    // As Graph documents it: no webLink unless `fields` asks for it; we ask.
    let app = app_with_corpus().await;
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(mail_url(&body).as_deref(), Some(mail), "{body}");
    let asked: Vec<Value> = app
        .graph
        .received()
        .iter()
        .filter(|r| r.body["requests"][0]["entityTypes"] == json!(["message"]))
        .map(|r| r.body["requests"][0]["fields"].clone())
        .collect();
    assert!(
        !asked.is_empty()
            && asked
                .iter()
                .all(|f| f.as_array().unwrap().contains(&json!("webLink"))),
        "{asked:?}"
    );

    // A Graph that leaves webLink out anyway: Outlook on the web's link from the hit's id.
    let app = app_with_corpus().await;
    app.graph.mail_links(MailLinks::Never);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(mail_url(&body).as_deref(), Some(mail), "{body}");

    // Neither link nor id: left out, and counted.
    let app = app_with_corpus().await;
    app.graph.mail_links(MailLinks::Unlinkable);
    let (_, body) = app.suggest(question(), Some(TOKEN)).await;
    assert_eq!(mail_url(&body), None, "{body}");
    assert!(
        !titles(&body).is_empty(),
        "the files are still there: {body}"
    );
    let metrics = app.get_text("/metrics").await;
    let dropped = metrics
        .lines()
        .find(|l| l.starts_with("linkup_graph_hits_dropped_total{reason=\"no_link\"}"))
        .and_then(|l| l.rsplit(' ').next()?.parse::<f64>().ok());
    assert!(dropped.is_some_and(|n| n >= 1.0), "{metrics}");
}

#[tokio::test]
async fn a_korean_posts_fallback_hint_speaks_korean_and_an_english_posts_english() {
    let app = spawn_app().await;
    app.put_post(
        "p-leave",
        post_body("여름휴가 신청은 인사 포털에서 하면 돼요", &[]),
    )
    .await;
    app.put_post(
        "p-vpn",
        post_body("The VPN client needs a reinstall after the update", &[]),
    )
    .await;
    let (status, korean) = app
        .suggest(
            json!({"postId": "q-ko", "text": "여름휴가 신청 어디서 해요?"}),
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(post_ids(&korean), ["p-leave"], "{korean}");
    assert_eq!(
        korean["actionHint"],
        "비슷한 LinkUp 게시글 '여름휴가 신청은 인사 포털에서 하면 돼요'에서 다른 분들이 어떻게 해결했는지 확인해 보세요."
    );
    let (_, english) = app
        .suggest(
            json!({"postId": "q-en", "text": "VPN client broken after the update"}),
            None,
        )
        .await;
    assert_eq!(post_ids(&english), ["p-vpn"], "{english}");
    assert_eq!(
        english["actionHint"],
        "See how others handled it in the similar LinkUp post 'The VPN client needs a reinstall after the update'."
    );
}
