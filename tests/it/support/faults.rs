//! Misbehaving upstream answers the fakes can give, as real servers fail on
//! the wire: a body dripped a byte at a time, a body far larger than any real
//! answer (announced by `Content-Length` or streamed in chunks), a body cut
//! short of its `Content-Length`, and a mix of faults for load tests.

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use axum::{
    body::{Body, Bytes},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};

/// Headers at once, then the body one byte every 200 ms, forever.
pub fn drip() -> Response {
    let stream = futures::stream::unfold((), |()| async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        Some((
            Ok::<_, std::convert::Infallible>(Bytes::from_static(b" ")),
            (),
        ))
    });
    json_response(Body::from_stream(stream), None)
}

/// `body` sent whole with its `Content-Length`, or streamed in 64 KiB chunks
/// without one (as a proxy or a chunked server would).
pub fn large(body: Bytes, announced: bool) -> Response {
    if announced {
        let len = body.len();
        return json_response(Body::from(body), Some(len));
    }
    let chunks: Vec<Result<Bytes, std::convert::Infallible>> = (0..body.len())
        .step_by(64 * 1024)
        .map(|i| Ok(body.slice(i..(i + 64 * 1024).min(body.len()))))
        .collect();
    json_response(Body::from_stream(futures::stream::iter(chunks)), None)
}

/// The first half of `body`, announced as the whole, then the connection closes.
pub fn truncated(body: Bytes) -> Response {
    let len = body.len();
    let half = body.slice(..len / 2);
    let stream = futures::stream::iter([Ok::<_, std::io::Error>(half)]);
    json_response(Body::from_stream(stream), Some(len))
}

fn json_response(body: Body, length: Option<usize>) -> Response {
    let mut res = (StatusCode::OK, body).into_response();
    res.headers_mut()
        .insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
    if let Some(len) = length {
        res.headers_mut().insert(header::CONTENT_LENGTH, len.into());
    }
    res
}

/// A fault a chaotic fake gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    Status500,
    Status429,
    Hang,
    Truncated,
    Huge,
    Drip,
}

/// Picks a fault for about `percent` % of requests, cycling through every
/// kind (deterministic: the same sequence on every run).
#[derive(Debug, Default)]
pub struct Chaos {
    requests: AtomicU64,
}

impl Chaos {
    pub fn pick(&self, percent: u64) -> Option<Fault> {
        let n = self.requests.fetch_add(1, Ordering::Relaxed);
        // Knuth's multiplicative hash spreads consecutive requests.
        let roll = n.wrapping_mul(2_654_435_761) % 100;
        if roll >= percent {
            return None;
        }
        const ALL: [Fault; 6] = [
            Fault::Status500,
            Fault::Status429,
            Fault::Hang,
            Fault::Truncated,
            Fault::Huge,
            Fault::Drip,
        ];
        Some(ALL[(n / 7 % 6) as usize])
    }
}
