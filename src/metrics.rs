//! Prometheus metrics: the families this service exposes at `GET /metrics`
//! (OpenMetrics text), recorded by the parts that do the work. One registry
//! per `App` (no global state, so several apps in one process stay apart).
//! Labels are bounded: routes as templates, outcomes and reasons as their
//! fixed wire strings; never ids, queries or user text.

use std::sync::Arc;

use prometheus_client::{
    encoding::text::encode,
    metrics::{
        counter::Counter,
        family::Family,
        gauge::Gauge,
        histogram::{Histogram, exponential_buckets},
    },
    registry::Registry,
};

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

/// Seconds buckets from 1 ms to ~33 s.
fn seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 16))
}

fn seconds_family<S: Clone + std::hash::Hash + Eq>() -> Family<S, Histogram, fn() -> Histogram> {
    Family::new_with_constructor(seconds)
}

/// The service's metrics; cheap to clone (every clone records into the same registry).
#[derive(Clone, Default)]
pub struct Metrics(Arc<Inner>);

struct Inner {
    registry: Registry,
    http_requests: Family<Labels<3>, Counter>,
    http_duration: Family<Labels<1>, Histogram, fn() -> Histogram>,
    http_in_flight: Gauge,
    runs: Family<Labels<1>, Counter>,
    run_degraded: Family<Labels<1>, Counter>,
    run_rounds: Histogram,
    run_duration: Histogram,
    run_late: Counter,
    llm_calls: Family<Labels<3>, Counter>,
    llm_duration: Family<Labels<2>, Histogram, fn() -> Histogram>,
    llm_tokens: Family<Labels<2>, Counter>,
    llm_circuit_open: Gauge,
    rate_limit: Family<Labels<2>, Gauge>,
    graph_calls: Family<Labels<2>, Counter>,
    graph_hits_dropped: Family<Labels<1>, Counter>,
    graph_duration: Family<Labels<1>, Histogram, fn() -> Histogram>,
    tool_calls: Family<Labels<3>, Counter>,
    run_records: Family<Labels<1>, Counter>,
    posts: Gauge,
    posts_embedded: Gauge,
    embedding_backlog: Gauge,
    post_embedder: Family<Labels<2>, Gauge>,
    post_search_duration: Histogram,
    process_rss: Gauge,
    process_fds: Gauge,
    process_threads: Gauge,
}

impl Default for Inner {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("linkup");
        let inner = Self {
            http_requests: Family::default(),
            http_duration: seconds_family(),
            http_in_flight: Gauge::default(),
            runs: Family::default(),
            run_degraded: Family::default(),
            run_rounds: Histogram::new([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 20.0]),
            run_duration: seconds(),
            run_late: Counter::default(),
            llm_calls: Family::default(),
            llm_duration: seconds_family(),
            llm_tokens: Family::default(),
            llm_circuit_open: Gauge::default(),
            rate_limit: Family::default(),
            graph_calls: Family::default(),
            graph_hits_dropped: Family::default(),
            graph_duration: seconds_family(),
            tool_calls: Family::default(),
            run_records: Family::default(),
            posts: Gauge::default(),
            posts_embedded: Gauge::default(),
            embedding_backlog: Gauge::default(),
            post_embedder: Family::default(),
            post_search_duration: seconds(),
            process_rss: Gauge::default(),
            process_fds: Gauge::default(),
            process_threads: Gauge::default(),
            registry: Registry::default(),
        };
        let r = &mut registry;
        r.register(
            "http_requests",
            "HTTP requests by route template, method and status",
            inner.http_requests.clone(),
        );
        r.register(
            "http_request_duration_seconds",
            "HTTP request latency by route template",
            inner.http_duration.clone(),
        );
        r.register(
            "http_requests_in_flight",
            "HTTP requests being served",
            inner.http_in_flight.clone(),
        );
        r.register(
            "runs",
            "Suggestion runs by path (agent, fallback, partial)",
            inner.runs.clone(),
        );
        r.register(
            "run_degraded",
            "Runs by degradation reason (meta.degraded)",
            inner.run_degraded.clone(),
        );
        r.register(
            "run_llm_rounds",
            "LLM rounds per run",
            inner.run_rounds.clone(),
        );
        r.register(
            "run_duration_seconds",
            "Run latency, from request arrival to the response",
            inner.run_duration.clone(),
        );
        r.register(
            "run_late",
            "Responses later than the deadline plus 50 ms",
            inner.run_late.clone(),
        );
        r.register(
            "llm_calls",
            "Azure OpenAI calls by operation, deployment and outcome (ok or error kind)",
            inner.llm_calls.clone(),
        );
        r.register(
            "llm_call_duration_seconds",
            "Azure OpenAI call latency by operation and deployment",
            inner.llm_duration.clone(),
        );
        r.register(
            "llm_tokens",
            "Azure OpenAI tokens by deployment and kind (prompt, completion)",
            inner.llm_tokens.clone(),
        );
        r.register(
            "llm_circuit_open",
            "1 while the LLM circuit breaker skips the agent",
            inner.llm_circuit_open.clone(),
        );
        r.register(
            "upstream_rate_limit",
            "1 for each upstream's rate-limit state (ok, warning, throttled), 0 for the others",
            inner.rate_limit.clone(),
        );
        r.register(
            "graph_calls",
            "Microsoft Graph search calls by entity group and outcome",
            inner.graph_calls.clone(),
        );
        r.register(
            "graph_hits_dropped",
            "Microsoft Graph search hits left out of the results, by reason (no_link: nothing to link to)",
            inner.graph_hits_dropped.clone(),
        );
        r.register(
            "graph_call_duration_seconds",
            "Microsoft Graph search latency by entity group",
            inner.graph_duration.clone(),
        );
        r.register(
            "tool_calls",
            "MCP tool calls by tool, door (in_process, mcp) and outcome",
            inner.tool_calls.clone(),
        );
        r.register(
            "run_records",
            "Run records by outcome (stored, purged, dropped: the database could not keep up)",
            inner.run_records.clone(),
        );
        r.register("posts", "Live posts in the post index", inner.posts.clone());
        r.register(
            "posts_embedded",
            "Posts in the index with a vector",
            inner.posts_embedded.clone(),
        );
        r.register(
            "posts_embedding_backlog",
            "Posts waiting for their vector",
            inner.embedding_backlog.clone(),
        );
        r.register(
            "post_embedder",
            "1 for the model ranking posts by meaning (embedder: azure, local or none) and the local model loaded",
            inner.post_embedder.clone(),
        );
        r.register(
            "post_search_duration_seconds",
            "Post index search latency",
            inner.post_search_duration.clone(),
        );
        r.register(
            "process_resident_memory_bytes",
            "Resident memory of the process",
            inner.process_rss.clone(),
        );
        r.register(
            "process_open_fds",
            "Open file descriptors of the process",
            inner.process_fds.clone(),
        );
        r.register(
            "process_threads",
            "Threads of the process",
            inner.process_threads.clone(),
        );
        Self { registry, ..inner }
    }
}

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
