//! B10: slow and idle clients beside normal load. B5's throughput quietly, then
//! again with 1,000 idle keep-alive connections (one request each, then
//! silence) and 100 slowloris connections (one header byte a second, each
//! reconnecting when closed, as an attacker would) open; and how many of them
//! the service closed, and when; then B5's throughput quietly again. The
//! service runs with short timeouts (header 2 s, idle 5 s) so that the
//! scenario waits them out in seconds.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use futures::StreamExt;
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::TcpStream,
    task::JoinHandle,
    time::Instant,
};

use super::{Row, Service, fakes, measure, seed_posts};

const IDLE_CONNECTIONS: usize = 1000;
const SLOW_CONNECTIONS: usize = 100;
const HEADER_TIMEOUT: Duration = Duration::from_secs(2);
const IDLE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long past its timeout a connection may take to be closed and still
/// count as closed.
const MARGIN: Duration = Duration::from_secs(3);

pub async fn b10(http: &reqwest::Client, n: usize) -> Row {
    let (graph, _openai) = fakes().await;
    let svc = Service::start(&[
        ("LINKUP__MSGRAPH__BASE_URL", graph.url()),
        (
            "LINKUP__SERVER__HEADER_TIMEOUT_MS",
            HEADER_TIMEOUT.as_millis().to_string(),
        ),
        (
            "LINKUP__SERVER__IDLE_TIMEOUT_MS",
            IDLE_TIMEOUT.as_millis().to_string(),
        ),
    ]);
    seed_posts(http, &svc, 200).await;
    let quiet = measure(&svc, http, n).await;

    let idle = open_idle(&svc.addr, IDLE_CONNECTIONS).await;
    let stop = Arc::new(AtomicBool::new(false));
    let slow: Vec<_> = (0..SLOW_CONNECTIONS)
        .map(|_| tokio::spawn(slowloris_until(svc.addr.clone(), stop.clone())))
        .collect();
    let loaded = measure(&svc, http, n).await;
    stop.store(true, Ordering::Relaxed);
    let idle_open = idle.iter().filter(|h| !h.is_finished()).count();
    let cpu0 = svc.cpu_ms();
    let waited = Instant::now();
    let deadline = waited + IDLE_TIMEOUT + MARGIN;
    let idle_closed = closed_by(idle, deadline).await;
    let slow_closed = slow_closed_by(slow, deadline).await;
    let cpu_waiting = svc.cpu_ms() - cpu0;
    let waited = waited.elapsed();
    // Quiet again once they are closed: brackets the loaded run, so that a
    // drift of this shared machine shows as two different quiet figures.
    let quiet_after = measure(&svc, http, n).await;

    Row {
        id: "B10",
        scenario: format!(
            "B5's load (64 concurrent, {n} requests) quietly, then with {IDLE_CONNECTIONS} idle keep-alive and {SLOW_CONNECTIONS} slowloris connections (1 header byte/s, reconnecting when closed) open; header_timeout_ms {}, idle_timeout_ms {}, waited until both passed",
            HEADER_TIMEOUT.as_millis(),
            IDLE_TIMEOUT.as_millis()
        ),
        figures: format!(
            "quiet: {}; loaded: {}; quiet again: {}; loaded req/s / mean quiet ×{:.2}; idle still open when the loaded run ended: {idle_open}; closed by the end: idle {}, slowloris {}; service CPU {:.0} ms while waiting ({:.1} s)",
            quiet.figures(),
            loaded.figures(),
            quiet_after.figures(),
            2.0 * loaded.req_per_s / (quiet.req_per_s + quiet_after.req_per_s),
            idle_closed.summary("after their response"),
            slow_closed.summary("after connecting"),
            cpu_waiting,
            waited.as_secs_f64(),
        ),
    }
}

