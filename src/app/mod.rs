//! The composition root: [`App::build`] opens everything once — the HTTP
//! clients, the Entra credentials, the panel cache, the store, the post
//! index and the upstream clients ([`Parts`]), the in-process MCP
//! connection, the orchestrator, the panels service — hands each part what
//! it needs, and binds the listeners; [`App::run_until`] serves until
//! shutdown and drains.

pub use crate::parts::Parts;

use std::{future::Future, net::SocketAddr, sync::Arc, time::Duration};

use anyhow::Context;
use tokio::net::TcpListener;

use crate::{
    agent::{self, Orchestrator},
    api::{self, AppState},
    azure_auth, cache, metrics,
    panels::Panels,
    posts, runs, server, settings,
    settings::Settings,
    tools::connection::McpConnection,
    upstream,
};

/// A built service: listener bound, post index open, ready to serve.
pub struct App {
    listener: TcpListener,
    router: axum::Router,
    maintenance: tokio::task::JoinHandle<()>,
    runs: runs::RunRecords,
    run_writer: tokio::task::JoinHandle<()>,
    limits: server::Limits,
    /// Ends the `/mcp` sessions (and their open streams) at shutdown.
    mcp_shutdown: tokio_util::sync::CancellationToken,
    /// Cancelled at SIGTERM (`/readyz` 503), `shutdown_delay` before the listeners close.
    shutting_down: tokio_util::sync::CancellationToken,
    shutdown_delay: Duration,
    /// The listener of `/metrics` when `server.admin_addr` is set.
    admin: Option<(TcpListener, axum::Router)>,
}

impl App {
    /// Binds the listener, opens the post index and wires the upstream clients.
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        Self::build_with(settings, azure_auth::Identity::default()).await
    }

    /// [`Self::build`], with Entra tokens from `identity`.
    pub async fn build_with(
        settings: Settings,
        identity: azure_auth::Identity,
    ) -> anyhow::Result<Self> {
        let Opened {
            parts,
            cache,
            database_token,
        } = open(&settings, identity).await?;
        let maintenance = parts.posts.spawn_maintenance(
            Duration::from_secs(settings.posts.purge_interval_secs),
            Duration::from_secs(settings.posts.embed_retry_interval_secs),
        );
        let runs = runs::RunRecords::new(
            parts.store.clone(),
            settings.runs.clone(),
            parts.metrics.clone(),
        );
        let run_writer = runs.spawn_writer();
        let tools = Arc::new(parts.tools());
        let orchestrator = Arc::new(orchestrator(&settings, &parts, tools.clone(), &runs).await?);
        let panels = Arc::new(Panels::new(
            orchestrator.clone(),
            cache.clone(),
            parts.posts.clone(),
            Duration::from_millis(settings.agent.timeout_ms),
        ));
        let backlog = settings.server.listen_backlog;
        let listener = server::bind(settings.server.addr, backlog)
            .with_context(|| format!("binding {}", settings.server.addr))?;
        let limits = server::Limits::from_settings(&settings.server);
        let admin_listener = match settings.server.admin_addr {
            Some(addr) => Some(
                server::bind(addr, backlog)
                    .with_context(|| format!("binding the admin listener {addr}"))?,
            ),
            None => None,
        };
        let shutting_down = tokio_util::sync::CancellationToken::new();
        let shutdown_delay = Duration::from_millis(settings.server.shutdown_delay_ms);
        let state = AppState::new(api::Shared {
            panels,
            orchestrator,
            tools,
            posts: parts.posts,
            board: parts.board,
            llm: parts.llm,
            graph: parts.graph,
            metrics: parts.metrics,
            runs: runs.clone(),
            settings: Arc::new(settings),
            shutting_down: shutting_down.clone(),
            database_token,
            cache,
        });
        let mcp_shutdown = tokio_util::sync::CancellationToken::new();
        let admin = admin_listener.map(|l| (l, api::admin_router(state.clone())));
        Ok(Self {
            listener,
            router: api::router(state, mcp_shutdown.clone()),
            maintenance,
            runs,
            run_writer,
            limits,
            mcp_shutdown,
            shutting_down,
            shutdown_delay,
            admin,
        })
    }

    /// The bound address (tests bind port 0 and read it here).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound TCP listener has a local address")
    }

    /// The admin listener's address, when `server.admin_addr` is set.
    pub fn admin_addr(&self) -> Option<SocketAddr> {
        self.admin.as_ref().and_then(|(l, _)| l.local_addr().ok())
    }

    /// Serves until `shutdown` resolves; then, not ready (`/readyz` 503),
    /// keeps serving for `server.shutdown_delay_ms` while the load balancer
    /// stops routing here; then closes the listeners and lets in-flight
    /// requests finish (at most the grace period).
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        // Cancelled after the delay: ends the `/mcp` sessions and both listeners.
        let stop = self.mcp_shutdown;
        let trigger = stop.clone();
        let (shutting_down, delay) = (self.shutting_down, self.shutdown_delay);
        tokio::spawn(async move {
            shutdown.await;
            shutting_down.cancel();
            tracing::info!(
                delay_ms = delay.as_millis() as u64,
                "shutting down: not ready, still serving until the delay has passed"
            );
            tokio::time::sleep(delay).await;
            trigger.cancel();
        });
        let main = server::serve(
            self.listener,
            self.router,
            self.limits,
            stop.clone().cancelled_owned(),
        );
        let admin = async {
            if let Some((listener, router)) = self.admin {
                server::serve(listener, router, self.limits, stop.cancelled_owned()).await;
            }
        };
        futures::join!(main, admin);
        self.maintenance.abort();
        // The last runs' records are written before the process goes (after
        // a batch the writer may be writing).
        self.runs.flush().await;
        self.run_writer.abort();
        Ok(())
    }

    /// Serves until SIGTERM or Ctrl-C.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        self.run_until(shutdown_signal()).await
    }
}

