//! `search_posts`: similar LinkUp posts from the post index.

use std::time::Duration;

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    Caller, ToolDeps, check_query,
    output::{self, PostsFound},
};
use crate::{
    degraded::Degraded,
    posts::{Admit, PostSearch, Within},
};

/// Posts returned per search.
pub const LIMIT: usize = 5;
/// How long before the caller's deadline the query's vector is given up
/// (Azure's embedding, or the multilingual model's of a new text): the time
/// left ranks and reads the posts.
const RANKING_RESERVE: Duration = Duration::from_millis(100);

/// Arguments of `search_posts`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchPostsArgs {
    /// What the post is about (at most 500 chars).
    pub query: String,
    /// Another post id to leave out.
    #[serde(default)]
    pub exclude_post_id: Option<String>,
    /// The ranking's best posts, related or not, each marked `related`
    /// (default false: only the related ones), for a caller that judges.
    #[serde(default)]
    pub candidates: bool,
}

pub(super) async fn run(
    deps: &ToolDeps,
    caller: &Caller,
    args: SearchPostsArgs,
    with_text: bool,
) -> CallToolResult {
    let query = match check_query(&args.query) {
        Ok(q) => q,
        Err(invalid) => return invalid,
    };
    let exclude: Vec<String> = caller
        .post_id
        .iter()
        .cloned()
        .chain(args.exclude_post_id)
        .collect();
    let within = Within {
        by: caller
            .deadline()
            .map(|d| d.checked_sub(RANKING_RESERVE).unwrap_or(d)),
        overloaded: caller.overloaded(),
    };
    let admit = if args.candidates {
        Admit::Candidates
    } else {
        Admit::Related
    };
    let found = match deps
        .posts
        .search(query, &exclude, LIMIT, within, admit)
        .await
    {
        Ok(found) => found,
        Err(e) => {
            tracing::error!(tool = "search_posts", error.kind = "index_error", error.message = %e, "post search failed");
            return output::failed("post index search failed", Some(Degraded::PostsIndexError));
        }
    };
    let degraded = degraded_of(&found);
    let related = if args.candidates {
        found.related
    } else {
        Vec::new()
    };
    let text = with_text.then(|| output::posts_text(&found.posts, &related));
    let found = PostsFound {
        posts: found.posts,
        related,
    };
    output::answered(&found, text, &degraded)
}

/// What a posts search's answer says of how it ranked, for `meta.degraded`.
pub fn degraded_of(found: &PostSearch) -> Vec<Degraded> {
    let mut degraded = Vec::new();
    if found.lexical_only {
        degraded.push(Degraded::PostsLexicalOnly);
    }
    if found.word_model_stood_in {
        degraded.push(Degraded::PostsWordModel);
    }
    if let Some(kind) = found.embedding_error {
        degraded.push(Degraded::Embeddings(kind));
    }
    degraded
}
