//! The relevance evaluation held to its recorded floors (BENCHMARKS.md,
//! "Quality"): a change that makes the suggestions worse fails here. The
//! fakes are deterministic, so the figures are exact; `cargo bench --bench
//! quality` prints them.

use crate::support::quality::{Figures, M365Figures as M365, PostFigures as Posts, evaluate};

/// The figures recorded in BENCHMARKS.md, less a small margin for rounding.
const FLOORS: Figures = Figures {
    questions: 32,
    fallback_m365: M365 {
        recall_at_10: 0.72,
        precision_at_10: 0.75,
        mrr: 0.83,
    },
    agent_m365: M365 {
        recall_at_10: 0.70,
        precision_at_10: 0.87,
        mrr: 0.92,
    },
    posts_words: Posts {
        hit_at_5: 0.60,
        mrr: 0.60,
        unrelated_per_panel: 0.12,
    },
    posts_hybrid: Posts {
        hit_at_5: 0.95,
        mrr: 0.85,
        unrelated_per_panel: 0.6,
    },
    chat_calls_per_request: 2.0,
    chat_bytes_per_request: 8_000.0,
};

#[tokio::test]
async fn relevance_stays_at_or_above_its_recorded_floors() {
    let f = evaluate().await;
    println!("{}", f.table());
    assert!(f.questions >= FLOORS.questions);
    for (name, got, floor) in [
        ("fallback M365", f.fallback_m365, FLOORS.fallback_m365),
        ("agent M365", f.agent_m365, FLOORS.agent_m365),
    ] {
        assert!(
            got.recall_at_10 >= floor.recall_at_10,
            "{name} recall@10: {got:?}"
        );
        assert!(
            got.precision_at_10 >= floor.precision_at_10,
            "{name} precision@10: {got:?}"
        );
        assert!(got.mrr >= floor.mrr, "{name} MRR: {got:?}");
    }
    for (name, got, floor) in [
        ("posts by words", f.posts_words, FLOORS.posts_words),
        ("posts hybrid", f.posts_hybrid, FLOORS.posts_hybrid),
    ] {
        assert!(got.hit_at_5 >= floor.hit_at_5, "{name} hit@5: {got:?}");
        assert!(got.mrr >= floor.mrr, "{name} MRR: {got:?}");
        assert!(
            got.unrelated_per_panel <= floor.unrelated_per_panel,
            "{name} unrelated posts per panel: {got:?}"
        );
    }
    assert!(
        f.chat_calls_per_request <= FLOORS.chat_calls_per_request,
        "{f:?}"
    );
    assert!(
        f.chat_bytes_per_request <= FLOORS.chat_bytes_per_request,
        "{f:?}"
    );
}
