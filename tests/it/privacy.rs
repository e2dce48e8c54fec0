//! Privacy: the caller's Graph token reaches Microsoft Graph and nothing else;
//! logs carry no post text, queries, tokens or keys.

use serde_json::json;

use crate::support::{
    Doc, Options,
    graph::TOKEN,
    logs,
    openai::{API_KEY, ChatStep},
    spawn_app_with,
};

#[tokio::test]
async fn graph_token_and_post_text_never_reach_logs_or_the_llm() {
    let app = spawn_app_with(Options {
        llm: true,
        embeddings: true,
        ..Default::default()
    })
    .await;
    app.graph.add([Doc::file(
        "Zebra pipeline handbook",
        "https://contoso.sharepoint.com/z.docx",
        "zebra deployment pipeline",
    )]);
    app.openai.chat([
        ChatStep::ToolCalls(vec![
            ("search_m365", json!({"query": "zebra pipeline"})),
            ("search_posts", json!({"query": "zebra"})),
        ]),
        ChatStep::Final(json!({"m365": ["m1"], "posts": [], "actionHint": "Read the handbook."})),
    ]);
    let text = "Confidential zebra deployment pipeline question XYZZY-7731";
    let (status, body) = app
        .suggest(json!({"postId": "p-priv", "text": text}), Some(TOKEN))
        .await;
    assert_eq!(status, 200);
    assert!(body["actionHint"].is_string());

    let to_llm = app.openai.received();
    assert!(
        !to_llm.is_empty(),
        "the LLM was used for the hint and embeddings"
    );
    for r in &to_llm {
        let all = format!("{:?} {}", r.headers, r.body);
        assert!(
            !all.contains(TOKEN),
            "Graph token sent to Azure OpenAI: {}",
            r.path
        );
        assert!(!r.headers.iter().any(|(k, _)| k == "authorization"));
    }
    assert!(
        app.graph
            .received()
            .iter()
            .all(|r| r.authorization.as_deref() == Some(&format!("Bearer {TOKEN}") as &str))
    );

    let logs = logs::all();
    assert!(logs.contains("invoke_agent"), "the run was logged");
    for secret in [
        TOKEN,
        API_KEY,
        "XYZZY-7731",
        "zebra",
        "Zebra pipeline handbook",
    ] {
        assert!(!logs.contains(secret), "{secret} appears in the logs");
    }
}
