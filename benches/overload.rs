//! B14: overload (issue 34 §5). More clients than two cores can serve, each
//! on its own keep-alive connection, sending one agent request after another
//! for a while; then the clients go and the service rests.
//!
//! Per level of connections: requests answered 200 per second, 503s (each
//! must carry `Retry-After`; the client waits it out, as docs/operations.md
//! asks of clients), connection errors, the latency of the 200s at the
//! client, and memory as a pod's cgroup would count it: peak resident memory
//! plus the kernel's TCP buffers (`/proc/net/sockstat`'s `mem`, machine-wide:
//! the client's and the fakes' sockets too, so an upper bound), sampled every
//! 50 ms, and the peak of a memory cgroup of the service's own where this
//! machine lets the benchmark make one (pages of its binary that another
//! group read first are charged there, not here). Then resident memory after
//! the clients have gone, and a request answered after the burst.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use serde_json::json;

use super::{Row, Service, fakes, llm_env, one_round, pct, seed_posts};
use crate::support::graph::{Behavior, TOKEN};

/// What the clients of one level saw.
#[derive(Default)]
struct Seen {
    /// Latencies of the 200s, and their `meta.path`s.
    ok: Vec<Duration>,
    fallback: usize,
    partial: usize,
    shed: usize,
    /// 503s without a `Retry-After` between 1 and 3 s.
    shed_without_retry_after: usize,
    other_status: usize,
    connection_errors: usize,
}

