//! B15: repeat views (issue 36 §7). A board read as people read it: views of
//! 2,000 posts by 300 users (each a Graph token of their own), posts drawn by
//! Zipf (s = 1.1), a user reopening a post they saw in the last ten minutes
//! of views with probability 0.3, 32 views at a time; the same sequence with
//! the panel cache and without it, each on fresh services, chat 50 ms,
//! Graph 20 ms: on one SQLite replica; then on two PostgreSQL replicas
//! taking the views in turn (round-robin), with the shared tier
//! (`cache.shared`), with memory only, and without the cache.
//!
//! Per run: chat calls, Graph requests and embedding calls per view (the
//! service's own metrics), the hit ratio against the share of views that
//! repeat a (user, post) seen before (all a per-caller cache can answer: the
//! replay is shorter than the TTL), p50/p99 at the client of hits and of
//! misses, and peak RSS (of the larger replica). `BENCH_REPLAY_VIEWS`
//! changes the number of views; `--quick` runs one replica with and without
//! the cache and two with the shared tier.

use std::{
    collections::HashMap,
    sync::Arc,
    time::{Duration, Instant},
};

use futures::StreamExt;
use serde_json::{Value, json};

use super::{Row, Service, fakes, llm_env, one_round, pct, seed_posts};
use crate::support::{
    graph::{Behavior, engineering_corpus},
    postgres::PgServer,
};

const POSTS: usize = 2_000;
const USERS: usize = 300;
const CONCURRENCY: usize = 32;
/// Ten minutes of a busy board (~170 views a minute).
const RECENT: usize = 1_700;

/// One view: who opens which post.
#[derive(Clone, Copy)]
struct View {
    user: usize,
    post: usize,
}

/// Where the views go.
#[derive(Clone, Copy)]
struct Setup {
    /// Two PostgreSQL replicas in turn, else one on SQLite.
    replicas: usize,
    cached: bool,
    shared: bool,
}

impl Setup {
    fn name(self) -> &'static str {
        match (self.replicas, self.cached, self.shared) {
            (1, true, _) => "one SQLite replica, panel cache on",
            (1, false, _) => "one SQLite replica, panel cache off",
            (_, true, true) => "two PostgreSQL replicas round-robin, panel cache on, shared tier",
            (_, true, false) => "two PostgreSQL replicas round-robin, panel cache on, memory only",
            (_, false, _) => "two PostgreSQL replicas round-robin, panel cache off",
        }
    }
}

