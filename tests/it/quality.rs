//! The relevance evaluation held to floors on its held-out half (BENCHMARKS.md,
//! "Quality"): a change that makes the suggestions worse on questions nobody
//! tuned for fails here. The fakes are deterministic, so the figures are
//! exact; `cargo bench --bench quality` prints both halves.

use crate::support::quality::{Figures, Half, M365Figures as M365, PostFigures as Posts, evaluate};

/// The held-out figures recorded in BENCHMARKS.md ("Quality"), less a margin
/// for the order in which parallel searches answer (ties between documents).
fn floors() -> Figures {
    Figures {
        questions: 70,
        fallback_m365: M365 {
            recall_at_10: 0.42,
            precision_at_10: 0.50,
            mrr: 0.73,
            graph_requests: 4.0,
        },
        agent_m365: M365 {
            recall_at_10: 0.40,
            precision_at_10: 0.78,
            mrr: 0.82,
            graph_requests: 6.0,
        },
        posts_words: Posts {
            hit_at_5: 0.20,
            mrr: 0.20,
            unrelated_per_panel: 0.2,
        },
        posts_local: Posts {
            hit_at_5: 0.46,
            mrr: 0.38,
            unrelated_per_panel: 1.05,
        },
        posts_azure_fake: Posts {
            hit_at_5: 0.48,
            mrr: 0.44,
            unrelated_per_panel: 2.2,
        },
        posts_azure_real: Some(Posts {
            hit_at_5: 0.49,
            mrr: 0.46,
            unrelated_per_panel: 0.95,
        }),
        chat_calls_per_request: 2.0,
        chat_bytes_per_request: 6_000.0,
        failures: Vec::new(),
    }
}

#[tokio::test]
async fn held_out_relevance_stays_at_or_above_its_recorded_floors() {
    let f = evaluate(Half::Heldout).await;
    let floors = floors();
    println!("{}", f.table());
    assert!(f.questions >= floors.questions);
    for (name, got, floor) in [
        ("fallback M365", f.fallback_m365, floors.fallback_m365),
        ("agent M365", f.agent_m365, floors.agent_m365),
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
        assert!(
            got.graph_requests <= floor.graph_requests,
            "{name} Graph requests: {got:?}"
        );
    }
    let real = f
        .posts_azure_real
        .expect("the real model's vectors are committed");
    for (name, got, floor) in [
        ("posts by words", f.posts_words, floors.posts_words),
        (
            "posts by the local model",
            f.posts_local,
            floors.posts_local,
        ),
        (
            "posts by the fake Azure model",
            f.posts_azure_fake,
            floors.posts_azure_fake,
        ),
        (
            "posts by a real model via Azure",
            real,
            floors.posts_azure_real.unwrap(),
        ),
    ] {
        assert!(got.hit_at_5 >= floor.hit_at_5, "{name} hit@5: {got:?}");
        assert!(got.mrr >= floor.mrr, "{name} MRR: {got:?}");
        assert!(
            got.unrelated_per_panel <= floor.unrelated_per_panel,
            "{name} unrelated posts per panel: {got:?}"
        );
    }
    assert!(
        f.chat_calls_per_request <= floors.chat_calls_per_request,
        "{f:?}"
    );
    assert!(
        f.chat_bytes_per_request <= floors.chat_bytes_per_request,
        "{f:?}"
    );
}
