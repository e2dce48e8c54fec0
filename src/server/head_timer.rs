//! The per-connection timer behind the header and idle timeouts.
//!
//! hyper's HTTP/1 server has one timer, `header_read_timeout`, and (in
//! hyper 1.12) starts it as soon as a connection is ready for a request head: at
//! accept for the first request, right after the previous response for later
//! ones. Alone it would close every idle keep-alive connection at the header
//! timeout. It is the only sleep an HTTP/1 server connection asks of its
//! [`Timer`]: one per request head, polled each time the head is still
//! incomplete (after every read). So [`HeadTimer`] ignores hyper's deadline
//! and keeps its own:
//! - the connection's first head: armed + header timeout;
//! - later heads: armed + idle timeout until the head's first byte is read,
//!   then first byte + header timeout.
//!
//! [`ReadClock`] wraps the socket and notes when the first byte after arming
//! was read. Later bytes never move the deadline: a client sending one byte a
//! second (slowloris) is closed at the header timeout all the same.
//!
//! One gap, bounded: bytes of the next head that arrive with the previous
//! request (pipelining) are read before the timer is armed, so that head gets
//! the idle timeout until its next byte arrives, then the header timeout.

use std::{
    future::Future,
    io,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use hyper::rt::{Sleep, Timer};
use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    time::Instant,
};

/// The two limits on waiting for a request head.
#[derive(Debug, Clone, Copy)]
pub struct HeadTimeouts {
    /// From the start of a head (see the module docs) to its last byte.
    pub header: Duration,
    /// From the end of a response to the first byte of the next head.
    pub idle: Duration,
}

/// `first_byte` before any byte was read since the timer was last armed.
const NOT_YET: u64 = u64::MAX;

/// What one connection's timer and socket share. Both are used from the
/// connection's task only: the atomics (relaxed) are there because hyper's
/// `Sleep` must be `Send + Sync`, not for ordering.
#[derive(Debug)]
pub struct HeadClock {
    origin: Instant,
    /// Nanoseconds after `origin` of the first byte read since the timer was
    /// last armed, or [`NOT_YET`].
    first_byte: AtomicU64,
    /// Whether the timer was armed for the connection's first head already.
    first_head_armed: AtomicBool,
}

impl HeadClock {
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            origin: Instant::now(),
            first_byte: AtomicU64::new(NOT_YET),
            first_head_armed: AtomicBool::new(false),
        })
    }

    /// hyper starts waiting for a head; true for the connection's first.
    fn arm(&self) -> bool {
        self.first_byte.store(NOT_YET, Ordering::Relaxed);
        !self.first_head_armed.swap(true, Ordering::Relaxed)
    }

    /// Bytes were read: the first since arming starts the head.
    fn note_read(&self) {
        if self.first_byte.load(Ordering::Relaxed) == NOT_YET {
            let nanos = u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(NOT_YET - 1);
            self.first_byte.store(nanos, Ordering::Relaxed);
        }
    }

    fn first_byte(&self) -> Option<Instant> {
        match self.first_byte.load(Ordering::Relaxed) {
            NOT_YET => None,
            nanos => Some(self.origin + Duration::from_nanos(nanos)),
        }
    }
}

/// When a head armed at `armed` must be complete (the rule of the module docs).
fn head_deadline(
    timeouts: HeadTimeouts,
    armed: Instant,
    first_head: bool,
    first_byte: Option<Instant>,
) -> Instant {
    match (first_head, first_byte) {
        (true, _) => armed + timeouts.header,
        (false, None) => armed + timeouts.idle,
        (false, Some(at)) => at + timeouts.header,
    }
}

/// The [`Timer`] of one connection: its sleeps follow [`head_deadline`].
#[derive(Debug, Clone)]
pub struct HeadTimer {
    clock: Arc<HeadClock>,
    timeouts: HeadTimeouts,
}

impl HeadTimer {
    pub fn new(clock: Arc<HeadClock>, timeouts: HeadTimeouts) -> Self {
        Self { clock, timeouts }
    }
}

impl Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        // Not asked by HTTP/1 server connections; a plain sleep if ever.
        Box::pin(HeadSleep::new(Rule::Fixed(Instant::now() + duration)))
    }

    /// hyper asks once per request head, `deadline` being now + header
    /// timeout: replaced by the head's own deadline.
    fn sleep_until(&self, _deadline: std::time::Instant) -> Pin<Box<dyn Sleep>> {
        let first_head = self.clock.arm();
        let rule = Rule::Head {
            clock: self.clock.clone(),
            timeouts: self.timeouts,
            armed: Instant::now(),
            first_head,
        };
        Box::pin(HeadSleep::new(rule))
    }
}

/// How a [`HeadSleep`]'s deadline is found.
enum Rule {
    Fixed(Instant),
    Head {
        clock: Arc<HeadClock>,
        timeouts: HeadTimeouts,
        armed: Instant,
        first_head: bool,
    },
}

impl Rule {
    fn deadline(&self) -> Instant {
        match self {
            Rule::Fixed(deadline) => *deadline,
            Rule::Head {
                clock,
                timeouts,
                armed,
                first_head,
            } => head_deadline(*timeouts, *armed, *first_head, clock.first_byte()),
        }
    }
}

/// A sleep whose deadline is recomputed each time hyper polls it.
struct HeadSleep {
    rule: Rule,
    // Boxed so that `HeadSleep` is `Unpin` (hyper boxes it anyway).
    inner: Pin<Box<tokio::time::Sleep>>,
}

impl HeadSleep {
    fn new(rule: Rule) -> Self {
        let inner = Box::pin(tokio::time::sleep_until(rule.deadline()));
        Self { rule, inner }
    }
}

