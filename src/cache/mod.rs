//! The panel cache (repeat views): panels kept per post, request and caller
//! ([`PanelKey`]) for `cache.ttl_s` (degraded ones `cache.degraded_ttl_s`,
//! never past the caller's token's `exp`), bounded by `cache.max_bytes`;
//! identical concurrent misses share one run, spawned so that it outlives
//! the request that started it; a post's panels go when it is written or
//! deleted. moka keeps the entries (per-entry expiry, a byte weigher); the
//! shared runs are ours, because moka runs an init inside its first
//! caller's future and starts it again when that caller goes away. With
//! `cache.shared`, PostgreSQL is a second tier ([`shared`]) every replica
//! reads on a miss in memory.

mod invalidating;
mod key;
mod shared;
mod weight;

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, OnceLock},
    time::{Duration, Instant, SystemTime},
};

use futures::{FutureExt, future::Shared};
use tracing::Instrument;

pub use invalidating::Invalidating;
pub use key::{PanelKey, View, generation, left_for_token};
use shared::SharedTier;

use crate::{
    contract::CombinedSuggestionsResponse, degraded::Degraded, metrics::Metrics,
    settings::CacheSettings, store::SharedPanels,
};

/// A cached panel.
pub struct Entry {
    /// The panel's JSON as its run answered it (`meta` included: the
    /// original run): one allocation, where the panel itself is ~60 small
    /// ones that, kept among a burst's, pinned their slabs (B14).
    json: Box<str>,
    /// Over the panel's content, not `meta` (RFC 9110 strong validator).
    pub etag: String,
    /// When it was stored (`Age`).
    pub stored: Instant,
    /// How long it is served.
    pub ttl: Duration,
}

impl Entry {
    /// The panel it holds; None if it cannot be read back (a number JSON
    /// has no form for: the view is then computed again).
    pub fn panel(&self) -> Option<CombinedSuggestionsResponse> {
        serde_json::from_str(&self.json).ok()
    }

    /// Seconds it is still served.
    pub fn left(&self) -> Duration {
        self.ttl.saturating_sub(self.stored.elapsed())
    }
}

/// A panel just computed: the entry stored (or not kept), and the panel.
#[derive(Clone)]
pub struct Fresh {
    pub entry: Arc<Entry>,
    pub panel: Arc<CombinedSuggestionsResponse>,
}

/// A shared run's result, for each waiter.
pub type SharedRun = Shared<futures::future::BoxFuture<'static, Option<Fresh>>>;

/// How a lookup went (`linkup_panel_cache_requests_total{result}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Hit,
    Miss,
    /// Waited for an identical request's run.
    Coalesced,
    /// Not read (`no-cache`, `no-store`, disabled).
    Bypass,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hit => "hit",
            Self::Miss => "miss",
            Self::Coalesced => "coalesced",
            Self::Bypass => "bypass",
        }
    }
}

/// The cache. Cheap to clone.
#[derive(Clone)]
pub struct PanelCache {
    inner: Arc<Inner>,
}

struct Inner {
    entries: moka::future::Cache<PanelKey, Arc<Entry>>,
    running: Mutex<HashMap<PanelKey, SharedRun>>,
    ttl: Duration,
    degraded_ttl: Duration,
    generation: [u8; 32],
    metrics: Metrics,
    /// The shared tier, once the store that keeps it is open.
    shared: OnceLock<Arc<SharedTier>>,
}

/// Each entry lives what is left of its `ttl` (a panel from the shared
/// tier was stored before).
struct PerEntry;

impl moka::Expiry<PanelKey, Arc<Entry>> for PerEntry {
    fn expire_after_create(
        &self,
        _: &PanelKey,
        entry: &Arc<Entry>,
        _: std::time::Instant,
    ) -> Option<Duration> {
        Some(entry.left())
    }
}

impl PanelCache {
    /// The cache `settings` configure, keyed under the settings digest
    /// `generation` (see [`generation`]).
    pub fn new(settings: &CacheSettings, generation: [u8; 32], metrics: Metrics) -> Self {
        let entries = moka::future::Cache::builder()
            .max_capacity(settings.max_bytes)
            .weigher(|key: &PanelKey, e: &Arc<Entry>| weight::of(key, e))
            .expire_after(PerEntry)
            // A reopened post is a recent one: the least recently used go
            // first (TinyLFU, the default, may refuse a panel seen once).
            .eviction_policy(moka::policy::EvictionPolicy::lru())
            .support_invalidation_closures()
            .build();
        Self {
            inner: Arc::new(Inner {
                entries,
                running: Mutex::default(),
                ttl: Duration::from_secs(settings.ttl_s),
                degraded_ttl: Duration::from_secs(settings.degraded_ttl_s),
                generation,
                metrics,
                shared: OnceLock::new(),
            }),
        }
    }

    /// Shares panels with the other replicas through `panels`, each lookup
    /// bounded by `timeout`.
    pub fn share(&self, panels: Arc<dyn SharedPanels>, timeout: Duration) {
        let tier = SharedTier::new(panels, timeout, self.inner.metrics.clone());
        let _ = self.inner.shared.set(Arc::new(tier));
    }

    /// Whether the shared tier answers now; None without one (`/readyz`).
    pub async fn shared_reachable(&self) -> Option<bool> {
        Some(self.inner.shared.get()?.reachable().await)
    }

    pub fn generation(&self) -> &[u8; 32] {
        &self.inner.generation
    }

    /// The stored panel under `key`: in memory, else in the shared tier
    /// (then kept in memory for what is left of its life).
    pub async fn get(&self, key: &PanelKey) -> Option<Arc<Entry>> {
        if let Some(entry) = self.inner.entries.get(key).await {
            return Some(entry);
        }
        let entry = self.inner.shared.get()?.lookup(key).await?;
        self.inner.entries.insert(key.clone(), entry.clone()).await;
        Some(entry)
    }

