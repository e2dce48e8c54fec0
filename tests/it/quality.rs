//! The relevance evaluation held to floors on its held-out half (BENCHMARKS.md,
//! "Quality"): a change that makes the suggestions worse on questions nobody
//! tuned for fails here. The fakes are deterministic, so the figures are
//! exact; `cargo bench --bench quality` prints both halves.

use crate::support::quality::{
    AgentFigures, Figures, Half, M365Figures as M365, PostFigures as Posts, evaluate,
    evaluate_shares,
};

/// The held-out figures recorded in BENCHMARKS.md ("Quality"), less a margin
/// for the order in which parallel searches answer (ties between documents).
fn floors() -> Figures {
    Figures {
        questions: 130,
        // Issue 51, ranked by evidence: held-out 0.46 · 0.47 · 0.77 (0.49 ·
        // 0.43 · 0.76 before); a Korean post's hits related by the
        // multilingual model (stop 59): 0.47 · 0.68 · 0.85.
        // Issue 63, hits' meaning on the reference board: 0.47 · 0.66–0.68
        // · 0.83–0.84 over two runs (ties ordered by which search answers
        // first).
        fallback_m365: M365 {
            recall_at_10: 0.46,
            precision_at_10: 0.66,
            mrr: 0.82,
            // One search (files and mail): the AND-ed second one added
            // nothing on either half.
            graph_requests: 2.0,
            // What that search returns, before ranking (stop 60: held-out
            // 0.59; English 0.61, Korean 0.57): what any ranking of it can
            // reach.
            found: 0.58,
        },
        // Issue 33: the model starts from the fallback's broad search and
        // answers at once when it holds what it looks for. Issue 63: it
        // reads what the ranking holds, recall first (held-out: posts 0.83
        // · MRR 0.68, documents recall@10 0.59; 4,791 bytes, 4,074 since
        // candidates' posts are read by bytes, stop 69), and judges;
        // the scripted model keeps all it reads, so its panels' precision
        // is the reading's, not a model's choice.
        agent: AgentFigures {
            m365: M365 {
                recall_at_10: 0.56,
                precision_at_10: 0.22,
                mrr: 0.84,
                graph_requests: 3.0,
                found: 0.0,
            },
            posts: Posts {
                hit_at_5: 0.80,
                mrr: 0.65,
                unrelated_per_panel: 4.2,
            },
            chat_calls_per_request: 1.3,
            one_call_share: 0.85,
            // Issue 63: at most 5 KB sent to the model per view.
            chat_bytes_per_request: 5_000.0,
        },
        // `agent.pre_retrieval = false`: the model's planned searches.
        agent_model_searches: AgentFigures {
            m365: M365 {
                recall_at_10: 0.51,
                precision_at_10: 0.86,
                mrr: 0.89,
                graph_requests: 6.0,
                found: 0.0,
            },
            posts: Posts {
                hit_at_5: 0.67,
                mrr: 0.61,
                unrelated_per_panel: 1.0,
            },
            chat_calls_per_request: 2.0,
            one_call_share: 0.0,
            chat_bytes_per_request: 6_000.0,
        },
        posts_words: Posts {
            hit_at_5: 0.18,
            mrr: 0.17,
            unrelated_per_panel: 0.2,
        },
        // Issue 50: the multilingual model, posts embedded once. Issue 63:
        // judged by its reference board, the nearest post alone from 3
        // deviations (held-out 0.71 · 0.65 · 0.95; 0.67 · 0.61 · 0.77 by
        // the board's spread): more unrelated posts on this board of 408,
        // for set B's boards of 30 and 300 (`set_b_*` below).
        posts_local: Posts {
            hit_at_5: 0.68,
            mrr: 0.62,
            unrelated_per_panel: 1.0,
        },
        posts_azure_fake: Posts {
            hit_at_5: 0.49,
            mrr: 0.43,
            unrelated_per_panel: 2.6,
        },
        posts_azure_real: Some(Posts {
            hit_at_5: 0.51,
            mrr: 0.49,
            unrelated_per_panel: 1.0,
        }),
        slices: Default::default(),
        quoted: None,
        failures: Vec::new(),
    }
}

