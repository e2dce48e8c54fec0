//! Interoperability of `/mcp` with an independent MCP implementation: the
//! official MCP Python SDK (pinned in tests/interop/requirements.txt,
//! installed into target/interop-venv by tests/interop/setup.sh) drives the
//! real binary — initialize, tools/list, search_posts, get_suggestions.

use std::{
    path::Path,
    process::{Command, Stdio},
};

use serde_json::{Value, json};

use crate::support::{FakeGraph, binary::Binary, graph::TOKEN, post_body};

/// The venv's python, with the SDK installed (from PyPI the first time).
fn interop_python() -> String {
    let out = Command::new("bash")
        .arg(Path::new("tests/interop/setup.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("bash runs tests/interop/setup.sh");
    assert!(
        out.status.success(),
        "tests/interop/setup.sh failed: the MCP Python SDK could not be installed"
    );
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    stdout.lines().last().expect("the venv's python").to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_official_python_sdk_lists_the_tools_and_calls_them_on_the_real_binary() {
    let python = tokio::task::spawn_blocking(interop_python).await.unwrap();
    let graph = FakeGraph::start().await;
    graph.add(crate::support::graph::engineering_corpus());
    let dir = tempfile::tempdir().unwrap();
    let api_key = "interop-key-1";
    let binary = Binary::start([
        ("LINKUP__AZURE_OPENAI__CHAT_DEPLOYMENT", String::new()),
        ("LINKUP__AZURE_OPENAI__EMBEDDING_DEPLOYMENT", String::new()),
        ("LINKUP__MSGRAPH__BASE_URL", graph.url()),
        (
            "LINKUP__POSTS__DB_PATH",
            dir.path().join("posts.db").display().to_string(),
        ),
        ("LINKUP__SERVER__API_KEYS", api_key.to_owned()),
    ]);
    let addr = binary.addr.clone();
    let http = linkup_suggestions::upstream::http_client().unwrap();
    let put = http
        .put(format!("http://{addr}/api/posts/p-77"))
        .header("x-api-key", api_key)
        .json(&post_body(
            "Our deployment pipeline uses GitHub Actions",
            &["devops"],
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 201);

    let url = format!("http://{addr}/mcp");
    let client = Command::new(&python)
        .arg("tests/interop/mcp_client.py")
        .arg(&url)
        .env("LINKUP_API_KEY", api_key)
        .env("GRAPH_TOKEN", TOKEN)
        .stderr(Stdio::inherit())
        .output();
    // The fake Graph runs on this runtime: wait for the client off it.
    let out = tokio::task::spawn_blocking(move || client.expect("the interop client runs"))
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "the Python MCP client failed (its stderr is above)"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let summary: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(summary["ok"], true);
    assert_eq!(summary["server"], "linkup-suggestions");
    assert_eq!(
        summary["tools"],
        json!([
            "generate_action_hint",
            "get_suggestions",
            "search_m365",
            "search_posts"
        ])
    );
    assert_eq!(summary["searchPosts"]["ids"], json!(["p-77"]));
    assert_eq!(summary["getSuggestions"]["posts"], json!(["p-77"]));
    assert_eq!(summary["getSuggestions"]["unavailableSources"], json!([]));
    assert_eq!(summary["getSuggestions"]["path"], "fallback");
    // The SDK's requests carried the caller's token, and Graph got it.
    assert!(
        graph
            .received()
            .iter()
            .all(|r| r.authorization.as_deref() == Some(&format!("Bearer {TOKEN}") as &str))
    );
    assert!(!graph.received().is_empty());
}
