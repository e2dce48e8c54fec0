//! The tracing subscriber: pretty logs in development, JSON in production.
//! What is logged is decided at the call sites: names, counts, sizes and
//! timings, never post text, queries, tool outputs, tokens or keys.

use tracing_subscriber::{EnvFilter, fmt};

use crate::settings::LogSettings;

/// Installs the global subscriber; `RUST_LOG` overrides `log.level`.
pub fn init(settings: &LogSettings) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(&settings.level));
    let builder = fmt().with_env_filter(filter);
    let result = if settings.format == "json" {
        builder
            .json()
            .with_current_span(true)
            .with_span_list(true)
            .try_init()
    } else {
        builder.try_init()
    };
    if let Err(e) = result {
        eprintln!("tracing already initialised: {e}");
    }
}
