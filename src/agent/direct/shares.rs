//! What the board already knows, in the panel: the documents colleagues
//! shared on the post's similar posts (LinkUp's Share button), as Microsoft
//! 365 items beside Graph's hits. A document shared on a similar post (the
//! posts search's, or one of the multilingual model's nearest past them) is
//! a candidate, with its evidence — how similar its post is (its rank
//! among them), how many of them shared it, how recent the share is —
//! unless it is unrelated by meaning to this one (a tangential share, or
//! one of its post's other questions). A shared mail is shown only when the caller's
//! own Graph search returned it (nobody else can open it). Shares are
//! LinkUp's data: they need no Graph token and cost no Graph request.

use std::collections::HashMap;

use super::evidence;
use crate::{
    agent::run::{
        RunCtx,
        findings::{Collected, Reply, normalise_url, one_line},
        panel::MAX_M365,
    },
    contract::{M365Source, McpSuggestion, PostSummary, SharedDocument},
    keywords::korean::is_korean,
    posts::{Meaning, Within},
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
/// Posts read by meaning for shares past the posts search's five: the
/// multilingual model's nearest, as many as the posts search ranks by
/// meaning (on the tuning half, its next best five left a share of the
/// topic unseen for one question in five).
const NEAREST: usize = crate::posts::CANDIDATES;
/// How related one of those posts must be to this one to lend its shares
/// (word-model deviations, as [`ON_RELATED`]) ...
const HOST_FLOOR: f32 = 2.0;
/// ... and how related it and the share's title must be together: a share
/// is shown when its post and its title both speak of this post's topic,
/// neither alone being enough to show it (chosen on the tuning half;
/// BENCHMARKS.md, "Issue 64", stop 68).
const TOGETHER: f32 = 14.0;
/// Characters of the similar post quoted in a share's description.
const QUOTE_CHARS: usize = 60;

/// A post whose shares are candidates.
enum Host {
    /// A post of the posts search: related to this one by the floors, or
    /// only the ranking's next best.
    Found { post: PostSummary, related: bool },
    /// One of the multilingual model's nearest posts past those, with its
    /// relatedness in word-model deviations.
    Nearest { id: String, z: f32 },
}

/// A document shared on similar posts, with its evidence.
struct Candidate<'a> {
    /// The share on the most similar post that has it.
    share: &'a SharedDocument,
    host: &'a Host,
    /// That post's rank among the hosts (0: the most similar).
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
    // Hosts: the related posts, then the ranking's next best, then the
    // model's nearest posts past them; each judged as `related` says.
    let next_best = next_best(ctx, &collected, similar.len());
    let found: Vec<(Host, std::sync::Arc<Knowledge>)> = similar
        .into_iter()
        .map(|(_, p, k)| (p.clone(), k, true))
        .chain(next_best.into_iter().map(|(p, k)| (p, k, false)))
        .map(|(post, k, related)| (Host::Found { post, related }, k))
        .collect();
    let nearest = nearest(ctx, &found).await;
    let hosts: Vec<(Host, std::sync::Arc<Knowledge>)> = found
        .into_iter()
        .chain(nearest)
        .filter(|(_, k)| !k.shares.is_empty())
        .collect();
    if hosts.is_empty() {
        return Vec::new();
    }
    let mut candidates: Vec<Candidate<'_>> = Vec::new();
    let mut by_url: HashMap<String, usize> = HashMap::new();
    for (rank, (host, knowledge)) in hosts.iter().enumerate() {
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
    // They come first: past a panel's worth, none could be shown.
    kept.truncate(MAX_M365);
    let nearest_posts = nearest_posts(ctx, &kept).await;
    let korean = is_korean(&ctx.input.text);
    let items = kept
        .iter()
        .filter_map(|c| {
            let post = match c.host {
                Host::Found { post, .. } => post,
                // A post gone since it was ranked lends nothing.
                Host::Nearest { id, .. } => nearest_posts.iter().find(|p| p.id == *id)?,
            };
            Some((item(c.share, post, korean), c.share.sharer_name.clone()))
        })
        .collect();
    let refs = ctx.run.findings.add_shared(items);
    ctx.run.findings.rerank_m365(&refs, &[]);
    refs
}

/// For each candidate, whether it is related enough to show: its title by
/// meaning to this post, by [`ON_RELATED`] on a post the floors relate and
/// by [`ALONE`] on the ranking's next best; on one of the model's nearest
/// posts, its title and post by [`TOGETHER`]. Where no model tells, a
/// share on a related post is.
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
        .map(|(i, c)| {
            let title = to_post.as_ref().map(|m| evidence::deviations(m[i]));
            match (c.host, title) {
                (Host::Found { related, .. }, None) => *related,
                (Host::Found { related: true, .. }, Some(z)) => z >= ON_RELATED,
                (Host::Found { related: false, .. }, Some(z)) => z >= ALONE,
                (Host::Nearest { z: post, .. }, Some(z)) => post + z >= TOGETHER,
                (Host::Nearest { .. }, None) => false,
            }
        })
        .collect()
}

/// The multilingual model's nearest posts to this one, past `found`, that
/// are related enough to lend their shares ([`HOST_FLOOR`]), with what the
/// board knows of them; none where the board knows nothing or no such
/// model ranks.
async fn nearest(
    ctx: RunCtx<'_>,
    found: &[(Host, std::sync::Arc<Knowledge>)],
) -> Vec<(Host, std::sync::Arc<Knowledge>)> {
    if ctx.board.is_empty() {
        return Vec::new();
    }
    let input = ctx.input;
    let is_found = |id: &str| {
        found.iter().any(|(h, _)| match h {
            Host::Found { post, .. } => post.id == id,
            Host::Nearest { .. } => false,
        })
    };
    // The posts search's own scan (remembered): its query, exclusion and
    // count.
    let exclude = [input.post_id.clone()];
    let within = super::rank::texts_within(ctx);
    let query = super::query::posts_query(input);
    let nearest = ctx
        .posts
        .nearest_by_meaning(&query, &exclude, NEAREST, within)
        .await
        .unwrap_or_default();
    nearest
        .into_iter()
        .filter(|(id, _)| !is_found(id))
        .map(|(id, z)| (id, evidence::deviations(Meaning::Multilingual(z))))
        .filter(|(_, z)| *z >= HOST_FLOOR)
        .filter_map(|(id, z)| {
            let knowledge = ctx.board.knowledge(&id);
            (!knowledge.shares.is_empty()).then_some((Host::Nearest { id, z }, knowledge))
        })
        .collect()
}

/// The posts of the kept candidates that are among the model's nearest,
/// read from the store (for their descriptions' quotes).
async fn nearest_posts(ctx: RunCtx<'_>, kept: &[&Candidate<'_>]) -> Vec<PostSummary> {
    let mut ids: Vec<String> = Vec::new();
    for c in kept {
        if let Host::Nearest { id, .. } = c.host
            && !ids.contains(id)
        {
            ids.push(id.clone());
        }
    }
    if ids.is_empty() {
        return Vec::new();
    }
    match ctx.posts.get_many(ids).await {
        Ok(posts) => posts,
        Err(error) => {
            // Their shares are left out; the rest of the panel stands.
            tracing::warn!(error.message = %error, "the nearest posts could not be read");
            Vec::new()
        }
    }
}

/// The panel's item for a shared document: its title, URL and source as
/// shared; described as who shared it on what, in the post's language.
fn item(share: &SharedDocument, post: &PostSummary, korean: bool) -> McpSuggestion {
    let quote = truncate(&one_line(&post.text), QUOTE_CHARS);
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
