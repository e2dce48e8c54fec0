//! The metric families themselves: each one's name, help and buckets, and
//! their registration in the app's registry.

use prometheus_client::{
    metrics::{
        counter::Counter,
        family::Family,
        gauge::Gauge,
        histogram::{Histogram, exponential_buckets},
    },
    registry::{Metric, Registry},
};

use super::Labels;

/// Seconds buckets from 1 ms to ~33 s.
fn seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 16))
}

fn seconds_family<S: Clone + std::hash::Hash + Eq>() -> Family<S, Histogram, fn() -> Histogram> {
    Family::new_with_constructor(seconds)
}

pub(super) struct Inner {
    pub(super) registry: Registry,
    pub(super) http_requests: Family<Labels<3>, Counter>,
    pub(super) http_duration: Family<Labels<1>, Histogram, fn() -> Histogram>,
    pub(super) http_in_flight: Gauge,
    pub(super) runs: Family<Labels<1>, Counter>,
    pub(super) run_degraded: Family<Labels<1>, Counter>,
    pub(super) run_rounds: Histogram,
    pub(super) run_duration: Histogram,
    pub(super) run_late: Counter,
    pub(super) llm_calls: Family<Labels<3>, Counter>,
    pub(super) llm_duration: Family<Labels<2>, Histogram, fn() -> Histogram>,
    pub(super) llm_tokens: Family<Labels<2>, Counter>,
    pub(super) llm_circuit_open: Gauge,
    pub(super) entra_token_fetches: Family<Labels<2>, Counter>,
    pub(super) panel_cache_requests: Family<Labels<1>, Counter>,
    pub(super) panel_cache_entries: Gauge,
    pub(super) panel_cache_bytes: Gauge,
    pub(super) panel_cache_shared: Family<Labels<1>, Counter>,
    pub(super) entra_token_fetch_duration: Family<Labels<1>, Histogram, fn() -> Histogram>,
    pub(super) entra_token_expiry: Family<Labels<1>, Gauge>,
    pub(super) rate_limit: Family<Labels<2>, Gauge>,
    pub(super) graph_calls: Family<Labels<2>, Counter>,
    pub(super) graph_hits_dropped: Family<Labels<1>, Counter>,
    pub(super) graph_duration: Family<Labels<1>, Histogram, fn() -> Histogram>,
    pub(super) tool_calls: Family<Labels<3>, Counter>,
    pub(super) run_records: Family<Labels<1>, Counter>,
    pub(super) posts: Gauge,
    pub(super) posts_embedded: Gauge,
    pub(super) embedding_backlog: Gauge,
    pub(super) post_embedder: Family<Labels<2>, Gauge>,
    pub(super) post_search_duration: Histogram,
    pub(super) local_embeddings: Family<Labels<1>, Counter>,
    pub(super) process_rss: Gauge,
    pub(super) process_fds: Gauge,
    pub(super) process_threads: Gauge,
    pub(super) runs_in_flight: Gauge,
    pub(super) admissions: Family<Labels<1>, Counter>,
    pub(super) panel_shares: Family<Labels<2>, Counter>,
}

impl Default for Inner {
    fn default() -> Self {
        let mut inner = Self {
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
            entra_token_fetches: Family::default(),
            panel_cache_requests: Family::default(),
            panel_cache_entries: Gauge::default(),
            panel_cache_bytes: Gauge::default(),
            panel_cache_shared: Family::default(),
            entra_token_fetch_duration: seconds_family(),
            entra_token_expiry: Family::default(),
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
            local_embeddings: Family::default(),
            process_rss: Gauge::default(),
            process_fds: Gauge::default(),
            process_threads: Gauge::default(),
            runs_in_flight: Gauge::default(),
            admissions: Family::default(),
            panel_shares: Family::default(),
            registry: Registry::with_prefix("linkup"),
        };
        let mut registry = std::mem::take(&mut inner.registry);
        for (name, help, metric) in inner.families() {
            metric.register_in(&mut registry, name, help);
        }
        Self { registry, ..inner }
    }
}

