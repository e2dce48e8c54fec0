//! `search_posts`: similar LinkUp posts from the post index.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{MAX_DESCRIPTION_CHARS, Session, Source, ToolDeps, check_query, truncate};
use crate::degraded::Degraded;

/// Posts returned per search.
const LIMIT: usize = 5;

/// Arguments of `search_posts`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchPostsArgs {
    /// What the post is about, at most 500 characters.
    pub query: String,
    /// A further post id to leave out (the requesting post is always left out).
    #[serde(default)]
    pub exclude_post_id: Option<String>,
}

pub(super) async fn run(
    deps: &ToolDeps,
    session: &Session,
    args: SearchPostsArgs,
) -> Result<String, String> {
    let query = check_query(&args.query)?;
    let mut exclude = vec![session.post_id.clone()];
    exclude.extend(args.exclude_post_id);
    let found = deps.posts.search(query, &exclude, LIMIT).await;
    session.mark_posts_searched();
    let found = found.map_err(|e| {
        tracing::error!(tool = "search_posts", error.kind = "index_error", error.message = %e, "post search failed");
        session.mark_lost(Source::Posts, Degraded::PostsIndexError);
        "post index search failed".to_owned()
    })?;
    session.mark_answered(Source::Posts);
    if found.lexical_only {
        session.degrade(Degraded::PostsLexicalOnly);
    }
    if let Some(kind) = found.embedding_error {
        session.degrade(Degraded::Embeddings(kind));
    }
    let refs = session.add_posts(found.posts.clone());
    let out: Vec<_> = refs
        .iter()
        .zip(&found.posts)
        .map(|(r, p)| {
            json!({
                "ref": r, "id": p.id, "text": truncate(&p.text, MAX_DESCRIPTION_CHARS),
                "tags": p.tags, "category": p.category, "authorName": p.author_name,
                "mode": p.mode, "createdAt": p.created_at,
                "interestedCount": p.interested_count, "joinCount": p.join_count,
            })
        })
        .collect();
    Ok(serde_json::Value::Array(out).to_string())
}
