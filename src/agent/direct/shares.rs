//! What the board already knows, in the panel: the documents colleagues
//! shared on the post's similar posts (LinkUp's Share button), as Microsoft
//! 365 items beside Graph's hits. A document shared on a related similar
//! post is a candidate, with its evidence — how similar its post is (its
//! rank among the related posts), how many of them shared it, how recent
//! the share is — unless it is unrelated by meaning to this one (a
//! tangential share, or one of its post's other questions). A shared mail is shown only when the caller's
//! own Graph search returned it (nobody else can open it). Shares are
//! LinkUp's data: they need no Graph token and cost no Graph request.

use std::collections::HashMap;

use super::evidence;
use crate::{
    agent::run::{
        RunCtx,
        findings::{Collected, Reply, normalise_url, one_line},
    },
    contract::{M365Source, McpSuggestion, PostSummary, SharedDocument},
    keywords::korean::is_korean,
    posts::Within,
    store::{Knowledge, parse_time_ms},
    tools::truncate,
};

/// Related similar posts whose shares are read, most similar first.
const HOSTS: usize = 5;
/// Replies the model reads, of the most similar posts, newest first ...
const REPLIES: usize = 3;
/// ... each cut to this many characters.
const REPLY_CHARS: usize = 200;
/// How related by meaning a share on a related post must be to this one:
/// one of the multilingual model's standard deviations above its reference
/// board (two of the word model's, `evidence::deviations`). Chosen on the
/// tuning half: 0 / 1 / 2 / 3 of the word model's showed a tangential share
/// in 0.13 / 0.06 / 0.05 / 0.02 of panels and a share of the question's
/// topic in 0.70 / 0.69 / 0.69 / 0.67 (BENCHMARKS.md, "Issue 64"). A share
/// is not judged against its own post: relating to it says it fits that
/// post, not this one (on the tuning half, judged against either, as many
/// panels showed a share of the topic and a quarter more shares of other
/// topics were kept, 61 against 49).
const ON_RELATED: f32 = 2.0;
/// How related a share on the model's next best post (one the floors do
/// not relate) must be to this post itself: as related as a post must be
/// to be shown alone (`relevance::Floors::z_first`, 3 of the multilingual
/// model's deviations).
const ALONE: f32 = 6.0;
/// Characters of the similar post quoted in a share's description.
const QUOTE_CHARS: usize = 60;

/// A document shared on similar posts, with its evidence.
struct Candidate<'a> {
    /// The share on the most similar post that has it.
    share: &'a SharedDocument,
    host: &'a PostSummary,
    /// Whether that post is related to this one (by the floors), or only
    /// the model's next best.
    host_related: bool,
    /// That post's rank among the similar posts (0: the most similar).
    host_rank: usize,
    /// How many of the similar posts shared it.
    hosts: usize,
    /// When it was last shared (unix ms).
    latest_ms: i64,
}

