//! Thin entry point: settings, telemetry, serve until SIGTERM/Ctrl-C.
//! `linkup-suggestions healthcheck` probes a running instance's `/healthz`
//! (the container's HEALTHCHECK; the runtime image has no curl);
//! `linkup-suggestions migrate-posts --from sqlite:PATH --to postgres://…`
//! copies a SQLite post index into PostgreSQL.

use std::{path::Path, process::ExitCode, time::Duration};

use linkup_suggestions::{
    App, otel,
    settings::{PostsBackend, PostsSettings, Secret, Settings},
    store::copy,
    telemetry,
};

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("healthcheck") => return healthcheck(&settings).await,
        Some("migrate-posts") => {
            telemetry::init(&settings.log, None);
            return migrate_posts(&settings, &args[1..]).await;
        }
        _ => {}
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
    if settings.log.payloads {
        tracing::warn!(
            "log.payloads is on: tool arguments (written from user text) and result summaries are logged, streamed and kept in run records; development only"
        );
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

/// `migrate-posts --from sqlite:PATH --to postgres://…`: copies the SQLite
/// post index at PATH (posts, vectors, run records) into the PostgreSQL
/// database (`--to` defaults to `posts.database_url` / `DATABASE_URL`).
async fn migrate_posts(settings: &Settings, args: &[String]) -> ExitCode {
    const USAGE: &str = "usage: linkup-suggestions migrate-posts --from sqlite:PATH [--to postgres://USER:PASSWORD@HOST/DB]";
    let (mut from, mut to) = (None, settings.posts.database_url.clone());
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--from", Some(v)) => from = v.strip_prefix("sqlite:").map(std::path::PathBuf::from),
            ("--to", Some(v)) => {
                to = Some(Secret::from(
                    v.strip_prefix("postgres:")
                        .filter(|r| !r.starts_with("//"))
                        .unwrap_or(v),
                ))
            }
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(from), Some(to)) = (from, to) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let target = PostsSettings {
        backend: PostsBackend::Postgres,
        database_url: Some(to),
        ..settings.posts.clone()
    };
    match copy::sqlite_to_postgres(&from, &target, settings.runs.max_records).await {
        Ok(c) => {
            println!(
                "copied {} posts ({} with vectors) and {} run records; {} expired posts skipped",
                c.posts, c.vectors, c.runs, c.expired_skipped
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("linkup-suggestions migrate-posts: {e}");
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
