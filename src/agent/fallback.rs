//! The no-LLM path: one `search_m365` with the post's most specific words
//! OR-ed (two Graph requests, files and mail), the documents ranked by
//! Graph and by meaning against the post, unrelated ones dropped; and
//! `search_posts`, in parallel. The hint is the template over what was
//! found.

use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;

use super::{
    RunInput,
    ctx::RunCtx,
    findings::Answered,
    tool_call::{Called, Tool, Traced},
};
use crate::{
    degraded::{Degraded, Source},
    keywords::{keywords, kql_term, most_specific},
    tools::{MAX_QUERY_CHARS, REQUESTS_PER_SEARCH, truncate},
};

/// Graph requests the fallback makes at most: one search, no broadened
/// retry (its query is already OR-ed).
pub(super) const GRAPH_REQUESTS: u32 = REQUESTS_PER_SEARCH;
/// The most specific words the query ORs.
const TOPIC_TERMS: usize = 4;
/// A document is dropped when the local model finds it no more similar to
/// the post than the posts are on average (see `PostIndex::relatedness`). Not
/// higher: where many posts share the topic, they raise that mean, and a
/// floor of 2 sd (tuning half: recall 0.405, precision 0.648, against 0.417
/// and 0.634 at 0) dropped every document of the topic.
const MIN_DOCUMENT_RELATEDNESS: f32 = 0.0;
/// ... or more than this many standard deviations under the best document
/// (what a broad query adds far below what it found best is filler).
const DOCUMENT_BAND: f32 = 2.5;

/// Which sources the fallback searches.
#[derive(Debug, Clone, Copy)]
pub(super) struct Searches {
    pub m365: bool,
    /// False when a posts search of this request already finished (the model's).
    pub posts: bool,
}

/// Runs the fallback tools; results land in the run's findings. The
/// Microsoft 365 searches wait for one of `slots`, if given. A search the run already
/// made (pre-retrieval's) is not made again: its answer is reused.
pub(super) async fn run(ctx: RunCtx<'_>, searches: Searches, slots: Option<&Semaphore>) {
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
        let arguments = broad_query(ctx).map(|q| m365_arguments(&q));
        let recalled = arguments
            .as_ref()
            .and_then(|a| ctx.run.recalled(Tool::SearchM365.name(), &a.to_string()));
        // The search, unless pre-retrieval made it; no broadened retry: its
        // query is already OR-ed.
        let searching = arguments.is_some() && recalled.is_none();
        ctx.run
            .graph_budget()
            .cap(if searching { GRAPH_REQUESTS } else { 0 });
        // What the run found before is kept, unless this query found it
        // (pre-retrieval's): that the fallback judges as its own.
        let mine = recalled.as_ref().map(Answered::refs).unwrap_or_default();
        let mut known = ctx.run.findings.m365_refs();
        known.retain(|r| !mine.contains(r));
        let answered = match arguments {
            Some(arguments) => call(ctx, Tool::SearchM365, arguments).await,
            None => None,
        };
        let (first, drop) = ranked_m365(ctx, answered.as_ref(), &known);
        ctx.run.findings.rerank_m365(&first, &drop);
    };
    let posts = async {
        if searches.posts {
            call(ctx, Tool::SearchPosts, posts_arguments(input)).await;
        }
    };
    futures::join!(m365, posts);
    // No `generate_action_hint` call: the fallback runs without the LLM, so
    // the tool could only write the template hint, which the response writes
    // from the same top result (`fallback_hint`).
    if ctx.run.findings.has_degraded(Degraded::McpCallFailed) {
        // The tools are unreachable: the hint tool is too.
        ctx.run
            .findings
            .lost(Source::ActionHint, Degraded::McpCallFailed);
    }
}

/// The arguments of a Microsoft 365 search for `query`.
pub(super) fn m365_arguments(query: &str) -> Value {
    json!({ "query": query })
}

