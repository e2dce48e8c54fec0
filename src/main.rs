//! Thin entry point: settings, telemetry, serve until SIGTERM/Ctrl-C.
//! `linkup-suggestions healthcheck` probes a running instance's `/healthz`
//! (the container's HEALTHCHECK; the runtime image has no curl).

use std::{path::Path, process::ExitCode, time::Duration};

use linkup_suggestions::{App, otel, settings::Settings, telemetry};

/// jemalloc: the service allocates many small, short-lived buffers (JSON,
/// HTTP) across threads; see BENCHMARKS.md for what it changed.
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options: a background thread returns freed memory to the OS on
/// its decay schedule even while the process is idle (without it, purging
/// only happens inside allocations, so RSS stayed up after a burst; B11).
#[allow(non_upper_case_globals)]
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static malloc_conf: &[u8; 23] = b"background_thread:true\0";

#[tokio::main]
async fn main() -> ExitCode {
    let settings = match Settings::load(Path::new("config")) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("linkup-suggestions: {e}");
            return ExitCode::from(2);
        }
    };
    if std::env::args().nth(1).as_deref() == Some("healthcheck") {
        return healthcheck(&settings).await;
    }
    // A bad trace export configuration costs the traces, not the service:
    // it is logged once the logs are set up.
    let (traces_layer, traces, traces_error) = match otel::from_env() {
        Ok(traces) => {
            let (layer, traces) = traces.unzip();
            (layer, traces, None)
        }
        Err(e) => (None, None, Some(e)),
    };
    telemetry::init(&settings.log, traces_layer);
    if let Some(e) = traces_error {
        tracing::warn!(error.message = format!("{e:#}"), "trace export not started");
    }
    let app = match App::build(settings).await {
        Ok(app) => app,
        Err(e) => {
            tracing::error!(error.message = format!("{e:#}"), "start-up failed");
            eprintln!("linkup-suggestions: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(addr = %app.local_addr(), traces = traces.is_some(), "listening");
    let served = app.run_until_stopped().await;
    if let Some(traces) = traces {
        traces.shutdown().await;
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error.message = format!("{e:#}"), "server failed");
            ExitCode::FAILURE
        }
    }
}

/// Exits 0 when `GET /healthz` on the configured port answers 200.
async fn healthcheck(settings: &Settings) -> ExitCode {
    let url = format!("http://127.0.0.1:{}/healthz", settings.server.addr.port());
    let ok = match linkup_suggestions::http_client() {
        Ok(client) => client
            .get(url)
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success()),
        Err(_) => false,
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