    /// The run under way for `key`, if any: its result, to wait for.
    pub fn running(&self, key: &PanelKey) -> Option<SharedRun> {
        self.lock().get(key).cloned()
    }

    /// `key`'s panel: stored, or the result of the run already under way for
    /// it, or of `run`, spawned here and shared with identical requests that
    /// come while it runs. Its result is stored whoever still waits.
    /// `token_left` bounds the entry's life (the caller's token's `exp`).
    pub async fn get_or_run(
        &self,
        key: PanelKey,
        token_left: Option<Duration>,
        run: impl Future<Output = CombinedSuggestionsResponse> + Send + 'static,
    ) -> (Option<Fresh>, Outcome) {
        let (shared, outcome) = {
            let mut running = self.lock();
            match running.get(&key) {
                Some(shared) => (shared.clone(), Outcome::Coalesced),
                None => {
                    let cache = self.clone();
                    let k = key.clone();
                    // In the span of the request that started it: its lines
                    // and trace are that request's.
                    let task = tokio::spawn(
                        async move {
                            let panel = run.await;
                            let fresh = cache.store(&k, panel, token_left).await;
                            cache.lock().remove(&k);
                            Some(fresh)
                        }
                        .in_current_span(),
                    );
                    let shared = async move { task.await.ok().flatten() }.boxed().shared();
                    running.insert(key, shared.clone());
                    (shared, Outcome::Miss)
                }
            }
        };
        (shared.await, outcome)
    }

    /// Stores `panel` under `key` for its TTL (in the shared tier too);
    /// returns it with its entry (also when its TTL is zero and nothing is
    /// kept).
    pub async fn store(
        &self,
        key: &PanelKey,
        panel: CombinedSuggestionsResponse,
        token_left: Option<Duration>,
    ) -> Fresh {
        let ttl = self.ttl_of(&panel).min(token_left.unwrap_or(Duration::MAX));
        // A panel that cannot be written as JSON is not kept.
        let json = serde_json::to_string(&panel).unwrap_or_default();
        let entry = Arc::new(Entry {
            json: json.into_boxed_str(),
            etag: etag(&panel),
            stored: Instant::now(),
            ttl,
        });
        if !ttl.is_zero() && !entry.json.is_empty() {
            self.inner.entries.insert(key.clone(), entry.clone()).await;
            // Evicts beyond `max_bytes` now, not at moka's next housekeeping
            // (a miss is a whole run: this is cheap beside it).
            self.inner.entries.run_pending_tasks().await;
            if let Some(shared) = self.inner.shared.get() {
                shared.keep(key, &entry);
            }
        }
        Fresh {
            entry,
            panel: Arc::new(panel),
        }
    }

    /// How long `panel` is kept: complete answers `ttl_s`; answers with a
    /// degraded source `degraded_ttl_s` (the configuration's own reasons —
    /// no model configured, no Graph token — do not count: a repeat view
    /// would say the same).
    fn ttl_of(&self, panel: &CombinedSuggestionsResponse) -> Duration {
        let transient = panel.meta.degraded.iter().any(|reason| {
            !matches!(
                Degraded::from_wire(reason),
                Some(Degraded::LlmUnconfigured | Degraded::M365NoToken)
            )
        });
        if transient {
            self.inner.degraded_ttl
        } else {
            self.inner.ttl
        }
    }

    /// Forgets every panel of the post `post_id` (written or deleted).
    pub fn invalidate_post(&self, post_id: &str) {
        let id = post_id.to_owned();
        // Only fails when closures are not supported, which `new` turns on.
        let _ = self
            .inner
            .entries
            .invalidate_entries_if(move |k, _| k.post_id == id);
    }

    /// Forgets `key`'s panel (`Cache-Control: no-cache` replaces it).
    pub async fn invalidate(&self, key: &PanelKey) {
        self.inner.entries.invalidate(key).await;
    }

    /// Entries and their bytes, for the gauges.
    pub fn size(&self) -> (u64, u64) {
        (
            self.inner.entries.entry_count(),
            self.inner.entries.weighted_size(),
        )
    }

    /// Counts one request's `outcome`.
    pub fn count(&self, outcome: Outcome) {
        let (entries, bytes) = self.size();
        self.inner
            .metrics
            .panel_cache(outcome.as_str(), entries, bytes);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PanelKey, SharedRun>> {
        // A panic while holding the lock leaves the map whole.
        self.inner.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The strong `ETag` of a panel's content (`m365`, `posts`, `actionHint`,
/// `source`, `unavailableSources`; not `meta`): its JSON hashed as it is
/// written (no copy of the panel) by SipHash-1-3-128 with fixed keys, which
/// gives every replica and every build the same tag for the same content.
/// Not SHA-256: under callgrind (no SHA extensions) it cost 164 k
/// instructions a request in B1; a tag needs no resistance to forgery.
pub fn etag(panel: &CombinedSuggestionsResponse) -> String {
    use siphasher::sip128::{Hasher128, SipHasher13};
    struct Hashing(SipHasher13);
    impl std::io::Write for Hashing {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            std::hash::Hasher::write(&mut self.0, bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut h = Hashing(SipHasher13::new());
    let content = (
        &panel.m365,
        &panel.posts,
        &panel.action_hint,
        &panel.source,
        &panel.unavailable_sources,
    );
    // Writing into a hasher cannot fail.
    let _ = serde_json::to_writer(&mut h, &content);
    format!("\"{:032x}\"", h.0.finish128().as_u128())
}

/// The caller's token's time left, now.
pub fn token_left(token: Option<&str>) -> Option<Duration> {
    left_for_token(token, SystemTime::now())
}
