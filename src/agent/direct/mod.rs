//! The direct searches, no model: the fallback's course (one
//! `search_m365` with the post's most specific words OR-ed — two Graph
//! requests, files and mail — the documents ranked by Graph and by meaning
//! against the post, unrelated ones dropped; and `search_posts`, in
//! parallel; the hint is the template over what was found), and the same
//! searches as pre-retrieval's first ones ([`query`], [`rank`]). A posts
//! search left behind is completed in process ([`posts_in_process`]).

mod evidence;
mod query;
mod rank;
mod shares;

use serde_json::{Map, Value};
use tokio::sync::Semaphore;

pub use query::{m365_arguments, posts_arguments, topic_query};
pub use rank::rank_m365;
pub use shares::add_shared;

use super::run::{
    RunCtx,
    answered::Answered,
    budget, memo_key,
    tool_call::{Called, Tool},
};
use crate::{
    degraded::{Degraded, Source},
    posts::{Admit, Within},
    tools::{POSTS_LIMIT, search_posts_degraded},
};

/// Which sources the direct searches make.
#[derive(Debug, Clone, Copy)]
pub struct Searches {
    pub m365: bool,
    /// False when a posts search of this request already finished (the model's).
    pub posts: bool,
}

/// Makes the direct searches; results land in the run's findings, the
/// documents shared on the similar posts first. The Microsoft 365 search
/// waits for one of `slots`, if given. A search the run already made
/// (pre-retrieval's) is not made again: its answer is reused. Returns the
/// refs of the shared documents.
pub async fn search(ctx: RunCtx<'_>, searches: Searches, slots: Option<&Semaphore>) -> Vec<String> {
    let input = ctx.input;
    let m365 = async {
        if !searches.m365 {
            return;
        }
        if input.graph_token.is_none() {
            ctx.run.findings.lost(Source::M365, Degraded::M365NoToken);
            return;
        }
        let _slot = match slots {
            Some(slots) => match slots.acquire().await {
                Ok(slot) => Some(slot),
                Err(_) => return,
            },
            None => None,
        };
        let arguments = topic_query(ctx).map(|q| m365_arguments(&q));
        let recalled = arguments
            .as_ref()
            .and_then(|a| ctx.run.recalled(&memo_key(Tool::SearchM365, a)));
        // The search, unless pre-retrieval made it; no broadened retry: its
        // query is already OR-ed.
        let searching = arguments.is_some() && recalled.is_none();
        ctx.run
            .graph_budget()
            .cap(if searching { budget::ONE_SEARCH } else { 0 });
        // What the run found before is kept, unless this query found it
        // (pre-retrieval's): that is judged as this search's own.
        let mine = recalled.as_ref().map(Answered::refs).unwrap_or_default();
        let mut known = ctx.run.findings.m365_refs();
        known.retain(|r| !mine.contains(r));
        let answered = match arguments {
            Some(arguments) => call(ctx, Tool::SearchM365, arguments).await,
            None => None,
        };
        let (first, drop) = rank_m365(ctx, answered.as_ref(), &known).await;
        ctx.run.findings.rerank_m365(&first, &drop);
    };
    let posts = async {
        if searches.posts {
            // With the ranking's next best, as pre-retrieval asks: never
            // shown unjudged, they are where colleagues' shares may be.
            let mut arguments = posts_arguments(input);
            arguments.insert("candidates".to_owned(), true.into());
            call(ctx, Tool::SearchPosts, arguments).await;
        }
    };
    futures::join!(m365, posts);
    // What colleagues shared on the similar posts found, first.
    let shared = add_shared(ctx).await;
    // No `generate_action_hint` call: the fallback runs without the LLM, so
    // the tool could only write the template hint, which the response writes
    // from the same top result (`fallback_hint`).
    if ctx.run.findings.has_degraded(Degraded::McpCallFailed) {
        // The tools are unreachable: the hint tool is too.
        ctx.run
            .findings
            .lost(Source::ActionHint, Degraded::McpCallFailed);
    }
    shared
}

/// One direct search through the run's door to the tools (the run's
/// memo answers a call it made before); a call that could not be made, or
/// that the tool refused without saying why, loses its source here.
/// Returns what an answered call added.
pub async fn call(ctx: RunCtx<'_>, tool: Tool, arguments: Map<String, Value>) -> Option<Answered> {
    match ctx.search(tool, arguments, None).await {
        Called::Answered(answered) => return Some(answered),
        // The tool recorded its loss (with its reason).
        Called::ToolError(_) => {}
        // M365's queries are built here and always valid.
        Called::InvalidArguments(_) if tool == Tool::SearchM365 => {}
        Called::InvalidArguments(_) => ctx
            .run
            .findings
            .lost(tool.source(), Degraded::ToolError(tool.source())),
        Called::Failed => ctx
            .run
            .findings
            .lost(tool.source(), Degraded::McpCallFailed),
    }
    None
}

/// The posts search completed in process, when the MCP one was left
/// behind (its Azure query embedding too slow): by words and the local
/// model's vectors, no upstream call; its ranking said in `meta.degraded`.
/// Remembered as the search it stands in for, so an identical call later
/// reads it.
pub async fn posts_in_process(ctx: RunCtx<'_>) -> Option<Answered> {
    let input = ctx.input;
    let arguments = posts_arguments(input);
    let query = arguments
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let exclude = [input.post_id.clone()];
    // A query vector not at hand is given up now: Azure's stands in the
    // word model's; the multilingual model's is the post's stored one.
    let within = Within {
        by: Some(tokio::time::Instant::now()),
        overloaded: true,
    };
    let findings = &ctx.run.findings;
    match ctx
        .posts
        .search(query, &exclude, POSTS_LIMIT, within, Admit::Related)
        .await
    {
        Ok(found) => {
            for reason in search_posts_degraded(&found) {
                findings.degrade(reason);
            }
            findings.answered(Source::Posts);
            let answered = Answered::Posts(findings.add_posts(found.posts, &[]));
            ctx.run
                .remember(memo_key(Tool::SearchPosts, &arguments), answered.clone());
            Some(answered)
        }
        Err(e) => {
            tracing::error!(error.kind = "index_error", error.message = %e, "post search failed");
            findings.lost(Source::Posts, Degraded::PostsIndexError);
            None
        }
    }
}
