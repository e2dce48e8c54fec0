//! The post index's storage, one interface over two backends: a SQLite file
//! for one process ([`sqlite`](super::sqlite)), or a PostgreSQL database
//! shared by several replicas ([`postgres`](super::postgres)). Either keeps
//! the in-memory [`Ranking`] in step with what it committed.

use std::sync::Arc;

use super::{PostIndexError, local_model::LocalModel, postgres, ranking::Ranking, sqlite};
use crate::{
    contract::PostSummary,
    settings::{PostsBackend, PostsSettings},
};

/// A post as written: the summary plus what the index derives from it.
pub struct StoredPost {
    pub post: PostSummary,
    pub search_text: String,
    pub expires_at_ms: Option<i64>,
    /// Its vector when already known (a migration); None: kept when the
    /// text is unchanged, else computed later.
    pub vector: Option<Vec<f32>>,
}

/// A post waiting for its vector: (id, text to embed, expiry in unix ms).
pub type PendingPost = (String, String, Option<i64>);

/// A run record as stored: its id, JSON and when it may be purged.
pub struct StoredRun {
    pub run_id: String,
    pub keep_until_ms: i64,
    pub record: String,
}

/// The configured backend.
#[derive(Clone)]
pub enum Store {
    Sqlite(Arc<sqlite::Store>),
    Postgres(postgres::Store),
}

impl Store {
    /// Opens the configured backend: creates or migrates its schema and
    /// loads the ranking.
    pub async fn open(
        settings: &PostsSettings,
        model: Option<Arc<LocalModel>>,
    ) -> Result<Self, PostIndexError> {
        match settings.backend {
            PostsBackend::Sqlite => {
                let path = settings.db_path.clone();
                let store = blocking(move || sqlite::Store::open(&path, model)).await?;
                Ok(Self::Sqlite(Arc::new(store)))
            }
            PostsBackend::Postgres => Ok(Self::Postgres(
                postgres::Store::open(settings, model).await?,
            )),
        }
    }

    /// What searches read.
    pub fn ranking(&self) -> &Ranking {
        match self {
            Self::Sqlite(s) => s.ranking(),
            Self::Postgres(s) => s.ranking(),
        }
    }

    /// Whether the ranking may miss other replicas' latest writes (the
    /// database is unreachable; always false for SQLite).
    pub fn stale(&self) -> bool {
        match self {
            Self::Sqlite(_) => false,
            Self::Postgres(s) => !s.connected(),
        }
    }

    /// Inserts or replaces posts in one transaction; returns for each whether it was new.
    pub async fn upsert(&self, posts: Vec<StoredPost>) -> Result<Vec<bool>, PostIndexError> {
        match self {
            Self::Sqlite(s) => {
                let s = s.clone();
                blocking(move || s.upsert(&posts)).await
            }
            Self::Postgres(s) => s.upsert(posts).await,
        }
    }

    /// Deletes a post; true when it existed.
    pub async fn delete(&self, id: &str) -> Result<bool, PostIndexError> {
        match self {
            Self::Sqlite(s) => {
                let (s, id) = (s.clone(), id.to_owned());
                blocking(move || s.delete(&id)).await
            }
            Self::Postgres(s) => s.delete(id).await,
        }
    }

    /// Deletes the posts expired at `now_ms`; returns how many.
    pub async fn purge_expired(&self, now_ms: i64) -> Result<usize, PostIndexError> {
        match self {
            Self::Sqlite(s) => {
                let s = s.clone();
                Ok(blocking(move || s.purge_expired(now_ms)).await?.len())
            }
            Self::Postgres(s) => s.purge_expired(now_ms).await,
        }
    }

    /// The posts with these ids live at `now_ms`, in this order.
    pub async fn get_many(
        &self,
        ids: Vec<String>,
        now_ms: i64,
    ) -> Result<Vec<PostSummary>, PostIndexError> {
        match self {
            Self::Sqlite(s) => {
                let s = s.clone();
                blocking(move || s.get_many(&ids, now_ms)).await
            }
            Self::Postgres(s) => Ok(s.get_many(&ids, now_ms)),
        }
    }

    /// Up to `limit` posts waiting for a vector, now this process's to embed
    /// (PostgreSQL: claimed for a while, so other replicas skip them).
    pub async fn pending_embeddings(
        &self,
        limit: usize,
    ) -> Result<Vec<PendingPost>, PostIndexError> {
        match self {
            Self::Sqlite(s) => {
                let s = s.clone();
                blocking(move || s.pending_embeddings(limit)).await
            }
            Self::Postgres(s) => s.claim_embeddings(limit).await,
        }
    }

    /// Stores vectors, each unless its post's text changed since it was
    /// read; returns how many were stored.
    pub async fn set_embeddings(
        &self,
        items: Vec<(PendingPost, Vec<f32>)>,
    ) -> Result<usize, PostIndexError> {
        match self {
            Self::Sqlite(s) => {
                let s = s.clone();
                blocking(move || s.set_embeddings(items)).await
            }
            Self::Postgres(s) => s.set_embeddings(items).await,
        }
    }

    /// Stores run records, then purges those past their retention at
    /// `now_ms` and the oldest beyond `max_records`; returns how many were purged.
    pub async fn put_runs(
        &self,
        runs: Vec<StoredRun>,
        now_ms: i64,
        max_records: u64,
    ) -> Result<usize, PostIndexError> {
        match self {
            Self::Sqlite(s) => {
                let s = s.clone();
                blocking(move || s.put_runs(&runs, now_ms, max_records)).await
            }
            Self::Postgres(s) => s.put_runs(runs, now_ms, max_records).await,
        }
    }

    /// Purges the run records past their retention at `now_ms` and the
    /// oldest beyond `max_records`; returns how many.
    pub async fn purge_runs(&self, now_ms: i64, max_records: u64) -> Result<usize, PostIndexError> {
        match self {
            Self::Sqlite(s) => {
                let s = s.clone();
                blocking(move || s.purge_runs(now_ms, max_records)).await
            }
            Self::Postgres(s) => s.purge_runs(now_ms, max_records).await,
        }
    }

    /// A run's record (JSON), unless unknown or past its retention at `now_ms`.
    pub async fn get_run(
        &self,
        run_id: &str,
        now_ms: i64,
    ) -> Result<Option<String>, PostIndexError> {
        match self {
            Self::Sqlite(s) => {
                let (s, id) = (s.clone(), run_id.to_owned());
                blocking(move || s.get_run(&id, now_ms)).await
            }
            Self::Postgres(s) => s.get_run(run_id, now_ms).await,
        }
    }
}

/// A vector as stored: its f32 components, little-endian.
pub fn encode(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// The vector [`encode`] stored.
pub fn decode(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// SQLite work runs on blocking threads, at most this many at once: more
/// would only queue on the connections' locks while each holds a thread
/// (and its memory) from tokio's blocking pool.
static SQLITE_SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(6);

/// Runs SQLite work on a blocking thread.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, PostIndexError> + Send + 'static,
) -> Result<T, PostIndexError> {
    let _slot = SQLITE_SLOTS
        .acquire()
        .await
        .map_err(|_| PostIndexError::Task)?;
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| PostIndexError::Task)?
}