/// The levels and how long each lasts: `BENCH_OVERLOAD_LEVELS` (e.g.
/// `500,3000`) and `BENCH_OVERLOAD_SECS` override them.
fn levels(quick: bool) -> (Vec<usize>, Duration) {
    let levels = std::env::var("BENCH_OVERLOAD_LEVELS")
        .ok()
        .map(|v| v.split(',').filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_else(|| {
            if quick {
                vec![100]
            } else {
                vec![500, 3000, 8000]
            }
        });
    let secs = std::env::var("BENCH_OVERLOAD_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 2 } else { 15 });
    (levels, Duration::from_secs(secs))
}

pub async fn b14(quick: bool) -> Vec<Row> {
    let (levels, span) = levels(quick);
    let mut rows = Vec::new();
    for connections in levels {
        rows.push(level(connections, span).await);
    }
    rows
}

/// One level on a fresh service: chat 300 ms, Graph 150 ms, deadline 3 s.
async fn level(connections: usize, span: Duration) -> Row {
    let (graph, openai) = fakes().await;
    openai.chat_by_round(one_round());
    openai.latency(Duration::from_millis(300), Duration::ZERO);
    graph.files(Behavior::Delay(Duration::from_millis(150)));
    graph.mail(Behavior::Delay(Duration::from_millis(150)));
    let mut env = llm_env(&graph, &openai);
    // The bound derived from the memory budget, as deployed, and the
    // default configuration's panel cache (each view is a new post: the
    // cache fills to its bound and evicts).
    env.retain(|(k, _)| *k != "LINKUP__SERVER__MAX_IN_FLIGHT");
    env.push(("LINKUP__AGENT__TIMEOUT_MS", "3000".to_owned()));
    // `BENCH_OVERLOAD_CACHE=false`: without it, to tell what it costs.
    let cache_on = std::env::var("BENCH_OVERLOAD_CACHE").map_or(true, |v| v != "false");
    env.push(("LINKUP__CACHE__ENABLED", cache_on.to_string()));
    let cgroup = Cgroup::new();
    let svc = Service::start_in(&env, cgroup.as_ref().map(|c| c.0.as_path()));
    let http = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(usize::MAX)
        .build()
        .expect("client");
    seed_posts(&http, &svc, 200).await;
    // Warm-up, so "before" is a service that has answered.
    for _ in 0..20 {
        let _ = ask(&http, &svc, "warm").await;
    }
    // "Before" is a service at rest, as "after" is: what start-up and the
    // warm-up freed has had `span` to go back (jemalloc returns freed pages
    // over 10 s), else "before" counts it and the ratio flatters the burst.
    tokio::time::sleep(span).await;
    if let Some(cgroup) = &cgroup {
        cgroup.reset_peak();
    }
    let before = svc.rss_mb();

    let peak = Arc::new(Mutex::new((0.0f64, 0.0f64)));
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = tokio::spawn(sample(svc.pid(), peak.clone(), sampling.clone()));

    let seen = Arc::new(Mutex::new(Seen::default()));
    let url = Arc::new(svc.url("/api/suggestions"));
    let cpu0 = (svc.cpu_ms(), super::proc_cpu_ms("self"));
    let started = Instant::now();
    let end = started + span;
    let clients: Vec<_> = (0..connections)
        .map(|c| tokio::spawn(client(c, http.clone(), url.clone(), end, seen.clone())))
        .collect();
    for c in clients {
        let _ = c.await;
    }
    let wall = started.elapsed();
    let cpu = (svc.cpu_ms() - cpu0.0, super::proc_cpu_ms("self") - cpu0.1);
    drop(http); // its connections close: the clients have gone
    sampling.store(false, Ordering::Relaxed);
    let _ = sampler.await;
    let (peak_rss, peak_rss_and_tcp) = *peak.lock().expect("peak");
    let cgroup_peak = cgroup.as_ref().map(Cgroup::peak_mb);

    // Resident memory a third, two thirds and all of `span` after.
    let mut settling = Vec::new();
    for _ in 0..3 {
        tokio::time::sleep(span / 3).await;
        settling.push(format!("{:.0}", svc.rss_mb()));
    }
    let after = svc.rss_mb();
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    // Every figure of this scenario in MiB, as resident memory is read
    // (kB / 1024): the cache's weight and bound too.
    let cache_mb = cache_bytes(&http, &svc).await / 1_048_576.0;
    // Issue 52 §4: 15 s after, at most 1.25 × before and the cache's bound
    // (the default `cache.max_bytes`, 64 MiB, when the cache is on).
    let bound_mb = if cache_on { 64.0 } else { 0.0 };
    let within = 1.25 * before + bound_mb;
    let verdict = if after <= within { "met" } else { "NOT met" };
    let t = Instant::now();
    let next = ask(&http, &svc, "after").await;
    let next_ms = t.elapsed().as_secs_f64() * 1000.0;

    let mut seen = std::mem::take(&mut *seen.lock().expect("seen"));
    seen.ok.sort();
    let per_s = |n: usize| n as f64 / wall.as_secs_f64();
    Row {
        id: "B14",
        scenario: format!(
            "{connections} connections for {} s, agent path (chat 300 ms, Graph 150 ms, deadline 3 s), 503s waited out",
            span.as_secs()
        ),
        figures: format!(
            "{:.0} req/s answered 200 ({} fallback, {} partial), p50 {:.0} ms, p99 {:.0} ms; {:.0} 503/s ({} without Retry-After 1-30 s); {} other statuses, {} connection errors; \
             peak RSS {peak_rss:.0} MiB, with TCP buffers {peak_rss_and_tcp:.0} MiB, cgroup peak {}; RSS before {before:.1} MiB, {} s after {after:.1} MiB ({:.2}x; by thirds {}; the panel cache weighs {cache_mb:.1} MiB; ≤ 1.25x before + the cache's bound = {within:.1} MiB: {verdict}); next request {next}, {next_ms:.0} ms; panics {}; CPU: service {:.0} %, load generator and fakes {:.0} %",
            per_s(seen.ok.len()),
            seen.fallback,
            seen.partial,
            pct(&seen.ok, 0.5),
            pct(&seen.ok, 0.99),
            per_s(seen.shed),
            seen.shed_without_retry_after,
            seen.other_status,
            seen.connection_errors,
            cgroup_peak.map_or_else(|| "n/a".to_owned(), |mb| format!("{mb:.0} MiB")),
            span.as_secs(),
            after / before,
            settling.join("/"),
            svc.panics(),
            cpu.0 / wall.as_secs_f64() / 10.0,
            cpu.1 / wall.as_secs_f64() / 10.0,
        ),
    }
}

/// What the panel cache weighs now (`linkup_panel_cache_bytes`), in bytes.
async fn cache_bytes(http: &reqwest::Client, svc: &Service) -> f64 {
    let text = match http.get(svc.url("/metrics")).send().await {
        Ok(r) => r.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    };
    text.lines()
        .find_map(|l| l.strip_prefix("linkup_panel_cache_bytes "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(f64::NAN)
}

/// One request; its status and `meta.path` ("503" when shed).
async fn ask(http: &reqwest::Client, svc: &Service, id: &str) -> String {
    let body = json!({"postId": id, "text": "How do I set up a deployment pipeline for our team's repo?", "tags": ["devops"]});
    match http
        .post(svc.url("/api/suggestions"))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
    {
        Ok(r) if r.status() == 200 => {
            let v: serde_json::Value = r.json().await.unwrap_or_default();
            format!(
                "{} {}",
                v["meta"]["path"].as_str().unwrap_or("?"),
                v["meta"]["degraded"]
            )
        }
        Ok(r) => r.status().as_str().to_owned(),
        Err(_) => "error".to_owned(),
    }
}

/// A client: one request after another until `end`; after a 503, waits
/// its `Retry-After`.
async fn client(
    c: usize,
    http: reqwest::Client,
    url: Arc<String>,
    end: Instant,
    seen: Arc<Mutex<Seen>>,
) {
    let mut i = 0;
    while Instant::now() < end {
        i += 1;
        let body = json!({"postId": format!("o-{c}-{i}"), "text": "How do I set up a deployment pipeline for our team's repo?", "tags": ["devops"]});
        let t = Instant::now();
        let res = http
            .post(url.as_str())
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
            .await;
        let res = match res {
            Ok(r) => r,
            Err(_) => {
                seen.lock().expect("seen").connection_errors += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let status = res.status().as_u16();
        let retry_after = res
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        let body = res.bytes().await;
        let took = t.elapsed();
        let wait = {
            let mut s = seen.lock().expect("seen");
            match (status, body) {
                (200, Ok(body)) => {
                    s.ok.push(took);
                    let path = |p: &[u8]| body.windows(p.len()).any(|w| w == p);
                    if path(b"\"path\":\"fallback\"") {
                        s.fallback += 1;
                    } else if path(b"\"path\":\"partial\"") {
                        s.partial += 1;
                    }
                    None
                }
                (503, Ok(_)) => {
                    s.shed += 1;
                    // The service says 1 to 3 s, up to 30 s while refusals outrun the
                    // runs that finish.
                    let wait = retry_after.filter(|s| (1..=30).contains(s));
                    if wait.is_none() {
                        s.shed_without_retry_after += 1;
                    }
                    Some(Duration::from_secs(wait.unwrap_or(1)))
                }
                (_, Err(_)) => {
                    s.connection_errors += 1;
                    None
                }
                _ => {
                    s.other_status += 1;
                    None
                }
            }
        };
        if let Some(wait) = wait {
            tokio::time::sleep(wait.min(end.saturating_duration_since(Instant::now()))).await;
        }
    }
}

/// Samples the service's resident memory, and it plus the machine's TCP
/// buffers, every 50 ms; keeps the peaks (MB).
async fn sample(pid: u32, peak: Arc<Mutex<(f64, f64)>>, on: Arc<AtomicBool>) {
    while on.load(Ordering::Relaxed) {
        let rss = status_kb(pid, "VmRSS:") / 1024.0;
        let tcp = tcp_buffers_mb();
        {
            let mut p = peak.lock().expect("peak");
            p.0 = p.0.max(rss);
            p.1 = p.1.max(rss + tcp);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn status_kb(pid: u32, key: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse().ok())
        .unwrap_or(0.0)
}

/// `/proc/net/sockstat`'s TCP `mem` (pages of socket buffers), in MiB.
fn tcp_buffers_mb() -> f64 {
    let sockstat = std::fs::read_to_string("/proc/net/sockstat").unwrap_or_default();
    let pages: f64 = sockstat
        .lines()
        .find(|l| l.starts_with("TCP:"))
        .and_then(|l| l.split_whitespace().skip_while(|w| *w != "mem").nth(1))
        .and_then(|p| p.parse().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / 1_048_576.0
}

/// A memory cgroup (v1) for the service, with TCP accounting on: its peak
/// is memory and socket buffers as a pod's limit counts them.
struct Cgroup(std::path::PathBuf);

impl Cgroup {
    /// A new group, where this machine lets the benchmark make one.
    fn new() -> Option<Self> {
        let dir = std::path::PathBuf::from(format!(
            "/sys/fs/cgroup/memory/linkup-bench-{}-{}",
            std::process::id(),
            super::rand_suffix()
        ));
        std::fs::create_dir(&dir).ok()?;
        let cg = Self(dir);
        // TCP buffers are counted once a TCP limit is set (one no run reaches).
        std::fs::write(cg.0.join("memory.kmem.tcp.limit_in_bytes"), "8589934592").ok()?;
        Some(cg)
    }

    fn reset_peak(&self) {
        for file in [
            "memory.max_usage_in_bytes",
            "memory.kmem.tcp.max_usage_in_bytes",
        ] {
            let _ = std::fs::write(self.0.join(file), "0");
        }
    }

    /// Peak memory (with kernel memory) plus peak TCP buffers, in MB.
    fn peak_mb(&self) -> f64 {
        let read = |file: &str| -> f64 {
            std::fs::read_to_string(self.0.join(file))
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0.0)
        };
        (read("memory.max_usage_in_bytes") + read("memory.kmem.tcp.max_usage_in_bytes"))
            / 1_048_576.0
    }
}

impl Drop for Cgroup {
    /// Removed once empty (the service gone); else moved out first.
    fn drop(&mut self) {
        if let Ok(procs) = std::fs::read_to_string(self.0.join("cgroup.procs")) {
            for pid in procs.lines() {
                let _ = std::fs::write("/sys/fs/cgroup/memory/cgroup.procs", pid);
            }
        }
        let _ = std::fs::remove_dir(&self.0);
    }
}