/// What the app opens before it wires anything.
struct Opened {
    parts: Parts,
    cache: Option<cache::PanelCache>,
    /// With `posts.auth = "entra"`: the database's token, for `/readyz`.
    database_token: Option<azure_auth::TokenKeeper>,
}

/// Opens the HTTP clients, the Entra credentials, the panel cache and the
/// parts over them; each failure says what was being opened.
async fn open(settings: &Settings, identity: azure_auth::Identity) -> anyhow::Result<Opened> {
    let http = upstream::Upstreams::new(settings).context("building the HTTP clients")?;
    let metrics = metrics::Metrics::default();
    let tokens = azure_auth::Tokens::start(settings, identity, &metrics)
        .await
        .context("setting up the Microsoft Entra ID credential (azure_openai.auth)")?;
    if settings.azure_openai.endpoint.is_some() {
        tracing::info!(
            auth = settings.azure_openai.auth.as_str(),
            "Azure OpenAI authentication"
        );
    }
    let cache = settings.cache.enabled.then(|| {
        let generation = cache::generation(settings);
        cache::PanelCache::new(&settings.cache, generation, metrics.clone())
    });
    let database_token = tokens.database.clone();
    // A model error names its file already; a store error is given its place.
    let parts = Parts::open(settings, http, metrics, tokens, cache.clone())
        .await
        .map_err(|e| match e {
            posts::PostIndexError::Model(_) => anyhow::Error::new(e),
            e => anyhow::Error::new(e).context(match settings.posts.backend {
                settings::PostsBackend::Sqlite => format!(
                    "opening the post index at {}",
                    settings.posts.db_path.display()
                ),
                settings::PostsBackend::Postgres => {
                    "opening the post index in PostgreSQL (posts.database_url)".to_owned()
                }
            }),
        })?;
    Ok(Opened {
        parts,
        cache,
        database_token,
    })
}

/// The orchestrator over the tools (through an in-process MCP
/// connection), its runs admitted within the memory budget.
async fn orchestrator(
    settings: &Settings,
    parts: &Parts,
    tools: Arc<crate::tools::ToolDeps>,
    runs: &runs::RunRecords,
) -> anyhow::Result<Orchestrator> {
    let conn = McpConnection::open(tools.clone())
        .await
        .context("connecting the in-process MCP tools")?;
    let admission = agent::Admission::new(
        settings.runs_in_flight_bound(),
        Duration::from_millis(settings.server.admission_wait_ms),
        parts.metrics.clone(),
    );
    Ok(
        Orchestrator::new(tools, Arc::new(conn), settings.agent.clone(), runs.clone())
            .with_payloads(settings.log.payloads)
            .with_admission(admission),
    )
}

/// An error and its causes on one line, each said once: a cause whose text
/// an earlier part already holds (an error that writes its source into its
/// own message) is left out.
pub fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! { () = ctrl_c => {}, () = terminate => {} }
}
