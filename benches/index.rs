//! B6: the post index on its own (in this process): ingest rate, search
//! latency with vectors, and start-up time at 10k and 100k posts; with
//! SQLite, and with PostgreSQL (a throwaway server; two replicas in this
//! process, for the propagation delay from one to the other).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use linkup_suggestions::{
    contract::PostSummary,
    llm::AzureOpenAi,
    posts::{Admit, PostIndex, Within},
    store::Store,
    upstream::Upstreams,
};

use super::{
    Row, pct,
    support::{FakeOpenAi, deps, openai::API_KEY, postgres::PgServer},
};

const WORDS: &[&str] = &[
    "deployment",
    "pipeline",
    "kubernetes",
    "lunch",
    "carpool",
    "release",
    "budget",
    "hiring",
    "laptop",
    "vpn",
    "onboarding",
    "security",
    "database",
    "backup",
    "meeting",
    "room",
    "parking",
    "badge",
    "travel",
    "expense",
    "training",
    "python",
    "rust",
    "design",
    "review",
    "incident",
    "oncall",
    "monitoring",
    "alert",
    "dashboard",
];

fn post(i: usize) -> PostSummary {
    let w = |k: usize| WORDS[(i * 7 + k * 13 + i / 31) % WORDS.len()];
    let text = format!(
        "Question {i} about {} and {} for the {} team near {}",
        w(0),
        w(1),
        w(2),
        w(3)
    );
    PostSummary {
        tags: vec![w(4).to_owned()],
        lat: 37.5,
        lng: 127.0,
        ..PostSummary::example(&format!("bench-{i}"), &text)
    }
}

async fn open(dir: &std::path::Path, openai: &FakeOpenAi) -> PostIndex {
    open_with(dir, openai, None).await
}

/// The index on SQLite in `dir`, or on the PostgreSQL database at `pg`.
async fn open_with(dir: &std::path::Path, openai: &FakeOpenAi, pg: Option<&str>) -> PostIndex {
    let mut env = vec![
        ("AZURE_OPENAI_ENDPOINT", openai.url()),
        ("AZURE_OPENAI_API_KEY", API_KEY.to_owned()),
    ];
    if let Some(url) = pg {
        env.push(("LINKUP__POSTS__BACKEND", "postgres".into()));
        env.push(("LINKUP__POSTS__DATABASE_URL", url.into()));
    }
    open_settings(&deps::settings(dir, &env)).await.0
}

/// The index `settings` configure, its store, and its vectors' model id.
pub(super) async fn open_settings(
    settings: &linkup_suggestions::settings::Settings,
) -> (PostIndex, Arc<dyn Store>, Option<String>) {
    let llm = AzureOpenAi::new(
        Upstreams::new(settings).expect("clients").azure,
        &settings.azure_openai,
    );
    let ranker = PostIndex::ranker(&settings.posts, &llm)
        .await
        .expect("the ranking");
    let model = ranker.index().vector_model();
    let store = linkup_suggestions::store::open(&settings.posts, ranker.index(), None)
        .await
        .expect("the store opens");
    (PostIndex::new(ranker, store.clone()), store, model)
}

async fn one_size(n: usize) -> Vec<Row> {
    let openai = FakeOpenAi::start().await;
    openai.stop_recording();
    let dir = tempfile::tempdir().expect("dir");
    let index = open(dir.path(), &openai).await;
    let started = Instant::now();
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        index
            .upsert(chunk.iter().map(|i| post(*i)).collect())
            .await
            .expect("upsert");
    }
    let ingest = started.elapsed();
    let embedded = Instant::now();
    while index.embed_pending().await > 0 {}
    let embed = embedded.elapsed();

    let mut lat = Vec::new();
    for q in 0..500 {
        let query = format!(
            "{} {} help",
            WORDS[q % WORDS.len()],
            WORDS[(q * 7) % WORDS.len()]
        );
        let t = Instant::now();
        let found = index
            .search(
                &query,
                &["bench-0".to_owned()],
                5,
                Within::default(),
                Admit::Related,
            )
            .await
            .expect("search");
        lat.push(t.elapsed());
        assert!(!found.lexical_only);
    }
    lat.sort();
    drop(index);
    let t = Instant::now();
    let _reopened = open(dir.path(), &openai).await;
    let ready = t.elapsed();
    vec![Row {
        id: "B6",
        scenario: format!("post index, {n} posts with 256-d vectors"),
        figures: format!(
            "search p50 {:.2} ms, p99 {:.2} ms (incl. the query's embedding call); ingest {:.0} posts/s (+ embedding {:.0} posts/s); ready after {:.0} ms",
            pct(&lat, 0.5),
            pct(&lat, 0.99),
            n as f64 / ingest.as_secs_f64(),
            n as f64 / embed.as_secs_f64().max(1e-9),
            ready.as_secs_f64() * 1000.0
        ),
    }]
}

