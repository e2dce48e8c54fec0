//! What the board knows of a post — the documents shared on it and its
//! replies — stored with the post (a column of its row, so it is written,
//! replicated, copied and deleted with it), and how one change applies.

use serde::{Deserialize, Serialize};

use super::parse_time_ms;
use crate::contract::{Reply, SharedDocument};

/// A post's shared documents (oldest first) and replies (newest first).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Knowledge {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shares: Vec<SharedDocument>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replies: Vec<Reply>,
}

/// One change to a post's knowledge.
#[derive(Debug, Clone)]
pub enum Change {
    PutShare(SharedDocument),
    DeleteShare(String),
    PutReply(Reply),
    DeleteReply(String),
}

/// What a change did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changed {
    Created,
    Replaced,
    /// Deleted, or already absent (a delete is idempotent).
    Deleted,
}

/// Why a change was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// No such live post.
    NoPost,
    /// The URL is shared on the post under another id (LinkUp's FR-010).
    UrlShared { id: String },
}

/// What one write of posts and changes did: each post whether new, each
/// change what it did; or, when a change was refused, which and why, and
/// nothing written.
pub type Written = Result<(Vec<bool>, Vec<Changed>), (usize, Refused)>;

impl Knowledge {
    /// Whether it holds nothing (stored as NULL).
    pub fn is_empty(&self) -> bool {
        self.shares.is_empty() && self.replies.is_empty()
    }

    /// Applies `change`, or refuses it leaving `self` as it was.
    pub fn apply(&mut self, change: Change) -> Result<Changed, Refused> {
        match change {
            Change::PutShare(share) => {
                if let Some(other) = self
                    .shares
                    .iter()
                    .find(|s| s.url == share.url && s.id != share.id)
                {
                    return Err(Refused::UrlShared {
                        id: other.id.clone(),
                    });
                }
                let changed = put(&mut self.shares, share, |s| &s.id);
                self.shares
                    .sort_by_cached_key(|s| (parse_time_ms(&s.created_at), s.id.clone()));
                Ok(changed)
            }
            Change::PutReply(reply) => {
                let changed = put(&mut self.replies, reply, |r| &r.id);
                self.replies.sort_by_cached_key(|r| {
                    std::cmp::Reverse((parse_time_ms(&r.created_at), r.id.clone()))
                });
                Ok(changed)
            }
            Change::DeleteShare(id) => {
                self.shares.retain(|s| s.id != id);
                Ok(Changed::Deleted)
            }
            Change::DeleteReply(id) => {
                self.replies.retain(|r| r.id != id);
                Ok(Changed::Deleted)
            }
        }
    }

    /// As stored: JSON, or None when empty.
    pub fn to_column(&self) -> Option<String> {
        (!self.is_empty()).then(|| serde_json::to_string(self).unwrap_or_default())
    }

    /// From its column; a column that does not parse (written by a later
    /// version) is read as empty and logged.
    pub fn from_column(json: Option<&str>) -> Self {
        json.map_or_else(Self::default, |j| {
            serde_json::from_str(j).unwrap_or_else(|e| {
                tracing::warn!(error.message = %e, "a post's shares and replies unreadable");
                Self::default()
            })
        })
    }
}

/// Replaces the item of the same id, or adds it.
fn put<T>(items: &mut Vec<T>, item: T, id: impl Fn(&T) -> &String) -> Changed {
    match items.iter().position(|x| id(x) == id(&item)) {
        Some(i) => {
            items[i] = item;
            Changed::Replaced
        }
        None => {
            items.push(item);
            Changed::Created
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::M365Source;

    fn share(id: &str, url: &str, at: &str) -> SharedDocument {
        SharedDocument {
            id: id.into(),
            post_id: "p".into(),
            sharer_id: "u".into(),
            sharer_name: "Bob".into(),
            title: "Guide".into(),
            url: url.into(),
            source_type: M365Source::Sharepoint,
            created_at: at.into(),
        }
    }

    #[test]
    fn a_share_is_created_then_replaced_and_a_url_is_shared_once_per_post() {
        let mut k = Knowledge::default();
        let t = "2026-12-01T10:00:00Z";
        assert_eq!(
            k.apply(Change::PutShare(share("d1", "u1", t))),
            Ok(Changed::Created)
        );
        assert_eq!(
            k.apply(Change::PutShare(share("d1", "u1", t))),
            Ok(Changed::Replaced)
        );
        let before = k.clone();
        assert_eq!(
            k.apply(Change::PutShare(share("d2", "u1", t))),
            Err(Refused::UrlShared { id: "d1".into() })
        );
        assert_eq!(k, before, "a refused change leaves the knowledge as it was");
        // The same id may move to another URL.
        assert_eq!(
            k.apply(Change::PutShare(share("d1", "u2", t))),
            Ok(Changed::Replaced)
        );
        assert_eq!(
            k.apply(Change::PutShare(share("d2", "u1", t))),
            Ok(Changed::Created)
        );
    }

    #[test]
    fn deletes_are_idempotent_and_empty_knowledge_is_stored_as_nothing() {
        let mut k = Knowledge::default();
        k.apply(Change::PutShare(share("d1", "u1", "2026-12-01T10:00:00Z")))
            .unwrap();
        assert!(k.to_column().is_some());
        assert_eq!(
            k.apply(Change::DeleteShare("d1".into())),
            Ok(Changed::Deleted)
        );
        assert_eq!(
            k.apply(Change::DeleteShare("d1".into())),
            Ok(Changed::Deleted)
        );
        assert_eq!(k.to_column(), None);
        assert_eq!(Knowledge::from_column(None), Knowledge::default());
    }

    #[test]
    fn shares_are_kept_oldest_first_and_replies_newest_first() {
        let mut k = Knowledge::default();
        k.apply(Change::PutShare(share(
            "late",
            "u1",
            "2026-12-02T10:00:00Z",
        )))
        .unwrap();
        k.apply(Change::PutShare(share(
            "early",
            "u2",
            "2026-12-01T10:00:00Z",
        )))
        .unwrap();
        let ids: Vec<&str> = k.shares.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["early", "late"]);
        for (id, at) in [
            ("r1", "2026-12-01T10:00:00Z"),
            ("r2", "2026-12-02T10:00:00Z"),
        ] {
            let reply = Reply {
                id: id.into(),
                post_id: "p".into(),
                author_id: "u".into(),
                author_name: "Ann".into(),
                text: "Try the guide".into(),
                created_at: at.into(),
            };
            k.apply(Change::PutReply(reply)).unwrap();
        }
        let ids: Vec<&str> = k.replies.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["r2", "r1"]);
    }
}
