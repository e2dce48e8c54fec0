//! Load benchmarks of the service (BENCHMARKS.md): the real binary in its own
//! process, fake Graph and Azure OpenAI plus the load generator in this one, so
//! the service's CPU (utime+stime from /proc) and peak RSS (VmHWM) are its own.
//!
//! `cargo bench --bench load` runs every scenario; `-- --quick` is a smoke run;
//! `-- B1 B5` runs only those. B10 (slow and idle clients) is in `slow_clients.rs`.

#[allow(dead_code, unused_imports)]
#[path = "../tests/it/support/mod.rs"]
mod support;

use std::{
    process::{Child, Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use futures::StreamExt;
use serde_json::{Value, json};
use support::{
    FakeGraph, FakeOpenAi,
    graph::{Behavior, Doc, TOKEN},
    openai::{API_KEY, ChatStep, EmbedBehavior},
};

/// The service binary under test, with its pid and address.
struct Service {
    child: Child,
    addr: String,
    db: std::path::PathBuf,
    /// Where its stderr goes (panic messages).
    stderr: std::path::PathBuf,
}

impl Service {
    fn start(env: &[(&str, String)]) -> Self {
        Self::start_in(env, None)
    }

    /// The service started inside the memory cgroup `cgroup` (a directory of
    /// /sys/fs/cgroup/memory), when given: its pages are charged there from
    /// its first instruction.
    fn start_in(env: &[(&str, String)], cgroup: Option<&std::path::Path>) -> Self {
        let db = std::env::temp_dir().join(format!(
            "linkup-bench-{}-{}.db",
            std::process::id(),
            rand_suffix()
        ));
        // BENCH_SERVICE_BIN: another build of the service, for A/B comparisons.
        let bin = std::env::var("BENCH_SERVICE_BIN")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_linkup-suggestions").to_owned());
        // BENCH_DB_FROM: start from a copy of that database (posts and their
        // vectors already stored: nothing to embed, e.g. under callgrind).
        if let Ok(from) = std::env::var("BENCH_DB_FROM") {
            copy_db(std::path::Path::new(&from), &db);
        }
        let stderr = db.with_extension("stderr");
        let mut cmd = match cgroup {
            Some(dir) => {
                let mut sh = Command::new("/bin/sh");
                sh.arg("-c")
                    .arg(r#"echo $$ > "$0/cgroup.procs" && exec "$1""#)
                    .arg(dir)
                    .arg(bin);
                sh
            }
            None => Command::new(bin),
        };
        cmd.env_clear()
            .env("LINKUP__SERVER__ADDR", "127.0.0.1:0")
            .env("LINKUP__POSTS__DB_PATH", &db)
            .env("LINKUP__LOG__FORMAT", "json")
            // Every scenario measures runs, not repeat views (the panel
            // cache has its own replay); a scenario may turn it on.
            .env("LINKUP__CACHE__ENABLED", "false")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"));
        for (k, v) in env {
            cmd.env(k, v);
        }
        // BENCH_MALLOC_CONF: jemalloc options for this run (A/B of allocator
        // settings without a rebuild), read by jemalloc at start-up.
        if let Ok(conf) = std::env::var("BENCH_MALLOC_CONF") {
            cmd.env("_RJEM_MALLOC_CONF", conf);
        }
        // BENCH_SERVICE_ENV="K=V K2=V2": settings for this run (A/B).
        for pair in std::env::var("BENCH_SERVICE_ENV")
            .unwrap_or_default()
            .split_whitespace()
        {
            if let Some((k, v)) = pair.split_once('=') {
                cmd.env(k, v);
            }
        }

        let mut child = cmd.spawn().expect("service starts");
        let addr = support::listening_addr(child.stdout.take().expect("stdout"));
        Self {
            child,
            addr,
            db,
            stderr,
        }
    }

    /// Panics the service reported so far (Rust's panic hook writes to stderr).
    fn panics(&self) -> usize {
        std::fs::read_to_string(&self.stderr)
            .unwrap_or_default()
            .matches("panicked at")
            .count()
    }

    /// Resident set size now, in MiB.
    fn rss_mb(&self) -> f64 {
        self.status_mb("VmRSS:")
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Open file descriptors of the service (sockets included).
    fn open_fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id())).map_or(0, |d| d.count())
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// utime + stime of the service, in ms.
    fn cpu_ms(&self) -> f64 {
        proc_cpu_ms(&self.child.id().to_string())
    }

    /// Peak resident set size, in MiB.
    fn peak_rss_mb(&self) -> f64 {
        self.status_mb("VmHWM:")
    }

    /// A `/proc/<pid>/status` figure in kB, as MB.
    fn status_mb(&self, key: &str) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    }
}

/// Copies an SQLite database with its write-ahead log, as its last writer left it.
fn copy_db(from: &std::path::Path, to: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let (mut a, mut b) = (from.as_os_str().to_owned(), to.as_os_str().to_owned());
        a.push(suffix);
        b.push(suffix);
        let _ = std::fs::remove_file(&b);
        if std::path::Path::new(&a).exists() {
            std::fs::copy(&a, &b).expect("copy the bench database");
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        // BENCH_GRACEFUL_STOP: SIGTERM first, so that a profiler wrapping the
        // service writes its data (SIGKILL after 10 s). Not by default: a
        // service draining its connections disturbs the next scenario's burst
        // of 1,000 connections (seen as SYN retransmits, +1 s, in B3b).
        if std::env::var_os("BENCH_GRACEFUL_STOP").is_some() {
            let _ = Command::new("kill")
                .args(["-TERM", &self.child.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        // BENCH_DB_KEEP: a copy of the database the run leaves (BENCH_DB_FROM's).
        if let Ok(to) = std::env::var("BENCH_DB_KEEP") {
            copy_db(&self.db, std::path::Path::new(&to));
        }
        let _ = std::fs::remove_file(&self.stderr);
        for suffix in ["", "-wal", "-shm"] {
            let mut path = self.db.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

/// utime + stime of `/proc/<pid>` (`self` for this process), in ms (100 Hz ticks).
fn proc_cpu_ms(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0.0)
        + fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    ticks * 1000.0 / 100.0
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// Fakes on loopback with a small corpus.
async fn fakes() -> (FakeGraph, FakeOpenAi) {
    let graph = FakeGraph::start().await;
    graph.add(support::graph::engineering_corpus());
    let openai = FakeOpenAi::start().await;
    openai.stop_recording();
    (graph, openai)
}

fn llm_env(graph: &FakeGraph, openai: &FakeOpenAi) -> Vec<(&'static str, String)> {
    vec![
        ("LINKUP__MSGRAPH__BASE_URL", graph.url()),
        ("AZURE_OPENAI_ENDPOINT", openai.url()),
        ("AZURE_OPENAI_API_KEY", API_KEY.to_owned()),
        // Every request carries the one test token: no per-caller allowance.
        ("LINKUP__AGENT__RUNS_PER_CALLER_PER_MINUTE", "0".to_owned()),
        // B3's and B4's 1,000 requests are agent runs, as before admission
        // (its derived bound is 1,025, three quarters of it on the agent
        // path); B14 measures admission itself.
        ("LINKUP__SERVER__MAX_IN_FLIGHT", "4000".to_owned()),
    ]
}

/// `BENCH_LLM_AUTH=managed-identity`: Azure OpenAI takes a Microsoft Entra
/// ID token (from a fake App Service identity endpoint, an hour long) in
/// place of the key, to compare B1 with a bearer token against B1 with a key.
async fn keyless(
    env: &mut Vec<(&'static str, String)>,
    openai: &FakeOpenAi,
) -> Option<support::entra::FakeEntra> {
    if std::env::var("BENCH_LLM_AUTH").as_deref() != Ok("managed-identity") {
        return None;
    }
    let accepting = openai.clone();
    let entra = support::entra::FakeEntra::start(move |t| accepting.accept_bearer(t)).await;
    env.retain(|(k, _)| *k != "AZURE_OPENAI_API_KEY");
    env.push(("IDENTITY_ENDPOINT", entra.identity_endpoint()));
    env.push((
        "IDENTITY_HEADER",
        support::entra::IDENTITY_HEADER.to_owned(),
    ));
    Some(entra)
}

/// B1's and B2's script, a typical agent request: the model finds what it
/// looks for in pre-retrieval's results and answers at once; else it makes
/// its searches in one round ([`two_rounds`]), then answers.
fn one_round() -> Vec<ChatStep> {
    let ChatStep::ToolCalls(search) = two_rounds().remove(0) else {
        unreachable!("two_rounds starts with its searches")
    };
    vec![
        ChatStep::SearchUnlessFound {
            looks_for: vec!["pipeline".into()],
            search,
        },
        answer_at_once().remove(0),
    ]
}

/// The final answer over what pre-retrieval found.
fn answer_at_once() -> Vec<ChatStep> {
    vec![ChatStep::Final(
        json!({"m365": ["m1", "m2", "m3"], "posts": ["p1", "p2"], "actionHint": "Start with the runbook."}),
    )]
}

/// The model's searches in one round, then the final answer with the hint
/// (the course without pre-retrieval, and the one it keeps when its
/// results do not answer the post).
fn two_rounds() -> Vec<ChatStep> {
    vec![
        ChatStep::ToolCalls(vec![
            ("search_m365", json!({"query": "deployment pipeline"})),
            ("search_m365", json!({"query": "CI/CD release"})),
            (
                "search_posts",
                json!({"query": "deployment pipeline for a repo"}),
            ),
        ]),
        ChatStep::Final(
            json!({"m365": ["m1", "m2", "m3"], "posts": ["p1", "p2"], "actionHint": "Start with the runbook."}),
        ),
    ]
}

/// Stores posts through the batch API.
async fn post_batch(http: &reqwest::Client, svc: &Service, posts: Vec<Value>) {
    let res = http
        .post(svc.url("/api/posts/batch"))
        .json(&json!({"posts": posts}))
        .send()
        .await
        .expect("seed");
    assert!(res.status().is_success());
}

async fn seed_posts(http: &reqwest::Client, svc: &Service, n: usize) {
    // One post in five is about the questions' topic, the others about
    // everything else a board holds: an index where every post is about the
    // same thing has nothing that stands out, and shows no similar post.
    const OTHER: [&str; 8] = [
        "the lunch menu at the cafeteria",
        "parking permits for the garage",
        "the VPN client on a new laptop",
        "booking a meeting room on 5F",
        "the annual health check-up",
        "expense claims for a client dinner",
        "the shuttle bus from Bundang",
        "the printer jam on 3F",
    ];
    let posts: Vec<Value> = (0..n)
        .map(|i| {
            let (text, tags) = if i % 5 == 0 {
                (format!("Post {i} about the deployment pipeline of repo {}", i % 17), json!(["devops"]))
            } else {
                (format!("Post {i} about {}", OTHER[i % OTHER.len()]), json!([]))
            };
            json!({"id": format!("seed-{i}"), "authorId": "u", "authorName": "Kim", "text": text, "tags": tags,
                "lat": 37.5, "lng": 127.0, "createdAt": "2026-11-01T00:00:00Z", "expiresAt": "2099-01-01T00:00:00Z"})
        })
        .collect();
    // A batch takes at most 64 KiB of JSON: 200 posts at a time.
    for chunk in posts.chunks(200) {
        post_batch(http, svc, chunk.to_vec()).await;
    }
    embedded(http, svc).await;
    share_on_posts(http, svc, n).await;
}

/// `BENCH_SHARES_PER_POST` (0 unless set): that many documents shared on
/// every fifth post (the ones about the questions' topic, so every view's
/// similar posts carry shares), each through its own `PUT`; prints the
/// PUTs' latency (issue 64: a share's ingest p99).
async fn share_on_posts(http: &reqwest::Client, svc: &Service, n: usize) {
    let per_post: usize = std::env::var("BENCH_SHARES_PER_POST")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut latencies = Vec::new();
    for i in (0..n).step_by(5) {
        for j in 0..per_post {
            let body = json!({"sharerId": "u2", "sharerName": "Bob",
                "title": format!("Deployment pipeline guide {j} of repo {}", i % 17),
                "url": format!("https://contoso.sharepoint.com/sites/eng/guide-{i}-{j}.docx"),
                "sourceType": "sharepoint", "createdAt": "2026-12-01T10:00:00Z"});
            let url = svc.url(&format!("/api/posts/seed-{i}/shared-documents/d-{j}"));
            let started = Instant::now();
            let res = http.put(url).json(&body).send().await.expect("share");
            latencies.push(started.elapsed());
            // 200: already shared (a board started from a copy).
            assert!(
                matches!(res.status().as_u16(), 200 | 201),
                "{}",
                res.status()
            );
        }
    }
    if !latencies.is_empty() {
        latencies.sort();
        let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
        eprintln!(
            "{} shares PUT one at a time: p50 {:?}, p99 {:?}, max {:?}",
            latencies.len(),
            at(0.5),
            at(0.99),
            latencies[latencies.len() - 1]
        );
    }
}

/// Posts on the board of B1 and B5: `BENCH_POSTS`, else 200.
fn board_posts() -> usize {
    std::env::var("BENCH_POSTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

/// Waits (at most ten minutes: a service under callgrind embeds slowly)
/// until every post has its vector: the views are of stored posts, and no
/// embedding runs beside the measured requests.
async fn embedded(http: &reqwest::Client, svc: &Service) {
    for _ in 0..6000 {
        let metrics = match http.get(svc.url("/metrics")).send().await {
            Ok(res) => res.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        if metrics
            .lines()
            .any(|l| l == "linkup_posts_embedding_backlog 0")
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the seeded posts were not embedded");
}

/// Latencies of `total` requests, `concurrency` at a time, and their bodies.
async fn drive(
    http: &reqwest::Client,
    svc: &Service,
    concurrency: usize,
    total: usize,
) -> (Vec<Duration>, Vec<Value>, Duration) {
    let url = Arc::new(svc.url("/api/suggestions"));
    let started = Instant::now();
    let results: Vec<(Duration, Value)> = futures::stream::iter(0..total)
        .map(|i| {
            let (http, url) = (http.clone(), url.clone());
            async move {
                let t = Instant::now();
                let body = json!({"postId": format!("q-{i}"), "text": "How do I set up a deployment pipeline for our team's repo?", "tags": ["devops"]});
                let res = http.post(url.as_str()).bearer_auth(TOKEN).json(&body).send().await;
                let value = match res {
                    Ok(r) => r.json::<Value>().await.unwrap_or(Value::Null),
                    Err(_) => Value::Null,
                };
                (t.elapsed(), value)
            }
        })
        .buffer_unordered(concurrency)
        .collect()
        .await;
    let wall = started.elapsed();
    let (lat, bodies) = results.into_iter().unzip();
    (lat, bodies, wall)
}

/// Streams `n` requests one at a time (`Accept: application/x-ndjson`):
/// how long each took to its `preview` event.
async fn preview_times(http: &reqwest::Client, svc: &Service, n: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let body = json!({"postId": format!("s-{i}"), "text": "How do I set up a deployment pipeline for our team's repo?", "tags": ["devops"]});
        let t = Instant::now();
        let mut res = http
            .post(svc.url("/api/suggestions"))
            .bearer_auth(TOKEN)
            .header("accept", "application/x-ndjson")
            .json(&body)
            .send()
            .await
            .expect("stream");
        let mut seen = Vec::new();
        while let Ok(Some(chunk)) = res.chunk().await {
            seen.extend_from_slice(&chunk);
            if seen.windows(16).any(|w| w == b"\"type\":\"preview\"") {
                times.push(t.elapsed());
                break;
            }
        }
        // The rest of the stream, so the next request starts alone.
        while let Ok(Some(_)) = res.chunk().await {}
    }
    times
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

struct Row {
    id: &'static str,
    scenario: String,
    figures: String,
}

/// One throughput measurement: after a warm-up of a tenth, `n` requests 64 at a time.
struct Throughput {
    req_per_s: f64,
    p50_ms: f64,
    p99_ms: f64,
    cpu_ms_per_req: f64,
    /// Responses with m365 results.
    ok: usize,
    /// `meta.path` of the first response.
    path: String,
}

impl Throughput {
    fn figures(&self) -> String {
        format!(
            "{:.0} req/s, p50 {:.1} ms, p99 {:.1} ms, service CPU {:.3} ms/req",
            self.req_per_s, self.p50_ms, self.p99_ms, self.cpu_ms_per_req
        )
    }
}

async fn measure(svc: &Service, http: &reqwest::Client, n: usize) -> Throughput {
    drive(http, svc, 64, n / 10).await; // warm-up
    let cpu0 = svc.cpu_ms();
    let (mut lat, bodies, wall) = drive(http, svc, 64, n).await;
    let cpu = svc.cpu_ms() - cpu0;
    lat.sort();
    let ok = bodies
        .iter()
        .filter(|b| b["m365"].as_array().is_some_and(|a| !a.is_empty()))
        .count();
    let path = bodies
        .first()
        .and_then(|b| b["meta"]["path"].as_str())
        .unwrap_or("?")
        .to_owned();
    Throughput {
        req_per_s: n as f64 / wall.as_secs_f64(),
        p50_ms: pct(&lat, 0.5),
        p99_ms: pct(&lat, 0.99),
        cpu_ms_per_req: cpu / n as f64,
        ok,
        path,
    }
}

async fn throughput(
    id: &'static str,
    label: &str,
    svc: &Service,
    http: &reqwest::Client,
    n: usize,
) -> Row {
    let t = measure(svc, http, n).await;
    Row {
        id,
        scenario: format!(
            "{label}, 64 concurrent, {n} requests (path {}, {}/{n} with m365 results)",
            t.path, t.ok
        ),
        figures: t.figures(),
    }
}

async fn b1(http: &reqwest::Client, n: usize) -> Row {
    let (graph, openai) = fakes().await;
    openai.chat_by_round(one_round());
    let mut env = llm_env(&graph, &openai);
    let _identity = keyless(&mut env, &openai).await;
    let svc = Service::start(&env);
    seed_posts(http, &svc, board_posts()).await;
    throughput(
        "B1",
        "agent, pre-retrieval and one model call, fakes answer at once",
        &svc,
        http,
        n,
    )
    .await
}

async fn b2(http: &reqwest::Client, n: usize, alone: usize) -> Row {
    let (graph, openai) = fakes().await;
    openai.chat_by_round(one_round());
    openai.latency(Duration::from_millis(300), Duration::from_millis(30));
    graph.files(Behavior::Delay(Duration::from_millis(150)));
    graph.mail(Behavior::Delay(Duration::from_millis(150)));
    let svc = Service::start(&llm_env(&graph, &openai));
    seed_posts(http, &svc, 200).await;
    drive(http, &svc, 64, 64).await;
    // Pre-retrieval (Graph 150, beside the posts search's 30 ms embedding)
    // + the one model call (300): its results hold what the model looks for.
    let critical = 450.0;
    let p50_over = |lat: &mut Vec<Duration>| {
        lat.sort();
        pct(lat, 0.5) - critical
    };
    // One at a time: what the service adds with nothing else competing for the
    // CPU. The fakes' timers sleep a little longer than asked (1 ms ticks plus
    // wake-up); that is the fakes' time, measured inside them, not the service's.
    let (chat0, graph0) = (openai.chat_oversleep(), graph.oversleep());
    let (mut single, _, _) = drive(http, &svc, 1, alone).await;
    let (chat1, graph1) = (openai.chat_oversleep(), graph.oversleep());
    // Per request: every chat answer is on the critical path; one of the parallel Graph calls.
    let oversleep_ms = ((chat1.total - chat0.total).as_secs_f64() / alone as f64
        + (graph1.total - graph0.total).as_secs_f64()
            / (graph1.delays - graph0.delays).max(1) as f64)
        * 1000.0;
    let mut preview = preview_times(http, &svc, alone).await;
    preview.sort();
    let (mut lat, _, _) = drive(http, &svc, 64, n).await;
    let over = p50_over(&mut lat);
    let single_over = p50_over(&mut single);
    Row {
        id: "B2",
        scenario: format!(
            "agent, chat 300 ms, Graph 150 ms, embeddings 30 ms, 64 concurrent, {n} requests"
        ),
        figures: format!(
            "p50 {:.1} ms − critical path {critical} ms = {over:.1} ms (p99 {:.1} ms); one at a time ({alone} requests): {single_over:.1} ms, of which the fakes' timers slept {oversleep_ms:.1} ms past their latencies → service {:.1} ms; streamed one at a time, the preview after p50 {:.1} ms (Graph 150 ms)",
            pct(&lat, 0.5),
            pct(&lat, 0.99),
            single_over - oversleep_ms,
            pct(&preview, 0.5),
        ),
    }
}

/// Requests in flight in the soak B3c imitates (B11's).
const SOAK_CONCURRENCY: usize = 32;

/// What stalls in a B3 scenario, so that the deadline has to answer.
#[derive(Clone, Copy)]
enum Stall {
    /// The LLM hangs (B3).
    Llm,
    /// The LLM and Graph hang: every run is cut by the deadline (B3b).
    LlmAndGraph,
    /// The agent runs, but every query embedding takes 2.5 s: the posts
    /// search is still waiting when the deadline cuts the run (B3c).
    Embeddings,
}

async fn b3(http: &reqwest::Client, n: usize, stall: Stall) -> Row {
    let (graph, openai) = fakes().await;
    match stall {
        Stall::Llm => openai.chat_by_round(vec![ChatStep::Hang]),
        Stall::LlmAndGraph => {
            openai.chat_by_round(vec![ChatStep::Hang]);
            graph.files(Behavior::Hang);
            graph.mail(Behavior::Hang);
        }
        Stall::Embeddings => {
            openai.chat_by_round(two_rounds());
            openai.embeddings(EmbedBehavior::Slow(Duration::from_millis(2500)));
        }
    }
    let mut env = llm_env(&graph, &openai);
    env.push(("LINKUP__AGENT__TIMEOUT_MS", "2000".into()));
    let svc = Service::start(&env);
    seed_posts(http, &svc, 200).await;
    // B3c at the concurrency of a soak (a batch of runs cut together);
    // B3 and B3b all at once.
    let concurrency = match stall {
        Stall::Embeddings => SOAK_CONCURRENCY.min(n),
        _ => n,
    };
    let (mut lat, bodies, _) = drive(http, &svc, concurrency, n).await;
    lat.sort();
    let over: Vec<f64> = lat
        .iter()
        .map(|d| d.as_secs_f64() * 1000.0 - 2000.0)
        .collect();
    // The service's own view: meta.elapsedMs counts from when the handler got
    // the request (the client's figure adds connection set-up and queueing).
    let mut inside: Vec<f64> = bodies
        .iter()
        .filter_map(|b| b["meta"]["elapsedMs"].as_f64())
        .map(|ms| ms - 2000.0)
        .collect();
    inside.sort_by(f64::total_cmp);
    let with_results = bodies
        .iter()
        .filter(|b| b["posts"].as_array().is_some_and(|a| !a.is_empty()))
        .count();
    let path = bodies
        .first()
        .and_then(|b| b["meta"]["path"].as_str())
        .unwrap_or("?")
        .to_owned();
    let (id, what) = match stall {
        Stall::Llm => ("B3", "LLM hangs"),
        Stall::LlmAndGraph => ("B3b", "LLM and Graph hang"),
        Stall::Embeddings => ("B3c", "query embeddings 2.5 s late"),
    };
    Row {
        id,
        scenario: format!(
            "{what}, timeout_ms 2000, {n} requests, {concurrency} concurrent (path {path})"
        ),
        figures: format!(
            "response − deadline: max {:+.1} ms, p99 {:+.1} ms, p50 {:+.1} ms; in the service (elapsedMs − deadline): max {:+.0} ms, p99 {:+.0} ms; {}/{n} answered with results",
            over.last().copied().unwrap_or(f64::NAN),
            over[((over.len() as f64 - 1.0) * 0.99) as usize],
            over[over.len() / 2],
            inside.last().copied().unwrap_or(f64::NAN),
            inside
                .get(((inside.len() as f64 - 1.0) * 0.99) as usize)
                .copied()
                .unwrap_or(f64::NAN),
            with_results
        ),
    }
}

async fn b4(http: &reqwest::Client, n: usize) -> Row {
    let (graph, openai) = fakes().await;
    openai.chat_by_round(two_rounds());
    openai.latency(Duration::from_secs(2), Duration::ZERO);
    let mut env = llm_env(&graph, &openai);
    if let Ok(v) = std::env::var("BENCH_MALLOC_ARENA_MAX") {
        env.push(("MALLOC_ARENA_MAX", v));
    }
    let svc = Service::start(&env);
    seed_posts(http, &svc, 200).await;
    let idle = svc.peak_rss_mb();
    // Resident while every request waits on its first model call: steady for
    // over a second, so it compares builds within ~1 MB, where the peak (the
    // instant all n run their tools together) moves by ±25 MB run to run.
    let waiting = async {
        let all_waiting = async {
            while openai.chat_waiting() < n {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(10), all_waiting)
            .await
            .ok()?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        (openai.chat_waiting() == n).then(|| svc.rss_mb())
    };
    let (_, waiting) = tokio::join!(drive(http, &svc, n, n), waiting);
    let waiting = waiting.map_or_else(|| "not all at once".to_owned(), |mb| format!("{mb:.1} MiB"));
    Row {
        id: "B4",
        scenario: format!("{n} requests in flight, chat latency 2 s"),
        figures: format!(
            "peak RSS {:.1} MiB; all {n} waiting on the model {waiting} (idle {:.1} MiB)",
            svc.peak_rss_mb(),
            idle
        ),
    }
}

/// B4 on the fallback path (issue 34 §2: what a fallback run holds against
/// an agent run): `n` requests in flight without a model, every Graph
/// search answering after 2 s.
async fn b13(http: &reqwest::Client, n: usize) -> Row {
    let (graph, _openai) = fakes().await;
    graph.files(Behavior::Delay(Duration::from_secs(2)));
    graph.mail(Behavior::Delay(Duration::from_secs(2)));
    let svc = Service::start(&[("LINKUP__MSGRAPH__BASE_URL", graph.url())]);
    seed_posts(http, &svc, 200).await;
    let idle = svc.peak_rss_mb();
    let (_, bodies, wall) = drive(http, &svc, n, n).await;
    let fallback = bodies
        .iter()
        .filter(|b| b["meta"]["path"] == "fallback")
        .count();
    Row {
        id: "B13",
        scenario: format!("{n} fallback requests in flight (no LLM), Graph latency 2 s"),
        figures: format!(
            "peak RSS {:.1} MiB (idle {idle:.1} MiB); {fallback}/{n} fallback panels in {:.1} s; Graph requests in flight at most {}",
            svc.peak_rss_mb(),
            wall.as_secs_f64(),
            graph.max_in_flight(),
        ),
    }
}

async fn b5(http: &reqwest::Client, n: usize) -> Row {
    let (graph, _openai) = fakes().await;
    let svc = Service::start(&[("LINKUP__MSGRAPH__BASE_URL", graph.url())]);
    seed_posts(http, &svc, board_posts()).await;
    throughput(
        "B5",
        "fallback (no LLM), fakes answer at once",
        &svc,
        http,
        n,
    )
    .await
}

/// B7's Microsoft 365 corpus: ten documents the two queries of B1's script
/// find together (with overlap), with descriptions of realistic length.
fn b7_corpus() -> Vec<Doc> {
    let about = [
        (
            "Deployment pipeline runbook",
            "How our deployment pipeline builds, tests and ships every service: stages, approvals, rollbacks and who to call when a deployment is stuck in the release stage.",
        ),
        (
            "CI/CD onboarding guide",
            "Continuous integration and deployment for every repo: the shared GitHub Actions workflows, required checks, the release branch model and how to add a new service to the pipeline.",
        ),
        (
            "Release process",
            "The release process and the deployment checklist: freeze windows, change approval, the release calendar, and the CI/CD gates a release must pass before production.",
        ),
        (
            "Pipeline secrets and credentials",
            "Where the deployment pipeline keeps its secrets, how to rotate them, and why no credential may be stored in a repository or in a build log.",
        ),
        (
            "Blue-green deployment pattern",
            "How two production environments let a deployment switch traffic at once and roll back in seconds; which services use it and how the pipeline drives it.",
        ),
        (
            "Deployment pipeline metrics",
            "Lead time, deployment frequency, change failure rate and time to restore for each team, taken from the pipeline every week, with the targets for this year.",
        ),
        (
            "Rollback playbook",
            "What to do when a release goes wrong: stop the deployment pipeline, roll back to the last good build, inform the on-call channel and write the incident note.",
        ),
        (
            "CI/CD release notes template",
            "The template for release notes produced by the CI/CD pipeline: what changed, who approved it, which tickets it closes and how to roll it back.",
        ),
    ];
    let mut docs: Vec<Doc> = about
        .iter()
        .enumerate()
        .map(|(i, (title, body))| {
            Doc::file(
                title,
                &format!("https://contoso.sharepoint.com/sites/dev/Shared%20Documents/b7-{i}.docx"),
                body,
            )
        })
        .collect();
    docs.push(Doc::mail(
        "Deployment pipeline freeze next week",
        "https://outlook.office365.com/owa/?ItemID=AAMkB7a",
        "Hi all, the deployment pipeline is frozen from Monday to Wednesday for the data centre move; releases planned for those days move to Thursday. Questions to the platform team.",
    ));
    docs.push(Doc::mail(
        "CI/CD release checklist updated",
        "https://outlook.office365.com/owa/?ItemID=AAMkB7b",
        "The CI/CD release checklist now asks for a rollback plan and a named approver; please read it before your next release and tell us what is unclear.",
    ));
    docs
}

/// B7's posts: five earlier posts of realistic length about the same need.
async fn b7_posts(http: &reqwest::Client, svc: &Service) {
    let texts = [
        "We set up our repo's deployment pipeline with GitHub Actions last quarter: build, test, deploy to staging on every merge, and a manual approval for production. Happy to show anyone how the workflow files are organised.",
        "Does anyone have a template for a repo's deployment pipeline? Our team is moving off the old Jenkins server and we would like to copy what works for the other teams rather than start from scratch.",
        "Tip: the platform team reviews the deployment pipeline of a new repo on Thursdays. Bring your workflow file and your rollback plan; it took us twenty minutes and we found two missing checks.",
        "The deployment pipeline of our biggest repo kept failing on flaky integration tests. We split them into a separate stage with retries and deploys are green again. Write-up in the team channel.",
        "Who owns the shared runners of the deployment pipeline? Jobs for our repo wait ten minutes in the queue every morning and we would like to know whether we can add capacity.",
    ];
    let posts: Vec<Value> = texts
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"id": format!("b7-{i}"), "authorId": "u", "authorName": "Kim",
            "text": text, "tags": ["devops", "ci"], "category": "question",
            "lat": 37.5, "lng": 127.0, "createdAt": "2026-11-01T00:00:00Z", "expiresAt": "2099-01-01T00:00:00Z"}))
        .collect();
    post_batch(http, svc, posts).await;
}

async fn b7(http: &reqwest::Client) -> Row {
    let one = b7_view(http, answer_at_once()).await;
    let two = b7_view(http, two_rounds()).await;
    Row {
        id: "B7",
        scenario: "one agent request (10 M365 documents and 5 posts in the corpus): answered from pre-retrieval's results; and with a second round of the model's searches (B1's old script)".into(),
        figures: format!("one call: {one}. Two calls: {two}"),
    }
}

/// One request of B7 with the model scripted by round: what it sends.
async fn b7_view(http: &reqwest::Client, script: Vec<ChatStep>) -> String {
    let graph = FakeGraph::start().await;
    graph.add(b7_corpus());
    let recording = FakeOpenAi::start().await;
    recording.chat_by_round(script);
    let svc = Service::start(&llm_env(&graph, &recording));
    b7_posts(http, &svc).await;
    tokio::time::sleep(Duration::from_millis(500)).await; // seeding's embeddings
    let before = recording.received().len();
    drive(http, &svc, 1, 1).await;
    let received: Vec<_> = recording.received().into_iter().skip(before).collect();
    let chats: Vec<_> = received
        .iter()
        .filter(|r| r.path.ends_with("chat/completions"))
        .collect();
    let sent: usize = chats.iter().map(|r| r.bytes_in).sum();
    let embeds = received.len() - chats.len();
    let first_results = |m: &Value| {
        m["content"]
            .as_str()
            .is_some_and(|c| c.starts_with("Results of a first search"))
    };
    // What each call carries, by part (bytes of its JSON).
    let part = |body: &Value, pick: &dyn Fn(&Value) -> bool| -> usize {
        body["messages"]
            .as_array()
            .map(|ms| {
                ms.iter()
                    .filter(|m| pick(m))
                    .map(|m| m.to_string().len())
                    .sum()
            })
            .unwrap_or(0)
    };
    let per_call: Vec<String> = chats
        .iter()
        .map(|r| {
            format!(
                "{} B (system {}, post {}, first results {}, tool calls {}, results {}, tools {}, schema {})",
                r.bytes_in,
                part(&r.body, &|m| m["role"] == "system"),
                part(&r.body, &|m| m["role"] == "user" && !first_results(m)),
                part(&r.body, &first_results),
                part(&r.body, &|m| m["role"] == "assistant"),
                part(&r.body, &|m| m["role"] == "tool"),
                r.body["tools"].to_string().len(),
                r.body["response_format"].to_string().len(),
            )
        })
        .collect();
    // Results the model read in full (one line each, by ref).
    let refs = |prefix: &str| -> usize {
        chats.last().map_or(0, |r| {
            r.body["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| m["role"] == "tool" || first_results(m))
                .filter_map(|m| m["content"].as_str())
                .flat_map(str::lines)
                .filter(|l| l.starts_with(prefix) && !l.ends_with("(listed above)"))
                .count()
        })
    };
    format!(
        "{} chat calls, {} embedding calls, {} M365 results and {} posts read by the model, **{} bytes sent to chat** ({}), {} bytes received",
        chats.len(),
        embeds,
        refs("m"),
        refs("p"),
        sent,
        per_call.join("; "),
        recording.chat_bytes_out(),
    )
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--bench"))
        .collect();
    let quick = args.iter().any(|a| a == "--quick");
    let only: Vec<&str> = args
        .iter()
        .filter(|a| a.starts_with('B'))
        .map(String::as_str)
        .collect();
    let want = |id: &str| only.is_empty() || only.contains(&id);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let rows = runtime.block_on(async {
        let _ = linkup_suggestions::upstream::http_client();
        let http = reqwest::Client::builder()
            .no_proxy()
            .pool_max_idle_per_host(2048)
            .build()
            .expect("client");
        let (n, big) = if quick { (200, 100) } else { (2000, 1000) };
        // BENCH_REQUESTS: B1/B5's request count (e.g. for instruction counts
        // under callgrind, from the difference of two counts).
        let n = std::env::var("BENCH_REQUESTS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(n);
        let mut rows = Vec::new();
        if want("B1") {
            rows.push(b1(&http, n).await);
        }
        if want("B2") {
            rows.push(
                b2(
                    &http,
                    if quick { 64 } else { 640 },
                    if quick { 2 } else { 20 },
                )
                .await,
            );
        }
        if want("B3") {
            for stall in [Stall::Llm, Stall::LlmAndGraph, Stall::Embeddings] {
                rows.push(b3(&http, big, stall).await);
            }
        }
        if want("B4") {
            rows.push(b4(&http, big).await);
        }
        if want("B5") {
            rows.push(b5(&http, n).await);
        }
        if want("B6") {
            rows.extend(index::b6(quick).await);
        }
        // B6 with the multilingual model (its rows alone: `B6M`).
        if want("B6") || want("B6M") {
            let (n, embed) = if quick { (2_000, 20) } else { (100_000, 300) };
            rows.extend(index_local::one_size(n, embed).await);
        }
        if want("B7") {
            rows.push(b7(&http).await);
        }
        if want("B8") {
            rows.push(mcp::b8(if quick { 200 } else { 2000 }).await);
        }
        if want("B9") {
            rows.extend(hostile::b9(&http, if quick { 40 } else { 400 }).await);
        }
        if want("B11") {
            rows.push(hostile::b11(&http, if quick { 300 } else { 10_000 }, !quick).await);
        }
        if want("B10") {
            rows.push(slow_clients::b10(&http, n).await);
        }
        if want("B13") {
            rows.push(b13(&http, big).await);
        }
        if want("B14") {
            rows.extend(overload::b14(quick).await);
        }
        if want("B15") {
            rows.extend(replay::b15(quick).await);
        }
        if want("B12") {
            rows.extend(embedder::b12(quick, false));
        }
        // The model read from its directory instead; alone in its process,
        // for its resident memory (`-- B12-dir`).
        if only.contains(&"B12-dir") {
            rows.extend(embedder::b12(quick, true));
        }
        rows
    });
    println!("\n| id | scenario | figures |\n|---|---|---|");
    for r in rows {
        println!("| {} | {} | {} |", r.id, r.scenario, r.figures);
    }
}

mod embedder;
mod hostile;
mod index;
mod index_local;
mod mcp;
mod overload;
mod replay;
mod slow_clients;
