//! OpenTelemetry traces: the service binary, configured by the standard
//! `OTEL_*` variables, exports one agent request's span tree over OTLP to a
//! collector in the test (decoded with the protocol's own types), continuing
//! the caller's `traceparent` and passing it on to Azure OpenAI and Graph;
//! no user text, token or key anywhere in the export.

use std::{collections::HashMap, time::Duration};

use serde_json::{Value, json};

use crate::support::{
    FakeGraph, FakeOpenAi, Options,
    binary::Binary,
    graph::{self, TOKEN},
    openai::{self, ChatStep},
    otlp::{Collector, Span},
    post_body, spawn_app_with, test_env,
};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";
const POST_TEXT: &str = "SECRETPOSTTEXT how do we ship the deployment pipeline";
const SERVER: i32 = 2;
const CLIENT: i32 = 3;

/// The environment of a binary using these fakes, exporting to `otlp`.
fn env(
    graph: &FakeGraph,
    openai: &FakeOpenAi,
    db: &std::path::Path,
    otlp: &str,
) -> HashMap<String, String> {
    let mut env = test_env(
        graph,
        openai,
        db,
        &Options {
            llm: true,
            embeddings: true,
            ..Options::default()
        },
    );
    env.insert("OTEL_EXPORTER_OTLP_ENDPOINT".into(), otlp.into());
    env.insert("OTEL_SERVICE_NAME".into(), "linkup-suggestions-test".into());
    // Export every 100 ms instead of 5 s (the SDK reads it).
    env.insert("OTEL_BSP_SCHEDULE_DELAY".into(), "100".into());
    env
}

/// An agent run's script: one Microsoft 365 search, then the answer.
fn search_then_answer() -> [ChatStep; 2] {
    [
        ChatStep::ToolCalls(vec![(
            "search_m365",
            json!({"query": "deployment pipeline"}),
        )]),
        ChatStep::Final(json!({"m365": ["m1"], "posts": [], "actionHint": "Read it."})),
    ]
}

/// The trace id of a `traceparent` header.
fn trace_id_of(traceparent: &str) -> &str {
    traceparent.split('-').nth(1).unwrap_or_default()
}

