//! Run records: what each run did (`GET /api/runs/{runId}`), kept in the
//! [`store`](crate::store). A run hands its record over without waiting; a writer task
//! stores the records in batches, off the request path, and purges those past
//! their retention (`runs.retention_days`, `runs.failed_retention_days`) or
//! beyond `runs.max_records`.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::sync::Notify;

use crate::{
    contract::RunRecord,
    metrics::Metrics,
    settings::RunsSettings,
    store::{Store, StoreError, StoredRun, now_ms},
};

/// A batch this large is written without waiting for the next tick.
const BATCH: usize = 256;
/// Records wait at most this long before they are written.
const FLUSH_EVERY: Duration = Duration::from_millis(200);
/// Records waiting at most, while the database cannot keep up; newer ones
/// are dropped (`linkup_run_records{outcome="dropped"}`).
const MAX_PENDING: usize = 10_000;
/// How often records past their retention are purged when none are written.
const PURGE_EVERY: Duration = Duration::from_secs(600);

const DAY_MS: i64 = 86_400_000;

/// The run records of this process. Cheap to clone.
#[derive(Clone)]
pub struct RunRecords(Arc<Inner>);

struct Inner {
    store: Arc<dyn Store>,
    settings: RunsSettings,
    metrics: Metrics,
    pending: Mutex<Vec<RunRecord>>,
    /// Held while a batch moves from `pending` to the database: a lookup
    /// waits for it, so a record is always in one of the two.
    flushing: tokio::sync::Mutex<()>,
    wake: Notify,
}

impl RunRecords {
    pub fn new(store: Arc<dyn Store>, settings: RunsSettings, metrics: Metrics) -> Self {
        Self(Arc::new(Inner {
            store,
            settings,
            metrics,
            pending: Mutex::default(),
            flushing: tokio::sync::Mutex::const_new(()),
            wake: Notify::new(),
        }))
    }

    /// Keeps a run's record; it is written with the next batch.
    pub fn record(&self, record: RunRecord) {
        let Ok(mut pending) = self.0.pending.lock() else {
            return;
        };
        if pending.len() >= MAX_PENDING {
            drop(pending);
            self.0.metrics.run_records("dropped", 1);
            return;
        }
        pending.push(record);
        if pending.len() >= BATCH {
            self.0.wake.notify_one();
        }
    }

    /// A run's record, written or still waiting; None when unknown or purged.
    pub async fn get(&self, run_id: &str) -> Result<Option<RunRecord>, StoreError> {
        {
            let _no_flush = self.0.flushing.lock().await;
            let pending = self.0.pending.lock().map_err(|_| StoreError::Poisoned)?;
            if let Some(r) = pending.iter().find(|r| r.run_id == run_id) {
                return Ok(Some(r.clone()));
            }
        }
        let stored = self.0.store.get_run(run_id, now_ms()).await?;
        Ok(stored.and_then(|json| serde_json::from_str(&json).ok()))
    }

    /// Writes every waiting record; returns how many were written.
    pub async fn flush(&self) -> usize {
        let _flushing = self.0.flushing.lock().await;
        let batch = match self.0.pending.lock() {
            Ok(mut pending) => std::mem::take(&mut *pending),
            Err(_) => return 0,
        };
        if batch.is_empty() {
            return 0;
        }
        let now = now_ms();
        let stored = batch
            .iter()
            .map(|r| StoredRun {
                run_id: r.run_id.clone(),
                keep_until_ms: now + self.retention_days(r) * DAY_MS,
                record: serde_json::to_string(r).unwrap_or_default(),
            })
            .collect();
        match self
            .0
            .store
            .put_runs(stored, now_ms(), self.0.settings.max_records)
            .await
        {
            Ok(purged) => {
                let written = batch.len();
                self.0.metrics.run_records("stored", written);
                self.0.metrics.run_records("purged", purged);
                written
            }
            Err(e) => {
                tracing::error!(error.kind = "post_index", error.message = %e, records = batch.len(), "run records not written; kept for the next batch");
                self.requeue(batch);
                0
            }
        }
    }

    /// Writes records as they come, purges periodically; runs until aborted.
    pub fn spawn_writer(&self) -> tokio::task::JoinHandle<()> {
        let records = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(FLUSH_EVERY);
            let mut purge = tokio::time::interval(PURGE_EVERY);
            loop {
                tokio::select! {
                    _ = tick.tick() => { records.flush().await; }
                    () = records.0.wake.notified() => { records.flush().await; }
                    _ = purge.tick() => records.purge().await,
                }
            }
        })
    }

    async fn purge(&self) {
        match self
            .0
            .store
            .purge_runs(now_ms(), self.0.settings.max_records)
            .await
        {
            Ok(n) => self.0.metrics.run_records("purged", n),
            Err(e) => {
                tracing::error!(error.kind = "post_index", error.message = %e, "run record purge failed")
            }
        }
    }

    /// Clean runs are kept `retention_days`, failed or degraded ones
    /// `failed_retention_days`.
    fn retention_days(&self, record: &RunRecord) -> i64 {
        let s = &self.0.settings;
        let failed = !record.degraded.is_empty() || !record.unavailable_sources.is_empty();
        i64::from(if failed {
            s.failed_retention_days
        } else {
            s.retention_days
        })
    }

    /// Puts a batch that could not be written back before the newer records,
    /// dropping the oldest beyond [`MAX_PENDING`].
    fn requeue(&self, mut batch: Vec<RunRecord>) {
        let Ok(mut pending) = self.0.pending.lock() else {
            return;
        };
        batch.append(&mut pending);
        let excess = batch.len().saturating_sub(MAX_PENDING);
        batch.drain(..excess);
        *pending = batch;
        drop(pending);
        self.0.metrics.run_records("dropped", excess);
    }
}
