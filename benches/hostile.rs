//! Hostile upstreams (issue 9): B9, every Graph answer 20 MB; B11, a soak of
//! requests with ~20 % of the upstream answers faulty (500, 429, hang,
//! truncated, 20 MB, drip). The service's CPU, lateness by its own clock,
//! 5xx, panics and memory after the load.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use futures::StreamExt;
use serde_json::{Value, json};

use super::{
    Row, Service, fakes, llm_env, pct, seed_posts,
    support::{
        graph::{Behavior, TOKEN, huge_answer},
        openai::{EmbedBehavior, HUGE_BYTES},
    },
};

/// The deadline of these scenarios (`agent.timeout_ms`).
const DEADLINE_MS: u64 = 2000;

/// One request's outcome.
struct Answer {
    status: u16,
    latency: Duration,
    body: Value,
}

/// `total` suggestions requests, `concurrency` at a time.
async fn drive(
    http: &reqwest::Client,
    svc: &Service,
    concurrency: usize,
    total: usize,
) -> Vec<Answer> {
    let url = Arc::new(svc.url("/api/suggestions"));
    futures::stream::iter(0..total)
        .map(|i| {
            let (http, url) = (http.clone(), url.clone());
            async move {
                let started = Instant::now();
                let body = json!({"postId": format!("h-{i}"), "text": "How do I set up a deployment pipeline for our team's repo?", "tags": ["devops"]});
                let res = http.post(url.as_str()).bearer_auth(TOKEN).json(&body).send().await;
                let (status, body) = match res {
                    Ok(r) => (r.status().as_u16(), r.json::<Value>().await.unwrap_or(Value::Null)),
                    Err(_) => (0, Value::Null),
                };
                Answer { status, latency: started.elapsed(), body }
            }
        })
        .buffer_unordered(concurrency)
        .collect()
        .await
}

/// A response counts as late this far past its deadline.
const LATE_MS: f64 = 50.0;

/// How far past the deadline a response left, by its `meta.elapsedMs`.
fn over_deadline(a: &Answer) -> Option<f64> {
    Some(a.body["meta"]["elapsedMs"].as_f64()? - DEADLINE_MS as f64)
}

/// Largest `meta.elapsedMs` over the deadline, and how many exceed it by > 50 ms.
fn lateness(answers: &[Answer]) -> (f64, usize) {
    let over: Vec<f64> = answers.iter().filter_map(over_deadline).collect();
    let max = over.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (max, over.iter().filter(|o| **o > LATE_MS).count())
}

/// What the late responses went through: each one's lateness, path and
/// degraded reasons.
fn late_ones(answers: &[Answer]) -> String {
    let late: Vec<String> = answers
        .iter()
        .filter_map(|a| {
            let over = over_deadline(a).filter(|o| *o > LATE_MS)?;
            let meta = &a.body["meta"];
            Some(format!(
                "+{over:.0} ms {} {}",
                meta["path"], meta["degraded"]
            ))
        })
        .collect();
    if late.is_empty() {
        String::new()
    } else {
        format!(" (late: {})", late.join("; "))
    }
}

