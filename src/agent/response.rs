//! Assembly of the panel from a session: only results the tools returned in
//! this request (grounding), capped, with honest `unavailableSources`.

use crate::{
    contract::{CombinedSuggestionsResponse, ResponseMeta, RunPath},
    tools::{Session, Source},
};

/// Most Microsoft 365 items in a panel.
pub const MAX_M365: usize = 10;
/// Most posts in a panel.
pub const MAX_POSTS: usize = 5;

/// Builds the response from what the session collected.
pub(super) fn build(
    session: &Session,
    has_token: bool,
    path: RunPath,
    rounds: u32,
    run_id: String,
    elapsed_ms: u64,
    mut degraded: Vec<String>,
) -> CombinedSuggestionsResponse {
    let c = session.snapshot();
    let m365: Vec<_> = c.m365.into_iter().take(MAX_M365).map(|(_, m)| m).collect();
    let posts: Vec<_> = c
        .posts
        .into_iter()
        .take(MAX_POSTS)
        .map(|(_, p)| p)
        .collect();
    let mut unavailable = c.unavailable;
    if !has_token && !unavailable.contains(&Source::M365) {
        unavailable.push(Source::M365);
    }
    for reason in c.degraded {
        if !degraded.contains(&reason) {
            degraded.push(reason);
        }
    }
    let action_hint = c
        .hint
        .filter(|h| !h.is_empty() && (!m365.is_empty() || !posts.is_empty()));
    let order = [Source::M365, Source::Posts, Source::ActionHint];
    let unavailable_sources = order
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
            run_id,
            path,
            rounds,
            elapsed_ms,
            degraded,
        },
    }
}
