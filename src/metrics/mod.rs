//! Prometheus metrics: the families this service exposes at `GET /metrics`
//! (OpenMetrics text), recorded by the parts that do the work. One registry
//! per `App` (no global state, so several apps in one process stay apart).
//! Labels are bounded: routes as templates, outcomes and reasons as their
//! fixed wire strings; never ids, queries or user text.

use std::sync::Arc;

mod registry;

use prometheus_client::{encoding::text::encode, metrics::gauge::Gauge};
use registry::Inner;

/// Label values are static strings: fixed ones, or interned (see [`intern`]),
/// so recording allocates nothing.
type Labels<const N: usize> = [(&'static str, &'static str); N];

/// The one `&'static str` for a label value of a bounded set (route
/// templates, deployment names, degradation reasons): leaked once each.
pub fn intern(value: &str) -> &'static str {
    static SEEN: std::sync::LazyLock<std::sync::RwLock<std::collections::HashSet<&'static str>>> =
        std::sync::LazyLock::new(Default::default);
    if let Some(v) = SEEN.read().ok().and_then(|set| set.get(value).copied()) {
        return v;
    }
    let mut set = SEEN.write().unwrap_or_else(|p| p.into_inner());
    if let Some(v) = set.get(value) {
        return v;
    }
    let leaked: &'static str = Box::leak(value.to_owned().into_boxed_str());
    set.insert(leaked);
    leaked
}

/// The service's metrics; cheap to clone (every clone records into the same registry).
#[derive(Clone, Default)]
pub struct Metrics(Arc<Inner>);

/// What an upstream call came to: `ok` or its error kind.
pub fn outcome<T, E>(result: &Result<T, E>, kind: impl Fn(&E) -> &'static str) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(e) => kind(e),
    }
}

