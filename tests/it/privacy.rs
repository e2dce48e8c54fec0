//! Privacy: the caller's Graph token reaches Microsoft Graph and nothing else;
//! logs carry no post text, queries, tokens or keys.

use serde_json::json;

use crate::mcp_http::{Connect, call, connect};
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
    let run_id = body["meta"]["runId"].as_str().unwrap();
    assert!(
        logs.contains(&format!("\"run_id\":\"{run_id}\"")),
        "the run was logged"
    );
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

/// Requests on every path (agent, fallback, NDJSON stream), logged at
/// `trace` (the test harness uses the service's own log layer at `trace`).
#[tokio::test]
async fn nothing_a_user_sent_or_was_shown_is_logged_at_trace_on_any_path() {
    let api_key = "api-key-SECRET-61be";
    let app = spawn_app_with(Options {
        llm: true,
        embeddings: true,
        env: vec![("LINKUP__SERVER__API_KEYS", api_key.into())],
    })
    .await;
    app.graph.add([Doc::file(
        "Okapi release checklist",
        "https://contoso.sharepoint.com/okapi.docx",
        "okapi release steps",
    )]);
    let put = app
        .http
        .put(app.url("/api/posts/p-quokka"))
        .header("x-api-key", api_key)
        .json(&crate::support::post_body(
            "QUOKKA-992 okapi release tips",
            &[],
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 201);
    let ask = |text: &'static str, ndjson: bool| {
        let mut req = app
            .http
            .post(app.url("/api/suggestions"))
            .header("x-api-key", api_key)
            .bearer_auth(TOKEN)
            .json(&json!({"postId": "p-ask", "text": text}));
        if ndjson {
            req = req.header("accept", "application/x-ndjson");
        }
        async move { req.send().await.unwrap().text().await.unwrap() }
    };
    // Agent path.
    app.openai.chat([
        ChatStep::ToolCalls(vec![
            ("search_m365", json!({"query": "okapi release"})),
            ("search_posts", json!({"query": "okapi"})),
        ]),
        ChatStep::Final(json!({"m365": ["m1"], "posts": ["p1"], "actionHint": "Use it."})),
    ]);
    let agent = ask("Okapi release question WOMBAT-5120", false).await;
    assert!(
        agent.contains("Okapi release checklist") && agent.contains("QUOKKA-992"),
        "{agent}"
    );
    // Fallback path (the LLM fails), streamed.
    app.openai.chat([ChatStep::Status(500)]);
    let streamed = ask("Okapi release question NUMBAT-3381", true).await;
    assert!(streamed.contains("\"type\":\"fallback\""), "{streamed}");
    assert!(streamed.contains("Okapi release checklist"), "{streamed}");
    // `/mcp`, whose Graph token comes with every HTTP request.
    let mcp = Connect {
        token: Some(TOKEN),
        api_key: Some(api_key),
    };
    let client = connect(&app, mcp).await.unwrap();
    let found = call(&client, "search_m365", json!({"query": "okapi release"})).await;
    assert!(format!("{found:?}").contains("Okapi release checklist"));
    app.openai.chat([ChatStep::Status(500)]);
    let panel = call(
        &client,
        "get_suggestions",
        json!({"postId": "p-ask", "text": "Okapi release question DINGO-4410"}),
    )
    .await;
    assert!(format!("{panel:?}").contains("QUOKKA-992"));
    client.cancel().await.unwrap();

    let logs = logs::all();
    assert!(logs.contains("\"level\":\"TRACE\"") || logs.contains("\"level\":\"DEBUG\""));
    // rmcp's own lines (peer info at start-up, every request and result) are
    // clamped to errors: nothing of it is logged below `error` at `trace`.
    // (Errors of the test's own rejected MCP clients share this capture.)
    let rmcp_below_error: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("\"target\":\"rmcp") && !l.contains("\"level\":\"ERROR\""))
        .collect();
    assert!(
        rmcp_below_error.is_empty(),
        "rmcp logged: {rmcp_below_error:?}"
    );
    for secret in [
        TOKEN,
        API_KEY,
        api_key,
        "WOMBAT-5120",
        "NUMBAT-3381",
        "DINGO-4410",
        "QUOKKA-992",
        "okapi",
        "Okapi release checklist",
        "okapi.docx",
    ] {
        assert!(!logs.contains(secret), "{secret} appears in the logs");
    }
}

/// Streams a fallback request for `text` (no LLM configured); returns the
/// tool events and the run id.
async fn streamed_tool_events(
    app: &crate::support::TestApp,
    text: &str,
) -> (Vec<serde_json::Value>, String) {
    let res = app
        .http
        .post(app.url("/api/suggestions"))
        .header("accept", "application/x-ndjson")
        .bearer_auth(TOKEN)
        .json(&json!({"postId": "p-dev", "text": text}))
        .send()
        .await
        .unwrap();
    let run_id = res.headers()["x-run-id"].to_str().unwrap().to_owned();
    let body = res.text().await.unwrap();
    let events = body
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "tool")
        .collect();
    (events, run_id)
}

