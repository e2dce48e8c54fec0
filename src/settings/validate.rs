//! Whether loaded settings make sense: every key checked, and a refusal
//! naming the key and what it must be.

use reqwest::Url;
use secrecy::ExposeSecret;

use super::{EmbedderSetting, LlmAuth, PostsAuth, PostsBackend, Settings, SettingsError};

/// Upper bound of `server.max_connections` and `mcp.max_sessions`: far
/// above what the process's file descriptors allow, and it keeps the
/// semaphores' sizes in range.
const MAX_CONNECTIONS: u64 = 1_000_000;

type Checked = Result<(), SettingsError>;

fn invalid(key: &'static str, message: impl Into<String>) -> Checked {
    Err(SettingsError::Invalid {
        key,
        message: message.into(),
    })
}

impl Settings {
    pub(super) fn validate(&self) -> Checked {
        self.check_ranges()?;
        self.check_positive()?;
        self.check_choices()?;
        self.check_upstreams()?;
        self.check_posts()
    }

    /// Numbers that must lie within bounds.
    fn check_ranges(&self) -> Checked {
        for (key, value, low, high) in [
            ("agent.timeout_ms", self.agent.timeout_ms, 1, 600_000),
            ("agent.max_rounds", self.agent.max_rounds.into(), 1, 20),
            (
                "agent.max_tool_calls_per_round",
                self.agent.max_tool_calls_per_round as u64,
                1,
                64,
            ),
            (
                "server.max_connections",
                self.server.max_connections as u64,
                1,
                MAX_CONNECTIONS,
            ),
            (
                "mcp.max_sessions",
                self.mcp.max_sessions as u64,
                1,
                MAX_CONNECTIONS,
            ),
            ("posts.pool_size", self.posts.pool_size as u64, 1, 100),
            (
                "server.listen_backlog",
                self.server.listen_backlog.into(),
                1,
                65_535,
            ),
            (
                "server.memory_budget_mb",
                self.server.memory_budget_mb,
                128,
                1_048_576,
            ),
            (
                "server.max_in_flight",
                self.server.max_in_flight as u64,
                0,
                1_000_000,
            ),
            (
                "server.admission_wait_ms",
                self.server.admission_wait_ms,
                0,
                10_000,
            ),
            (
                "cache.shared_timeout_ms",
                self.cache.shared_timeout_ms,
                1,
                5_000,
            ),
        ] {
            if !(low..=high).contains(&value) {
                return invalid(key, format!("must be between {low} and {high}"));
            }
        }
        let cache_bytes = self.cache.resident_bound();
        if self.server.max_in_flight == 0
            && self.server.derived_runs_in_flight(cache_bytes).is_none()
        {
            return invalid(
                "server.memory_budget_mb",
                format!(
                    "leaves no room for {} suggestions runs beside {} open connections (~20 KiB each) \
                     and the panel cache (cache.max_bytes, {} MiB); raise it, lower \
                     server.max_connections or cache.max_bytes, or set server.max_in_flight",
                    super::MIN_DERIVED_RUNS,
                    self.server.max_connections,
                    cache_bytes >> 20
                ),
            );
        }
        if self.agent.circuit_failure_threshold == 0 {
            return invalid("agent.circuit_failure_threshold", "must be at least 1");
        }
        if !(0.0..=1.0).contains(&self.posts.min_similarity) {
            return invalid("posts.min_similarity", "must be between 0 and 1");
        }
        Ok(())
    }

    /// Timeouts, intervals, caps and retention that must not be zero.
    fn check_positive(&self) -> Checked {
        let (server, azure, runs) = (&self.server, &self.azure_openai, &self.runs);
        for (key, value) in [
            ("server.header_timeout_ms", server.header_timeout_ms),
            ("server.idle_timeout_ms", server.idle_timeout_ms),
            ("server.body_timeout_ms", server.body_timeout_ms),
            (
                "server.upstream_idle_timeout_ms",
                server.upstream_idle_timeout_ms,
            ),
            (
                "server.upstream_streams_per_connection",
                server.upstream_streams_per_connection as u64,
            ),
            ("mcp.session_idle_ms", self.mcp.session_idle_ms),
            ("azure_openai.chat_timeout_ms", azure.chat_timeout_ms),
            (
                "azure_openai.embeddings_timeout_ms",
                azure.embeddings_timeout_ms,
            ),
            ("msgraph.timeout_ms", self.msgraph.timeout_ms),
            ("msgraph.max_body_bytes", self.msgraph.max_body_bytes as u64),
            (
                "azure_openai.max_chat_body_bytes",
                azure.max_chat_body_bytes as u64,
            ),
            (
                "azure_openai.max_embedding_body_bytes_per_input",
                azure.max_embedding_body_bytes_per_input as u64,
            ),
            ("posts.purge_interval_secs", self.posts.purge_interval_secs),
            (
                "posts.embed_retry_interval_secs",
                self.posts.embed_retry_interval_secs,
            ),
            ("runs.max_records", runs.max_records),
            ("runs.retention_days", runs.retention_days.into()),
            (
                "runs.failed_retention_days",
                runs.failed_retention_days.into(),
            ),
        ] {
            if value == 0 {
                return invalid(key, "must be greater than 0");
            }
        }
        Ok(())
    }