/// What the board knows of the run's related similar posts, into its
/// findings: those answered (with replies or shared documents) first among
/// them, their newest replies (for the model and the hint), and the
/// documents shared on them, best first (before Graph's hits). Returns the
/// shared documents' refs.
pub async fn add_shared(ctx: RunCtx<'_>) -> Vec<String> {
    let collected = ctx.run.findings.snapshot();
    let similar: Vec<(&String, &PostSummary, std::sync::Arc<Knowledge>)> = collected
        .unjudged(&collected.posts)
        .take(HOSTS)
        .map(|(r, p)| (r, p, ctx.board.knowledge(&p.id)))
        .collect();
    let answered: Vec<String> = similar
        .iter()
        .filter(|(_, _, k)| !k.is_empty())
        .map(|(r, _, _)| (*r).clone())
        .collect();
    ctx.run.findings.answered_first(&answered);
    let replies = similar
        .iter()
        .flat_map(|(r, _, k)| k.replies.iter().map(move |reply| (*r, reply)))
        .take(REPLIES)
        .map(|(r, reply)| Reply {
            post: r.clone(),
            author: reply.author_name.clone(),
            text: truncate(&one_line(&reply.text), REPLY_CHARS),
        })
        .collect();
    ctx.run.findings.replies(replies);
    // Hosts: the related posts, then the model's next best by meaning,
    // whose shares must relate to this post itself (see `related`).
    let next_best = next_best(ctx, &collected, similar.len());
    let hosts: Vec<(&PostSummary, std::sync::Arc<Knowledge>, bool)> = similar
        .into_iter()
        .map(|(_, p, k)| (p, k, true))
        .chain(next_best.iter().map(|(p, k)| (p, k.clone(), false)))
        .filter(|(_, k, _)| !k.shares.is_empty())
        .collect();
    if hosts.is_empty() {
        return Vec::new();
    }
    let mut candidates: Vec<Candidate<'_>> = Vec::new();
    let mut by_url: HashMap<String, usize> = HashMap::new();
    for (rank, (host, knowledge, host_related)) in hosts.iter().enumerate() {
        for share in &knowledge.shares {
            let Some(url) = normalise_url(&share.url) else {
                continue;
            };
            // A mail is the caller's to see only if their search found it.
            if share.source_type == M365Source::Email && !collected.graph_returned(&url) {
                continue;
            }
            let at = parse_time_ms(&share.created_at).unwrap_or(0);
            match by_url.get(&url) {
                Some(&i) => {
                    let c = &mut candidates[i];
                    c.hosts += 1;
                    c.latest_ms = c.latest_ms.max(at);
                }
                None => {
                    by_url.insert(url, candidates.len());
                    candidates.push(Candidate {
                        share,
                        host,
                        host_related: *host_related,
                        host_rank: rank,
                        hosts: 1,
                        latest_ms: at,
                    });
                }
            }
        }
    }
    let related = related(ctx, &candidates, super::rank::texts_within(ctx)).await;
    let mut kept: Vec<&Candidate<'_>> = candidates
        .iter()
        .zip(related)
        .filter_map(|(c, related)| related.then_some(c))
        .collect();
    kept.sort_by_key(|c| (c.host_rank, std::cmp::Reverse((c.hosts, c.latest_ms))));
    let korean = is_korean(&ctx.input.text);
    let items = kept
        .iter()
        .map(|c| (item(c, korean), c.share.sharer_name.clone()))
        .collect();
    let refs = ctx.run.findings.add_shared(items);
    ctx.run.findings.rerank_m365(&refs, &[]);
    refs
}

/// For each candidate, whether it is related enough to show: by meaning
/// to this post, by [`ON_RELATED`] on a post the floors relate and by
/// [`ALONE`] on the model's next best; where no model tells, a share on a
/// related post is.
async fn related(ctx: RunCtx<'_>, candidates: &[Candidate<'_>], within: Within) -> Vec<bool> {
    let input = ctx.input;
    let titles: Vec<&str> = candidates.iter().map(|c| c.share.title.as_str()).collect();
    let to_post = ctx
        .posts
        .relatedness_by_best_model(&input.text, &input.tags, &titles, within)
        .await;
    candidates
        .iter()
        .enumerate()
        .map(|(i, c)| match &to_post {
            None => c.host_related,
            Some(meaning) => {
                let floor = if c.host_related { ON_RELATED } else { ALONE };
                evidence::deviations(meaning[i]) >= floor
            }
        })
        .collect()
}

/// The panel's item for a shared document: its title, URL and source as
/// shared; described as who shared it on what, in the post's language.
fn item(c: &Candidate<'_>, korean: bool) -> McpSuggestion {
    let share = c.share;
    let quote = truncate(&one_line(&c.host.text), QUOTE_CHARS);
    let description = if korean {
        format!(
            "{}님이 비슷한 게시글에 공유한 문서: '{quote}'",
            share.sharer_name
        )
    } else {
        format!(
            "Shared by {} on a similar post: '{quote}'",
            share.sharer_name
        )
    };
    McpSuggestion {
        title: share.title.clone(),
        url: share.url.clone(),
        description,
        source_type: "m365".to_owned(),
        source: share.source_type,
        status: "available".to_owned(),
    }
}

/// The posts search's next best by meaning beyond the related ones (its
/// candidates, up to [`HOSTS`] posts in all), with what the board knows of
/// them.
fn next_best(
    ctx: RunCtx<'_>,
    collected: &Collected,
    related: usize,
) -> Vec<(PostSummary, std::sync::Arc<Knowledge>)> {
    if related >= HOSTS || ctx.board.is_empty() {
        return Vec::new();
    }
    collected
        .posts
        .iter()
        .filter(|(r, _)| !collected.shown_unjudged(r))
        .take(HOSTS - related)
        .map(|(_, p)| (p.clone(), ctx.board.knowledge(&p.id)))
        .collect()
}