/// Opens `count` connections, 100 at a time, each making one request; each
/// then waits in its own task for the service to close it, returning how
/// long after its response that was.
async fn open_idle(addr: &str, count: usize) -> Vec<JoinHandle<Option<Duration>>> {
    futures::stream::iter(0..count)
        .map(|_| async move {
            let tcp = TcpStream::connect(addr).await.ok()?;
            let mut conn = BufReader::new(tcp);
            conn.get_mut()
                .write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
                .await
                .ok()?;
            read_response(&mut conn).await?;
            Some(tokio::spawn(async move {
                let answered = Instant::now();
                until_closed(&mut conn).await;
                Some(answered.elapsed())
            }))
        })
        .buffer_unordered(100)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        // A connection that failed to open counts as never closed.
        .map(|opened| opened.unwrap_or_else(|| tokio::spawn(std::future::pending())))
        .collect()
}

/// Reads one response head and its `content-length` body.
async fn read_response(conn: &mut BufReader<TcpStream>) -> Option<()> {
    let mut length = 0;
    loop {
        let mut line = String::new();
        if conn.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    conn.read_exact(&mut body).await.ok().map(drop)
}

/// Returns when the peer has closed the connection (EOF or reset).
async fn until_closed(conn: &mut (impl AsyncReadExt + Unpin)) {
    let mut chunk = [0u8; 512];
    while let Ok(1..) = conn.read(&mut chunk).await {}
}

/// One slowloris client: reconnects each time the service closes it, until
/// `stop`; returns how long each of its connections lasted (`None`: failed
/// to connect).
async fn slowloris_until(addr: String, stop: Arc<AtomicBool>) -> Vec<Option<Duration>> {
    let mut lasted = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        lasted.push(slowloris(&addr).await);
    }
    lasted
}

/// Sends a request head one byte a second until the service closes the
/// connection; returns how long after connecting that was.
async fn slowloris(addr: &str) -> Option<Duration> {
    let mut tcp = TcpStream::connect(addr).await.ok()?;
    let connected = Instant::now();
    let head = format!(
        "GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: {}\r\n\r\n",
        "a".repeat(200)
    );
    let (mut reader, mut writer) = tcp.split();
    let dripping = async {
        for byte in head.bytes() {
            if writer.write_all(&[byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        std::future::pending().await
    };
    tokio::select! {
        () = dripping => {}
        () = until_closed(&mut reader) => {}
    }
    Some(connected.elapsed())
}

/// How many connections were closed, and after how long.
struct Closed {
    /// Connections opened (or attempted).
    made: usize,
    after: Vec<Duration>,
}

impl Closed {
    fn summary(&self, counted_from: &str) -> String {
        let secs = |i: usize| self.after.get(i).map_or(f64::NAN, Duration::as_secs_f64);
        format!(
            "{}/{} ({counted_from}: min {:.2} s, median {:.2} s, max {:.2} s)",
            self.after.len(),
            self.made,
            secs(0),
            secs(self.after.len() / 2),
            secs(self.after.len().saturating_sub(1)),
        )
    }
}

/// Waits until `deadline` for the connections' tasks; those still open are dropped.
async fn closed_by(tasks: Vec<JoinHandle<Option<Duration>>>, deadline: Instant) -> Closed {
    let made = tasks.len();
    let mut after = Vec::new();
    for task in tasks {
        let abort = task.abort_handle();
        match tokio::time::timeout_at(deadline, task).await {
            Ok(Ok(Some(d))) => after.push(d),
            _ => abort.abort(),
        }
    }
    after.sort();
    Closed { made, after }
}

/// As [`closed_by`], for the slowloris clients' connections: a client still
/// running at `deadline` counts one connection not closed.
async fn slow_closed_by(
    clients: Vec<JoinHandle<Vec<Option<Duration>>>>,
    deadline: Instant,
) -> Closed {
    let (mut made, mut after) = (0, Vec::new());
    for client in clients {
        let abort = client.abort_handle();
        match tokio::time::timeout_at(deadline, client).await {
            Ok(Ok(lasted)) => {
                made += lasted.len();
                after.extend(lasted.into_iter().flatten());
            }
            _ => {
                made += 1;
                abort.abort();
            }
        }
    }
    after.sort();
    Closed { made, after }
}
