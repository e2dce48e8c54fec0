//! Run records in SQLite (`GET /api/runs/{runId}`): JSON, kept until their
//! retention, the oldest purged beyond the cap.

use rusqlite::{Connection, OptionalExtension, params};

use super::Db;
use crate::store::{StoreError, StoredRun};

impl Db {
    /// Every run record still kept at `now_ms`.
    pub fn export_runs(&self, now_ms: i64) -> Result<Vec<StoredRun>, StoreError> {
        self.read(|c| {
            let mut stmt = c.prepare(
                "SELECT run_id, keep_until, record FROM runs WHERE keep_until > ?1 ORDER BY seq",
            )?;
            stmt.query_map(params![now_ms], |r| {
                Ok(StoredRun {
                    run_id: r.get(0)?,
                    keep_until_ms: r.get(1)?,
                    record: r.get(2)?,
                })
            })?
            .collect()
        })
    }

    /// Stores run records in one transaction, then purges those past their
    /// retention at `now_ms` and the oldest beyond `max_records`; returns how
    /// many were purged.
    pub fn put_runs(
        &self,
        runs: &[StoredRun],
        now_ms: i64,
        max_records: u64,
    ) -> Result<usize, StoreError> {
        self.write(|c| {
            let tx = c.transaction()?;
            {
                let mut insert = tx.prepare_cached(
                    "INSERT OR REPLACE INTO runs (run_id, keep_until, record) VALUES (?1, ?2, ?3)",
                )?;
                for run in runs {
                    insert.execute(params![run.run_id, run.keep_until_ms, run.record])?;
                }
            }
            let purged = purge_runs(&tx, now_ms, max_records)?;
            tx.commit()?;
            Ok(purged)
        })
    }

    /// Purges the records past their retention at `now_ms` and the oldest
    /// beyond `max_records`; returns how many.
    pub fn purge_runs(&self, now_ms: i64, max_records: u64) -> Result<usize, StoreError> {
        self.write(|c| purge_runs(c, now_ms, max_records))
    }

    /// A run's record (JSON), unless unknown or past its retention at `now_ms`.
    pub fn get_run(&self, run_id: &str, now_ms: i64) -> Result<Option<String>, StoreError> {
        self.read(|c| {
            c.prepare_cached("SELECT record FROM runs WHERE run_id = ?1 AND keep_until > ?2")?
                .query_row(params![run_id, now_ms], |r| r.get(0))
                .optional()
        })
    }
}

/// Sequence numbers grow with each insert, so the newest `max_records` are
/// those above the newest's minus `max_records` (gaps only make it fewer).
fn purge_runs(c: &Connection, now_ms: i64, max_records: u64) -> rusqlite::Result<usize> {
    let expired = c.execute("DELETE FROM runs WHERE keep_until <= ?1", params![now_ms])?;
    let excess = c.execute(
        "DELETE FROM runs WHERE seq <= (SELECT MAX(seq) FROM runs) - ?1",
        params![max_records as i64],
    )?;
    Ok(expired + excess)
}
