//! How the panel ranks Microsoft 365 hits (issue 51), as a user sees it:
//! by what each matches of the post, mails and files in one list, the
//! subject or title a post quotes first, hits that share one common word
//! left out; a Korean post's hits judged by the multilingual model (by
//! their words alone under overload); and the Graph query a Korean
//! question makes.

use serde_json::{Value, json};

use crate::{
    multilingual::embedded,
    overload,
    relevance::with_background_posts,
    support::{Doc, TestApp, graph::TOKEN, spawn_app, strings, titles},
};

fn mail(subject: &str, n: u32, body: &str) -> Doc {
    Doc::mail(
        subject,
        &format!(
            "https://outlook.office365.com/owa/?ItemID=AAMkQ{n}&exvsurl=1&viewmodel=ReadMessageItem"
        ),
        body,
    )
}

fn file(title: &str, body: &str) -> Doc {
    let name = title.replace(' ', "%20");
    Doc::file(
        title,
        &format!("https://contoso.sharepoint.com/sites/hr/Shared%20Documents/{name}"),
        body,
    )
}

/// Files that each share one word with the subject below, and the mail.
fn mailbox_and_drive() -> Vec<Doc> {
    vec![
        file(
            "Travel Policy Checklist.docx",
            "Checklist before booking business travel",
        ),
        file(
            "Budget Policy 2023.pdf",
            "Budget owners and approval limits",
        ),
        file(
            "Guest Wi-Fi policy.docx",
            "Guests connect to the guest network",
        ),
        file(
            "Office update bulletin.pdf",
            "What changed on the fifth floor",
        ),
        mail(
            "Updated leave policy guidance",
            1,
            "HR has updated the guidance on annual leave carry-over.",
        ),
        mail("Lunch on Friday", 2, "Team lunch at noon"),
        file("일정 관리 가이드.docx", "팀 일정 관리 방법"),
        file("팀 일정표.xlsx", "이번 달 팀 일정"),
        file("문의 처리 절차.pdf", "고객 문의 처리 방법"),
        mail(
            "여름휴가 일정 문의",
            3,
            "여름휴가 일정을 언제까지 정해야 하나요?",
        ),
    ]
}

