//! `GET /metrics`: scraped after agent, fallback and failing requests and
//! read with a Prometheus text-format parser (not the service's code).

use serde_json::json;

use crate::support::{
    Options, TestApp,
    graph::{Behavior, TOKEN},
    openai::ChatStep,
    post_body, spawn_app_with_corpus,
};

/// The scrape, parsed; and its text.
async fn scrape(app: &TestApp) -> (prometheus_parse::Scrape, String) {
    let res = app
        .http
        .get(app.url("/metrics"))
        .send()
        .await
        .expect("scrape");
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text")
    );
    let text = res.text().await.unwrap();
    let lines = text.lines().map(|l| Ok(l.to_owned()));
    (
        prometheus_parse::Scrape::parse(lines).expect("parses"),
        text,
    )
}

/// The value of the sample `name` whose labels include `labels` (0 when absent).
fn value(scrape: &prometheus_parse::Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == name)
        .filter(|s| labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map(|s| match s.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => v,
            prometheus_parse::Value::Histogram(ref h) => h.last().map_or(0.0, |b| b.count),
            prometheus_parse::Value::Summary(_) => 0.0,
        })
        .sum()
}

#[tokio::test]
async fn a_scrape_counts_requests_runs_upstream_and_tool_calls_without_user_text() {
    let app = spawn_app_with_corpus(Options {
        llm: true,
        env: vec![("LINKUP__SERVER__API_KEYS", "key-1".into())],
        ..Options::default()
    })
    .await;
    let put = app
        .http
        .put(app.url("/api/posts/p-77"))
        .header("x-api-key", "key-1")
        .json(&post_body(
            "Our deployment pipeline uses GitHub Actions",
            &["devops"],
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 201);
    let ask = |text: &str| {
        app.http
            .post(app.url("/api/suggestions"))
            .header("x-api-key", "key-1")
            .bearer_auth(TOKEN)
            .json(&json!({"postId": "q-1", "text": text, "tags": ["devops"]}))
            .send()
    };
    // An agent run: one round of searches, then the answer.
    app.openai.chat([
        ChatStep::searches("deployment pipeline"),
        ChatStep::Final(json!({"m365": ["m1"], "posts": ["p1"], "actionHint": "Read it."})),
    ]);
    assert_eq!(
        ask("SECRET-POST-TEXT deployment pipeline")
            .await
            .unwrap()
            .status(),
        200
    );
    // The LLM fails: the fallback answers; then Graph's mail group fails too.
    app.openai.chat([ChatStep::Status(500)]);
    assert_eq!(
        ask("deployment pipeline runbook").await.unwrap().status(),
        200
    );
    app.graph.mail(Behavior::Status(503));
    app.openai.chat([ChatStep::Status(500)]);
    assert_eq!(
        ask("deployment pipeline runbook").await.unwrap().status(),
        200
    );

    let (m, text) = scrape(&app).await;
    let route = ("route", "/api/suggestions");
    assert_eq!(
        value(
            &m,
            "linkup_http_requests_total",
            &[route, ("method", "POST"), ("status", "200")]
        ),
        3.0
    );
    // (The parser does not read braces inside a label value: read the line.)
    assert!(
        text.contains(
            "linkup_http_requests_total{route=\"/api/posts/{post_id}\",method=\"PUT\",status=\"401\"} 1\n"
        ),
        "the corpus's post sent without the key; routes are templates, not ids: {text}"
    );
    assert_eq!(
        value(&m, "linkup_http_requests_in_flight", &[]),
        1.0,
        "the scrape itself"
    );
    assert_eq!(
        value(&m, "linkup_http_request_duration_seconds_count", &[route]),
        3.0
    );
    assert_eq!(value(&m, "linkup_runs_total", &[("path", "agent")]), 1.0);
    assert_eq!(value(&m, "linkup_runs_total", &[("path", "fallback")]), 2.0);
    assert_eq!(
        value(&m, "linkup_run_degraded_total", &[("reason", "llm_error")]),
        2.0
    );
    assert_eq!(value(&m, "linkup_run_duration_seconds_count", &[]), 3.0);
    assert_eq!(value(&m, "linkup_run_late_total", &[]), 0.0);
    assert_eq!(
        value(
            &m,
            "linkup_llm_calls_total",
            &[("op", "chat"), ("outcome", "ok")]
        ),
        2.0
    );
    assert_eq!(
        value(
            &m,
            "linkup_llm_calls_total",
            &[("op", "chat"), ("outcome", "upstream_error")]
        ),
        2.0,
        "{text}"
    );
    assert_eq!(
        value(&m, "linkup_llm_tokens_total", &[("kind", "prompt")]),
        240.0,
        "the fake reports 120 prompt tokens per call"
    );
    assert!(
        value(
            &m,
            "linkup_graph_calls_total",
            &[("group", "files"), ("outcome", "ok")]
        ) >= 3.0
    );
    assert!(
        value(
            &m,
            "linkup_graph_calls_total",
            &[("group", "mail"), ("outcome", "upstream_error")]
        ) >= 1.0
    );
    assert!(
        value(
            &m,
            "linkup_graph_call_duration_seconds_count",
            &[("group", "files")]
        ) >= 3.0
    );
    assert!(
        value(
            &m,
            "linkup_tool_calls_total",
            &[
                ("tool", "search_m365"),
                ("door", "in_process"),
                ("outcome", "ok")
            ]
        ) >= 2.0
    );
    assert_eq!(value(&m, "linkup_posts", &[]), 1.0, "{text}");
    assert_eq!(value(&m, "linkup_llm_circuit_open", &[]), 0.0);
    assert!(value(&m, "linkup_post_search_duration_seconds_count", &[]) >= 1.0);
    assert!(value(&m, "linkup_process_resident_memory_bytes", &[]) > 1e6);
    assert!(value(&m, "linkup_process_threads", &[]) >= 1.0);
    assert!(value(&m, "linkup_process_open_fds", &[]) >= 3.0);
    for secret in ["SECRET-POST-TEXT", TOKEN, "key-1", "pipeline", "runbook"] {
        assert!(!text.contains(secret), "{secret} in the metrics");
    }
}

#[tokio::test]
async fn with_an_admin_address_the_metrics_are_served_there_and_not_on_the_public_listener() {
    let app = crate::support::spawn_app_with(Options {
        env: vec![("LINKUP__SERVER__ADMIN_ADDR", "127.0.0.1:0".into())],
        ..Options::default()
    })
    .await;
    let public = app.http.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(public.status(), 404);
    let admin = app.admin.expect("an admin listener");
    let scrape = app
        .http
        .get(format!("http://{admin}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(scrape.status(), 200);
    let text = scrape.text().await.unwrap();
    assert!(
        text.contains(
            "linkup_http_requests_total{route=\"unmatched\",method=\"GET\",status=\"404\"} 1"
        ),
        "the public 404 is counted: {text}"
    );
    let other = app
        .http
        .get(format!("http://{admin}/api/suggestions"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        other.status(),
        404,
        "the admin listener serves /metrics only"
    );
}

#[tokio::test]
async fn after_a_429_no_call_goes_to_that_upstream_until_its_retry_time() {
    let app = spawn_app_with_corpus(Options {
        llm: true,
        ..Options::default()
    })
    .await;
    let body = json!({"postId": "q-1", "text": "deployment pipeline", "tags": ["devops"]});
    // Azure OpenAI answers 429 (retry-after-ms 6000): the run falls back.
    app.openai.chat([ChatStep::Status(429)]);
    let (_, first) = app.suggest(body.clone(), Some(TOKEN)).await;
    assert!(
        crate::support::strings(&first["meta"]["degraded"])
            .contains(&"llm_rate_limited".to_owned())
    );
    let chat_calls = app.openai.chat_requests().len();
    // The next request does not call it at all.
    let (status, second) = app.suggest(body.clone(), Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(
        app.openai.chat_requests().len(),
        chat_calls,
        "no chat call while throttled"
    );
    assert_eq!(second["meta"]["path"], "fallback");
    assert!(
        crate::support::strings(&second["meta"]["degraded"])
            .contains(&"llm_rate_limited".to_owned())
    );

    // Graph answers 429 (Retry-After: 3): the next searches answer at once.
    app.graph.files(Behavior::Status(429));
    app.suggest(body.clone(), Some(TOKEN)).await;
    app.graph.files(Behavior::Normal);
    let graph_calls = app.graph.received().len();
    let (_, third) = app.suggest(body, Some(TOKEN)).await;
    assert_eq!(
        app.graph.received().len(),
        graph_calls,
        "no Graph request while throttled"
    );
    assert!(
        crate::support::strings(&third["meta"]["degraded"])
            .contains(&"m365_rate_limited".to_owned())
    );
    assert_eq!(third["unavailableSources"], json!(["m365"]));

    let ready: serde_json::Value = app.get_json("/readyz").await;
    assert_eq!(
        ready["rateLimits"]["azureOpenaiChat"], "throttled",
        "{ready}"
    );
    assert_eq!(ready["rateLimits"]["graph"], "throttled");
    assert_eq!(ready["rateLimits"]["azureOpenaiEmbeddings"], "ok");
    let (m, _) = scrape(&app).await;
    assert_eq!(
        value(
            &m,
            "linkup_upstream_rate_limit",
            &[("upstream", "graph"), ("state", "throttled")]
        ),
        1.0
    );
    assert_eq!(
        value(
            &m,
            "linkup_upstream_rate_limit",
            &[("upstream", "graph"), ("state", "ok")]
        ),
        0.0
    );
}

/// Sample names a PromQL text uses (`linkup_…`).
fn families_used(text: &str) -> Vec<String> {
    let mut names: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("linkup_"))
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    names
}

#[tokio::test]
async fn the_alert_rules_and_the_dashboard_use_only_what_the_service_exposes() {
    let app = spawn_app_with_corpus(Options {
        llm: true,
        // The panel cache's families too.
        env: vec![("LINKUP__CACHE__ENABLED", "true".to_owned())],
        ..Options::default()
    })
    .await;
    // An agent run, so every family has a sample.
    app.openai.chat([
        ChatStep::searches("deployment pipeline"),
        ChatStep::Final(json!({"m365": ["m1"], "posts": ["p1"], "actionHint": "Read it."})),
    ]);
    app.suggest(
        json!({"postId": "q", "text": "deployment pipeline"}),
        Some(TOKEN),
    )
    .await;
    // And a degraded one (another text: not the cached panel).
    app.openai.chat([ChatStep::Status(500)]);
    app.suggest(
        json!({"postId": "q", "text": "deployment pipelines"}),
        Some(TOKEN),
    )
    .await;
    let (_, text) = scrape(&app).await;
    let exposed: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split(['{', ' ']).next())
        .collect();
    for (file, used) in [
        (
            "deploy/alerts.yml",
            families_used(include_str!("../../deploy/alerts.yml")),
        ),
        (
            "deploy/grafana-dashboard.json",
            families_used(include_str!("../../deploy/grafana-dashboard.json")),
        ),
    ] {
        assert!(used.len() >= 6, "{file}: {used:?}");
        for name in used {
            assert!(
                exposed.contains(&name.as_str()),
                "{file} uses {name}, which /metrics does not expose"
            );
        }
    }
}
