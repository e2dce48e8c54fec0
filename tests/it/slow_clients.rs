//! Slow and idle clients: header and idle timeouts, the connection cap, and
//! shutdown with such connections open, through raw TCP sockets on loopback.
//!
//! Timed assertions are one-sided and generous (closed within 10× the
//! timeout), except where a short window is far from any configured timeout.

use std::time::Duration;

use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::TcpStream,
    time::{sleep, timeout},
};

use crate::support::{Options, TestApp, spawn_app_with};

/// A client connection, buffered for reading responses line by line.
type Conn = BufReader<TcpStream>;

const GET_HEALTHZ: &[u8] = b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n";
const HALF_A_HEAD: &[u8] = b"GET /healthz HTTP/1.1\r\nhost: x\r\n";

async fn spawn_with(env: &[(&'static str, &str)]) -> TestApp {
    spawn_app_with(Options {
        env: env.iter().map(|(k, v)| (*k, (*v).to_owned())).collect(),
        ..Default::default()
    })
    .await
}

async fn connect(app: &TestApp) -> Conn {
    BufReader::new(TcpStream::connect(app.addr).await.expect("connect"))
}

/// Reads one response (head and `content-length` body); returns its status.
async fn read_response(conn: &mut Conn) -> u16 {
    let mut status_line = String::new();
    let n = conn.read_line(&mut status_line).await.expect("read");
    assert!(n > 0, "connection closed instead of a response");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let mut length = 0;
    loop {
        let mut line = String::new();
        conn.read_line(&mut line).await.expect("read");
        if line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().expect("a content length");
        }
    }
    let mut body = vec![0; length];
    conn.read_exact(&mut body).await.expect("body");
    status
}

async fn get_healthz(conn: &mut Conn) -> u16 {
    conn.get_mut().write_all(GET_HEALTHZ).await.expect("write");
    read_response(conn).await
}

/// Whatever the server sends until it closes the connection (EOF or reset),
/// or `None` when it is still open after `bound`.
async fn closed_within(conn: &mut Conn, bound: Duration) -> Option<String> {
    let mut received = Vec::new();
    let read = timeout(bound, async {
        let mut chunk = [0u8; 1024];
        loop {
            match conn.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => received.extend_from_slice(&chunk[..n]),
            }
        }
    })
    .await;
    read.ok()
        .map(|()| String::from_utf8_lossy(&received).into_owned())
}

#[tokio::test]
async fn a_client_sending_one_header_byte_every_100_ms_is_disconnected_without_an_answer() {
    let app = spawn_with(&[("LINKUP__SERVER__HEADER_TIMEOUT_MS", "500")]).await;
    // 15 s of dripping at this pace: the head is never complete in time.
    let head = format!(
        "GET /healthz HTTP/1.1\r\nhost: x\r\nx-padding: {}\r\n\r\n",
        "a".repeat(110)
    );
    let mut tcp = TcpStream::connect(app.addr).await.unwrap();
    let (mut reader, mut writer) = tcp.split();

    let dripping = async {
        for byte in head.bytes() {
            if writer.write_all(&[byte]).await.is_err() {
                break;
            }
            sleep(Duration::from_millis(100)).await;
        }
        std::future::pending::<()>().await;
    };
    let closed = async {
        let mut received = Vec::new();
        let _ = reader.read_to_end(&mut received).await;
        String::from_utf8_lossy(&received).into_owned()
    };
    let received = timeout(Duration::from_secs(5), async {
        tokio::select! {
            () = dripping => unreachable!("dripping never ends"),
            received = closed => received,
        }
    })
    .await
    .expect("the server closes the connection within 10× the header timeout");

    assert!(!received.contains(" 200 "), "{received}");
}

#[tokio::test]
async fn half_a_request_head_then_silence_is_disconnected() {
    let app = spawn_with(&[("LINKUP__SERVER__HEADER_TIMEOUT_MS", "300")]).await;
    let mut conn = connect(&app).await;

    conn.get_mut().write_all(HALF_A_HEAD).await.unwrap();

    let received = closed_within(&mut conn, Duration::from_secs(3))
        .await
        .expect("closed within 10× the header timeout");
    assert!(!received.contains(" 200 "), "{received}");
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    // The header timeout stays at its 10 s default: only the idle timeout can
    // close this connection within the bound.
    let app = spawn_with(&[("LINKUP__SERVER__IDLE_TIMEOUT_MS", "500")]).await;
    let mut conn = connect(&app).await;
    assert_eq!(get_healthz(&mut conn).await, 200);

    let received = closed_within(&mut conn, Duration::from_secs(5)).await;

    assert_eq!(received.as_deref(), Some(""), "closed, and nothing sent");
}