/// Per language (BENCHMARKS.md, "Issue 50"): (slice, posts by words hit@5,
/// posts by the local model hit@5, its unrelated posts per panel at most).
const LANGUAGE_FLOORS: [(&str, f64, f64, f64); 2] =
    [("en", 0.28, 0.70, 1.05), ("ko", 0.17, 0.75, 1.0)];

/// Across languages (issue 50): a question's similar post in the other
/// language in the panel (the local model's hit@5) at least this often.
const CROSS_FLOORS: [(&str, f64); 2] = [("en→ko", 0.30), ("ko→en", 0.28)];

/// English Microsoft 365, fallback (issue 51; misspelt words respelt since
/// stop 58): held-out recall@10 · precision@10 · MRR 0.447 · 0.633 · 0.827
/// (0.44 · 0.61 · 0.81 before), less a margin for ties.
const ENGLISH_M365: (f64, f64, f64) = (0.44, 0.62, 0.815);

/// Korean Microsoft 365, fallback (issue 51; a Korean post's hits related
/// by the multilingual model since stop 59): held-out 0.49 · 0.73 · 0.86
/// (0.48 · 0.33 · 0.72 by the word model, which cannot read Hangul).
/// Issue 63, the hits judged on the model's reference board: 0.50 ·
/// 0.71–0.72 · 0.86 over two runs here, 0.487 · 0.699 · 0.852 in a CI run
/// on a loaded machine (a Korean post's hits are embedded within
/// `VECTORS_WAIT`, and are ranked by words when one is not had in time),
/// so the floors sit below the lowest run seen.
const KOREAN_M365: (f64, f64, f64) = (0.47, 0.68, 0.84);

/// The held-out figures per language at or above [`LANGUAGE_FLOORS`] and
/// [`ENGLISH_M365`] and [`KOREAN_M365`], and Microsoft 365 found as well
/// and as precisely in Korean as in English (within 0.10).
fn check_languages(f: &Figures) {
    for (name, words, local, unrelated) in LANGUAGE_FLOORS {
        let s = f.slices[name];
        assert!(s.questions >= 60, "{name}: {s:?}");
        assert!(s.posts_words.hit_at_5 >= words, "{name} words: {s:?}");
        assert!(s.posts_local.hit_at_5 >= local, "{name} local model: {s:?}");
        assert!(
            s.posts_local.unrelated_per_panel <= unrelated,
            "{name} local model, unrelated: {s:?}"
        );
    }
    for (name, local) in CROSS_FLOORS {
        let s = f.slices[name];
        assert!(s.posts_local.hit_at_5 >= local, "{name} local model: {s:?}");
    }
    let (en, ko) = (f.slices["en"], f.slices["ko"]);
    let (recall, precision, mrr) = ENGLISH_M365;
    let m365 = en.fallback_m365;
    assert!(
        m365.recall_at_10 >= recall && m365.precision_at_10 >= precision && m365.mrr >= mrr,
        "English Microsoft 365, fallback: {m365:?}"
    );
    let (recall, precision, mrr) = KOREAN_M365;
    let m365 = ko.fallback_m365;
    assert!(
        m365.recall_at_10 >= recall && m365.precision_at_10 >= precision && m365.mrr >= mrr,
        "Korean Microsoft 365, fallback: {m365:?}"
    );
    assert!(
        ko.fallback_m365.recall_at_10 >= en.fallback_m365.recall_at_10 - 0.10
            && ko.fallback_m365.precision_at_10 >= en.fallback_m365.precision_at_10 - 0.10,
        "Microsoft 365 in Korean within 0.10 of English: {ko:?} {en:?}"
    );
}

