//! What the board already knows: the documents LinkUp's users shared on
//! live posts and their replies (LinkUp's spec 005). [`Board`] writes them
//! to the store (with their post's row) and reads them from memory
//! ([`Memory`]), which the store keeps in step as it keeps the post index
//! ([`WithBoard`] is the store's index: the post index's, with the board
//! beside it). A post's knowledge goes when the post is deleted or expires.

use std::{
    collections::HashMap,
    sync::{Arc, PoisonError, RwLock},
};

use crate::{
    contract::McpSuggestion,
    metrics::Metrics,
    store::{
        Index, Knowledge, Loader, Store, StoreError, Vector,
        knowledge::{Change, Changed, Refused},
        now_ms,
    },
};

mod shown;

/// The board's knowledge: written through the store, read from memory.
#[derive(Clone)]
pub struct Board {
    store: Arc<dyn Store>,
    memory: Arc<Memory>,
    /// What each post's panels suggested (this replica's).
    shown: Arc<shown::Shown>,
    metrics: Metrics,
}

impl Board {
    /// Over `store`, opened with [`WithBoard`] of `memory`; counting the
    /// panel's use into `metrics`.
    pub fn new(store: Arc<dyn Store>, memory: Arc<Memory>, metrics: Metrics) -> Self {
        Self {
            store,
            memory,
            shown: Arc::default(),
            metrics,
        }
    }

    /// Applies `change` to the live post `post_id`; None when there is no
    /// such post. Every replica shows it once this returns (this one) or
    /// once it follows the change (the others). A new share of a document
    /// the post's panel suggested counts as the panel's use.
    pub async fn change(
        &self,
        post_id: &str,
        change: Change,
    ) -> Result<Result<Changed, Refused>, StoreError> {
        let changes = vec![(post_id.to_owned(), change)];
        let written = self
            .store
            .write(Vec::new(), changes.clone(), now_ms())
            .await?;
        Ok(match written {
            Ok((_, changed)) => {
                self.count_use(&changes, &changed).await;
                Ok(changed[0])
            }
            Err((_, refused)) => Err(refused),
        })
    }

    /// Counts the panel's use among `changes` written: a new share of a
    /// document its post's panel suggested.
    pub async fn count_use(&self, changes: &[(String, Change)], changed: &[Changed]) {
        for ((post_id, change), changed) in changes.iter().zip(changed) {
            if let (Change::PutShare(share), Changed::Created) = (change, changed)
                && let Some((source, position)) = self.shown.position(post_id, &share.url).await
            {
                self.metrics.panel_share(source.as_str(), position);
            }
        }
    }

    /// Whether no live post carries a shared document or a reply.
    pub fn is_empty(&self) -> bool {
        self.memory
            .posts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }

    /// Remembers what a panel of `post_id` suggested.
    pub async fn shown(&self, post_id: &str, m365: &[McpSuggestion]) {
        self.shown.record(post_id, m365).await;
    }

    /// The live post's shared documents and replies (empty: none).
    pub fn knowledge(&self, post_id: &str) -> Arc<Knowledge> {
        self.memory.knowledge(post_id, now_ms()).unwrap_or_default()
    }
}

/// Lower-cased URL without fragment or trailing slash (SharePoint paths are
/// case-insensitive): one document's identity; None when empty.
pub fn normalise_url(url: &str) -> Option<String> {
    let url = url.trim();
    let url = url.split('#').next().unwrap_or(url).trim_end_matches('/');
    (!url.is_empty()).then(|| url.to_lowercase())
}

/// The live posts' shared documents and replies, in memory.
#[derive(Default)]
pub struct Memory {
    posts: RwLock<HashMap<String, Entry>>,
}

struct Entry {
    expires_at_ms: Option<i64>,
    knowledge: Arc<Knowledge>,
}

impl Memory {
    /// The post's shared documents and replies, while it is live at `now_ms`.
    pub fn knowledge(&self, post_id: &str, now_ms: i64) -> Option<Arc<Knowledge>> {
        let posts = self.posts.read().unwrap_or_else(PoisonError::into_inner);
        posts
            .get(post_id)
            .filter(|e| e.expires_at_ms.is_none_or(|t| t > now_ms))
            .map(|e| e.knowledge.clone())
    }

    fn set(&self, id: &str, expires_at_ms: Option<i64>, knowledge: Knowledge) {
        let mut posts = self.posts.write().unwrap_or_else(PoisonError::into_inner);
        if knowledge.is_empty() {
            posts.remove(id);
        } else {
            let knowledge = Arc::new(knowledge);
            posts.insert(
                id.to_owned(),
                Entry {
                    expires_at_ms,
                    knowledge,
                },
            );
        }
    }

    /// A post's new expiry, when it carries knowledge.
    fn expire_at(&self, id: &str, expires_at_ms: Option<i64>) {
        let mut posts = self.posts.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = posts.get_mut(id) {
            entry.expires_at_ms = expires_at_ms;
        }
    }

    fn remove(&self, ids: &[&str]) {
        let mut posts = self.posts.write().unwrap_or_else(PoisonError::into_inner);
        for id in ids {
            posts.remove(*id);
        }
    }
}

/// The store's index: the post index, and the board beside it.
pub struct WithBoard {
    posts: Arc<dyn Index>,
    board: Arc<Memory>,
}

impl WithBoard {
    pub fn new(posts: Arc<dyn Index>, board: Arc<Memory>) -> Arc<Self> {
        Arc::new(Self { posts, board })
    }
}

impl Index for WithBoard {
    fn loader(self: Arc<Self>) -> Box<dyn Loader> {
        Box::new(Load {
            posts: self.posts.clone().loader(),
            board: self.board.clone(),
            knowledge: HashMap::new(),
        })
    }

    fn index(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
        self.posts.index(id, text, expires_at_ms, vector);
        self.board.expire_at(id, expires_at_ms);
    }

    fn refresh(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
        self.posts.refresh(id, text, expires_at_ms, vector);
        self.board.expire_at(id, expires_at_ms);
    }

    fn set_vector(&self, id: String, text: &str, expires_at_ms: Option<i64>, vector: Vec<f32>) {
        self.posts.set_vector(id, text, expires_at_ms, vector);
    }

    fn remove(&self, ids: &[&str]) {
        self.posts.remove(ids);
        self.board.remove(ids);
    }

    fn posts(&self) -> usize {
        self.posts.posts()
    }

    fn vector_model(&self) -> Option<String> {
        self.posts.vector_model()
    }

    fn set_knowledge(&self, id: &str, expires_at_ms: Option<i64>, knowledge: Knowledge) {
        self.board.set(id, expires_at_ms, knowledge);
    }
}

/// A bulk load of both: the board's part is installed with the posts'.
struct Load {
    posts: Box<dyn Loader>,
    board: Arc<Memory>,
    knowledge: HashMap<String, Entry>,
}

impl Loader for Load {
    fn insert(&mut self, id: &str, text: &str, expires: Option<i64>, vector: Option<Vec<f32>>) {
        self.posts.insert(id, text, expires, vector);
    }

    fn knowledge(&mut self, id: &str, expires_at_ms: Option<i64>, knowledge: Knowledge) {
        if !knowledge.is_empty() {
            let knowledge = Arc::new(knowledge);
            let entry = Entry {
                expires_at_ms,
                knowledge,
            };
            self.knowledge.insert(id.to_owned(), entry);
        }
    }

    fn install(self: Box<Self>) {
        self.posts.install();
        *self
            .board
            .posts
            .write()
            .unwrap_or_else(PoisonError::into_inner) = self.knowledge;
    }
}