impl Metrics {
    /// The metrics in the OpenMetrics text format, process figures read now.
    pub fn render(&self) -> String {
        let i = &self.0;
        if let Some(p) = process() {
            i.process_rss.set(p.rss_bytes);
            i.process_fds.set(p.open_fds);
            i.process_threads.set(p.threads);
        }
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut out, &i.registry);
        out
    }

    /// A request being served, until the guard drops (also when the client
    /// goes away mid-request).
    pub fn http_started(&self) -> InFlight {
        self.0.http_in_flight.inc();
        InFlight(self.0.http_in_flight.clone())
    }

    /// Counts an admission decision.
    pub fn admission(&self, admitted: Admitted) {
        let outcome = match admitted {
            Admitted::Agent => "agent",
            Admitted::Degraded => "degraded",
            Admitted::Shed => "shed",
        };
        self.0
            .admissions
            .get_or_create(&[("outcome", outcome)])
            .inc();
    }

    /// A document shared on a post that its panel suggested, at
    /// `position` (1 = first) among its Microsoft 365 items.
    pub fn panel_share(&self, source: &'static str, position: usize) {
        const POSITIONS: [&str; 10] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
        let Some(position) = position.checked_sub(1).and_then(|i| POSITIONS.get(i)) else {
            return;
        };
        self.0
            .panel_shares
            .get_or_create(&[("source", source), ("position", position)])
            .inc();
    }

    /// A suggestions run holding a slot, until the guard drops.
    pub fn run_started(&self) -> RunInFlight {
        self.0.runs_in_flight.inc();
        RunInFlight(self.0.runs_in_flight.clone())
    }

    pub fn http_done(&self, route: &str, method: &'static str, status: &str, seconds: f64) {
        let i = &self.0;
        let route = intern(route);
        let status = intern(status);
        i.http_requests
            .get_or_create(&[("route", route), ("method", method), ("status", status)])
            .inc();
        i.http_duration
            .get_or_create(&[("route", route)])
            .observe(seconds);
    }

    /// A finished run: its path, rounds, reasons, latency, and whether it was late.
    pub fn run_done(
        &self,
        path: &'static str,
        rounds: u32,
        reasons: &[String],
        seconds: f64,
        late: bool,
    ) {
        let i = &self.0;
        i.runs.get_or_create(&[("path", path)]).inc();
        for reason in reasons {
            i.run_degraded
                .get_or_create(&[("reason", intern(reason))])
                .inc();
        }
        i.run_rounds.observe(f64::from(rounds));
        i.run_duration.observe(seconds);
        if late {
            i.run_late.inc();
        }
    }

    /// One Azure OpenAI call (`op`: chat or embeddings).
    pub fn llm_call(
        &self,
        op: &'static str,
        deployment: &str,
        outcome: &'static str,
        seconds: f64,
    ) {
        let i = &self.0;
        let deployment = intern(deployment);
        i.llm_calls
            .get_or_create(&[("op", op), ("deployment", deployment), ("outcome", outcome)])
            .inc();
        i.llm_duration
            .get_or_create(&[("op", op), ("deployment", deployment)])
            .observe(seconds);
    }

    pub fn llm_tokens(&self, deployment: &str, prompt: u64, completion: u64) {
        let i = &self.0;
        let deployment = intern(deployment);
        for (kind, n) in [("prompt", prompt), ("completion", completion)] {
            i.llm_tokens
                .get_or_create(&[("deployment", deployment), ("kind", kind)])
                .inc_by(n);
        }
    }

    /// An upstream's rate-limit state (`ok`, `warning`, `throttled`).
    pub fn rate_limit(&self, upstream: &'static str, state: &str) {
        for s in ["ok", "warning", "throttled"] {
            self.0
                .rate_limit
                .get_or_create(&[("upstream", upstream), ("state", s)])
                .set(i64::from(s == state));
        }
    }

    /// A Microsoft Entra ID token fetch for `upstream` (`outcome`: ok or
    /// the failure's name).
    pub fn entra_token_fetch(&self, upstream: &'static str, outcome: &'static str, seconds: f64) {
        let i = &self.0;
        i.entra_token_fetches
            .get_or_create(&[("upstream", upstream), ("outcome", outcome)])
            .inc();
        i.entra_token_fetch_duration
            .get_or_create(&[("upstream", upstream)])
            .observe(seconds);
    }

    /// The token now held for `upstream` expires at `at`.
    pub fn entra_token_expiry(&self, upstream: &'static str, at: std::time::SystemTime) {
        let secs = at
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.0
            .entra_token_expiry
            .get_or_create(&[("upstream", upstream)])
            .set(i64::try_from(secs).unwrap_or(i64::MAX));
    }

    /// A panel cache lookup (`result`: hit, miss, coalesced, bypass), and
    /// the cache's size after it.
    pub fn panel_cache(&self, result: &'static str, entries: u64, bytes: u64) {
        let i = &self.0;
        i.panel_cache_requests
            .get_or_create(&[("result", result)])
            .inc();
        i.panel_cache_entries
            .set(i64::try_from(entries).unwrap_or(i64::MAX));
        i.panel_cache_bytes
            .set(i64::try_from(bytes).unwrap_or(i64::MAX));
    }

    /// An operation on the panel cache's shared tier (`result`: hit, miss,
    /// unavailable, written, write_failed, write_skipped).
    pub fn panel_cache_shared(&self, result: &'static str) {
        self.0
            .panel_cache_shared
            .get_or_create(&[("result", result)])
            .inc();
    }

    pub fn llm_circuit(&self, open: bool) {
        self.0.llm_circuit_open.set(i64::from(open));
    }

    /// One Graph search request (`group`: files or mail).
    /// A Graph hit left out of the results (`reason`: `no_link`).
    pub fn graph_hit_dropped(&self, reason: &'static str) {
        self.0
            .graph_hits_dropped
            .get_or_create(&[("reason", reason)])
            .inc();
    }

    pub fn graph_call(&self, group: &'static str, outcome: &'static str, seconds: f64) {
        let i = &self.0;
        i.graph_calls
            .get_or_create(&[("group", group), ("outcome", outcome)])
            .inc();
        i.graph_duration
            .get_or_create(&[("group", group)])
            .observe(seconds);
    }

    /// One tool call (`door`: in_process or mcp; `outcome`: ok, error or invalid).
    pub fn tool_call(&self, tool: &'static str, door: &'static str, outcome: &'static str) {
        self.0
            .tool_calls
            .get_or_create(&[("tool", tool), ("door", door), ("outcome", outcome)])
            .inc();
    }

    /// Counts `n` run records that were `outcome` (stored, purged, dropped).
    pub fn run_records(&self, outcome: &'static str, n: usize) {
        self.0
            .run_records
            .get_or_create(&[("outcome", outcome)])
            .inc_by(n as u64);
    }

    pub fn post_search(&self, seconds: f64) {
        self.0.post_search_duration.observe(seconds);
    }

    /// Texts the multilingual model embedded for `purpose` (`post`, `query`).
    pub fn local_embeddings(&self, purpose: &'static str, texts: u64) {
        self.0
            .local_embeddings
            .get_or_create(&[("purpose", purpose)])
            .inc_by(texts);
    }

    /// The post index's size (set when scraped).
    pub fn post_index(&self, posts: i64, embedded: i64, backlog: i64) {
        let i = &self.0;
        i.posts.set(posts);
        i.posts_embedded.set(embedded);
        i.embedding_backlog.set(backlog);
    }

    /// Which model ranks posts by meaning, and the local model's name ("" without one).
    pub fn post_embedder(&self, embedder: &'static str, local_model: &str) {
        self.0
            .post_embedder
            .get_or_create(&[("embedder", embedder), ("local_model", intern(local_model))])
            .set(1);
    }
}

/// Counts a request in flight while alive.
pub struct InFlight(Gauge);

/// How a suggestions run was admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admitted {
    /// With a slot, on its usual course.
    Agent,
    /// With a slot past the soft threshold: the fallback, for load.
    Degraded,
    /// Refused: no slot in time (503).
    Shed,
}

/// A suggestions run holding a slot, until the guard drops.
pub struct RunInFlight(Gauge);

impl Drop for RunInFlight {
    fn drop(&mut self) {
        self.0.dec();
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.dec();
    }
}

struct Process {
    rss_bytes: i64,
    open_fds: i64,
    threads: i64,
}

/// The process's resident memory, open descriptors and threads (Linux `/proc`).
fn process() -> Option<Process> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<i64> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
    };
    let open_fds = std::fs::read_dir("/proc/self/fd").ok()?.count() as i64;
    Some(Process {
        rss_bytes: field("VmRSS:")? * 1024,
        open_fds,
        threads: field("Threads:")?,
    })
}
