//! `linkup-suggestions migrate-posts`: copies a SQLite post index into the
//! PostgreSQL store (posts with their vectors, and the run records), so a
//! deployment moves to several replicas without re-ingesting or re-embedding.

use std::{path::Path, sync::Arc};

use super::{
    Index, Knowledge, Loader, OpenError, Store, StoreError, Vector, now_ms, postgres,
    sqlite::{self, blocking},
};
use crate::settings::PostsSettings;

/// Posts written per transaction.
const BATCH: usize = 500;

/// What was copied.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Copied {
    pub posts: usize,
    pub vectors: usize,
    pub expired_skipped: usize,
    pub runs: usize,
}

/// Copies the live posts and run records of the SQLite index at `from` into
/// the PostgreSQL database `to` configures (migrating its schema first).
/// Posts already there are replaced: running it again is harmless.
pub async fn sqlite_to_postgres(
    from: &Path,
    to: &PostsSettings,
    max_runs: u64,
) -> Result<Copied, StoreError> {
    if !from.is_file() {
        return Err(OpenError::NoSqliteFile(from.to_owned()).into());
    }
    let source = sqlite::Store::open(from.to_owned(), Arc::new(NoIndex))
        .await?
        .db();
    let target = postgres::Store::open(to, Arc::new(NoIndex), None).await?;
    let (mut copied, mut after) = (Copied::default(), 0);
    let now = now_ms();
    loop {
        let s = source.clone();
        let (batch, last) = blocking(move || s.export(after, BATCH)).await?;
        if last == after {
            break;
        }
        after = last;
        let (live, expired): (Vec<_>, Vec<_>) = batch
            .into_iter()
            .partition(|p| p.expires_at_ms.is_none_or(|e| e > now));
        copied.expired_skipped += expired.len();
        copied.posts += live.len();
        copied.vectors += live.iter().filter(|p| p.vector.is_some()).count();
        if !live.is_empty() {
            target.upsert(live).await?;
        }
    }
    let s = source.clone();
    let runs = blocking(move || s.export_runs(now)).await?;
    copied.runs = runs.len();
    let mut runs = runs.into_iter().peekable();
    while runs.peek().is_some() {
        let chunk = runs.by_ref().take(BATCH).collect();
        target.put_runs(chunk, now, max_runs).await?;
    }
    Ok(copied)
}

/// The copy searches nothing: neither store's posts are indexed.
struct NoIndex;

impl Index for NoIndex {
    fn loader(self: Arc<Self>) -> Box<dyn Loader> {
        Box::new(NoIndex)
    }
    fn index(&self, _: &str, _: &str, _: Option<i64>, _: Vector) {}
    fn refresh(&self, _: &str, _: &str, _: Option<i64>, _: Vector) {}
    fn set_vector(&self, _: String, _: &str, _: Option<i64>, _: Vec<f32>) {}
    fn remove(&self, _: &[&str]) {}
    fn posts(&self) -> usize {
        0
    }
    /// None: every vector is copied as stored, with its model's id.
    fn vector_model(&self) -> Option<String> {
        None
    }
    fn set_knowledge(&self, _: &str, _: Option<i64>, _: Knowledge) {}
}

impl Loader for NoIndex {
    fn insert(&mut self, _: &str, _: &str, _: Option<i64>, _: Option<Vec<f32>>) {}
    fn knowledge(&mut self, _: &str, _: Option<i64>, _: Knowledge) {}
    fn install(self: Box<Self>) {}
}
