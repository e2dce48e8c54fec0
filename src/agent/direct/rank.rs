//! How the direct searches rank the documents a Microsoft 365 search
//! found: by the evidence each carries for the post ([`super::evidence`]),
//! mails and files in one list, those with too little of it dropped.

use std::time::Duration;

use super::evidence::{self, Hit};
use crate::{
    agent::run::{RunCtx, answered::Answered},
    posts::Within,
};

/// Time kept, of the run's, for what follows the ranking (the answer).
const ANSWER_RESERVE: Duration = Duration::from_millis(100);
/// How long a ranking waits for hits' vectors the multilingual model has
/// not computed yet (a Korean post's: ~28 ms a hit, two at a time on two
/// cores); past it, the hits are judged without meaning, and the vectors
/// under way are finished and remembered for the next view.
const VECTORS_WAIT: Duration = Duration::from_secs(1);

/// How long judging texts by meaning may wait for their vectors.
pub(super) fn texts_within(ctx: RunCtx<'_>) -> Within {
    let at = ctx.run.deadline().at();
    let reserved = at.checked_sub(ANSWER_RESERVE).unwrap_or(at);
    Within {
        by: Some(reserved.min(tokio::time::Instant::now() + VECTORS_WAIT)),
        overloaded: ctx.brownout,
    }
}

/// The documents `answered` found, ranked by their evidence for the post;
/// returns (the ranked refs, the refs to drop), keeping what the run had
/// before (`known`).
pub async fn rank_m365(
    ctx: RunCtx<'_>,
    answered: Option<&Answered>,
    known: &[String],
) -> (Vec<String>, Vec<String>) {
    let found = match answered {
        Some(Answered::M365 { refs, .. }) => refs.clone(),
        _ => Vec::new(),
    };
    if found.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let input = ctx.input;
    let terms = evidence::key_terms(ctx.keywords(), |w| ctx.specificity(w));
    let hits = ctx.run.findings.m365_hits(&found);
    let texts: Vec<String> = hits.iter().map(|(t, d, _)| format!("{t} {d}")).collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let within = texts_within(ctx);
    let meaning = ctx
        .posts
        .relatedness(&input.text, &input.tags, &texts, within)
        .await;
    // Graph's order within each entity group: files, then mails.
    let (mut files, mut mails) = (0, 0);
    let hits: Vec<Hit<'_>> = hits
        .iter()
        .enumerate()
        .map(|(i, (title, summary, mail))| {
            let counter = if *mail { &mut mails } else { &mut files };
            *counter += 1;
            Hit {
                title,
                summary,
                group_rank: *counter - 1,
                meaning: meaning.as_ref().map(|m| m[i]),
            }
        })
        .collect();
    let (kept, dropped) = evidence::rank(&terms, &hits);
    let mut first: Vec<String> = kept.iter().map(|&i| found[i].clone()).collect();
    let mut drop = Vec::new();
    for i in dropped {
        // What the run had before stays, after what this search ranked.
        if known.contains(&found[i]) {
            first.push(found[i].clone());
        } else {
            drop.push(found[i].clone());
        }
    }
    (first, drop)
}