/// The run's record once written.
async fn recorded_tool_calls(
    app: &crate::support::TestApp,
    run_id: &str,
) -> Vec<serde_json::Value> {
    for _ in 0..100 {
        let res = app
            .http
            .get(app.url(&format!("/api/runs/{run_id}")))
            .send()
            .await
            .unwrap();
        if res.status() == 200 {
            let record: serde_json::Value = res.json().await.unwrap();
            return record["toolCalls"].as_array().cloned().unwrap_or_default();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("run {run_id} was never recorded");
}

#[tokio::test]
async fn with_log_payloads_a_developer_sees_the_queries_results_and_floors_and_without_them_nobody_does()
 {
    for payloads in [true, false] {
        let app = spawn_app_with(Options {
            env: vec![("LINKUP__LOG__PAYLOADS", payloads.to_string())],
            ..Default::default()
        })
        .await;
        app.graph.add([Doc::file(
            "Pangolin migration runbook",
            "https://contoso.sharepoint.com/pangolin.docx",
            "pangolin migration steps",
        )]);
        app.put_post(
            "p-pangolin",
            crate::support::post_body("pangolin migration tips", &[]),
        )
        .await;
        let text = if payloads {
            "pangolin migration question TAPIR-1207"
        } else {
            "pangolin migration question SERVAL-5530"
        };
        let (events, run_id) = streamed_tool_events(&app, text).await;
        let m365 = events
            .iter()
            .filter(|e| e["tool"] == "search_m365")
            .max_by_key(|e| e["count"].as_u64())
            .expect("an M365 search");
        let posts = events
            .iter()
            .find(|e| e["tool"] == "search_posts")
            .expect("a posts search");
        let recorded = recorded_tool_calls(&app, &run_id).await;
        let logs = logs::all();
        if payloads {
            assert!(
                m365["arguments"]["query"]
                    .as_str()
                    .unwrap()
                    .contains("pangolin"),
                "{m365}"
            );
            assert_eq!(
                m365["results"],
                json!(["Pangolin migration runbook"]),
                "{m365}"
            );
            assert!(
                posts["arguments"]["query"]
                    .as_str()
                    .unwrap()
                    .contains("TAPIR-1207")
            );
            assert_eq!(posts["results"], json!(["p-pangolin"]), "{posts}");
            assert!(
                recorded.iter().any(|c| c["arguments"]["query"].is_string()),
                "{recorded:?}"
            );
            assert!(
                logs.contains("TAPIR-1207"),
                "the query is in the debug logs"
            );
            assert!(
                logs.lines()
                    .any(|l| l.contains("post candidate") && l.contains("p-pangolin")),
                "the floors' decisions are in the debug logs"
            );
        } else {
            for event in [m365, posts] {
                assert!(
                    event.get("arguments").is_none() && event.get("results").is_none(),
                    "{event}"
                );
            }
            assert!(
                recorded.iter().all(|c| c.get("arguments").is_none()),
                "{recorded:?}"
            );
            assert!(!logs.contains("SERVAL-5530"), "the query is not logged");
        }
    }
}

#[tokio::test]
async fn reply_text_and_shared_titles_never_reach_the_logs_at_any_level() {
    let app = spawn_app_with(Options {
        llm: true,
        ..Options::default()
    })
    .await;
    let post = crate::support::post_body("VPN keeps dropping when I work from home", &["vpn"]);
    assert_eq!(app.put_post("p-vpn", post).await, 201);
    let reply = crate::board::reply_body("Reinstall the client ECHIDNA-7731");
    let path = "/api/posts/p-vpn/replies/r-1";
    assert_eq!(
        crate::board::call(&app, "PUT", path, Some(reply)).await.0,
        201
    );
    let share = crate::board::share_body("VPN fix guide PLATYPUS-2290", "https://x/vpn-fix");
    let path = "/api/posts/p-vpn/shared-documents/d-1";
    assert_eq!(
        crate::board::call(&app, "PUT", path, Some(share)).await.0,
        201
    );
    let ask = json!({"postId": "p-ask", "text": "VPN disconnects from home, any fix?"});
    // Agent path: the model reads the reply and the share.
    app.openai.chat([ChatStep::SelectAll]);
    let (_, agent) = app.suggest(ask.clone(), Some(TOKEN)).await;
    let request = &app.openai.chat_requests()[0].body;
    assert!(
        request.to_string().contains("ECHIDNA-7731"),
        "the model read the reply"
    );
    assert!(agent.to_string().contains("PLATYPUS-2290"), "{agent}");
    // Fallback path: the hint may quote the reply.
    app.openai.chat([ChatStep::Status(500)]);
    let (_, fallback) = app.suggest(ask, Some(TOKEN)).await;
    assert!(fallback.to_string().contains("PLATYPUS-2290"), "{fallback}");
    let logs = logs::all();
    assert!(logs.contains("\"level\":\"TRACE\"") || logs.contains("\"level\":\"DEBUG\""));
    for secret in ["ECHIDNA-7731", "PLATYPUS-2290"] {
        assert!(!logs.contains(secret), "{secret} logged");
    }
}
