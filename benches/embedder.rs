//! B12: the local embedding model on its own, on one core: its load time
//! and the resident memory it adds (compiled in, as the service loads it by
//! default, or read from its directory with `posts.model_path`: `B12 dir`),
//! posts embedded per second (the eval set's posts, repeated), and a query's
//! embedding time (median and p99 over the eval set's questions).

use std::{path::Path, time::Instant};

use linkup_suggestions::posts::word_model::WordModel;

use super::{Row, pct};

/// A figure of this process's `/proc/self/status` in bytes (`VmRSS`: its
/// resident memory; `RssFile`: of that, mapped files such as the binary).
fn status_bytes(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Texts of the evaluation set: (posts, questions).
fn texts() -> (Vec<String>, Vec<String>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/quality/tuning.json");
    let set: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the eval set")).expect("json");
    let field = |key: &str| -> Vec<String> {
        set[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v["text"].as_str().map(str::to_owned))
            .collect()
    };
    (field("posts"), field("questions"))
}

/// `from_dir`: the model read from `models/` as `posts.model_path` would;
/// else the one compiled in.
pub fn b12(quick: bool, from_dir: bool) -> Vec<Row> {
    let (before, before_file) = (status_bytes("VmRSS"), status_bytes("RssFile"));
    let started = Instant::now();
    let model = if from_dir {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/wordllama-l2-supercat-256");
        WordModel::load(&dir)
    } else {
        WordModel::embedded()
    }
    .expect("the shipped model loads");
    let load_ms = started.elapsed().as_millis();
    let model_bytes = status_bytes("VmRSS").saturating_sub(before);
    let file_bytes = status_bytes("RssFile").saturating_sub(before_file);

    let (posts, questions) = texts();
    let n = if quick { 5_000 } else { 100_000 };
    let started = Instant::now();
    let mut dims = 0;
    for i in 0..n {
        dims += model
            .embed_text(&posts[i % posts.len()])
            .map_or(0, |v| v.len());
    }
    let per_second = n as f64 / started.elapsed().as_secs_f64();
    assert!(dims > 0);

    let mut query: Vec<std::time::Duration> = Vec::new();
    for _ in 0..if quick { 2 } else { 20 } {
        for q in &questions {
            let t = Instant::now();
            std::hint::black_box(model.embed_text(q));
            query.push(t.elapsed());
        }
    }
    query.sort();
    vec![Row {
        id: "B12",
        scenario: format!(
            "local embedding model ({}, {}), one core: {n} post embeddings, {} query embeddings",
            model.name(),
            if from_dir {
                "from its directory"
            } else {
                "compiled in"
            },
            query.len()
        ),
        figures: format!(
            "loaded in {load_ms} ms, **+{:.1} MB resident** (of it {:.1} MB of mapped file pages; token table {:.1} MB); **{:.0} posts/s**; query **p50 {:.1} µs**, p99 {:.1} µs",
            model_bytes as f64 / 1e6,
            file_bytes as f64 / 1e6,
            model.table_bytes() as f64 / 1e6,
            per_second,
            pct(&query, 0.5) * 1000.0,
            pct(&query, 0.99) * 1000.0,
        ),
    }]
}
