//! How the direct searches rank the documents a Microsoft 365 search
//! found: Graph's order fused with their meaning against the post (the
//! local model), those it finds unrelated dropped.

use crate::agent::run::{RunCtx, findings::Answered};

/// A document is dropped when the local model finds it no more similar to
/// the post than the posts are on average (see `PostIndex::relatedness`). Not
/// higher: where many posts share the topic, they raise that mean, and a
/// floor of 2 sd (tuning half: recall 0.405, precision 0.648, against 0.417
/// and 0.634 at 0) dropped every document of the topic.
const MIN_DOCUMENT_RELATEDNESS: f32 = 0.0;
/// ... or more than this many standard deviations under the best document
/// (what a broad query adds far below what it found best is filler).
const DOCUMENT_BAND: f32 = 2.5;

/// The documents `answered` found, ranked as the direct searches rank them:
/// Graph's order fused with their meaning against the post (see
/// [`by_meaning`]); returns (the ranked refs, the refs to drop), keeping
/// what the run had before (`known`).
pub fn rank_m365(
    ctx: RunCtx<'_>,
    answered: Option<&Answered>,
    known: &[String],
) -> (Vec<String>, Vec<String>) {
    let found = match answered {
        Some(Answered::M365 { refs, .. }) => refs.clone(),
        _ => Vec::new(),
    };
    let mut drop = Vec::new();
    let first = by_meaning(ctx, &ctx.input.text, found, known, &mut drop);
    (first, drop)
}

/// The documents (`ranked`, best first) reordered by meaning as
/// well, those the local model finds unrelated to the post moved to `drop`
/// (unless the run had them before). Unchanged without a local model.
fn by_meaning(
    ctx: RunCtx<'_>,
    text: &str,
    ranked: Vec<String>,
    known: &[String],
    drop: &mut Vec<String>,
) -> Vec<String> {
    let texts = ctx.run.findings.m365_texts(&ranked);
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let Some(related) = ctx.posts.relatedness(text, &texts) else {
        return ranked;
    };
    let mut by_meaning: Vec<(String, f32)> = ranked.iter().cloned().zip(related).collect();
    let best = by_meaning
        .iter()
        .map(|(_, z)| *z)
        .filter(|z| *z >= MIN_DOCUMENT_RELATEDNESS)
        .fold(f32::MIN, f32::max);
    let floor = MIN_DOCUMENT_RELATEDNESS.max(best - DOCUMENT_BAND);
    for (r, z) in &by_meaning {
        if *z < floor && !known.contains(r) {
            drop.push(r.clone());
        }
    }
    by_meaning.retain(|(r, _)| !drop.contains(r));
    by_meaning.sort_by(|a, b| b.1.total_cmp(&a.1));
    let by_graph: Vec<(String, f32)> = ranked
        .into_iter()
        .filter(|r| !drop.contains(r))
        .map(|r| (r, 0.0))
        .collect();
    crate::posts::fuse(&[(&by_graph, 1.0), (&by_meaning, 1.0)])
}