fn parent_id_of(traceparent: &str) -> &str {
    traceparent.split('-').nth(2).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_request_exports_its_span_tree_with_genai_attributes_in_the_callers_trace() {
    let collector = Collector::start().await;
    let graph = FakeGraph::start().await;
    graph.add(graph::engineering_corpus());
    let openai = FakeOpenAi::start().await;
    openai.chat([
        ChatStep::ToolCalls(vec![
            (
                "search_m365",
                json!({"query": "SECRETQUERY deployment pipeline"}),
            ),
            ("search_posts", json!({"query": "deployment pipeline"})),
        ]),
        ChatStep::Final(
            json!({"m365": ["m1"], "posts": ["p1"], "actionHint": "SECRETHINT read it."}),
        ),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let service = Binary::start(env(
        &graph,
        &openai,
        &dir.path().join("posts.db"),
        &collector.url(),
    ));
    let http = linkup_suggestions::upstream::http_client().unwrap();
    let put = http
        .put(format!("http://{}/api/posts/p-77", service.addr))
        .json(&post_body(
            "SECRETSTOREDPOST Our deployment pipeline uses GitHub Actions",
            &["devops"],
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 201);

    let res = http
        .post(format!("http://{}/api/suggestions", service.addr))
        .header("traceparent", format!("00-{TRACE_ID}-{CALLER_SPAN}-01"))
        .bearer_auth(TOKEN)
        .json(&json!({"postId": "q-1", "text": POST_TEXT, "tags": ["devops"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["meta"]["path"], "agent", "{body}");

    // The HTTP server span continues the caller's trace.
    let server = collector
        .wait_for("the server span of the suggestions request", |s| {
            s.name == "POST /api/suggestions" && s.trace_id == TRACE_ID
        })
        .await;
    assert_eq!(server.kind, SERVER);
    assert_eq!(server.parent_span_id, CALLER_SPAN);
    assert_eq!(server.service, "linkup-suggestions-test");
    assert_eq!(server.attr("http.request.method"), Some("POST"));
    assert_eq!(server.attr("http.route"), Some("/api/suggestions"));
    assert_eq!(server.attr("http.response.status_code"), Some("200"));

    let spans: Vec<Span> = collector
        .spans()
        .into_iter()
        .filter(|s| s.trace_id == TRACE_ID)
        .collect();
    let by_id: HashMap<&str, &Span> = spans.iter().map(|s| (s.span_id.as_str(), s)).collect();
    let under = |s: &Span, ancestor: &Span| {
        let mut at = s.parent_span_id.as_str();
        while let Some(p) = by_id.get(at) {
            if p.span_id == ancestor.span_id {
                return true;
            }
            at = p.parent_span_id.as_str();
        }
        false
    };
    let named = |name: &str| -> Vec<&Span> { spans.iter().filter(|s| s.name == name).collect() };

    let agent = named("invoke_agent linkup-suggestions");
    assert_eq!(agent.len(), 1, "{spans:#?}");
    let agent = agent[0];
    assert!(under(agent, &server));
    assert_eq!(agent.attr("gen_ai.operation.name"), Some("invoke_agent"));
    assert_eq!(agent.attr("gen_ai.provider.name"), Some("azure.ai.openai"));
    assert_eq!(agent.attr("gen_ai.agent.name"), Some("linkup-suggestions"));

    let chats = named("chat gpt-4o-mini");
    assert_eq!(chats.len(), 2, "{spans:#?}");
    let mut reasons = Vec::new();
    for chat in &chats {
        assert!(under(chat, agent));
        assert_eq!(chat.kind, CLIENT);
        assert_eq!(chat.attr("gen_ai.operation.name"), Some("chat"));
        assert_eq!(chat.attr("gen_ai.request.model"), Some("gpt-4o-mini"));
        assert_eq!(
            chat.attr("gen_ai.response.model"),
            Some("gpt-4o-mini-2024-07-18")
        );
        assert_eq!(chat.attr("gen_ai.usage.input_tokens"), Some("120"));
        assert_eq!(chat.attr("gen_ai.usage.output_tokens"), Some("14"));
        reasons.push(
            chat.attr("gen_ai.response.finish_reasons")
                .unwrap_or_default()
                .to_owned(),
        );
    }
    reasons.sort();
    assert_eq!(reasons, ["[stop]", "[tool_calls]"]);

    for (tool, call_id) in [
        ("search_m365", "call_0_search_m365"),
        ("search_posts", "call_1_search_posts"),
    ] {
        let exec = named(&format!("execute_tool {tool}"));
        // Pre-retrieval's call (no model call id) and the model's.
        assert_eq!(exec.len(), 2, "{spans:#?}");
        for e in &exec {
            assert!(under(e, agent));
            assert_eq!(e.attr("gen_ai.operation.name"), Some("execute_tool"));
            assert_eq!(e.attr("gen_ai.tool.name"), Some(tool));
        }
        let mut ids: Vec<Option<&str>> =
            exec.iter().map(|e| e.attr("gen_ai.tool.call.id")).collect();
        ids.sort();
        assert_eq!(ids, [None, Some(call_id)]);
    }

    // Each posts search (pre-retrieval's, the model's) embeds its query.
    let embeddings = named("embeddings text-embedding-3-small");
    assert_eq!(embeddings.len(), 2, "{spans:#?}");
    assert!(under(embeddings[0], agent));
    assert_eq!(
        (
            embeddings[0].kind,
            embeddings[0].attr("gen_ai.operation.name")
        ),
        (CLIENT, Some("embeddings"))
    );
    assert_eq!(
        embeddings[0].attr("gen_ai.request.model"),
        Some("text-embedding-3-small")
    );

    // Each upstream request carries the trace, naming its client span.
    let chat_calls = openai.chat_requests();
    assert_eq!(chat_calls.len(), 2);
    let graph_calls = graph.received();
    assert!(!graph_calls.is_empty());
    let mut traceparents: Vec<String> = chat_calls
        .iter()
        .map(|r| {
            r.headers
                .iter()
                .find(|(k, _)| k == "traceparent")
                .map(|(_, v)| v.clone())
                .expect("chat requests carry traceparent")
        })
        .collect();
    traceparents.extend(graph_calls.iter().map(|r| {
        r.traceparent
            .clone()
            .expect("Graph requests carry traceparent")
    }));
    for tp in &traceparents {
        assert_eq!(trace_id_of(tp), TRACE_ID, "{tp}");
        let client = by_id
            .get(parent_id_of(tp))
            .unwrap_or_else(|| panic!("{tp} names no exported span"));
        assert_eq!((client.name.as_str(), client.kind), ("POST", CLIENT));
        assert!(under(client, agent));
        assert!(client.attr("server.address").is_some());
        assert_eq!(client.attr("http.response.status_code"), Some("200"));
    }

    // Nothing the user wrote, the model answered, or a credential.
    let raw = collector.raw();
    let raw = String::from_utf8_lossy(&raw);
    for secret in [
        "SECRETPOSTTEXT",
        "SECRETQUERY",
        "SECRETHINT",
        "SECRETSTOREDPOST",
        "deployment pipeline",
        "Pipeline",
        TOKEN,
        openai::API_KEY,
    ] {
        assert!(!raw.contains(secret), "the export holds {secret}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_collector_costs_a_warning_not_an_answer() {
    let graph = FakeGraph::start().await;
    graph.add(graph::engineering_corpus());
    let openai = FakeOpenAi::start().await;
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let service = Binary::start(env(
        &graph,
        &openai,
        &dir.path().join("posts.db"),
        &format!("http://{closed}"),
    ));
    let http = linkup_suggestions::upstream::http_client().unwrap();
    for _ in 0..3 {
        openai.chat(search_then_answer());
        let res = http
            .post(format!("http://{}/api/suggestions", service.addr))
            .bearer_auth(TOKEN)
            .json(&json!({"postId": "q-1", "text": "deployment pipeline"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["meta"]["path"], "agent");
        assert!(!body["m365"].as_array().unwrap().is_empty());
    }
    let mut warned = false;
    for _ in 0..100 {
        warned = service.logs().iter().any(|line| {
            let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
            matches!(v["level"].as_str(), Some("WARN" | "ERROR"))
                && v["target"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("opentelemetry"))
        });
        if warned {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(warned, "no export warning in {:#?}", service.logs());
}

#[tokio::test]
async fn without_otel_variables_no_trace_context_goes_upstream() {
    let app = spawn_app_with(Options {
        llm: true,
        ..Options::default()
    })
    .await;
    app.graph.add(graph::engineering_corpus());
    app.openai.chat(search_then_answer());
    let res = app
        .http
        .post(app.url("/api/suggestions"))
        .header("traceparent", format!("00-{TRACE_ID}-{CALLER_SPAN}-01"))
        .bearer_auth(TOKEN)
        .json(&json!({"postId": "q-1", "text": "deployment pipeline"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(
        app.openai
            .chat_requests()
            .iter()
            .all(|r| r.headers.iter().all(|(k, _)| k != "traceparent"))
    );
    assert!(app.graph.received().iter().all(|r| r.traceparent.is_none()));
}
