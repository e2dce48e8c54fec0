//! The HTTP/1 listener: listen backlog, connection cap, header/idle timeouts,
//! graceful shutdown.
//!
//! `axum::serve` exposes none of hyper's connection options; this module
//! serves the router with hyper directly:
//! - **Listen backlog**: the socket is bound with `server.listen_backlog`
//!   (tokio's `TcpListener::bind` takes 128: a burst of new connections
//!   beyond it lost its handshakes and waited a second for the retry).
//! - **Connection cap**: each connection's task holds a permit of a semaphore
//!   of `server.max_connections`. Without a permit the listener does not
//!   accept: new connections wait in the kernel's listen backlog while the
//!   open ones are served.
//! - **Header and idle timeouts**: hyper's `header_read_timeout` with a
//!   per-connection timer ([`head_timer`]) that tells the idle wait between
//!   requests from the reading of a head. A late head closes the connection
//!   without a response (hyper 1.12 writes no 408 for it), as does the end of
//!   the idle timeout.
//! - **Graceful shutdown**: on the signal the listener closes; idle
//!   connections close at once, in-flight requests get the grace period to
//!   finish; connections still open after it are dropped.

mod head_timer;

use std::{future::Future, io, net::SocketAddr, sync::Arc, time::Duration};

use axum::{Router, serve::Listener};
use hyper::server::conn::http1;
use hyper_util::{
    rt::TokioIo,
    server::graceful::{GracefulShutdown, Watcher},
    service::TowerToHyperService,
};
use tokio::{
    net::{TcpListener, TcpSocket, TcpStream},
    sync::{OwnedSemaphorePermit, Semaphore},
    task::JoinSet,
};

use self::head_timer::{HeadClock, HeadTimeouts, HeadTimer, ReadClock};
use crate::settings::ServerSettings;

/// When a request's head was read (a request extension, set first): its
/// run's deadline and its body's time count from here, whichever door it
/// came through.
#[derive(Debug, Clone, Copy)]
pub struct Arrived(pub tokio::time::Instant);

/// What the listener enforces, from `server.*` settings.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    timeouts: HeadTimeouts,
    max_connections: usize,
    grace: Duration,
}

impl Limits {
    pub fn from_settings(server: &ServerSettings) -> Self {
        Self {
            timeouts: HeadTimeouts {
                header: Duration::from_millis(server.header_timeout_ms),
                idle: Duration::from_millis(server.idle_timeout_ms),
            },
            max_connections: server.max_connections,
            grace: Duration::from_millis(server.shutdown_grace_ms),
        }
    }
}

/// A listener on `addr` whose kernel queue holds `backlog` connections not
/// yet accepted (address reuse on, as tokio's `bind` sets it).
pub fn bind(addr: SocketAddr, backlog: u32) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(backlog)
}

/// Serves `router` on `listener` until `shutdown` resolves, then drains the
/// open connections (at most the grace period).
pub async fn serve(
    mut listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let mut connections = JoinSet::new();
    let accepting = Accepting {
        router,
        limits,
        permits: Arc::new(Semaphore::new(limits.max_connections)),
    };
    accepting
        .run(&mut listener, &graceful, &mut connections, shutdown)
        .await;
    drop(listener);
    tracing::info!("shutting down: finishing in-flight requests");
    if tokio::time::timeout(limits.grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("grace period over; dropping remaining requests");
    }
    connections.shutdown().await;
}

/// The accept loop's own state.
struct Accepting {
    router: Router,
    limits: Limits,
    permits: Arc<Semaphore>,
}

impl Accepting {
    /// Accepts while a permit is free, until `shutdown` resolves.
    async fn run(
        &self,
        listener: &mut TcpListener,
        graceful: &GracefulShutdown,
        connections: &mut JoinSet<()>,
        shutdown: impl Future<Output = ()>,
    ) {
        tokio::pin!(shutdown);
        loop {
            // Finished connections are reaped as they finish, not at the next
            // accept: after a burst, each one's task (its connection's state,
            // a few KB) would stay allocated until a new client came (B14).
            let permit = tokio::select! {
                () = &mut shutdown => return,
                Some(_) = connections.join_next() => continue,
                permit = self.permits.clone().acquire_owned() => permit,
            };
            // The semaphore is never closed.
            let Ok(permit) = permit else { return };
            // axum's `Listener` retries accept errors (EMFILE and the like).
            let (tcp, _peer) = loop {
                tokio::select! {
                    () = &mut shutdown => return,
                    Some(_) = connections.join_next() => {}
                    accepted = Listener::accept(listener) => break accepted,
                }
            };
            connections.spawn(self.connection(tcp, permit, graceful.watcher()));
        }
    }

    /// Serves one connection; its permit is released when it closes.
    fn connection(
        &self,
        tcp: TcpStream,
        permit: OwnedSemaphorePermit,
        watcher: Watcher,
    ) -> impl Future<Output = ()> + Send + 'static {
        let clock = HeadClock::new();
        let io = TokioIo::new(ReadClock::new(tcp, clock.clone()));
        let timeouts = self.limits.timeouts;
        let conn = http1::Builder::new()
            .timer(HeadTimer::new(clock, timeouts))
            // Switches hyper's head timer on; the deadlines are HeadTimer's.
            .header_read_timeout(timeouts.header)
            .keep_alive(true)
            .serve_connection(io, TowerToHyperService::new(self.router.clone()));
        async move {
            let _permit = permit;
            if let Err(e) = watcher.watch(conn).await {
                let kind = if e.is_timeout() {
                    "header_timeout"
                } else {
                    "connection"
                };
                tracing::debug!(error.kind = kind, error.message = %e, "connection closed");
            }
        }
    }
}