/// B6 on PostgreSQL: replica A ingests (batches of 1,000, then single
/// writes), B follows; propagation A → B, search on B, a third replica's start.
async fn one_size_pg(n: usize) -> Vec<Row> {
    let openai = FakeOpenAi::start().await;
    openai.stop_recording();
    let pg = tokio::task::spawn_blocking(PgServer::start)
        .await
        .expect("pg");
    pg.create_db("bench");
    let url = pg.url("bench");
    let dir = tempfile::tempdir().expect("dir");
    let a = open_with(dir.path(), &openai, Some(&url)).await;
    let b = open_with(dir.path(), &openai, Some(&url)).await;
    let started = Instant::now();
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        a.upsert(chunk.iter().map(|i| post(*i)).collect())
            .await
            .expect("upsert");
    }
    let batches = n as f64 / started.elapsed().as_secs_f64();
    let embedded = Instant::now();
    while a.embed_pending().await > 0 {}
    let embed = n as f64 / embedded.elapsed().as_secs_f64().max(1e-9);

    // Single writes on A, each awaited; when it is searchable on B.
    let singles = 300;
    let (mut single, mut propagation) = (Vec::new(), Vec::new());
    for i in 0..singles {
        let mut p = post(n + i);
        let marker = format!("zqmarker{i}");
        p.text = format!("{} {marker}", p.text);
        let t = Instant::now();
        a.upsert(vec![p]).await.expect("single upsert");
        single.push(t.elapsed());
        loop {
            let found = b
                .search_by_words(&marker, &[], 1)
                .await
                .expect("search on B");
            if !found.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
        propagation.push(t.elapsed());
    }
    let single_rate = singles as f64 / single.iter().sum::<Duration>().as_secs_f64();
    propagation.sort();
    while b.embed_pending().await > 0 {}

    let mut lat = Vec::new();
    for q in 0..500 {
        let query = format!(
            "{} {} help",
            WORDS[q % WORDS.len()],
            WORDS[(q * 7) % WORDS.len()]
        );
        let t = Instant::now();
        let found = b
            .search(
                &query,
                &["bench-0".to_owned()],
                5,
                Within::default(),
                Admit::Related,
            )
            .await
            .expect("search");
        lat.push(t.elapsed());
        assert!(!found.lexical_only);
    }
    lat.sort();
    let t = Instant::now();
    let c = open_with(dir.path(), &openai, Some(&url)).await;
    let ready = t.elapsed();
    assert_eq!(c.counts().0, n + singles, "the late replica has every post");
    vec![Row {
        id: "B6",
        scenario: format!(
            "post index on PostgreSQL, {n} posts with 256-d vectors, replicas A and B"
        ),
        figures: format!(
            "ingest on A {batches:.0} posts/s in batches of 1,000, {single_rate:.0} single writes/s (one at a time; p50 {:.2} ms); PUT on A -> searchable on B p50 {:.2} ms, p99 {:.2} ms; embedding {embed:.0} posts/s; search on B p50 {:.2} ms, p99 {:.2} ms; a third replica ready after {:.0} ms",
            {
                single.sort();
                pct(&single, 0.5)
            },
            pct(&propagation, 0.5),
            pct(&propagation, 0.99),
            pct(&lat, 0.5),
            pct(&lat, 0.99),
            ready.as_secs_f64() * 1000.0
        ),
    }]
}

pub async fn b6(quick: bool) -> Vec<Row> {
    let sizes: &[usize] = if quick { &[2_000] } else { &[10_000, 100_000] };
    let mut rows = Vec::new();
    for n in sizes {
        rows.extend(one_size(*n).await);
        tokio::time::sleep(Duration::from_millis(100)).await;
        rows.extend(one_size_pg(*n).await);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    rows
}
