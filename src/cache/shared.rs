//! The cache's second tier (`cache.shared`, PostgreSQL): a panel one
//! replica computed, for every replica. A lookup not answered within
//! `cache.shared_timeout_ms` is a miss, never an error; while the table
//! does not answer, panels are not written to it (each lookup tries again).

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use super::{Entry, PanelKey, etag};
use crate::{
    metrics::Metrics,
    store::{SharedPanel, SharedPanels, now_ms},
};

/// The shared tier, as the cache reaches it.
pub(super) struct SharedTier {
    panels: Arc<dyn SharedPanels>,
    timeout: Duration,
    /// Whether the table answered the last lookup or write.
    answering: AtomicBool,
    metrics: Metrics,
}

impl SharedTier {
    pub(super) fn new(panels: Arc<dyn SharedPanels>, timeout: Duration, metrics: Metrics) -> Self {
        Self {
            panels,
            timeout,
            answering: AtomicBool::new(true),
            metrics,
        }
    }

    /// `key`'s panel, if another replica (or this one) stored it and it is
    /// still served.
    pub(super) async fn lookup(&self, key: &PanelKey) -> Option<Arc<Entry>> {
        let now = now_ms();
        let found = tokio::time::timeout(self.timeout, self.panels.get_panel(*key.digest(), now))
            .await
            .map_err(|_| ())
            .and_then(|r| r.map_err(|_| ()));
        self.answering.store(found.is_ok(), Ordering::Relaxed);
        let entry = match found {
            Ok(Some(row)) => entry_of(&row, now),
            Ok(None) => None,
            Err(()) => {
                self.metrics.panel_cache_shared("unavailable");
                return None;
            }
        };
        self.metrics
            .panel_cache_shared(if entry.is_some() { "hit" } else { "miss" });
        entry
    }

    /// Writes `entry` for the other replicas, in the background; skipped
    /// while the table does not answer.
    pub(super) fn keep(self: &Arc<Self>, key: &PanelKey, entry: &Entry) {
        if !self.answering.load(Ordering::Relaxed) {
            self.metrics.panel_cache_shared("write_skipped");
            return;
        }
        let now = now_ms();
        let row = SharedPanel {
            key: *key.digest(),
            post_id: key.post_id.clone(),
            json: entry.json.to_string(),
            stored_at_ms: now,
            expires_at_ms: now.saturating_add(entry.ttl.as_millis() as i64),
        };
        let tier = self.clone();
        tokio::spawn(async move {
            let written = tier.panels.put_panel(row).await.is_ok();
            tier.answering.store(written, Ordering::Relaxed);
            tier.metrics
                .panel_cache_shared(if written { "written" } else { "write_failed" });
        });
    }

    /// Whether the table answers now (`/readyz`).
    pub(super) async fn reachable(&self) -> bool {
        tokio::time::timeout(Duration::from_secs(1), self.panels.reachable())
            .await
            .unwrap_or(false)
    }
}

/// The entry a stored row holds, aged as stored (`Age`, time left); None
/// for a row this build cannot read.
fn entry_of(row: &SharedPanel, now_ms: i64) -> Option<Arc<Entry>> {
    let panel = serde_json::from_str(&row.json).ok()?;
    let millis = |ms: i64| Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    let age = millis(now_ms - row.stored_at_ms);
    Some(Arc::new(Entry {
        etag: etag(&panel),
        json: row.json.as_str().into(),
        stored: Instant::now().checked_sub(age).unwrap_or_else(Instant::now),
        ttl: millis(row.expires_at_ms - row.stored_at_ms),
    }))
}
