//! What the board already knows, in the panel: the documents colleagues
//! shared on the post's similar posts, beside Graph's hits — without a
//! Graph token too, never a mail the caller's search did not return, never
//! a tangential share, and never one of a post that expired.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{
    board::{call, share_body},
    support::{Options, TestApp, graph::Doc, graph::TOKEN, post_body, spawn_app, spawn_app_with},
};

const GUIDE_URL: &str = "https://contoso.sharepoint.com/sites/it/GlobalProtect-Setup.docx";

/// A board with a post about the VPN dropping, its guide shared on it.
async fn board_with_a_shared_guide(app: &TestApp) {
    let host = "My VPN keeps dropping every few minutes when I work from home";
    assert_eq!(app.put_post("p-vpn", post_body(host, &["vpn"])).await, 201);
    app.put_post(
        "p-lunch",
        post_body("Where is the cafeteria lunch menu posted?", &[]),
    )
    .await;
    app.put_post(
        "p-parking",
        post_body("Who issues the garage parking permits?", &[]),
    )
    .await;
    let share = "/api/posts/p-vpn/shared-documents/d-guide";
    let body = share_body("GlobalProtect VPN Setup Guide.docx", GUIDE_URL);
    assert_eq!(call(app, "PUT", share, Some(body)).await.0, 201);
}

fn question(text: &str) -> Value {
    json!({"postId": "p-new", "text": text, "tags": ["vpn"]})
}

fn m365(body: &Value) -> Vec<Value> {
    body["m365"].as_array().cloned().unwrap_or_default()
}

/// Shares each (id, title, url) on `post_id`, each newly (201).
async fn share_all(app: &TestApp, post_id: &str, shares: &[(&str, &str, &str)]) {
    for (id, title, url) in shares {
        let path = format!("/api/posts/{post_id}/shared-documents/{id}");
        let (status, _) = call(app, "PUT", &path, Some(share_body(title, url))).await;
        assert_eq!(status, 201, "{path}");
    }
}

/// The panel of a new question about the VPN dropping (no Graph token):
/// its documents' titles, and the whole answer.
async fn vpn_panel_titles(app: &TestApp) -> (Vec<Value>, Value) {
    let ask = question("VPN disconnects all the time from home, any fix?");
    let (_, body) = app.suggest(ask, None).await;
    let titles = m365(&body).iter().map(|i| i["title"].clone()).collect();
    (titles, body)
}

