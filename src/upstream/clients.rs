//! The HTTP clients of the upstreams (Azure OpenAI, Microsoft Graph, the OTLP
//! collector): how they connect (`server.upstream_*`), and [`Lanes`], which
//! spreads an upstream's calls over as many HTTP/2 connections as its
//! concurrent-stream limit needs.

use std::{
    ops::Deref,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use crate::settings::{ServerSettings, Settings, UpstreamHttp2};

/// Idle keep-alive connections kept per upstream host and client: enough for
/// 64 concurrent agent runs (4 Graph calls each) without new TLS handshakes.
const IDLE_CONNECTIONS_PER_HOST: usize = 256;

/// Clients one upstream's [`Lanes`] open at most; beyond, calls share the
/// least busy (6,400 calls in flight at the default stream limit).
const MAX_LANES: usize = 64;

/// How the upstream clients connect.
#[derive(Debug, Clone, Copy)]
pub struct HttpConfig {
    /// Idle connections are closed after this long.
    pub idle: Duration,
    pub http2: UpstreamHttp2,
    /// Calls in flight per HTTP/2 connection.
    pub streams_per_connection: usize,
}

impl Default for HttpConfig {
    /// `config/default.toml`'s values.
    fn default() -> Self {
        Self {
            idle: Duration::from_secs(5),
            http2: UpstreamHttp2::Auto,
            streams_per_connection: 100,
        }
    }
}

/// Each upstream's clients, as the settings configure them.
#[derive(Clone)]
pub struct Upstreams {
    pub azure: Lanes,
    pub graph: Lanes,
}

impl Upstreams {
    pub fn new(settings: &Settings) -> Result<Self, ClientError> {
        let config = HttpConfig::of(&settings.server);
        let azure = settings
            .azure_openai
            .endpoint
            .as_deref()
            .unwrap_or_default();
        Ok(Self {
            azure: Lanes::new(config.for_url(azure))?,
            graph: Lanes::new(config.for_url(&settings.msgraph.base_url))?,
        })
    }
}

impl HttpConfig {
    /// `auto` settled for the upstream at `base_url`: over plain http it is
    /// HTTP/1.1, where every call has a connection of its own and one client
    /// takes them all (spread over clients, they would only split its pool
    /// of idle connections).
    pub fn for_url(mut self, base_url: &str) -> Self {
        let https = base_url
            .get(..8)
            .is_some_and(|s| s.eq_ignore_ascii_case("https://"));
        if self.http2 == UpstreamHttp2::Auto && !https {
            self.http2 = UpstreamHttp2::Never;
        }
        self
    }

    pub fn of(server: &ServerSettings) -> Self {
        Self {
            idle: Duration::from_millis(server.upstream_idle_timeout_ms),
            http2: server.upstream_http2,
            streams_per_connection: server.upstream_streams_per_connection,
        }
    }

    /// A client with its own connection pool.
    pub fn client(&self) -> Result<reqwest::Client, ClientError> {
        Ok(self.client_with(self.tls()?)?)
    }

    /// TLS as reqwest sets it up (the system's trust store, through
    /// rustls-platform-verifier), offering the HTTP versions `http2` allows.
    /// Built once per [`Lanes`] and shared by its clients: loading the trust
    /// store reads and parses every system CA, which reqwest would do again
    /// for each client (B4's profile: 2 MB of trust stores over its lanes).
    fn tls(&self) -> Result<rustls::ClientConfig, ClientError> {
        use rustls_platform_verifier::ConfigVerifierExt;
        // reqwest is built without a bundled crypto provider: install ring's once.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut tls = rustls::ClientConfig::with_platform_verifier()?;
        tls.alpn_protocols = match self.http2 {
            UpstreamHttp2::Auto => vec![b"h2".to_vec(), b"http/1.1".to_vec()],
            UpstreamHttp2::Always => vec![b"h2".to_vec()],
            UpstreamHttp2::Never => vec![b"http/1.1".to_vec()],
        };
        Ok(tls)
    }

    /// A client over `tls`. No system proxy: upstream URLs are exactly what
    /// is configured.
    fn client_with(&self, tls: rustls::ClientConfig) -> reqwest::Result<reqwest::Client> {
        let builder = reqwest::Client::builder()
            .no_proxy()
            .tls_backend_preconfigured(tls)
            .pool_idle_timeout(self.idle)
            // Each HTTP/1.1 connection holds ~30 KB of buffers: after a burst,
            // keep enough for steady load and close the rest (B4).
            .pool_max_idle_per_host(IDLE_CONNECTIONS_PER_HOST);
        match self.http2 {
            // Over plain http, HTTP/1.1; over https, as ALPN settles it.
            UpstreamHttp2::Auto => builder.build(),
            UpstreamHttp2::Always => builder.http2_prior_knowledge().build(),
            UpstreamHttp2::Never => builder.http1_only().build(),
        }
    }
}

/// Why an upstream client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("loading the system's trust store")]
    Tls(#[from] rustls::Error),
    #[error("building the HTTP client")]
    Build(#[from] reqwest::Error),
}

/// One upstream's clients. hyper's client multiplexes every call to a host
/// over one HTTP/2 connection and, when the server's concurrent-stream limit
/// is reached, queues the calls beyond it (hyperium/hyper#2197, #3623). So a
/// call goes to the first client with fewer than `streams_per_connection`
/// calls in flight, and a new client (a new connection) is opened when none
/// has room. Over HTTP/1.1 every call has a connection of its own, so one
/// client takes them all. Cheap to clone; clones share the clients.
#[derive(Clone)]
pub struct Lanes {
    config: HttpConfig,
    /// Calls in flight per client before another is opened.
    room: usize,
    /// Shared by every client (one trust store; TLS sessions resumed across them).
    tls: rustls::ClientConfig,
    lanes: Arc<Mutex<Vec<Lane>>>,
}

#[derive(Clone)]
struct Lane {
    client: reqwest::Client,
    calls: Arc<AtomicUsize>,
}

impl Lane {
    fn new(client: reqwest::Client) -> Self {
        Self {
            client,
            calls: Arc::default(),
        }
    }
}

/// A client for one call, counted in flight on its lane until dropped: keep
/// it until the answer's body is read.
pub struct Lease {
    lane: Lane,
}

impl Deref for Lease {
    type Target = reqwest::Client;

    fn deref(&self) -> &reqwest::Client {
        &self.lane.client
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.lane.calls.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Lanes {
    pub fn new(config: HttpConfig) -> Result<Self, ClientError> {
        let tls = config.tls()?;
        let first = config.client_with(tls.clone())?;
        let room = match config.http2 {
            UpstreamHttp2::Never => usize::MAX,
            _ => config.streams_per_connection,
        };
        Ok(Self {
            config,
            room,
            tls,
            lanes: Arc::new(Mutex::new(vec![Lane::new(first)])),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Lane>> {
        // A panic while holding the lock leaves the lanes consistent.
        self.lanes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The client for the next call.
    pub fn lease(&self) -> Lease {
        let mut lanes = self.lock();
        let free = lanes
            .iter()
            .position(|l| l.calls.load(Ordering::Relaxed) < self.room);
        let index = match free {
            Some(i) => i,
            None if lanes.len() < MAX_LANES => match self.config.client_with(self.tls.clone()) {
                Ok(client) => {
                    lanes.push(Lane::new(client));
                    lanes.len() - 1
                }
                Err(_) => least_busy(&lanes),
            },
            None => least_busy(&lanes),
        };
        let lane = lanes[index].clone();
        lane.calls.fetch_add(1, Ordering::Relaxed);
        Lease { lane }
    }

    /// Clients opened so far (idle ones keep no connection past the idle time).
    pub fn clients(&self) -> usize {
        self.lock().len()
    }
}

fn least_busy(lanes: &[Lane]) -> usize {
    (0..lanes.len())
        .min_by_key(|&i| lanes[i].calls.load(Ordering::Relaxed))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::{convert::Infallible, sync::atomic::AtomicUsize};

    use hyper_util::rt::{TokioExecutor, TokioIo};
    use tokio::sync::Barrier;

    use super::*;

    /// An h2c server allowing `streams` concurrent streams per connection
    /// (its SETTINGS_MAX_CONCURRENT_STREAMS) that holds every answer until
    /// `together` calls are in flight at once. Counts its connections.
    async fn h2c_server(streams: u32, together: usize) -> (String, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let connections = Arc::new(AtomicUsize::new(0));
        let barrier = Arc::new(Barrier::new(together));
        let counted = connections.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let barrier = barrier.clone();
                let service = hyper::service::service_fn(move |_| {
                    let barrier = barrier.clone();
                    async move {
                        barrier.wait().await;
                        Ok::<_, Infallible>(hyper::Response::new("ok".to_owned()))
                    }
                });
                let conn = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .max_concurrent_streams(streams)
                    .serve_connection(TokioIo::new(tcp), service);
                tokio::spawn(conn);
            }
        });
        (format!("http://{addr}/"), connections)
    }

    fn h2_lanes(streams_per_connection: usize) -> Lanes {
        Lanes::new(HttpConfig {
            http2: UpstreamHttp2::Always,
            streams_per_connection,
            ..HttpConfig::default()
        })
        .unwrap()
    }

    /// Sends `n` calls at once, each on its own lease.
    async fn calls(lanes: &Lanes, url: &str, n: usize) -> Vec<reqwest::Result<String>> {
        let calls = (0..n).map(|_| {
            let lease = lanes.lease();
            async move { lease.get(url).send().await?.text().await }
        });
        futures::future::join_all(calls).await
    }

    #[tokio::test]
    async fn calls_beyond_a_connections_stream_limit_go_over_another_connection() {
        // Control: one connection, as hyper alone does it. The server lets 2
        // of the 6 calls in; the others wait for streams that never free.
        let (url, _) = h2c_server(2, 6).await;
        let one = h2_lanes(100);
        let held = tokio::time::timeout(Duration::from_secs(2), calls(&one, &url, 6)).await;
        assert!(
            held.is_err(),
            "6 calls in flight over one 2-stream connection"
        );

        let (url, connections) = h2c_server(2, 6).await;
        let lanes = h2_lanes(2);
        let answers = tokio::time::timeout(Duration::from_secs(20), calls(&lanes, &url, 6))
            .await
            .expect("all 6 calls in flight at once");
        for answer in answers {
            assert_eq!(answer.unwrap(), "ok");
        }
        assert_eq!(connections.load(Ordering::SeqCst), 3);
        assert_eq!(lanes.clients(), 3);
    }

    #[tokio::test]
    async fn freed_streams_are_reused_before_another_client_is_opened() {
        let lanes = h2_lanes(2);
        let first: Vec<Lease> = (0..3).map(|_| lanes.lease()).collect();
        assert_eq!(lanes.clients(), 2);
        drop(first);
        let again: Vec<Lease> = (0..4).map(|_| lanes.lease()).collect();
        assert_eq!(lanes.clients(), 2, "4 calls fit the 2 clients' streams");
        drop(again);

        let http1 = Lanes::new(HttpConfig {
            http2: UpstreamHttp2::Never,
            streams_per_connection: 2,
            ..HttpConfig::default()
        })
        .unwrap();
        let many: Vec<Lease> = (0..10).map(|_| http1.lease()).collect();
        assert_eq!(http1.clients(), 1, "HTTP/1.1 pools a connection per call");
        drop(many);

        let auto = HttpConfig::default();
        assert_eq!(
            auto.for_url("http://127.0.0.1:8080").http2,
            UpstreamHttp2::Never
        );
        for url in ["https://graph.microsoft.com", "HTTPS://x.openai.azure.com"] {
            assert_eq!(auto.for_url(url).http2, UpstreamHttp2::Auto, "{url}");
        }
        let always = HttpConfig {
            http2: UpstreamHttp2::Always,
            ..auto
        };
        assert_eq!(
            always.for_url("http://127.0.0.1:8080").http2,
            UpstreamHttp2::Always
        );
    }
}
