//! The no-LLM path: `search_m365` with keyword queries derived from the post
//! and `search_posts`, in parallel; the hint is the template over what was found.

use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;

use super::{
    RunInput,
    tool_call::{CallCtx, Called, Tool, Traced},
};
use crate::{
    degraded::{Degraded, Source},
    keywords::keywords,
    tools::{MAX_QUERY_CHARS, truncate},
};

/// Keywords in the broad (OR) query.
const BROAD_TERMS: usize = 8;
/// Keywords in the precise (AND) query.
const PRECISE_TERMS: usize = 3;

/// Which sources the fallback searches.
#[derive(Debug, Clone, Copy)]
pub(super) struct Searches {
    pub m365: bool,
    /// False when a posts search of this request already finished (the model's).
    pub posts: bool,
}

/// Runs the fallback tools; results land in the run's findings. The
/// Microsoft 365 searches wait for one of `slots`.
pub(super) async fn run(ctx: CallCtx<'_>, input: &RunInput, searches: Searches, slots: &Semaphore) {
    let m365 = async {
        if !searches.m365 {
            return;
        }
        if input.graph_token.is_none() {
            ctx.findings.lost(Source::M365, Degraded::M365NoToken);
            return;
        }
        let Ok(_slot) = slots.acquire().await else {
            return;
        };
        let calls = m365_queries(&input.text, &input.tags)
            .into_iter()
            .map(|q| call(ctx, Tool::SearchM365, json!({ "query": q })));
        futures::future::join_all(calls).await;
    };
    let posts = async {
        if searches.posts {
            let query = truncate(&input.posts_query(), MAX_QUERY_CHARS - 1);
            call(ctx, Tool::SearchPosts, json!({ "query": query })).await;
        }
    };
    futures::join!(m365, posts);
    // No `generate_action_hint` call: the fallback runs without the LLM, so
    // the tool could only write the template hint, which the response writes
    // from the same top result (`fallback_hint`).
    if ctx.findings.has_degraded(Degraded::McpCallFailed) {
        // The tools are unreachable: the hint tool is too.
        ctx.findings
            .lost(Source::ActionHint, Degraded::McpCallFailed);
    }
}

/// Calls one tool; a call that could not be made, or that the tool refused
/// without saying why its source is lost, loses the source here.
async fn call(ctx: CallCtx<'_>, tool: Tool, args: Value) {
    let arguments: Map<String, Value> = match args {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let called = Traced::start(tool.name(), ctx.events)
        .call(tool, ctx, arguments)
        .await;
    match called {
        // The tool recorded its loss (with its reason) or its answer.
        Called::Answered(_) | Called::ToolError(_) => {}
        // M365's queries are built here and always valid.
        Called::InvalidArguments(_) if tool == Tool::SearchM365 => {}
        Called::InvalidArguments(_) => ctx
            .findings
            .lost(tool.source(), Degraded::ToolError(tool.source())),
        Called::Failed => ctx.findings.lost(tool.source(), Degraded::McpCallFailed),
    }
}

/// Keyword queries for Graph: a precise one (top keywords, all required) and a
/// broad one (any keyword), so a long post still finds documents.
fn m365_queries(text: &str, tags: &[String]) -> Vec<String> {
    let mut terms = keywords(text);
    for tag in tags {
        for k in keywords(tag) {
            if !terms.contains(&k) {
                terms.push(k);
            }
        }
    }
    terms.retain(|t| !t.contains(':'));
    if terms.is_empty() {
        return Vec::new();
    }
    let precise = terms
        .iter()
        .take(PRECISE_TERMS)
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    let broad = terms
        .iter()
        .take(BROAD_TERMS)
        .cloned()
        .collect::<Vec<_>>()
        .join(" OR ");
    let mut queries = vec![truncate(&precise, MAX_QUERY_CHARS - 1)];
    if terms.len() > 1 && broad != precise {
        queries.push(truncate(&broad, MAX_QUERY_CHARS - 1));
    }
    queries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_queries_are_keywords_not_the_sentence() {
        let q = m365_queries(
            "How do I set up a deployment pipeline for our repo?",
            &["devops".into()],
        );
        assert_eq!(
            q,
            vec![
                "deployment pipeline repo",
                "deployment OR pipeline OR repo OR devops"
            ]
        );
    }

    #[test]
    fn text_without_keywords_gives_no_graph_query() {
        assert!(m365_queries("how do I?", &[]).is_empty());
    }
}
