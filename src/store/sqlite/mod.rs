//! SQLite storage, for one process (`posts.backend = "sqlite"`, the
//! default): one WAL database, posts as JSON with their searchable text and
//! their embedding (and the id of its model, [`models`]) when known, run
//! records beside them ([`runs`]). The
//! [`Index`] is updated under the writer's lock after each commit, so it
//! follows commit order.

use std::{path::PathBuf, sync::Arc};

use async_trait::async_trait;

use super::{
    Index, PendingPost, StoreError, StoredPost, StoredRun,
    knowledge::{Change, Written},
};
use crate::contract::PostSummary;
pub use db::Db;

mod db;
mod knowledge;
mod models;
mod runs;
mod upsert;

/// The store: the database, worked on blocking threads.
pub struct Store(Arc<Db>);

impl Store {
    /// Opens (or creates) the database at `path` and loads every post into `index`.
    pub async fn open(path: PathBuf, index: Arc<dyn Index>) -> Result<Self, StoreError> {
        Ok(Self(Arc::new(
            blocking(move || Db::open(&path, index)).await?,
        )))
    }

    /// The database itself (`migrate-posts` reads it directly).
    pub fn db(&self) -> Arc<Db> {
        self.0.clone()
    }
}

#[async_trait]
impl super::Store for Store {
    fn stale(&self) -> bool {
        false
    }

    async fn upsert(&self, posts: Vec<StoredPost>) -> Result<Vec<bool>, StoreError> {
        let db = self.db();
        blocking(move || db.upsert(&posts)).await
    }

    async fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let (db, id) = (self.db(), id.to_owned());
        blocking(move || db.delete(&id)).await
    }

    async fn write(
        &self,
        posts: Vec<StoredPost>,
        changes: Vec<(String, Change)>,
        now_ms: i64,
    ) -> Result<Written, StoreError> {
        let db = self.db();
        blocking(move || db.write_with_knowledge(&posts, changes, now_ms)).await
    }

    async fn purge_expired(&self, now_ms: i64) -> Result<usize, StoreError> {
        let db = self.db();
        Ok(blocking(move || db.purge_expired(now_ms)).await?.len())
    }

    async fn get_many(
        &self,
        ids: Vec<String>,
        now_ms: i64,
    ) -> Result<Vec<PostSummary>, StoreError> {
        let db = self.db();
        blocking(move || db.get_many(&ids, now_ms)).await
    }

    async fn pending_embeddings(&self, limit: usize) -> Result<Vec<PendingPost>, StoreError> {
        let db = self.db();
        blocking(move || db.pending_embeddings(limit)).await
    }

    async fn set_embeddings(
        &self,
        items: Vec<(PendingPost, Vec<f32>)>,
    ) -> Result<usize, StoreError> {
        let db = self.db();
        blocking(move || db.set_embeddings(items)).await
    }

    async fn put_runs(
        &self,
        runs: Vec<StoredRun>,
        now_ms: i64,
        max_records: u64,
    ) -> Result<usize, StoreError> {
        let db = self.db();
        blocking(move || db.put_runs(&runs, now_ms, max_records)).await
    }

    async fn purge_runs(&self, now_ms: i64, max_records: u64) -> Result<usize, StoreError> {
        let db = self.db();
        blocking(move || db.purge_runs(now_ms, max_records)).await
    }

    async fn get_run(&self, run_id: &str, now_ms: i64) -> Result<Option<String>, StoreError> {
        let (db, id) = (self.db(), run_id.to_owned());
        blocking(move || db.get_run(&id, now_ms)).await
    }
}

/// SQLite work runs on blocking threads, at most this many at once: more
/// would only queue on the connections' locks while each holds a thread
/// (and its memory) from tokio's blocking pool.
static SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(6);

/// Runs SQLite work on a blocking thread.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    let _slot = SLOTS.acquire().await.map_err(|_| StoreError::Task)?;
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| StoreError::Task)?
}