#[tokio::test]
async fn held_out_relevance_stays_at_or_above_its_recorded_floors() {
    let f = evaluate(Half::Heldout).await;
    let floors = floors();
    println!("{}", f.table());
    assert!(f.questions >= floors.questions);
    for (name, got, floor) in [
        ("fallback M365", f.fallback_m365, floors.fallback_m365),
        ("agent M365", f.agent.m365, floors.agent.m365),
        (
            "agent M365, the model's searches",
            f.agent_model_searches.m365,
            floors.agent_model_searches.m365,
        ),
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
        assert!(got.found >= floor.found, "{name} found: {got:?}");
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
        ("posts on the agent path", f.agent.posts, floors.agent.posts),
        (
            "posts on the agent path, the model's searches",
            f.agent_model_searches.posts,
            floors.agent_model_searches.posts,
        ),
    ] {
        assert!(got.hit_at_5 >= floor.hit_at_5, "{name} hit@5: {got:?}");
        assert!(got.mrr >= floor.mrr, "{name} MRR: {got:?}");
        assert!(
            got.unrelated_per_panel <= floor.unrelated_per_panel,
            "{name} unrelated posts per panel: {got:?}"
        );
    }
    // Pre-retrieval answers most views in one chat call (issue 33); the
    // model's own searches take two.
    for (got, floor) in [
        (f.agent, floors.agent),
        (f.agent_model_searches, floors.agent_model_searches),
    ] {
        assert!(
            got.chat_calls_per_request <= floor.chat_calls_per_request,
            "{got:?}"
        );
        assert!(got.one_call_share >= floor.one_call_share, "{got:?}");
        assert!(
            got.chat_bytes_per_request <= floor.chat_bytes_per_request,
            "{got:?}"
        );
    }
    check_languages(&f);
    // Issue 51: a post quoting a mail's subject or a file's title shows that
    // item in its top 3 (held-out 0.97; 0.92 with the ranking before).
    let quoted = f.quoted.expect("tests/quality/quoted.json is committed");
    assert!(quoted.top_3 >= 0.90, "quoted subjects: {quoted:?}");
}