/// The arguments of the fallback's posts search: the post's text and tags.
pub(super) fn posts_arguments(input: &RunInput) -> Value {
    json!({ "query": truncate(&input.posts_query(), MAX_QUERY_CHARS - 1) })
}

/// The fallback's Microsoft 365 query, also pre-retrieval's: the post's
/// most specific words OR-ed. On the tuning half it finds as much as the
/// model's planned searches (recall@10 0.45, with the fallback's ranking by
/// meaning), where the two most specific AND-ed found 0.37 and left two
/// views in three to a second model round; beside it, that AND-ed query
/// added nothing on either half (BENCHMARKS.md, "One search").
pub(super) fn broad_query(ctx: RunCtx<'_>) -> Option<String> {
    let input = ctx.input;
    m365_query(&input.text, &input.tags, |w| ctx.posts.specificity(w))
}

/// The documents `answered` found, ranked as the fallback ranks them:
/// Graph's order fused with their meaning against the post (see
/// [`by_meaning`]); returns (the ranked refs, the refs to drop), keeping
/// what the run had before (`known`).
pub(super) fn ranked_m365(
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

/// Calls one tool, or answers from the run's memo when the run made the
/// same call before; a call that could not be made, or that the tool
/// refused without saying why its source is lost, loses the source here.
/// Returns what an answered call added.
pub(super) async fn call(ctx: RunCtx<'_>, tool: Tool, args: Value) -> Option<Answered> {
    let arguments: Map<String, Value> = match args {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let key = Value::Object(arguments.clone()).to_string();
    if let Some(answered) = ctx.run.recalled(tool.name(), &key) {
        return Some(answered);
    }
    let called = Traced::start(tool.name(), None, ctx.run)
        .call(tool, ctx, arguments)
        .await;
    match called {
        Called::Answered(answered) => {
            ctx.run.remember(tool.name(), key, answered.clone());
            return Some(answered);
        }
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

/// The fallback's documents (`ranked`, best first) reordered by meaning as
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

/// The keyword query for Graph: the post's (and its tags') four most
/// specific words (`specificity`, higher = rarer among the posts) OR-ed,
/// compound words as phrases (Graph ranks what matches more of them
/// first); none when the post has no keyword. Everyday words that merely
/// come first in the sentence are not the topic.
fn m365_query(text: &str, tags: &[String], specificity: impl Fn(&str) -> f32) -> Option<String> {
    let mut words = keywords(text);
    for tag in tags {
        for k in keywords(tag) {
            if !words.contains(&k) {
                words.push(k);
            }
        }
    }
    words.retain(|t| !t.contains(':'));
    let topic: Vec<String> = most_specific(&words, TOPIC_TERMS, &specificity)
        .iter()
        .map(|t| kql_term(t))
        .collect();
    (!topic.is_empty()).then(|| truncate(&topic.join(" OR "), MAX_QUERY_CHARS - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Specificity from a made-up index: everyday words are common.
    fn specificity(word: &str) -> f32 {
        match word {
            "keep" | "getting" | "guide" | "internal" | "set" | "often" | "client" => 0.5,
            "cluster" | "pods" | "repo" => 2.0,
            _ => 4.0,
        }
    }

    #[test]
    fn graph_queries_are_made_of_the_most_specific_words_not_the_first_ones() {
        let q = m365_query(
            "Our pods keep getting evicted on the cluster, any internal guide on k8s resource limits?",
            &[],
            specificity,
        );
        assert_eq!(q.as_deref(), Some("evicted OR k8s OR resource OR limits"));
        assert_eq!(
            m365_query("CI/CD for the repo", &["devops".into()], specificity).as_deref(),
            Some("\"ci/cd\" OR repo OR devops"),
            "a compound word is one phrase; tags complete the text's keywords"
        );
        assert_eq!(
            m365_query("Payroll?", &[], specificity).as_deref(),
            Some("payroll")
        );
    }

    #[test]
    fn text_without_keywords_gives_no_graph_query() {
        assert_eq!(m365_query("how do I?", &[], specificity), None);
    }
}