pub async fn b15(quick: bool) -> Vec<Row> {
    let views = std::env::var("BENCH_REPLAY_VIEWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 300 } else { 20_000 });
    let sequence = sequence(views);
    let repeats = repeat_share(&sequence);
    let setup = |replicas, cached, shared| Setup {
        replicas,
        cached,
        shared,
    };
    let mut setups = vec![
        setup(1, true, false),
        setup(1, false, false),
        setup(2, true, true),
    ];
    if !quick {
        setups.extend([setup(2, true, false), setup(2, false, false)]);
    }
    let mut rows = Vec::new();
    for setup in setups {
        rows.push(replay(&sequence, repeats, setup).await);
    }
    rows
}

/// The views, from a fixed seed: a user at random; with probability 0.3 a
/// post they opened in the last [`RECENT`] views, else a post by Zipf.
fn sequence(n: usize) -> Vec<View> {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let weights: Vec<f64> = (1..=POSTS).map(|k| 1.0 / (k as f64).powf(1.1)).collect();
    let total: f64 = weights.iter().sum();
    let mut cumulative = Vec::with_capacity(POSTS);
    let mut sum = 0.0;
    for w in weights {
        sum += w / total;
        cumulative.push(sum);
    }
    let mut seen: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    let mut views = Vec::with_capacity(n);
    for i in 0..n {
        let user = rng.below(USERS);
        let recent: Vec<usize> = seen
            .get(&user)
            .map(|s| {
                s.iter()
                    .filter(|(at, _)| i - at <= RECENT)
                    .map(|(_, p)| *p)
                    .collect()
            })
            .unwrap_or_default();
        let post = if !recent.is_empty() && rng.unit() < 0.3 {
            recent[rng.below(recent.len())]
        } else {
            let u = rng.unit();
            cumulative.partition_point(|c| *c < u).min(POSTS - 1)
        };
        seen.entry(user).or_default().push((i, post));
        views.push(View { user, post });
    }
    views
}

/// The share of views that repeat a (user, post) seen earlier in the replay.
fn repeat_share(views: &[View]) -> f64 {
    let mut seen = std::collections::HashSet::new();
    let repeats = views
        .iter()
        .filter(|v| !seen.insert((v.user, v.post)))
        .count();
    repeats as f64 / views.len() as f64
}

async fn replay(sequence: &[View], repeats: f64, setup: Setup) -> Row {
    let (graph, openai) = fakes().await;
    openai.chat_by_round(one_round());
    openai.latency(Duration::from_millis(50), Duration::from_millis(5));
    graph.files(Behavior::Delay(Duration::from_millis(20)));
    graph.mail(Behavior::Delay(Duration::from_millis(20)));
    let tokens: Vec<String> = (0..USERS).map(|u| format!("user-token-{u}")).collect();
    for token in &tokens {
        graph.add_for(token, engineering_corpus());
    }
    let mut env = llm_env(&graph, &openai);
    env.push(("LINKUP__CACHE__ENABLED", setup.cached.to_string()));
    let http = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(CONCURRENCY * 2)
        .build()
        .expect("client");
    let (_pg, services) = start(setup, env, &http).await;
    let mut before = [0.0; 3];
    for svc in &services {
        add(&mut before, counts(&http, svc).await);
    }
    let urls: Arc<Vec<String>> =
        Arc::new(services.iter().map(|s| s.url("/api/suggestions")).collect());
    let tokens = Arc::new(tokens);
    let started = Instant::now();
    let results: Vec<(bool, Duration, bool)> =
        futures::stream::iter(sequence.iter().copied().enumerate())
            .map(|(i, v)| {
                let (http, tokens) = (http.clone(), tokens.clone());
                let url = urls.clone();
                async move {
                    let url = &url[i % url.len()];
                    let t = Instant::now();
                    let body = json!({
                        "postId": format!("seed-{}", v.post),
                        "text": format!("Views of post {} on the board", v.post),
                    });
                    let response = http
                        .post(url.as_str())
                        .bearer_auth(&tokens[v.user])
                        .json(&body)
                        .send()
                        .await;
                    let ok = response.as_ref().is_ok_and(|r| r.status() == 200);
                    let value: Value = match response {
                        Ok(r) => r.json().await.unwrap_or_default(),
                        Err(_) => Value::Null,
                    };
                    (ok, t.elapsed(), value["meta"]["cached"] == true)
                }
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
    let wall = started.elapsed();
    let mut after = [0.0; 3];
    for svc in &services {
        add(&mut after, counts(&http, svc).await);
    }
    let peak_rss = services
        .iter()
        .map(Service::peak_rss_mb)
        .fold(0.0, f64::max);
    let n = results.len() as f64;
    let failed = results.iter().filter(|(ok, ..)| !ok).count();
    let (mut hits, mut misses): (Vec<Duration>, Vec<Duration>) = (Vec::new(), Vec::new());
    for (_, latency, hit) in &results {
        if *hit {
            hits.push(*latency);
        } else {
            misses.push(*latency);
        }
    }
    hits.sort();
    misses.sort();
    let per_view = |i: usize| (after[i] - before[i]) / n;
    let hit_ratio = hits.len() as f64 / n;
    let ms = |lat: &[Duration], q: f64| if lat.is_empty() { 0.0 } else { pct(lat, q) };
    Row {
        id: "B15",
        scenario: format!(
            "{} views of {POSTS} posts by {USERS} users (Zipf 1.1, reopen 0.3), {CONCURRENCY} at a time, {}",
            sequence.len(),
            setup.name()
        ),
        figures: format!(
            "per view: {:.3} chat calls, {:.3} Graph requests, {:.3} embedding calls; hit ratio {:.3} (repeat share {:.3}: {:.2} of it); hits p50 {:.2} ms p99 {:.2} ms; misses p50 {:.1} ms p99 {:.1} ms; {failed} not 200; {:.0} views/s; peak RSS {:.0} MiB",
            per_view(0),
            per_view(1),
            per_view(2),
            hit_ratio,
            repeats,
            if repeats > 0.0 {
                hit_ratio / repeats
            } else {
                0.0
            },
            ms(&hits, 0.5),
            ms(&hits, 0.99),
            ms(&misses, 0.5),
            ms(&misses, 0.99),
            n / wall.as_secs_f64(),
            peak_rss,
        ),
    }
}

/// The replicas `setup` names with `env`, their posts seeded (on
/// PostgreSQL: through the first, and seen by the second), and the database
/// they share, if any.
async fn start(
    setup: Setup,
    mut env: Vec<(&'static str, String)>,
    http: &reqwest::Client,
) -> (Option<PgServer>, Vec<Service>) {
    if setup.replicas == 1 {
        let svc = Service::start(&env);
        seed_posts(http, &svc, POSTS).await;
        return (None, vec![svc]);
    }
    let pg = tokio::task::spawn_blocking(PgServer::start)
        .await
        .expect("pg");
    pg.create_db("replay");
    env.push(("LINKUP__POSTS__BACKEND", "postgres".to_owned()));
    env.push(("LINKUP__POSTS__DATABASE_URL", pg.url("replay")));
    env.push(("LINKUP__CACHE__SHARED", setup.shared.to_string()));
    let services: Vec<Service> = (0..setup.replicas).map(|_| Service::start(&env)).collect();
    seed_posts(http, &services[0], POSTS).await;
    let last = format!("/api/posts/seed-{}", POSTS - 1);
    for svc in &services[1..] {
        let seen = Instant::now();
        while http
            .get(svc.url(&last))
            .send()
            .await
            .map_or(true, |r| r.status() != 200)
        {
            assert!(
                seen.elapsed() < Duration::from_secs(60),
                "the replica follows"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    (Some(pg), services)
}

fn add(sum: &mut [f64; 3], counts: [f64; 3]) {
    for (s, c) in sum.iter_mut().zip(counts) {
        *s += c;
    }
}

/// Chat calls, Graph requests and embedding calls so far, from `/metrics`.
async fn counts(http: &reqwest::Client, svc: &Service) -> [f64; 3] {
    let text = http
        .get(svc.url("/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .unwrap_or_default();
    let sum = |prefix: &str| -> f64 {
        text.lines()
            .filter(|l| l.starts_with(prefix))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    [
        sum("linkup_llm_calls_total{op=\"chat\""),
        sum("linkup_graph_calls_total{"),
        sum("linkup_llm_calls_total{op=\"embeddings\""),
    ]
}

/// A small deterministic generator (xorshift64*): the same views every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
