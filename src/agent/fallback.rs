//! The no-LLM path: `search_m365` with keyword queries derived from the post
//! (ranked by how many found each document) and `search_posts`, in
//! parallel; the hint is the template over what was found.

use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;

use super::{
    RunInput,
    tool_call::{Answered, CallCtx, Called, Tool, Traced},
};
use crate::{
    degraded::{Degraded, Source},
    keywords::{keywords, kql_term},
    tools::{MAX_QUERY_CHARS, truncate},
};

/// Keywords the Microsoft 365 queries are made of.
const KEY_TERMS: usize = 3;

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
        let known = ctx.findings.m365_refs();
        let calls = m365_queries(&input.text, &input.tags)
            .into_iter()
            .map(|q| call(ctx, Tool::SearchM365, json!({ "query": q })));
        let answers = futures::future::join_all(calls).await;
        let (first, drop) = rank_m365(&answers, &known);
        ctx.findings.rerank_m365(&first, &drop);
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
/// without saying why its source is lost, loses the source here. Returns
/// what an answered call added.
async fn call(ctx: CallCtx<'_>, tool: Tool, args: Value) -> Option<Answered> {
    let arguments: Map<String, Value> = match args {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let called = Traced::start(tool.name(), None, ctx.events)
        .call(tool, ctx, arguments)
        .await;
    match called {
        Called::Answered(answered) => return Some(answered),
        // The tool recorded its loss (with its reason).
        Called::ToolError(_) => {}
        // M365's queries are built here and always valid.
        Called::InvalidArguments(_) if tool == Tool::SearchM365 => {}
        Called::InvalidArguments(_) => ctx
            .findings
            .lost(tool.source(), Degraded::ToolError(tool.source())),
        Called::Failed => ctx.findings.lost(tool.source(), Degraded::McpCallFailed),
    }
    None
}

/// The fallback's Microsoft 365 results, best first: those more of its
/// queries found first, then by their best rank. When a query found
/// documents matching its words, what the broadened ones found is dropped
/// (unless the run had it before): it only dilutes the panel. Returns (the
/// ranked refs, the refs to drop).
fn rank_m365(answers: &[Option<Answered>], known: &[String]) -> (Vec<String>, Vec<String>) {
    let lists: Vec<(&[String], bool)> = answers
        .iter()
        .filter_map(|a| match a {
            Some(Answered::M365 { refs, broadened }) => Some((refs.as_slice(), *broadened)),
            _ => None,
        })
        .collect();
    let exact_found = lists
        .iter()
        .any(|(refs, broadened)| !broadened && !refs.is_empty());
    let mut scored: Vec<(&String, usize, usize)> = Vec::new();
    let mut drop = Vec::new();
    for (refs, broadened) in lists {
        for (rank, r) in refs.iter().enumerate() {
            if broadened && exact_found {
                if !known.contains(r) {
                    drop.push(r.clone());
                }
                continue;
            }
            match scored.iter_mut().find(|(x, _, _)| *x == r) {
                Some((_, found_by, best)) => {
                    *found_by += 1;
                    *best = (*best).min(rank);
                }
                None => scored.push((r, 1, rank)),
            }
        }
    }
    scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
    let first: Vec<String> = scored.into_iter().map(|(r, _, _)| r.clone()).collect();
    drop.retain(|r| !first.contains(r));
    (first, drop)
}

/// Keyword queries for Graph: every pair of the post's first three keywords
/// (its text's, then its tags'), compound words as phrases. Graph ANDs a
/// query's terms, so a pair finds what shares two key words with the post,
/// and what shares all three is found by every query (and ranks first).
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
    let terms: Vec<String> = terms.iter().take(KEY_TERMS).map(|t| kql_term(t)).collect();
    let queries: Vec<String> = match terms.as_slice() {
        [] => Vec::new(),
        [one] => vec![one.clone()],
        _ => (0..terms.len())
            .flat_map(|i| (i + 1..terms.len()).map(move |j| (i, j)))
            .map(|(i, j)| format!("{} {}", terms[i], terms[j]))
            .collect(),
    };
    queries
        .into_iter()
        .map(|q| truncate(&q, MAX_QUERY_CHARS - 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_queries_are_pairs_of_key_words_not_the_sentence() {
        let q = m365_queries(
            "How do I set up a deployment pipeline for our repo?",
            &["devops".into()],
        );
        assert_eq!(
            q,
            vec!["deployment pipeline", "deployment repo", "pipeline repo"]
        );
        assert_eq!(
            m365_queries("CI/CD for the repo", &["devops".into()]),
            vec!["\"ci/cd\" repo", "\"ci/cd\" devops", "repo devops"],
            "a compound word is one phrase; tags complete the text's keywords"
        );
        assert_eq!(m365_queries("Payroll?", &[]), vec!["payroll"]);
    }

    fn m365(refs: &[&str], broadened: bool) -> Option<Answered> {
        Some(Answered::M365 {
            refs: refs.iter().map(|r| r.to_string()).collect(),
            broadened,
        })
    }

    #[test]
    fn documents_more_queries_found_rank_first_and_broadened_ones_make_way() {
        let answers = [
            m365(&["m1", "m2"], false),
            m365(&["m2", "m3"], false),
            m365(&["m4", "m5"], true),
            None,
        ];
        let (first, drop) = rank_m365(&answers, &["m5".to_owned()]);
        assert_eq!(first, vec!["m2", "m1", "m3"]);
        assert_eq!(drop, vec!["m4"], "m5 was the run's before the fallback");
        let only_broad = [m365(&[], false), m365(&["m4", "m5"], true)];
        let (first, drop) = rank_m365(&only_broad, &[]);
        assert_eq!(first, vec!["m4", "m5"], "nothing else found: kept");
        assert!(drop.is_empty());
    }

    #[test]
    fn text_without_keywords_gives_no_graph_query() {
        assert!(m365_queries("how do I?", &[]).is_empty());
    }
}