impl Inner {
    /// Every family: its name (after the `linkup_` prefix), help, and metric.
    fn families(&self) -> [(&'static str, &'static str, &dyn Registered); 37] {
        [
            (
                "http_requests",
                "HTTP requests by route template, method and status",
                &self.http_requests,
            ),
            (
                "http_request_duration_seconds",
                "HTTP request latency by route template",
                &self.http_duration,
            ),
            (
                "http_requests_in_flight",
                "HTTP requests being served",
                &self.http_in_flight,
            ),
            (
                "runs",
                "Suggestion runs by path (agent, fallback, partial)",
                &self.runs,
            ),
            (
                "run_degraded",
                "Runs by degradation reason (meta.degraded)",
                &self.run_degraded,
            ),
            ("run_llm_rounds", "LLM rounds per run", &self.run_rounds),
            (
                "run_duration_seconds",
                "Run latency, from request arrival to the response",
                &self.run_duration,
            ),
            (
                "run_late",
                "Responses later than the deadline plus 50 ms",
                &self.run_late,
            ),
            (
                "llm_calls",
                "Azure OpenAI calls by operation, deployment and outcome (ok or error kind)",
                &self.llm_calls,
            ),
            (
                "llm_call_duration_seconds",
                "Azure OpenAI call latency by operation and deployment",
                &self.llm_duration,
            ),
            (
                "llm_tokens",
                "Azure OpenAI tokens by deployment and kind (prompt, completion)",
                &self.llm_tokens,
            ),
            (
                "llm_circuit_open",
                "1 while the LLM circuit breaker skips the agent",
                &self.llm_circuit_open,
            ),
            (
                "panel_cache_requests",
                "Suggestions requests by panel cache result (hit, miss, coalesced: waited for an identical request's run, bypass: not read)",
                &self.panel_cache_requests,
            ),
            (
                "panel_cache_entries",
                "Panels in the cache",
                &self.panel_cache_entries,
            ),
            (
                "panel_cache_bytes",
                "Bytes of panels in the cache (their JSON), bounded by cache.max_bytes",
                &self.panel_cache_bytes,
            ),
            (
                "panel_cache_shared",
                "Operations on the panel cache's shared tier (cache.shared) by result: lookups hit, miss or unavailable (failed or slower than cache.shared_timeout_ms: a miss); writes written, write_failed, or write_skipped while the table does not answer",
                &self.panel_cache_shared,
            ),
            (
                "entra_token_fetches",
                "Microsoft Entra ID token fetches by upstream (azure_openai, postgres) and outcome (ok, refused, unreachable, timeout)",
                &self.entra_token_fetches,
            ),
            (
                "entra_token_fetch_duration_seconds",
                "Microsoft Entra ID token fetch latency by upstream (in the background, never in a request)",
                &self.entra_token_fetch_duration,
            ),
            (
                "entra_token_expiry_timestamp_seconds",
                "When the Microsoft Entra ID token held for each upstream expires (Unix time)",
                &self.entra_token_expiry,
            ),
            (
                "upstream_rate_limit",
                "1 for each upstream's rate-limit state (ok, warning, throttled), 0 for the others",
                &self.rate_limit,
            ),
            (
                "graph_calls",
                "Microsoft Graph search calls by entity group and outcome",
                &self.graph_calls,
            ),
            (
                "graph_hits_dropped",
                "Microsoft Graph search hits left out of the results, by reason (no_link: nothing to link to)",
                &self.graph_hits_dropped,
            ),
            (
                "graph_call_duration_seconds",
                "Microsoft Graph search latency by entity group",
                &self.graph_duration,
            ),
            (
                "tool_calls",
                "MCP tool calls by tool, door (in_process, mcp) and outcome",
                &self.tool_calls,
            ),
            (
                "run_records",
                "Run records by outcome (stored, purged, dropped: the database could not keep up)",
                &self.run_records,
            ),
            ("posts", "Live posts in the post index", &self.posts),
            (
                "posts_embedded",
                "Posts in the index with a vector",
                &self.posts_embedded,
            ),
            (
                "posts_embedding_backlog",
                "Posts waiting for their vector",
                &self.embedding_backlog,
            ),
            (
                "post_embedder",
                "1 for the model ranking posts by meaning (embedder: azure, local or none) and the local model loaded",
                &self.post_embedder,
            ),
            (
                "post_search_duration_seconds",
                "Post index search latency",
                &self.post_search_duration,
            ),
            (
                "local_embeddings",
                "Texts the multilingual model embedded, by purpose (post: a post written, once; query: a search's text not seen before)",
                &self.local_embeddings,
            ),
            (
                "process_resident_memory_bytes",
                "Resident memory of the process",
                &self.process_rss,
            ),
            (
                "process_open_fds",
                "Open file descriptors of the process",
                &self.process_fds,
            ),
            (
                "process_threads",
                "Threads of the process",
                &self.process_threads,
            ),
            (
                "runs_in_flight",
                "Suggestions runs holding a slot (server.max_in_flight)",
                &self.runs_in_flight,
            ),
            (
                "run_admissions",
                "Suggestions runs by admission: agent, degraded (the fallback, for load) or shed (503)",
                &self.admissions,
            ),
            (
                "panel_shares",
                "Documents shared on a post that its panel had suggested, by source and position (1-10)",
                &self.panel_shares,
            ),
        ]
    }
}

/// A metric that registers a handle to itself (every handle records into
/// the same values).
trait Registered {
    fn register_in(&self, registry: &mut Registry, name: &'static str, help: &'static str);
    /// Its OpenMetrics type.
    #[cfg(test)]
    fn kind(&self) -> &'static str;
}

impl<M: Metric + Clone> Registered for M {
    fn register_in(&self, registry: &mut Registry, name: &'static str, help: &'static str) {
        registry.register(name, help, self.clone());
    }

    #[cfg(test)]
    fn kind(&self) -> &'static str {
        use prometheus_client::metrics::MetricType;
        match self.metric_type() {
            MetricType::Counter => "counter",
            MetricType::Gauge => "gauge",
            MetricType::Histogram => "histogram",
            _ => "other",
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn the_docs_metrics_table_lists_every_family_with_its_type_and_no_other() {
        let inner = Inner::default();
        let registered: BTreeMap<String, &str> = inner
            .families()
            .iter()
            .map(|(name, _, metric)| {
                // Counters are exposed with `_total`, as the docs name them.
                let suffix = if metric.kind() == "counter" {
                    "_total"
                } else {
                    ""
                };
                (format!("linkup_{name}{suffix}"), metric.kind())
            })
            .collect();
        let docs = include_str!("../../docs/operations.md");
        let start = docs
            .find("| metric | type | labels | what |")
            .expect("docs/operations.md has the metrics table");
        let documented: BTreeMap<String, &str> = docs[start..]
            .lines()
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .map(|row| {
                let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
                (cells[0].trim_matches('`').to_owned(), cells[1])
            })
            .collect();
        assert_eq!(documented, registered);
    }
}
