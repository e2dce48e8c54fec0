//! Assembly of the panel from the run's findings: only results the tools
//! returned in this run (grounding), in the model's order when it chose,
//! capped, with honest `unavailableSources`.

use super::{Run, RunCtx, Selection, findings::Collected};
use crate::{
    contract::{CombinedSuggestionsResponse, ResponseMeta, RunPath},
    contract::{McpSuggestion, PostSummary},
    degraded::Source,
    tools::{BoardAnswer, board_hint, fallback_hint},
};

/// Most Microsoft 365 items in a panel.
pub const MAX_M365: usize = 10;
/// Most posts in a panel.
pub const MAX_POSTS: usize = 5;

/// What the response is built from.
pub struct Parts<'a> {
    /// The run: its findings (taken: the run is over), path, rounds, the
    /// model's choice (None: every collected result) and reasons.
    pub run: &'a Run,
    pub has_token: bool,
    /// The post's text: the template hint speaks its language.
    pub post_text: &'a str,
    pub run_id: String,
    pub elapsed_ms: u64,
}

/// Builds the response from the run.
pub fn build(p: Parts<'_>) -> CombinedSuggestionsResponse {
    let collected = p.run.findings.take();
    let selection = p.run.selection();
    assemble(p, collected, selection.as_ref())
}

/// The panel so far, while the model has not answered: the documents in
/// `m365` order (the fallback's ranking), every post found, no hint,
/// `meta.provisional`.
pub fn preview(ctx: RunCtx<'_>, m365: &[String]) -> CombinedSuggestionsResponse {
    let collected = ctx.run.findings.snapshot();
    let selection = Selection {
        m365: m365
            .iter()
            .filter(|r| collected.shown_unjudged(r))
            .cloned()
            .collect(),
        posts: collected
            .posts
            .iter()
            .map(|(r, _)| r.clone())
            .filter(|r| collected.shown_unjudged(r))
            .collect(),
        action_hint: None,
    };
    let parts = Parts {
        run: ctx.run,
        has_token: ctx.input.graph_token.is_some(),
        post_text: &ctx.input.text,
        run_id: ctx.input.run_id.clone(),
        elapsed_ms: ctx.run.deadline().elapsed_ms(),
    };
    let mut panel = assemble(parts, collected, Some(&selection));
    panel.action_hint = None;
    panel.meta.path = RunPath::Agent;
    panel.meta.provisional = true;
    panel
}

/// The panel of `c`, in the `selection`'s order when there is one.
fn assemble(
    p: Parts<'_>,
    c: Collected,
    selection: Option<&Selection>,
) -> CombinedSuggestionsResponse {
    // A source is unavailable when a call to it was lost and none answered
    // (one of three Graph queries throttled still leaves M365 consulted).
    let mut unavailable: Vec<Source> = c.lost().collect();
    if !p.has_token && !unavailable.contains(&Source::M365) {
        unavailable.push(Source::M365);
    }
    let (m365, posts, model_hint) = match selection {
        Some(s) => (
            s.m365
                .iter()
                .filter_map(|r| c.m365.iter().find(|(x, _)| x == r))
                .map(|(_, m)| m.clone())
                .collect(),
            s.posts
                .iter()
                .filter_map(|r| c.posts.iter().find(|(x, _)| x == r))
                .map(|(_, p)| p.clone())
                .collect(),
            s.action_hint.clone(),
        ),
        // Nobody judged: only what the floors show.
        None => (
            c.unjudged(&c.m365)
                .map(|(_, m)| m.clone())
                .collect::<Vec<_>>(),
            c.unjudged(&c.posts)
                .map(|(_, p)| p.clone())
                .collect::<Vec<_>>(),
            None,
        ),
    };
    let m365: Vec<_> = m365.into_iter().take(MAX_M365).collect();
    let posts: Vec<_> = posts.into_iter().take(MAX_POSTS).collect();
    let degraded = p.run.degraded(&c.degraded);
    let degraded = degraded.iter().map(|r| r.to_string()).collect();
    let action_hint = if m365.is_empty() && posts.is_empty() {
        None
    } else {
        model_hint
            .or_else(|| board_answer(&c, &m365, &posts).map(|a| board_hint(p.post_text, &a)))
            .or_else(|| fallback_hint(p.post_text, &m365, &posts))
    };
    let unavailable_sources = Source::ALL
        .iter()
        .filter(|s| unavailable.contains(s))
        .map(|s| s.as_str().to_owned())
        .collect();
    CombinedSuggestionsResponse {
        m365,
        posts,
        action_hint,
        source: "mcp".to_owned(),
        unavailable_sources,
        meta: ResponseMeta {
            run_id: p.run_id,
            path: p.run.path(),
            rounds: p.run.rounds(),
            elapsed_ms: p.elapsed_ms,
            degraded,
            provisional: false,
            cached: false,
        },
    }
}

/// What the board knows of the panel's first results: a colleague shared
/// its first document on a similar post, or replied to its first post.
fn board_answer<'a>(
    c: &'a Collected,
    m365: &'a [McpSuggestion],
    posts: &[PostSummary],
) -> Option<BoardAnswer<'a>> {
    let shared = m365.first().and_then(|first| {
        let (r, item) = c.m365.iter().find(|(_, m)| m.url == first.url)?;
        let sharer = c.shared_by.get(r)?;
        Some(BoardAnswer::Shared {
            sharer,
            title: &item.title,
        })
    });
    shared.or_else(|| {
        let first = posts.first()?;
        let (r, _) = c.posts.iter().find(|(_, p)| p.id == first.id)?;
        let reply = c.replies.iter().find(|reply| reply.post == *r)?;
        Some(BoardAnswer::Replied {
            author: &reply.author,
            reply: &reply.text,
        })
    })
}
