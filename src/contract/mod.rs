//! Wire types of the HTTP API (camelCase JSON), shared with the TypeScript
//! clients. `CombinedSuggestionsResponse` is the old contract, unchanged, plus `meta`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

mod auth;
mod board;
mod readiness;
mod runs;

pub use auth::{LlmAuthStatus, TokenStatus};
pub use board::{Items, Reply, ReplyInput, SharedDocument, SharedDocumentInput};
pub use readiness::{RateLimits, Readiness};
pub use runs::{RunRecord, RunStep, RunToolCall, RunUsage};

/// Body of `POST /api/suggestions`.
#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuggestionsRequest {
    /// 1–128 chars of `[A-Za-z0-9._:-]`; this post is excluded from similar posts.
    pub post_id: String,
    /// The post text, 1–10,000 chars after trimming.
    pub text: String,
    /// At most 20 tags of at most 50 chars.
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub category: Option<String>,
}

/// One Microsoft 365 document, mail or list item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpSuggestion {
    pub title: String,
    pub url: String,
    pub description: String,
    /// Always `m365`.
    pub source_type: String,
    pub source: M365Source,
    /// Always `available`.
    pub status: String,
}

/// Where a Microsoft 365 result lives.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum M365Source {
    Onedrive,
    Sharepoint,
    Email,
    /// A link a user shared on a post (LinkUp's `link`): never a Graph hit.
    Link,
}

impl M365Source {
    /// Lower-case name, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Onedrive => "onedrive",
            Self::Sharepoint => "sharepoint",
            Self::Email => "email",
            Self::Link => "link",
        }
    }
}

/// A LinkUp post as shown in the panel (and as stored in the post index):
/// the LinkUp app's `PostSummary` (`app/types/index.ts`), every field present.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostSummary {
    pub id: String,
    pub author_id: String,
    pub author_name: String,
    pub text: String,
    pub tags: Vec<String>,
    /// Latitude, -90 to 90.
    pub lat: f64,
    /// Longitude, -180 to 180.
    pub lng: f64,
    pub mode: PostMode,
    pub category: PostCategory,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub expires_at: String,
    pub interested_count: u32,
    pub join_count: u32,
}

impl PostSummary {
    /// A live online question `text` by Kim (`u`), created 2026-11-01 and
    /// expiring in 2099, nobody interested yet: the post tests and
    /// benchmarks build on (`PostSummary { tags, ..example(id, text) }`).
    #[doc(hidden)]
    pub fn example(id: &str, text: &str) -> Self {
        Self {
            id: id.to_owned(),
            author_id: "u".to_owned(),
            author_name: "Kim".to_owned(),
            text: text.to_owned(),
            tags: Vec::new(),
            lat: 0.0,
            lng: 0.0,
            mode: PostMode::Online,
            category: PostCategory::Question,
            created_at: "2026-11-01T00:00:00Z".to_owned(),
            expires_at: "2099-01-01T00:00:00Z".to_owned(),
            interested_count: 0,
            join_count: 0,
        }
    }
}

/// How a post's meeting happens.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    ToSchema,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum PostMode {
    #[default]
    Online,
    Offline,
    Both,
}

/// What kind of post it is.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    ToSchema,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum PostCategory {
    Question,
    /// What the LinkUp app assumes for posts stored without a category.
    #[default]
    Discussion,
    Share,
    Help,
    Meetup,
}

impl PostCategory {
    /// Lower-case name, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Question => "question",
            Self::Discussion => "discussion",
            Self::Share => "share",
            Self::Help => "help",
            Self::Meetup => "meetup",
        }
    }
}

/// Body of `PUT /api/posts/{postId}` (the id comes from the path).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostInput {
    /// Optional; must equal the path id when present.
    #[serde(default)]
    pub id: Option<String>,
    pub author_id: String,
    pub author_name: String,
    pub text: String,
    #[serde(default)]
    pub tags: Vec<String>,
    /// Latitude, -90 to 90.
    pub lat: f64,
    /// Longitude, -180 to 180.
    pub lng: f64,
    /// `online` when absent.
    #[serde(default)]
    pub mode: PostMode,
    /// `discussion` when absent, as the LinkUp app does.
    #[serde(default)]
    pub category: PostCategory,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub expires_at: String,
    #[serde(default)]
    pub interested_count: u32,
    #[serde(default)]
    pub join_count: u32,
}

/// Body of `POST /api/posts/batch`: posts carrying their own `id`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostBatch {
    /// At most 1,000 posts.
    #[serde(default)]
    pub posts: Vec<PostInput>,
    /// Documents shared on posts, each with its `postId` and `id`; applied
    /// after the posts, in order (at most 1,000).
    #[serde(default)]
    pub shared_documents: Vec<SharedDocumentInput>,
    /// Replies, each with its `postId` and `id` (at most 1,000).
    #[serde(default)]
    pub replies: Vec<ReplyInput>,
}

/// Answer of `POST /api/posts/batch`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PostBatchResult {
    /// Posts.
    pub created: usize,
    pub updated: usize,
    /// Shared documents, when the batch carried any.
    #[serde(rename = "sharedDocuments", skip_serializing_if = "Option::is_none")]
    pub shared_documents: Option<Counts>,
    /// Replies, when the batch carried any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replies: Option<Counts>,
}

/// How many items a batch created and replaced.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, ToSchema)]
pub struct Counts {
    pub created: usize,
    pub updated: usize,
}

/// The Suggestions panel: the TypeScript `CombinedSuggestionsResponse`, plus `meta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CombinedSuggestionsResponse {
    /// At most 10 items.
    pub m365: Vec<McpSuggestion>,
    /// At most 5 items.
    pub posts: Vec<PostSummary>,
    /// Null when nothing was found.
    pub action_hint: Option<String>,
    /// Always `mcp` (compatibility).
    pub source: String,
    /// `m365`, `posts`, `actionHint`: sources that could not be consulted or failed.
    pub unavailable_sources: Vec<String>,
    pub meta: ResponseMeta,
}

/// How the answer was produced (old clients ignore it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResponseMeta {
    pub run_id: String,
    /// `agent`, `fallback` or `partial`.
    pub path: RunPath,
    /// LLM rounds made.
    pub rounds: u32,
    pub elapsed_ms: u64,
    /// Short machine-readable reasons, e.g. `llm_unconfigured`, `m365_unauthorized`.
    pub degraded: Vec<String>,
    /// A panel the stream shows before the model answers (`preview`
    /// event); the `result` replaces it. Absent from final answers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
    /// Served from the panel cache; `runId` is the run that computed it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
}

/// Which path produced the answer.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RunPath {
    Agent,
    Fallback,
    Partial,
}

impl RunPath {
    /// Lower-case name, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Fallback => "fallback",
            Self::Partial => "partial",
        }
    }
}

/// The one shape of every 4xx/5xx body.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// What went wrong, and with which field.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ErrorDetail {
    /// e.g. `invalid_request`, `unsupported_media_type`, `payload_too_large`.
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}