#[tokio::test]
async fn a_document_shared_on_a_similar_post_is_suggested_without_a_graph_token_or_request() {
    let app = spawn_app().await;
    board_with_a_shared_guide(&app).await;
    let (status, body) = app
        .suggest(
            question("VPN disconnects all the time from home, any fix?"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let items = m365(&body);
    assert_eq!(items.len(), 1, "{body}");
    assert_eq!(items[0]["url"], GUIDE_URL);
    assert_eq!(items[0]["title"], "GlobalProtect VPN Setup Guide.docx");
    assert_eq!(items[0]["source"], "sharepoint");
    let description = items[0]["description"].as_str().unwrap();
    assert!(
        description.starts_with("Shared by Bob on a similar post: 'My VPN keeps dropping"),
        "{description}"
    );
    assert!(app.graph.queries().is_empty(), "no Graph request");
}

#[tokio::test]
async fn a_graph_hit_that_was_also_shared_is_one_item_first_and_no_request_is_added() {
    let app = spawn_app().await;
    board_with_a_shared_guide(&app).await;
    app.graph.add([
        Doc::file(
            "GlobalProtect VPN Setup Guide.docx",
            GUIDE_URL,
            "Install and sign in to the VPN",
        ),
        Doc::file(
            "VPN troubleshooting FAQ.docx",
            "https://contoso.sharepoint.com/faq.docx",
            "When the VPN drops",
        ),
    ]);
    let ask = question("VPN disconnects all the time from home, any fix?");
    let (_, body) = app.suggest(ask.clone(), Some(TOKEN)).await;
    let items = m365(&body);
    let urls: Vec<&str> = items.iter().map(|i| i["url"].as_str().unwrap()).collect();
    assert_eq!(
        urls.iter().filter(|u| **u == GUIDE_URL).count(),
        1,
        "{body}"
    );
    assert_eq!(urls[0], GUIDE_URL, "the shared document first: {body}");
    assert!(
        m365(&body)[0]["description"]
            .as_str()
            .unwrap()
            .starts_with("Shared by Bob")
    );
    // The same view on a board without the share asks Graph as often.
    let plain = spawn_app().await;
    plain
        .put_post(
            "p-vpn",
            post_body(
                "My VPN keeps dropping every few minutes when I work from home",
                &["vpn"],
            ),
        )
        .await;
    plain.graph.add([Doc::file(
        "VPN troubleshooting FAQ.docx",
        "https://contoso.sharepoint.com/faq.docx",
        "x",
    )]);
    plain.suggest(ask, Some(TOKEN)).await;
    assert_eq!(app.graph.queries().len(), plain.graph.queries().len());
}

#[tokio::test]
async fn a_shared_mail_is_suggested_only_to_a_caller_whose_search_returned_it() {
    let app = spawn_app().await;
    board_with_a_shared_guide(&app).await;
    let mail_url = "https://outlook.office365.com/owa/?ItemID=AAMk-vpn-fix";
    let mut mail = share_body("RE: VPN keeps dropping - fix inside", mail_url);
    mail["sourceType"] = json!("email");
    let path = "/api/posts/p-vpn/shared-documents/d-mail";
    assert_eq!(call(&app, "PUT", path, Some(mail)).await.0, 201);
    let ask = question("VPN disconnects all the time from home, any fix?");
    let (_, body) = app.suggest(ask.clone(), None).await;
    let urls: Vec<Value> = m365(&body).iter().map(|i| i["url"].clone()).collect();
    assert!(
        !urls.contains(&json!(mail_url)),
        "not the caller's mail: {body}"
    );
    assert!(urls.contains(&json!(GUIDE_URL)), "{body}");
    app.graph.add([Doc::mail(
        "RE: VPN keeps dropping - fix inside",
        mail_url,
        "Reinstall the VPN client",
    )]);
    let (_, body) = app.suggest(ask, Some(TOKEN)).await;
    let urls: Vec<Value> = m365(&body).iter().map(|i| i["url"].clone()).collect();
    assert!(
        urls.contains(&json!(mail_url)),
        "their own search found it: {body}"
    );
}

#[tokio::test]
async fn a_tangential_share_on_a_similar_post_is_not_suggested() {
    let app = spawn_app().await;
    board_with_a_shared_guide(&app).await;
    let path = "/api/posts/p-vpn/shared-documents/d-menu";
    let menu = share_body(
        "December cafeteria menu.pdf",
        "https://contoso.sharepoint.com/menu.pdf",
    );
    assert_eq!(call(&app, "PUT", path, Some(menu)).await.0, 201);
    let (titles, body) = vpn_panel_titles(&app).await;
    assert_eq!(
        titles,
        [json!("GlobalProtect VPN Setup Guide.docx")],
        "{body}"
    );
}

#[tokio::test]
async fn a_share_that_fits_only_its_own_posts_other_question_is_not_suggested() {
    let app = spawn_app().await;
    let host = "My VPN keeps dropping every few minutes, and the office printer queue is stuck too";
    assert_eq!(app.put_post("p-both", post_body(host, &["vpn"])).await, 201);
    for (id, text) in [
        ("p-lunch", "Where is the cafeteria lunch menu posted?"),
        ("p-parking", "Who issues the garage parking permits?"),
    ] {
        app.put_post(id, post_body(text, &[])).await;
    }
    share_all(
        &app,
        "p-both",
        &[
            ("d-guide", "GlobalProtect VPN Setup Guide.docx", GUIDE_URL),
            (
                "d-printer",
                "Printer queue stuck: clearing the print spooler.docx",
                "https://contoso.sharepoint.com/sites/it/Print-Spooler.docx",
            ),
        ],
    )
    .await;
    let (titles, body) = vpn_panel_titles(&app).await;
    assert_eq!(
        titles,
        [json!("GlobalProtect VPN Setup Guide.docx")],
        "the printer guide fits the similar post, not this one: {body}"
    );
}

#[tokio::test]
async fn a_korean_question_gets_a_colleagues_english_document_described_in_korean() {
    let app = spawn_app().await;
    board_with_a_shared_guide(&app).await;
    let (_, body) = app
        .suggest(
            question("재택근무 중에 VPN 연결이 계속 끊겨요. 해결 방법 있나요?"),
            None,
        )
        .await;
    let items = m365(&body);
    assert_eq!(
        items.first().map(|i| i["url"].clone()),
        Some(json!(GUIDE_URL)),
        "{body}"
    );
    let description = items[0]["description"].as_str().unwrap();
    assert!(
        description.starts_with("Bob님이 비슷한 게시글에 공유한 문서"),
        "{description}"
    );
}

#[tokio::test]
async fn the_shares_of_an_expired_post_leave_every_panel() {
    let app = spawn_app_with(Options::default()).await;
    let soon = time::OffsetDateTime::now_utc() + Duration::from_secs(2);
    let soon = soon
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let mut host = post_body(
        "My VPN keeps dropping every few minutes when I work from home",
        &["vpn"],
    );
    host["expiresAt"] = json!(soon);
    app.put_post("p-vpn", host).await;
    let share = "/api/posts/p-vpn/shared-documents/d-guide";
    let guide = share_body("GlobalProtect VPN Setup Guide.docx", GUIDE_URL);
    assert_eq!(call(&app, "PUT", share, Some(guide)).await.0, 201);
    let ask = question("VPN disconnects all the time from home, any fix?");
    let (_, body) = app.suggest(ask.clone(), None).await;
    assert_eq!(m365(&body).len(), 1, "shown while the post lives: {body}");
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let mut again = ask;
    again["postId"] = json!("p-other");
    let (_, body) = app.suggest(again, None).await;
    assert!(m365(&body).is_empty(), "{body}");
}

/// `linkup_panel_shares_total` at `source` and `position` (0 before any).
async fn panel_shares(app: &TestApp, source: &str, position: u32) -> f64 {
    let series =
        format!("linkup_panel_shares_total{{source=\"{source}\",position=\"{position}\"}} ");
    app.get_text("/metrics")
        .await
        .lines()
        .find_map(|l| l.strip_prefix(&series)?.parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test]
async fn a_document_the_panel_suggested_and_then_shared_on_the_post_counts_at_its_position() {
    let app = spawn_app().await;
    let faq = "https://contoso.sharepoint.com/faq.docx";
    app.graph.add([
        Doc::file(
            "VPN client install guide.docx",
            "https://contoso.sharepoint.com/install.docx",
            "Install the VPN client",
        ),
        Doc::file(
            "VPN drops troubleshooting FAQ.docx",
            faq,
            "When the VPN drops at home",
        ),
    ]);
    let text = "VPN drops at home: the client disconnects";
    app.put_post("p-new", post_body(text, &["vpn"])).await;
    let (_, body) = app
        .suggest(
            json!({"postId": "p-new", "text": text, "tags": ["vpn"]}),
            Some(TOKEN),
        )
        .await;
    let urls: Vec<Value> = m365(&body).iter().map(|i| i["url"].clone()).collect();
    let position = urls
        .iter()
        .position(|u| *u == json!(faq))
        .expect("the FAQ suggested") as u32
        + 1;
    let path = "/api/posts/p-new/shared-documents/d-1";
    let share = share_body("VPN drops troubleshooting FAQ.docx", faq);
    assert_eq!(call(&app, "PUT", path, Some(share.clone())).await.0, 201);
    assert_eq!(panel_shares(&app, "sharepoint", position).await, 1.0);
    // Replacing it is not another share; a URL never suggested counts nothing.
    assert_eq!(call(&app, "PUT", path, Some(share)).await.0, 200);
    let other = share_body(
        "Something else.docx",
        "https://contoso.sharepoint.com/else.docx",
    );
    let path = "/api/posts/p-new/shared-documents/d-2";
    assert_eq!(call(&app, "PUT", path, Some(other)).await.0, 201);
    let total: f64 = app
        .get_text("/metrics")
        .await
        .lines()
        .filter(|l| l.starts_with("linkup_panel_shares_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(total, 1.0);
}

#[tokio::test]
async fn the_template_hint_cites_a_colleagues_share_in_the_posts_language() {
    let app = spawn_app().await;
    board_with_a_shared_guide(&app).await;
    let (_, body) = app
        .suggest(
            question("VPN disconnects all the time from home, any fix?"),
            None,
        )
        .await;
    assert_eq!(
        body["actionHint"],
        "Bob shared 'GlobalProtect VPN Setup Guide.docx' on a similar post — start there."
    );
    let (_, body) = app
        .suggest(
            question("재택근무 중에 VPN 연결이 계속 끊겨요. 해결 방법 있나요?"),
            None,
        )
        .await;
    assert_eq!(
        body["actionHint"],
        "Bob님이 비슷한 게시글에 'GlobalProtect VPN Setup Guide.docx'을(를) 공유했어요. 여기서 시작해 보세요."
    );
}

#[tokio::test]
async fn an_answered_similar_post_comes_first_and_its_reply_is_the_hint() {
    let app = spawn_app().await;
    let posts = [
        ("p-a", "VPN keeps dropping when I work from home"),
        ("p-b", "VPN connection drops at home every hour"),
    ];
    for (id, text) in posts {
        app.put_post(id, post_body(text, &["vpn"])).await;
    }
    app.put_post(
        "p-lunch",
        post_body("Where is the cafeteria lunch menu posted?", &[]),
    )
    .await;
    let ask = question("VPN drops at home, what can I do?");
    let (_, before) = app.suggest(ask.clone(), None).await;
    let order = crate::support::post_ids(&before);
    assert_eq!(order.len(), 2, "both similar posts shown: {before}");
    // A reply to the one shown second puts it first.
    let second = order[1].clone();
    let reply = crate::board::reply_body("Reinstall the GlobalProtect client, it fixed it for me");
    let path = format!("/api/posts/{second}/replies/r-1");
    assert_eq!(call(&app, "PUT", &path, Some(reply)).await.0, 201);
    let (_, after) = app.suggest(ask, None).await;
    assert_eq!(
        crate::support::post_ids(&after),
        [second.clone(), order[0].clone()]
    );
    assert_eq!(
        after["actionHint"],
        "Ann answered a similar post: 'Reinstall the GlobalProtect client, it fixed it for me'"
    );
}

/// A share that answers the VPN question ...
const ON_TOPIC: &str = "GlobalProtect VPN disconnects at home: the fix.docx";
/// ... and, beside it on the same post, one that does not.
const FIX_AND_BUDGET: [(&str, &str, &str); 2] = [
    (
        "d-fix",
        ON_TOPIC,
        "https://contoso.sharepoint.com/vpn-fix.docx",
    ),
    (
        "d-budget",
        "Quarterly budget template.xlsx",
        "https://contoso.sharepoint.com/budget.xlsx",
    ),
];

#[tokio::test]
async fn a_share_on_a_post_the_floors_do_not_relate_is_shown_only_when_it_answers_the_question_itself()
 {
    let app = spawn_app().await;
    app.put_post(
        "p-lunch",
        post_body("Where is the cafeteria lunch menu posted?", &[]),
    )
    .await;
    share_all(&app, "p-lunch", &FIX_AND_BUDGET).await;
    let (titles, body) = vpn_panel_titles(&app).await;
    assert!(
        crate::support::post_ids(&body).is_empty(),
        "the lunch post is not related: {body}"
    );
    assert_eq!(titles, [json!(ON_TOPIC)], "{body}");
}

/// A board where six posts are nearer the VPN question than `p-host`, none
/// with a share (the posts search's five are all of them), and `p-host`
/// carries [`FIX_AND_BUDGET`]; `p-host` expires at `expires_at` if given.
async fn board_with_shares_past_the_searchs_five(app: &TestApp, expires_at: Option<String>) {
    for (i, text) in [
        "VPN disconnects every few minutes when I work from home",
        "My VPN connection drops all the time at home, how do I fix it?",
        "GlobalProtect keeps disconnecting from home wifi",
        "VPN drops out constantly while working remotely",
        "Home VPN connection is unstable and keeps cutting out",
        "Why does the VPN disconnect so often from home?",
    ]
    .iter()
    .enumerate()
    {
        let id = format!("p-vpn-{i}");
        assert_eq!(app.put_post(&id, post_body(text, &["vpn"])).await, 201);
    }
    let mut host = post_body(
        "Working from home this week: the laptop loses the company network now and then",
        &[],
    );
    if let Some(at) = expires_at {
        host["expiresAt"] = json!(at);
    }
    assert_eq!(app.put_post("p-host", host).await, 201);
    for (id, text) in [
        ("p-lunch", "Where is the cafeteria lunch menu posted?"),
        ("p-parking", "Who issues the garage parking permits?"),
    ] {
        app.put_post(id, post_body(text, &[])).await;
    }
    share_all(app, "p-host", &FIX_AND_BUDGET).await;
}

#[tokio::test]
async fn a_share_on_a_post_past_the_searchs_five_is_shown_when_its_post_and_title_answer_together()
{
    let app = spawn_app().await;
    board_with_shares_past_the_searchs_five(&app, None).await;
    let (titles, body) = vpn_panel_titles(&app).await;
    assert!(
        !crate::support::post_ids(&body).contains(&"p-host".to_owned()),
        "the host is past the posts shown: {body}"
    );
    assert_eq!(
        titles,
        [json!(ON_TOPIC)],
        "its post and title speak of the question together; the budget's title does not: {body}"
    );
}

#[tokio::test]
async fn a_share_on_a_post_past_the_searchs_five_leaves_the_same_view_when_its_post_expires() {
    let app = spawn_app().await;
    let soon = time::OffsetDateTime::now_utc() + Duration::from_secs(2);
    let soon = soon
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    board_with_shares_past_the_searchs_five(&app, Some(soon)).await;
    let (titles, body) = vpn_panel_titles(&app).await;
    assert_eq!(titles, [json!(ON_TOPIC)], "while the post lives: {body}");
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    // The same view (the panel cache is off): the same query vector,
    // exclusion and count, so the search's remembered scan is read again.
    let (titles, body) = vpn_panel_titles(&app).await;
    assert!(titles.is_empty(), "{body}");
}

#[tokio::test]
async fn the_shares_of_a_deleted_post_leave_every_panel() {
    let app = spawn_app().await;
    board_with_a_shared_guide(&app).await;
    let ask = question("VPN disconnects all the time from home, any fix?");
    assert_eq!(m365(&app.suggest(ask.clone(), None).await.1).len(), 1);
    assert_eq!(call(&app, "DELETE", "/api/posts/p-vpn", None).await.0, 204);
    let (_, body) = app.suggest(ask, None).await;
    assert!(m365(&body).is_empty(), "{body}");
}