fn env_with(mut env: Vec<(&'static str, String)>) -> Vec<(&'static str, String)> {
    env.push(("LINKUP__AGENT__TIMEOUT_MS", DEADLINE_MS.to_string()));
    env
}

/// B9: the fallback while every Graph answer is 20 MB (both groups, every query).
pub async fn b9(http: &reqwest::Client, n: usize) -> Vec<Row> {
    let body = huge_answer(HUGE_BYTES);
    let mut rows = Vec::new();
    // The default cap, then a cap of 2 MiB on chunked answers (the cost is
    // the bytes read before the cap).
    let runs = [(true, None), (false, None), (false, Some(2 * 1024 * 1024))];
    for (announced, cap) in runs {
        let (graph, _openai) = fakes().await;
        let huge = Behavior::Huge {
            body: body.clone(),
            announced,
        };
        graph.files(huge.clone());
        graph.mail(huge);
        let mut env = env_with(vec![("LINKUP__MSGRAPH__BASE_URL", graph.url())]);
        if let Some(cap) = cap {
            env.push(("LINKUP__MSGRAPH__MAX_BODY_BYTES", cap.to_string()));
        }
        let svc = Service::start(&env);
        seed_posts(http, &svc, 200).await;
        drive(http, &svc, 8, 16).await; // warm-up
        let cpu0 = svc.cpu_ms();
        let answers = drive(http, &svc, 8, n).await;
        let cpu = svc.cpu_ms() - cpu0;
        let mut lat: Vec<Duration> = answers.iter().map(|a| a.latency).collect();
        lat.sort();
        let (max_over, late) = lateness(&answers);
        let too_large = answers
            .iter()
            .filter(|a| {
                a.body["meta"]["degraded"]
                    .as_array()
                    .is_some_and(|d| d.contains(&json!("m365_too_large")))
            })
            .count();
        let how = match (announced, cap) {
            (true, _) => "with Content-Length".to_owned(),
            (false, None) => "chunked, no length".to_owned(),
            (false, Some(cap)) => format!("chunked, no length, msgraph.max_body_bytes {cap}"),
        };
        rows.push(Row {
            id: "B9",
            scenario: format!("fallback, every Graph answer 20 MB ({how}), 8 concurrent, {n} requests"),
            figures: format!(
                "service CPU {:.2} ms/req, p50 {:.1} ms, p99 {:.1} ms, elapsedMs − deadline max {max_over:+.0} ms ({late} over +50 ms), {too_large}/{n} m365_too_large, peak RSS {:.0} MiB",
                cpu / n as f64,
                pct(&lat, 0.5),
                pct(&lat, 0.99),
                svc.peak_rss_mb()
            ),
        });
    }
    rows
}

/// B11: the agent under ~20 % faulty Graph, chat and embeddings answers.
/// `full`: rests 15 s before and after the run (1 s in the smoke run) and
/// also reads RSS and descriptors 100 s after.
pub async fn b11(http: &reqwest::Client, n: usize, full: bool) -> Row {
    let rest = Duration::from_secs(if full { 15 } else { 1 });
    let (graph, openai) = fakes().await;
    openai.chat_by_round(super::two_rounds());
    openai.chat_chaos(20);
    openai.embeddings(EmbedBehavior::Chaos(20));
    graph.files(Behavior::Chaos {
        percent: 20,
        huge: huge_answer(HUGE_BYTES),
    });
    graph.mail(Behavior::Chaos {
        percent: 20,
        huge: huge_answer(HUGE_BYTES),
    });
    let mut env = env_with(llm_env(&graph, &openai));
    env.push(("LINKUP__MSGRAPH__TIMEOUT_MS", "1000".into()));
    env.push(("LINKUP__AZURE_OPENAI__CHAT_TIMEOUT_MS", "1000".into()));
    env.push((
        "LINKUP__AZURE_OPENAI__EMBEDDING_DEPLOYMENT",
        "text-embedding-3-small".into(),
    ));
    let svc = Service::start(&env);
    seed_posts(http, &svc, 200).await;
    drive(http, &svc, 32, 200).await; // warm-up: pools, arenas, the index
    tokio::time::sleep(rest).await;
    let (rss_before, fds_before) = (svc.rss_mb(), svc.open_fds());
    let started = Instant::now();
    let answers = drive(http, &svc, 32, n).await;
    let wall = started.elapsed();
    let peak = svc.peak_rss_mb();
    tokio::time::sleep(rest).await;
    let (rss_after, fds_after) = (svc.rss_mb(), svc.open_fds());
    if full {
        tokio::time::sleep(Duration::from_secs(85)).await;
    }
    let (rss_later, fds_later) = (svc.rss_mb(), svc.open_fds());
    let server_errors = answers
        .iter()
        .filter(|a| a.status >= 500 || a.status == 0)
        .count();
    let (max_over, late) = lateness(&answers);
    let degraded = answers
        .iter()
        .filter(|a| {
            a.body["meta"]["degraded"]
                .as_array()
                .is_some_and(|d| !d.is_empty())
        })
        .count();
    let with_results = answers
        .iter()
        .filter(|a| a.body["posts"].as_array().is_some_and(|p| !p.is_empty()))
        .count();
    Row {
        id: "B11",
        scenario: format!(
            "agent, ~20 % of Graph, chat and embeddings answers faulty (500, 429, hang, truncated, 20 MB, drip; embeddings also 2.5 s late), deadline {DEADLINE_MS} ms, 32 concurrent, {n} requests"
        ),
        figures: format!(
            "{server_errors} 5xx or failed, {} panics, elapsedMs − deadline max {max_over:+.0} ms ({late} over +50 ms{}), {degraded}/{n} degraded, {with_results}/{n} with posts, {:.0} req/s; RSS {rss_before:.1} MiB before, peak {peak:.1} MiB, {rss_after:.1} MiB {} s after ({:+.1} %), {rss_later:.1} MiB {} s after; open fds {fds_before} / {fds_after} / {fds_later}",
            svc.panics(),
            late_ones(&answers),
            n as f64 / wall.as_secs_f64(),
            rest.as_secs(),
            (rss_after / rss_before - 1.0) * 100.0,
            if full { 100 } else { rest.as_secs() },
        ),
    }
}