    /// Keys that take one of a few words.
    fn check_choices(&self) -> Checked {
        if !matches!(self.log.format.as_str(), "pretty" | "json") {
            return invalid("log.format", "must be `pretty` or `json`");
        }
        if let Some(word) = bare_non_level(&self.log.level) {
            // tracing reads a bare word as a target: everything else would
            // be off, and the service silent.
            return invalid(
                "log.level",
                format!(
                    "`{word}` is not a level: use one of off, error, warn, info, debug, trace, \
                     or `target=level` (e.g. `info,linkup_suggestions=debug`)"
                ),
            );
        }
        if let Err(e) = tracing_subscriber::EnvFilter::try_new(&self.log.level) {
            return invalid(
                "log.level",
                format!(
                    "`{}` is not a tracing filter such as `info` or `linkup_suggestions=debug` ({e})",
                    self.log.level
                ),
            );
        }
        if !["minimal", "low", "medium", "high"]
            .contains(&self.azure_openai.reasoning_effort.as_str())
        {
            return invalid(
                "azure_openai.reasoning_effort",
                "must be `minimal`, `low`, `medium` or `high`",
            );
        }
        Ok(())
    }

    /// The upstreams' URLs, and the key Azure needs.
    fn check_upstreams(&self) -> Checked {
        if let Some(endpoint) = self.llm_endpoint() {
            check_upstream_url("azure_openai.endpoint", endpoint)?;
            if self.azure_openai.auth == LlmAuth::ApiKey && self.azure_openai.api_key.is_none() {
                return invalid(
                    "azure_openai.api_key",
                    "is required when an endpoint is set, unless azure_openai.auth is keyless \
                     (workload-identity, managed-identity or client-secret)",
                );
            }
        }
        let missing = self.azure_identity.missing_for(self.azure_openai.auth);
        if !missing.is_empty() {
            return invalid(
                "azure_openai.auth",
                format!(
                    "is `{}` but {} not set",
                    self.azure_openai.auth.as_str(),
                    missing.join(", ")
                ),
            );
        }
        check_upstream_url("msgraph.base_url", &self.msgraph.base_url)
    }

    /// The post store and the model the posts are ranked with.
    fn check_posts(&self) -> Checked {
        if self.posts.backend == PostsBackend::Postgres {
            match self
                .posts
                .database_url
                .as_ref()
                .map(|u| u.expose_secret().trim())
            {
                None | Some("") => {
                    return invalid(
                        "posts.database_url",
                        "is required when posts.backend is `postgres` (or set DATABASE_URL)",
                    );
                }
                // The parser's message may quote the URL, password included.
                Some(url) => match super::postgres_config(url) {
                    None => {
                        return invalid(
                            "posts.database_url",
                            "is not a PostgreSQL connection URL (postgres://user:password@host/db)",
                        );
                    }
                    Some(config)
                        if self.posts.auth == PostsAuth::Entra
                            && config.get_ssl_mode()
                                != tokio_postgres::config::SslMode::Require =>
                    {
                        return invalid(
                            "posts.database_url",
                            "must say sslmode=verify-full (or require) with posts.auth = \"entra\": \
                             the Entra token is sent as the password and stays valid for an hour, \
                             so it must only ever reach a server whose certificate was verified",
                        );
                    }
                    Some(_) => {}
                },
            }
            let database_identity = self
                .azure_identity
                .identity_for_database(self.azure_openai.auth);
            let missing = self.azure_identity.missing_for(database_identity);
            if self.posts.auth == PostsAuth::Entra && !missing.is_empty() {
                return invalid(
                    "posts.auth",
                    format!(
                        "is `entra` with the identity `{}`, but {} not set",
                        database_identity.as_str(),
                        missing.join(", ")
                    ),
                );
            }
        } else if self.posts.auth == PostsAuth::Entra {
            return invalid(
                "posts.auth",
                "is `entra`, which only PostgreSQL takes (posts.backend = \"postgres\")",
            );
        }
        if self.cache.enabled && self.cache.shared && self.posts.backend != PostsBackend::Postgres {
            return invalid(
                "cache.shared",
                "is true, but replicas share panels through PostgreSQL only (posts.backend = \"postgres\")",
            );
        }
        if self.posts.embedder == EmbedderSetting::Azure && self.azure_openai.endpoint.is_none() {
            return invalid(
                "posts.embedder",
                "is `azure` but azure_openai.endpoint is not set (use `auto` or `local`)",
            );
        }
        Ok(())
    }
}

/// Upstreams must be https, except on loopback (tests and local fakes).
pub(super) fn check_upstream_url(key: &'static str, value: &str) -> Result<(), SettingsError> {
    let url = Url::parse(value).map_err(|e| SettingsError::Invalid {
        key,
        message: format!("not a URL ({e})"),
    })?;
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match url.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(SettingsError::Invalid {
            key,
            message: "must be an https URL (plain http only on loopback)".to_owned(),
        }),
    }
}

/// The first directive of `filter` that is a bare word (no `=`, no span
/// `[…]`) and no level: tracing would take it for a target.
fn bare_non_level(filter: &str) -> Option<&str> {
    const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];
    filter.split(',').map(str::trim).find(|d| {
        !d.is_empty()
            && !d.contains('=')
            && !d.contains('[')
            && !LEVELS.iter().any(|l| l.eq_ignore_ascii_case(d))
    })
}