#[tokio::test]
async fn the_idle_wait_is_not_cut_by_the_header_timeout_but_a_started_head_is() {
    let app = spawn_with(&[
        ("LINKUP__SERVER__HEADER_TIMEOUT_MS", "300"),
        ("LINKUP__SERVER__IDLE_TIMEOUT_MS", "5000"),
    ])
    .await;
    let mut conn = connect(&app).await;
    assert_eq!(get_healthz(&mut conn).await, 200);

    sleep(Duration::from_secs(1)).await;
    assert_eq!(
        get_healthz(&mut conn).await,
        200,
        "idle 1 s > header 300 ms"
    );

    // A head started on the same connection has the header timeout again,
    // from its first byte: closed long before the 5 s idle timeout.
    conn.get_mut().write_all(HALF_A_HEAD).await.unwrap();
    let received = closed_within(&mut conn, Duration::from_secs(3)).await;
    assert_eq!(received.as_deref(), Some(""));
}

#[tokio::test]
async fn at_the_connection_cap_a_new_connection_waits_while_open_ones_are_still_served() {
    let app = spawn_with(&[("LINKUP__SERVER__MAX_CONNECTIONS", "2")]).await;
    let mut first = connect(&app).await;
    let mut second = connect(&app).await;
    let mut third = connect(&app).await;
    third.get_mut().write_all(GET_HEALTHZ).await.unwrap();

    // Well inside the 10 s header timeout of the two silent connections.
    let early = timeout(Duration::from_millis(700), read_response(&mut third)).await;
    assert!(early.is_err(), "the third connection was served at the cap");
    assert_eq!(get_healthz(&mut second).await, 200, "open ones are served");
    assert_eq!(get_healthz(&mut first).await, 200);

    drop(first);
    let late = timeout(Duration::from_secs(5), read_response(&mut third)).await;
    assert_eq!(late.ok(), Some(200), "served once a connection closed");
}

#[tokio::test]
async fn a_burst_of_new_connections_waits_in_the_listen_backlog_without_losing_handshakes() {
    // At the cap nothing more is accepted: the burst stays in the kernel's
    // queue, as it does when the accept loop falls behind under load.
    let app = spawn_with(&[("LINKUP__SERVER__MAX_CONNECTIONS", "1")]).await;
    let _open = connect(&app).await;

    // A dropped handshake is retried a second later: 500 ms tells them apart.
    let burst = (0..400).map(|_| timeout(Duration::from_millis(500), TcpStream::connect(app.addr)));
    let burst = futures::future::join_all(burst).await;

    let completed = burst.iter().filter(|c| matches!(c, Ok(Ok(_)))).count();
    assert_eq!(completed, 400, "handshakes the listen backlog dropped");
}

#[tokio::test]
async fn a_connection_slot_freed_by_the_header_timeout_lets_a_waiting_connection_in() {
    let app = spawn_with(&[
        ("LINKUP__SERVER__MAX_CONNECTIONS", "2"),
        ("LINKUP__SERVER__HEADER_TIMEOUT_MS", "500"),
    ])
    .await;
    let mut silent = [connect(&app).await, connect(&app).await];
    let mut waiting = connect(&app).await;
    waiting.get_mut().write_all(GET_HEALTHZ).await.unwrap();

    let answered = timeout(Duration::from_secs(5), read_response(&mut waiting)).await;

    assert_eq!(answered.ok(), Some(200));
    for conn in &mut silent {
        let received = closed_within(conn, Duration::from_secs(5)).await;
        assert_eq!(received.as_deref(), Some(""), "silent ones are closed");
    }
}

#[tokio::test]
async fn connections_idle_or_stuck_in_a_head_do_not_hold_shutdown_for_the_grace_period() {
    let mut app = spawn_with(&[
        ("LINKUP__SERVER__SHUTDOWN_GRACE_MS", "20000"),
        ("LINKUP__SERVER__HEADER_TIMEOUT_MS", "300"),
    ])
    .await;
    let mut idle = connect(&app).await;
    assert_eq!(get_healthz(&mut idle).await, 200);
    let mut silent = connect(&app).await;
    let mut stuck = connect(&app).await;
    stuck.get_mut().write_all(HALF_A_HEAD).await.unwrap();
    sleep(Duration::from_millis(100)).await; // accepted

    app.shutdown.take().unwrap().send(()).unwrap();
    let stopped = timeout(Duration::from_secs(5), &mut app.server).await;

    assert!(
        matches!(stopped, Ok(Ok(Ok(())))),
        "stopped long before the 20 s grace"
    );
    for conn in [&mut idle, &mut silent, &mut stuck] {
        let received = closed_within(conn, Duration::from_secs(1)).await;
        assert!(received.is_some(), "closed by the time the server stopped");
    }
}
