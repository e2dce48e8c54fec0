//! What LinkUp's users add to a post (its spec 005): the documents shared
//! on it and its replies, as LinkUp pushes them (`SharedDocument`, `Reply`
//! of `app/types/index.ts`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::M365Source;

/// Body of `PUT /api/posts/{postId}/shared-documents/{docId}`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SharedDocumentInput {
    /// Optional; must equal the path id when present.
    #[serde(default)]
    pub id: Option<String>,
    /// Optional; must equal the path's post id when present.
    #[serde(default)]
    pub post_id: Option<String>,
    pub sharer_id: String,
    pub sharer_name: String,
    /// 1–500 characters after trimming.
    pub title: String,
    /// Non-empty; unique on its post.
    pub url: String,
    pub source_type: M365Source,
    /// RFC 3339.
    pub created_at: String,
}

/// A document shared on a post, as stored and returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SharedDocument {
    pub id: String,
    pub post_id: String,
    pub sharer_id: String,
    pub sharer_name: String,
    pub title: String,
    pub url: String,
    pub source_type: M365Source,
    pub created_at: String,
}

/// Body of `PUT /api/posts/{postId}/replies/{replyId}`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplyInput {
    /// Optional; must equal the path id when present.
    #[serde(default)]
    pub id: Option<String>,
    /// Optional; must equal the path's post id when present.
    #[serde(default)]
    pub post_id: Option<String>,
    pub author_id: String,
    pub author_name: String,
    /// 1–500 characters after trimming.
    pub text: String,
    /// RFC 3339.
    pub created_at: String,
}

/// A reply to a post, as stored and returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    pub id: String,
    pub post_id: String,
    pub author_id: String,
    pub author_name: String,
    pub text: String,
    pub created_at: String,
}

/// A post's shared documents (oldest first) or replies (newest first), as
/// `GET` lists them.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Items<T> {
    pub items: Vec<T>,
}