/// Set B (issue 63: `tests/quality/set_b.json`, written another way by
/// `generate_b.py`, nothing tuned on it), on one board size: per language
/// (slice, posts by the local model hit@5 at least, its unrelated posts a
/// panel at most), and what the agent reads holds a related post at least
/// `reading`. The figures of BENCHMARKS.md ("Issue 63"), less a margin; the
/// board of 3,000 posts is the bench's (`QUALITY_HALF=b3000`).
struct SetB {
    posts: [(&'static str, f64, Option<f64>); 4],
    reading: f64,
    /// Microsoft 365, fallback, English and Korean: recall@10, precision@10.
    m365: [(&'static str, f64, f64); 2],
}

async fn check_set_b(size: usize, floors: SetB) {
    let f = evaluate(Half::B(size)).await;
    println!("{}", f.table());
    assert!(f.questions >= 100, "{}", f.questions);
    for (name, hit, unrelated) in floors.posts {
        let s = f.slices[name].posts_local;
        assert!(s.hit_at_5 >= hit, "B{size} {name}: {s:?}");
        // Unrelated posts count in the question's own language's slice.
        if let Some(unrelated) = unrelated {
            assert!(s.unrelated_per_panel <= unrelated, "B{size} {name}: {s:?}");
        }
    }
    let reading = f.agent.posts.hit_at_5;
    assert!(reading >= floors.reading, "B{size} reading: {:?}", f.agent);
    // Issue 63: at most 5 KiB sent to the model a view (set B's longer
    // posts; 4,976 / 4,932 bytes at 30 / 300 posts, stop 69).
    assert!(
        f.agent.chat_bytes_per_request <= 5_120.0,
        "B{size} bytes a view: {:?}",
        f.agent
    );
    for (name, recall, precision) in floors.m365 {
        let m = f.slices[name].fallback_m365;
        assert!(
            m.recall_at_10 >= recall && m.precision_at_10 >= precision,
            "B{size} {name} Microsoft 365: {m:?}"
        );
    }
    // Issue 63: a mail's subject as the post brings that mail into the top
    // 3 for at least 9 of 10 (every mail of set B, its subject as written
    // and in lower case: 108 of 108 on both boards, stop 67).
    let quoted = f.quoted.expect("set B's subjects");
    assert!(quoted.top_3 >= 0.90, "B{size} mail subjects: {quoted:?}");
}

#[tokio::test]
async fn set_b_on_a_board_of_30_posts_stays_at_or_above_its_floors() {
    // Measured: en 0.78 · 0.52, ko 0.83 · 0.39, en→ko 0.64, ko→en 0.88
    // (stop 69, the floors moved with the board: 0.67 · 0.21, 0.74 · 0.11,
    // 0.51, 0.76 with those of 408 posts); reading 0.91; Microsoft 365 en
    // 0.27 · 0.49, ko 0.49 · 0.66. Issue 63's targets (≥ 0.70, ≥ 0.40
    // across, ≤ 0.8 unrelated) are held.
    let floors = SetB {
        posts: [
            ("en", 0.75, Some(0.65)),
            ("ko", 0.80, Some(0.50)),
            ("en→ko", 0.60, None),
            ("ko→en", 0.84, None),
        ],
        reading: 0.88,
        m365: [("en", 0.25, 0.46), ("ko", 0.46, 0.63)],
    };
    check_set_b(30, floors).await;
}

#[tokio::test]
async fn set_b_on_a_board_of_300_posts_stays_at_or_above_its_floors() {
    // Measured: en 0.67 · 0.52, ko 0.78 · 0.25, en→ko 0.46, ko→en 0.76
    // (stop 69; 0.67 · 0.43, 0.74 · 0.20 with the floors of 408 posts);
    // reading 0.81; Microsoft 365 en 0.27 · 0.49, ko 0.50 · 0.69.
    let floors = SetB {
        posts: [
            ("en", 0.64, Some(0.65)),
            ("ko", 0.75, Some(0.35)),
            ("en→ko", 0.43, None),
            ("ko→en", 0.72, None),
        ],
        reading: 0.78,
        m365: [("en", 0.25, 0.46), ("ko", 0.47, 0.66)],
    };
    check_set_b(300, floors).await;
}

#[tokio::test]
async fn shares_on_the_held_out_board_stay_at_or_above_their_floors() {
    // Measured (BENCHMARKS.md, "Issue 64"; stop 68, the model's nearest
    // posts lending their shares): a topic share shown 0.85 (en 0.80, ko
    // 0.92, across languages 0.85); tangential 0.09 of panels; recall@10
    // 0.47 → 0.67, precision@10 0.69 → 0.62; the hint cites the board in
    // 0.91. Each floor is about one question under its figure.
    let f = evaluate_shares(Half::Heldout).await;
    println!("{}", f.table());
    let all = f.slices["all"];
    assert!(all.questions >= 100, "{all:?}");
    assert!(all.share_shown >= 0.82, "{all:?}");
    for (slice, floor) in [("cross", 0.82), ("en", 0.75), ("ko", 0.88)] {
        let got = f.slices[slice];
        assert!(got.share_shown >= floor, "{slice}: {got:?}");
    }
    assert!(all.tangential_panels <= 0.12, "{all:?}");
    assert!(
        all.with.recall_at_10 >= all.without.recall_at_10 + 0.15,
        "{all:?}"
    );
    assert!(
        all.with.precision_at_10 >= all.without.precision_at_10 - 0.10,
        "{all:?}"
    );
    assert!(all.hint_cites_board >= 0.85, "{all:?}");
}
