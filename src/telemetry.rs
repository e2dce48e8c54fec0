//! The tracing subscriber: pretty logs in development, JSON in production.
//! What is logged is decided at the call sites: names, counts, sizes and
//! timings, never post text, queries, tool outputs, tokens or keys. Crates we
//! do not own log payloads at their debug and trace levels (rmcp logs every
//! tool call and result), so they are clamped whatever `RUST_LOG` says.
//! Trace export ([`crate::otel`]) is one more layer when configured.

use tracing::level_filters::LevelFilter;
use tracing_subscriber::{
    EnvFilter, Layer, Registry,
    filter::{FilterExt, Targets},
    fmt::{self, MakeWriter},
    layer::SubscriberExt,
    util::SubscriberInitExt,
};

use crate::settings::LogSettings;

/// A layer of the global subscriber (logs, trace export).
pub type BoxedLayer = Box<dyn Layer<Registry> + Send + Sync>;

/// The most each payload-logging crate may log: levels whose lines carry
/// names, errors and counts only (rmcp's warnings dump unexpected messages).
const CLAMPED: [(&str, LevelFilter); 13] = [
    ("rmcp", LevelFilter::ERROR),
    // The Azure SDK (Entra ID tokens): its request logs carry token
    // endpoints' answers; its failures reach our own warnings (azure_auth).
    ("azure_core", LevelFilter::ERROR),
    ("azure_identity", LevelFilter::ERROR),
    ("typespec", LevelFilter::ERROR),
    ("typespec_client_core", LevelFilter::ERROR),
    ("hyper", LevelFilter::WARN),
    ("hyper_util", LevelFilter::WARN),
    ("reqwest", LevelFilter::WARN),
    ("h2", LevelFilter::WARN),
    ("rustls", LevelFilter::WARN),
    // The trace exporter's own diagnostics: failures only.
    ("opentelemetry", LevelFilter::WARN),
    ("opentelemetry_sdk", LevelFilter::WARN),
    ("opentelemetry-otlp", LevelFilter::WARN),
];

/// Installs the global subscriber: logs on stdout, and `traces` (the trace
/// export's layer) when configured. `log.level` (which `RUST_LOG` sets when
/// `LINKUP__LOG__LEVEL` does not) never lifts the clamps.
pub fn init(settings: &LogSettings, traces: Option<BoxedLayer>) {
    let mut layers = vec![layer(&settings.format, &settings.level, std::io::stdout)];
    layers.extend(traces);
    if let Err(e) = tracing_subscriber::registry().with(layers).try_init() {
        eprintln!("tracing already initialised: {e}");
    }
}

/// The service's log layer: `format` (`json` or `pretty`), the `directives`
/// (a `tracing` filter such as `info` or `trace`) with the clamps applied,
/// written to `writer`. Tests capture the logs with it.
pub fn layer<W>(format: &str, directives: &str, writer: W) -> BoxedLayer
where
    W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
{
    // `log.level` is checked when the settings load (an invalid one stops
    // start-up); what the tests pass is valid.
    let wanted = EnvFilter::try_new(directives).unwrap_or_else(|_| EnvFilter::new("info"));
    let filter = wanted.and(
        Targets::new()
            .with_default(LevelFilter::TRACE)
            .with_targets(CLAMPED),
    );
    let fmt = fmt::layer().with_writer(writer);
    if format == "json" {
        fmt.json()
            .with_current_span(true)
            .with_span_list(true)
            .with_filter(filter)
            .boxed()
    } else {
        fmt.with_filter(filter).boxed()
    }
}