impl Future for HeadSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let deadline = self.rule.deadline();
        if deadline != self.inner.deadline() {
            self.inner.as_mut().reset(deadline);
        }
        self.inner.as_mut().poll(cx)
    }
}

impl Sleep for HeadSleep {}

/// The connection's socket, noting in its [`HeadClock`] when bytes arrive.
#[derive(Debug)]
pub struct ReadClock<T> {
    inner: T,
    clock: Arc<HeadClock>,
}

impl<T> ReadClock<T> {
    pub fn new(inner: T, clock: Arc<HeadClock>) -> Self {
        Self { inner, clock }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for ReadClock<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.clock.note_read();
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ReadClock<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    const TIMEOUTS: HeadTimeouts = HeadTimeouts {
        header: Duration::from_secs(1),
        idle: Duration::from_secs(10),
    };

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn the_first_head_has_the_header_timeout_from_the_start_whatever_arrives() {
        let t0 = Instant::now();
        assert_eq!(head_deadline(TIMEOUTS, t0, true, None), t0 + secs(1));
        assert_eq!(
            head_deadline(TIMEOUTS, t0, true, Some(t0 + secs(5))),
            t0 + secs(1)
        );
    }

    #[test]
    fn a_later_head_waits_the_idle_timeout_then_has_the_header_timeout_from_its_first_byte() {
        let t0 = Instant::now();
        assert_eq!(head_deadline(TIMEOUTS, t0, false, None), t0 + secs(10));
        assert_eq!(
            head_deadline(TIMEOUTS, t0, false, Some(t0 + secs(5))),
            t0 + secs(6)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_later_heads_sleep_moves_to_its_first_byte_and_not_to_later_ones() {
        let clock = HeadClock::new();
        let timer = HeadTimer::new(clock.clone(), TIMEOUTS);
        let (mut client, server) = tokio::io::duplex(64);
        let mut server = ReadClock::new(server, clock);
        drop(timer.sleep_until(std::time::Instant::now())); // the first head
        let mut sleep = timer.sleep_until(std::time::Instant::now());
        let mut byte = [0u8; 1];

        tokio::time::advance(secs(5)).await;
        assert!(
            futures::poll!(sleep.as_mut()).is_pending(),
            "idle, not header"
        );
        client.write_all(b"G").await.unwrap();
        server.read_exact(&mut byte).await.unwrap();
        tokio::time::advance(Duration::from_millis(900)).await;
        client.write_all(b"E").await.unwrap();
        server.read_exact(&mut byte).await.unwrap();
        assert!(futures::poll!(sleep.as_mut()).is_pending());
        tokio::time::advance(Duration::from_millis(200)).await;

        assert!(futures::poll!(sleep.as_mut()).is_ready(), "1 s after `G`");
    }

    /// A [`HeadTimer`] that notes what hyper asks of it.
    #[derive(Clone)]
    struct Recording {
        inner: HeadTimer,
        asked: Arc<std::sync::Mutex<Vec<&'static str>>>,
    }

    impl Recording {
        fn asked(&self) -> Vec<&'static str> {
            self.asked.lock().unwrap().clone()
        }

        /// What hyper asked, once it asked `n` things (or after 5 s).
        async fn asked_after(&self, n: usize) -> Vec<&'static str> {
            for _ in 0..500 {
                if self.asked().len() >= n {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            self.asked()
        }
    }

    impl Timer for Recording {
        fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
            self.asked.lock().unwrap().push("sleep");
            self.inner.sleep(duration)
        }

        fn sleep_until(&self, deadline: std::time::Instant) -> Pin<Box<dyn Sleep>> {
            self.asked.lock().unwrap().push("sleep_until");
            self.inner.sleep_until(deadline)
        }
    }

    async fn exchange(client: &mut tokio::io::DuplexStream) {
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut answer = Vec::new();
        let mut buf = [0u8; 256];
        while !answer.ends_with(b"ok") {
            let n = client.read(&mut buf).await.unwrap();
            assert!(n > 0, "the connection closed");
            answer.extend_from_slice(&buf[..n]);
        }
    }

    /// What this module relies on, checked against the hyper in the tree
    /// (Cargo.toml pins the version it was verified with): an HTTP/1 server
    /// connection asks its timer for one `sleep_until` per request head, as
    /// soon as it is ready for that head (at accept; right after each
    /// response, before any byte of the next), and for nothing else.
    #[tokio::test]
    async fn hyper_asks_one_sleep_per_request_head_when_it_is_ready_for_it() {
        let clock = HeadClock::new();
        let timer = Recording {
            inner: HeadTimer::new(clock.clone(), TIMEOUTS),
            asked: Arc::default(),
        };
        let (mut client, server) = tokio::io::duplex(4096);
        let service = hyper::service::service_fn(|_request| async {
            Ok::<_, std::convert::Infallible>(hyper::Response::new(String::from("ok")))
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(timer.clone())
            .header_read_timeout(TIMEOUTS.header)
            .keep_alive(true)
            .serve_connection(
                hyper_util::rt::TokioIo::new(ReadClock::new(server, clock)),
                service,
            );
        let served = tokio::spawn(conn);

        assert_eq!(timer.asked_after(1).await, ["sleep_until"], "at accept");
        exchange(&mut client).await;
        assert_eq!(
            timer.asked_after(2).await,
            ["sleep_until"; 2],
            "right after the response, with no byte of the next head"
        );
        exchange(&mut client).await;
        assert_eq!(timer.asked_after(3).await, ["sleep_until"; 3]);
        drop(client);
        served.await.unwrap().unwrap();
        assert_eq!(timer.asked(), ["sleep_until"; 3], "nothing at close");
    }
}
