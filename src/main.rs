//! Thin entry point: settings, telemetry, serve until SIGTERM/Ctrl-C.

use std::{path::Path, process::ExitCode};

use linkup_suggestions::{App, settings::Settings, telemetry};

#[tokio::main]
async fn main() -> ExitCode {
    let settings = match Settings::load(Path::new("config")) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("linkup-suggestions: {e}");
            return ExitCode::from(2);
        }
    };
    telemetry::init(&settings.log);
    let app = match App::build(settings).await {
        Ok(app) => app,
        Err(e) => {
            tracing::error!(error.message = format!("{e:#}"), "start-up failed");
            eprintln!("linkup-suggestions: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(addr = %app.local_addr(), "listening");
    match app.run_until_stopped().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error.message = format!("{e:#}"), "server failed");
            ExitCode::FAILURE
        }
    }
}