/// The panel of a post of `text`, as its response's body.
async fn view(app: &TestApp, id: &str, text: &str) -> Value {
    let (status, body) = app
        .suggest(json!({"postId": id, "text": text}), Some(TOKEN))
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

async fn panel(app: &TestApp, id: &str, text: &str) -> Vec<String> {
    titles(&view(app, id, text).await)
}

#[tokio::test]
async fn the_mail_whose_subject_a_post_quotes_comes_first_and_one_word_matches_are_left_out() {
    let app = spawn_app().await;
    app.graph.add(mailbox_and_drive());
    let shown = panel(&app, "q-en", "RE: Updated leave policy guidance").await;
    assert_eq!(
        shown.first().map(String::as_str),
        Some("Updated leave policy guidance"),
        "{shown:?}"
    );
    for one_word in ["Travel Policy Checklist.docx", "Budget Policy 2023.pdf"] {
        assert!(
            !shown.iter().any(|t| t == one_word),
            "{one_word}: {shown:?}"
        );
    }
    let shown = panel(&app, "q-ko", "여름휴가 일정 문의").await;
    assert_eq!(
        shown,
        ["여름휴가 일정 문의"],
        "files matching one word of three: none"
    );
}

#[tokio::test]
async fn on_a_board_with_posts_the_quoted_subject_still_comes_first() {
    let app = spawn_app().await;
    with_background_posts(&app).await;
    app.graph.add(mailbox_and_drive());
    for (id, text, subject) in [
        (
            "q-en",
            "Question about the updated leave policy guidance",
            "Updated leave policy guidance",
        ),
        ("q-ko", "회신: 여름휴가 일정 문의", "여름휴가 일정 문의"),
    ] {
        let shown = panel(&app, id, text).await;
        assert_eq!(
            shown.first().map(String::as_str),
            Some(subject),
            "{text}: {shown:?}"
        );
    }
}

#[tokio::test]
async fn a_korean_questions_graph_query_is_its_nouns_and_latin_terms() {
    let app = spawn_app().await;
    for (text, want) in [
        (
            "노트북이 너무 느려서 교체 신청하고 싶은데 어디서 하나요?",
            "노트북 OR 교체 OR 신청",
        ),
        (
            "PR 올렸는데 리뷰어 승인 받아야 머지되나요?",
            "pr OR 리뷰어 OR 승인 OR 머지",
        ),
        ("여름휴가 일정 문의", "여름휴가 OR 일정 OR 문의"),
    ] {
        let before = app.graph.queries().len();
        panel(&app, &format!("q-{before}"), text).await;
        let queries = app.graph.queries()[before..].to_vec();
        assert_eq!(queries, [want, want], "{text}: files and mail");
    }
}

#[tokio::test]
async fn a_misspelt_word_is_searched_as_the_boards_posts_spell_it() {
    let app = spawn_app().await;
    with_background_posts(&app).await;
    app.graph.add(vec![
        file(
            "Account password rules.pdf",
            "How often an account password must change",
        ),
        mail("Lunch on Friday", 2, "Team lunch at noon"),
    ]);
    let before = app.graph.queries().len();
    let shown = panel(&app, "q-typo", "pasword expiry on my acount?").await;
    let queries = app.graph.queries()[before..].to_vec();
    assert_eq!(
        queries, ["password OR expiry OR account"; 2],
        "the board's posts spell `password` and `account`"
    );
    assert_eq!(shown, ["Account password rules.pdf"]);
    // `spending` and `Korea` are one edit from `sending` and `korean`, which
    // the posts hold and they do not: words of the language all the same.
    let before = app.graph.queries().len();
    panel(&app, "q-words", "Korea spending limits").await;
    let queries = app.graph.queries()[before..].to_vec();
    assert_eq!(queries, ["korea OR spending OR limits"; 2]);
}

#[tokio::test]
async fn a_korean_posts_hits_are_judged_by_the_multilingual_model() {
    let app = spawn_app().await;
    with_background_posts(&app).await;
    app.wait_until_embedded(200).await;
    app.graph.add(vec![
        mail(
            "여름휴가 신청 안내",
            4,
            "여름휴가는 HR 포털에서 2주 전까지 신청하세요.",
        ),
        file("문의 처리 절차.pdf", "고객 문의 처리 방법"),
        file("팀 일정표.xlsx", "이번 달 팀 일정"),
        file("일정 관리 가이드.docx", "팀 일정 관리 방법"),
    ]);
    let text = "여름휴가 일정 신청은 어디서 문의하나요?";
    let shown = panel(&app, "q-vacation", text).await;
    // The word model reads no Hangul: by it, files sharing one common word
    // were as related as the mail.
    assert_eq!(shown, ["여름휴가 신청 안내"]);
    assert_eq!(embedded(&app, "hit").await, 4, "each hit embedded once");
    let shown = panel(&app, "q-vacation-2", text).await;
    assert_eq!(shown, ["여름휴가 신청 안내"]);
    assert_eq!(embedded(&app, "hit").await, 4, "and remembered");
}

#[tokio::test]
async fn under_overload_a_korean_posts_hits_are_judged_without_embedding_them() {
    let app = overload::app_with(4, Vec::new()).await;
    with_background_posts(&app).await;
    app.wait_until_embedded(200).await;
    app.graph.add(vec![mail(
        "여름휴가 신청 안내",
        4,
        "여름휴가는 HR 포털에서 2주 전까지 신청하세요.",
    )]);
    let held = overload::hold(&app, 3).await;
    let body = view(&app, "q-busy", "여름휴가 일정 신청은 어디서 문의하나요?").await;
    assert!(strings(&body["meta"]["degraded"]).contains(&"overloaded".to_owned()));
    assert_eq!(titles(&body), ["여름휴가 신청 안내"], "judged by its words");
    assert_eq!(embedded(&app, "hit").await, 0, "no CPU on new texts");
    drop(held);
}
