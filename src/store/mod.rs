//! Storage of posts, run records and the panel cache's shared tier, and
//! nothing else: a SQLite file for one
//! process ([`sqlite`]) or a PostgreSQL database shared by several replicas
//! ([`postgres`]), behind one [`Store`] trait. A store keeps an [`Index`]
//! (the in-memory search of `posts`) in step with what it committed; it
//! never reads it, and never imports `posts`.
//!
//! - [`records`]: what is stored (posts, run records, vectors), a leaf;
//! - [`knowledge`]: a post's shared documents and replies, stored with it;
//! - [`sqlite`], [`postgres`]: the two implementations;
//! - [`legacy`]: completing SQLite posts stored before the contract;
//! - [`copy`]: `migrate-posts`, SQLite to PostgreSQL.

pub mod copy;
mod error;
pub mod knowledge;
pub(crate) mod legacy;
pub mod postgres;
pub mod records;
mod sqlite;

use std::sync::Arc;

use async_trait::async_trait;

use crate::{
    azure_auth::TokenKeeper,
    contract::PostSummary,
    settings::{PostsBackend, PostsSettings},
};
pub use error::{OpenError, StoreError, Unavailable};
pub use knowledge::Knowledge;
pub use records::{PendingPost, SharedPanel, StoredPost, StoredRun, Vector, now_ms, parse_time_ms};

/// How an Azure embeddings deployment's model id begins (`azure:` and the
/// deployment): vectors stored before model ids were come from one.
pub const AZURE_MODEL_PREFIX: &str = "azure:";

/// What a store keeps in step with its commits: the in-memory index
/// searches read. A store calls it in commit order (SQLite: under its
/// writer's lock; PostgreSQL: as it applies the change feed).
pub trait Index: Send + Sync + 'static {
    /// Starts a bulk load that replaces everything once installed.
    fn loader(self: Arc<Self>) -> Box<dyn Loader>;
    /// Adds or replaces a post whose text is new or changed.
    fn index(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector);
    /// Updates a post whose text is unchanged: its expiry and vector.
    fn refresh(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector);
    /// Sets a post's vector, computed from `text`.
    fn set_vector(&self, id: String, text: &str, expires_at_ms: Option<i64>, vector: Vec<f32>);
    /// Removes posts.
    fn remove(&self, ids: &[&str]);
    /// How many posts it holds.
    fn posts(&self) -> usize;
    /// The id of the model whose vectors it ranks by: stored vectors of
    /// another model are neither loaded nor kept, and their posts are
    /// embedded again. None: it ranks by words alone (vectors are left as
    /// stored, unread).
    fn vector_model(&self) -> Option<String>;
    /// Sets a live post's shared documents and replies (empty: none); they
    /// go with the post when it is removed.
    fn set_knowledge(&self, id: &str, expires_at_ms: Option<i64>, knowledge: Knowledge);
}

/// A bulk load of an [`Index`]: every post, then installed at once.
pub trait Loader: Send {
    fn insert(
        &mut self,
        id: &str,
        text: &str,
        expires_at_ms: Option<i64>,
        vector: Option<Vec<f32>>,
    );
    /// A post's shared documents and replies, after its [`Self::insert`].
    fn knowledge(&mut self, id: &str, expires_at_ms: Option<i64>, knowledge: Knowledge);
    /// Replaces what the index held with what was inserted.
    fn install(self: Box<Self>);
}

/// Where posts and run records are kept.
#[async_trait]
pub trait Store: Send + Sync {
    /// Whether the index may miss other replicas' latest writes (the
    /// database is unreachable; never for SQLite).
    fn stale(&self) -> bool;

    /// Inserts or replaces posts in one transaction; returns for each
    /// whether it was new, once the index shows them.
    async fn upsert(&self, posts: Vec<StoredPost>) -> Result<Vec<bool>, StoreError>;

    /// Deletes a post, and its shared documents and replies; true when it existed.
    async fn delete(&self, id: &str) -> Result<bool, StoreError>;

    /// Inserts or replaces `posts`, then applies `changes` (post id,
    /// change) to the shared documents and replies of posts live at
    /// `now_ms`, all in one transaction: a refused change writes nothing.
    /// Returns once the index shows it.
    async fn write(
        &self,
        posts: Vec<StoredPost>,
        changes: Vec<(String, knowledge::Change)>,
        now_ms: i64,
    ) -> Result<knowledge::Written, StoreError>;

    /// Deletes the posts expired at `now_ms`; returns how many.
    async fn purge_expired(&self, now_ms: i64) -> Result<usize, StoreError>;

    /// The posts with these ids live at `now_ms`, in this order.
    async fn get_many(&self, ids: Vec<String>, now_ms: i64)
    -> Result<Vec<PostSummary>, StoreError>;

    /// Up to `limit` posts waiting for a vector, now this process's to embed
    /// (PostgreSQL: claimed for a while, so other replicas skip them).
    async fn pending_embeddings(&self, limit: usize) -> Result<Vec<PendingPost>, StoreError>;

    /// Stores vectors, each unless its post's text changed since it was
    /// read; returns how many were stored.
    async fn set_embeddings(
        &self,
        items: Vec<(PendingPost, Vec<f32>)>,
    ) -> Result<usize, StoreError>;

    /// Stores run records, then purges those past their retention at
    /// `now_ms` and the oldest beyond `max_records`; returns how many were purged.
    async fn put_runs(
        &self,
        runs: Vec<StoredRun>,
        now_ms: i64,
        max_records: u64,
    ) -> Result<usize, StoreError>;

    /// Purges the run records past their retention at `now_ms` and the
    /// oldest beyond `max_records`; returns how many.
    async fn purge_runs(&self, now_ms: i64, max_records: u64) -> Result<usize, StoreError>;

    /// A run's record (JSON), unless unknown or past its retention at `now_ms`.
    async fn get_run(&self, run_id: &str, now_ms: i64) -> Result<Option<String>, StoreError>;

    /// Where replicas share panels (`cache.shared`): PostgreSQL only.
    fn shared_panels(&self) -> Option<Arc<dyn SharedPanels>> {
        None
    }
}

/// The panel cache's shared tier: panels one replica computed, for every
/// replica, until they expire. A write or delete of a post drops its
/// panels in the same transaction; expired ones are pruned with the
/// expired posts.
#[async_trait]
pub trait SharedPanels: Send + Sync {
    /// The panel under `key`, unless expired at `now_ms`.
    async fn get_panel(
        &self,
        key: [u8; 32],
        now_ms: i64,
    ) -> Result<Option<SharedPanel>, StoreError>;

    /// Stores (or replaces) a panel.
    async fn put_panel(&self, panel: SharedPanel) -> Result<(), StoreError>;

    /// Whether the table answers now.
    async fn reachable(&self) -> bool;
}

/// Opens the configured store (creating or migrating its schema) and loads
/// every live post into `index`.
pub async fn open(
    settings: &PostsSettings,
    index: Arc<dyn Index>,
    token: Option<TokenKeeper>,
) -> Result<Arc<dyn Store>, StoreError> {
    Ok(match settings.backend {
        PostsBackend::Sqlite => {
            Arc::new(sqlite::Store::open(settings.db_path.clone(), index).await?)
        }
        PostsBackend::Postgres => Arc::new(postgres::Store::open(settings, index, token).await?),
    })
}
