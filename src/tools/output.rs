//! What the tools answer: a typed result as `structuredContent` (its schema is
//! the tool's `outputSchema`), a compact text of it for models, and the
//! degradation behind a result or a failure under `_meta["linkup/degraded"]`.

use rmcp::model::{CallToolResult, ContentBlock, MetaObject};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::truncate;
use crate::{
    contract::{M365Source, McpSuggestion, PostCategory, PostSummary},
    degraded::Degraded,
};

/// The `_meta` key of a result's degradation reasons (`meta.degraded` strings).
pub const DEGRADED_META_KEY: &str = "linkup/degraded";
/// Longest M365 description in the compact text.
pub const MAX_DESCRIPTION_CHARS: usize = 200;
/// Longest post text in the compact text.
pub const MAX_POST_CHARS: usize = 300;

/// `search_m365`'s result.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct M365Found {
    /// Documents, list items and mails, deduplicated, best first.
    pub items: Vec<McpSuggestion>,
    /// The query found nothing, so these are what its terms OR-ed found.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub broadened: bool,
}

/// `search_posts`' result.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct PostsFound {
    /// Similar LinkUp posts, best first (never the requesting post).
    pub posts: Vec<PostSummary>,
    /// With `candidates`: per post, whether it is related enough to show
    /// without a judge (the others are the ranking's next best).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<bool>,
}

/// `generate_action_hint`'s result.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct HintWritten {
    /// One sentence on what to do next; null when no result was given.
    pub hint: Option<String>,
}

/// A Microsoft 365 item as a model reads it.
#[derive(Serialize)]
struct CompactM365<'a> {
    title: &'a str,
    url: &'a str,
    source: M365Source,
    description: String,
}

/// A post as a model reads it.
#[derive(Serialize)]
struct CompactPost<'a> {
    id: &'a str,
    text: String,
    tags: &'a [String],
    category: PostCategory,
    /// With `candidates`: false for the ranking's next best.
    #[serde(skip_serializing_if = "Option::is_none")]
    related: Option<bool>,
}

/// Items as a JSON array for models: `{title, url, source, description ≤ 200}`.
pub fn m365_text(items: &[McpSuggestion]) -> String {
    let compact: Vec<_> = items
        .iter()
        .map(|m| CompactM365 {
            title: &m.title,
            url: &m.url,
            source: m.source,
            description: truncate(&m.description, MAX_DESCRIPTION_CHARS),
        })
        .collect();
    serde_json::to_string(&compact).unwrap_or_default()
}

/// Posts as a JSON array for models: `{id, text ≤ 300, tags, category,
/// related?}` (`related` when the search returned candidates).
pub fn posts_text(posts: &[PostSummary], related: &[bool]) -> String {
    let compact: Vec<_> = posts
        .iter()
        .enumerate()
        .map(|(i, p)| CompactPost {
            id: &p.id,
            text: truncate(&p.text, MAX_POST_CHARS),
            tags: &p.tags,
            category: p.category,
            related: related.get(i).copied(),
        })
        .collect();
    serde_json::to_string(&compact).unwrap_or_default()
}

/// A result: `out` as structured content, `text` for models (none for the
/// in-process caller, which writes its own with its refs), and the reasons
/// it is degraded.
pub(super) fn answered<T: Serialize>(
    out: &T,
    text: Option<String>,
    degraded: &[Degraded],
) -> CallToolResult {
    let text = text.map(ContentBlock::text);
    let mut result = CallToolResult::success(text.into_iter().collect());
    result.structured_content = serde_json::to_value(out).ok();
    result.meta = meta(degraded);
    result
}

/// A tool error: `text` for the caller, and the reason its source was lost
/// (none when the call itself was wrong, e.g. its arguments).
pub(super) fn failed(text: impl Into<String>, reason: Option<Degraded>) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(text.into())]);
    result.meta = meta(reason.as_slice());
    result
}

fn meta(degraded: &[Degraded]) -> Option<MetaObject> {
    if degraded.is_empty() {
        return None;
    }
    let reasons = degraded.iter().map(|d| Value::String(d.to_string()));
    let mut meta = MetaObject::default();
    meta.0.insert(
        DEGRADED_META_KEY.to_owned(),
        Value::Array(reasons.collect()),
    );
    Some(meta)
}

/// The degradation reasons a result names in its `_meta`.
pub fn degraded_of(result: &CallToolResult) -> Vec<Degraded> {
    let reasons = result
        .meta
        .as_ref()
        .and_then(|m| m.0.get(DEGRADED_META_KEY))
        .and_then(Value::as_array);
    reasons
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str().and_then(Degraded::from_wire))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degradation_survives_the_meta_round_trip() {
        let reasons = [
            Degraded::M365Partial(crate::msgraph::GraphErrorKind::RateLimited),
            Degraded::PostsLexicalOnly,
        ];
        let result = answered(&HintWritten { hint: None }, None, &reasons);
        assert_eq!(degraded_of(&result), reasons);
        let lost = failed("no token", Some(Degraded::M365NoToken));
        assert_eq!(lost.is_error, Some(true));
        assert_eq!(degraded_of(&lost), [Degraded::M365NoToken]);
        assert!(degraded_of(&failed("bad query", None)).is_empty());
    }
}
