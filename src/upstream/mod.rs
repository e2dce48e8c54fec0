//! Calling the upstreams (Microsoft Graph, Azure OpenAI): their HTTP clients
//! ([`clients`]), and reading their answers without trusting their size: a
//! body is read with a cap checked while it streams in (an answer of 20 MB is
//! abandoned at the cap, not buffered), and a large body is parsed on the
//! blocking pool so it never stalls the async workers.

use reqwest::{StatusCode, header::HeaderMap};
use serde::de::DeserializeOwned;

use crate::otel;

pub mod clients;

pub use clients::{HttpConfig, Lanes, Lease, Upstreams};

/// An upstream HTTP client as `config/default.toml` configures it (the
/// OTLP exporter's, the health check's, the tests').
pub fn http_client() -> Result<reqwest::Client, clients::ClientError> {
    HttpConfig::default().client()
}

/// How a request to an upstream failed before it answered: one reading of
/// reqwest's errors for every upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Timeout,
    /// The answer could not be read or decoded.
    Malformed,
    /// Not reached (DNS, refused, reset, TLS).
    Connect,
}

impl Transport {
    pub fn of(e: &reqwest::Error) -> Self {
        if e.is_timeout() {
            Self::Timeout
        } else if e.is_decode() || e.is_body() {
            Self::Malformed
        } else {
            Self::Connect
        }
    }
}

/// How an upstream's calls fail before it refuses one: a transport failure,
/// or an answer that could not be read.
pub trait CallError: Sized {
    /// No answer in time.
    const TIMEOUT: Self;
    /// An answer that could not be read or decoded.
    const MALFORMED: Self;
    /// Not reached (DNS, refused, reset, TLS).
    const CONNECT: Self;
    /// An answer over its size cap.
    const TOO_LARGE: Self;

    fn transport(t: Transport) -> Self {
        match t {
            Transport::Timeout => Self::TIMEOUT,
            Transport::Malformed => Self::MALFORMED,
            Transport::Connect => Self::CONNECT,
        }
    }

    /// An answer whose body was cut off while it was read (`t`).
    fn cut_off(t: Transport) -> Self {
        Self::transport(t)
    }

    fn body(e: BodyError) -> Self {
        match e {
            BodyError::TooLarge(_) => Self::TOO_LARGE,
            BodyError::Read(e) => Self::cut_off(Transport::of(&e)),
            BodyError::Malformed(_) | BodyError::Task => Self::MALFORMED,
        }
    }
}

/// One JSON call to an upstream, the same for all of them: `request` (URL,
/// auth and body set) sent with the trace context and `timeout`; its answer's
/// status recorded on the client span and shown to `seen` with the headers
/// (rate limits, a 429's retry time); a success read as `R` with a cap of
/// `cap` bytes; any other answer turned into the error `refused` makes of it.
pub async fn call_json<R, E>(
    request: reqwest::RequestBuilder,
    timeout: std::time::Duration,
    cap: usize,
    seen: impl FnOnce(StatusCode, &HeaderMap),
    refused: impl AsyncFnOnce(StatusCode, reqwest::Response) -> E,
) -> Result<R, E>
where
    R: DeserializeOwned + Send + 'static,
    E: CallError,
{
    let response = request
        .headers(otel::trace_headers())
        .timeout(timeout)
        .send()
        .await
        .map_err(|e| E::transport(Transport::of(&e)))?;
    let status = response.status();
    otel::client_status(status);
    seen(status, response.headers());
    if !status.is_success() {
        return Err(refused(status, response).await);
    }
    json(response, cap).await.map_err(E::body)
}

/// Bodies up to this size are parsed in place (well under a millisecond).
const PARSE_IN_PLACE_BYTES: usize = 64 * 1024;

/// Why an upstream body could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("the body is larger than {0} bytes")]
    TooLarge(usize),
    #[error("reading the body failed")]
    Read(#[source] reqwest::Error),
    #[error("the body is not the expected JSON")]
    Malformed(#[source] serde_json::Error),
    #[error("parsing the body failed")]
    Task,
}

/// The whole body, unless it is larger than `cap` bytes.
pub async fn read_capped(
    mut response: reqwest::Response,
    cap: usize,
) -> Result<Vec<u8>, BodyError> {
    if response.content_length().is_some_and(|n| n > cap as u64) {
        return Err(BodyError::TooLarge(cap));
    }
    // Chunks are kept as they arrive and joined once the whole body is in:
    // a body over the cap is never copied (B9).
    let mut chunks = Vec::new();
    let mut len = 0;
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Read)? {
        len += chunk.len();
        if len > cap {
            return Err(BodyError::TooLarge(cap));
        }
        chunks.push(chunk);
    }
    let mut body = Vec::with_capacity(len);
    for chunk in chunks {
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The body as `T`, read with a cap of `cap` bytes.
pub async fn json<T>(response: reqwest::Response, cap: usize) -> Result<T, BodyError>
where
    T: DeserializeOwned + Send + 'static,
{
    let body = read_capped(response, cap).await?;
    if body.len() <= PARSE_IN_PLACE_BYTES {
        return serde_json::from_slice(&body).map_err(BodyError::Malformed);
    }
    tokio::task::spawn_blocking(move || serde_json::from_slice(&body))
        .await
        .map_err(|_| BodyError::Task)?
        .map_err(BodyError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loopback server answering every request with `body` (chunked when
    /// `length` is false), as an upstream would.
    async fn serve(body: &'static [u8], length: bool) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut tcp, _)) = listener.accept().await {
                let mut buf = [0u8; 1024];
                let _ = tcp.read(&mut buf).await;
                let head = if length {
                    format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", body.len())
                } else {
                    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n".to_owned()
                };
                let _ = tcp.write_all(head.as_bytes()).await;
                if length {
                    let _ = tcp.write_all(body).await;
                } else {
                    for chunk in body.chunks(1000) {
                        let frame = format!("{:x}\r\n", chunk.len());
                        let _ = tcp.write_all(frame.as_bytes()).await;
                        let _ = tcp.write_all(chunk).await;
                        let _ = tcp.write_all(b"\r\n").await;
                    }
                    let _ = tcp.write_all(b"0\r\n\r\n").await;
                }
            }
        });
        format!("http://{addr}/")
    }

    async fn get(url: &str) -> reqwest::Response {
        super::http_client().unwrap().get(url).send().await.unwrap()
    }

    #[tokio::test]
    async fn bodies_over_the_cap_are_abandoned_whether_announced_or_streamed() {
        static BIG: [u8; 50_000] = [b'x'; 50_000];
        for length in [true, false] {
            let url = serve(&BIG, length).await;
            let got = read_capped(get(&url).await, 10_000).await;
            assert!(
                matches!(got, Err(BodyError::TooLarge(10_000))),
                "length {length}: {got:?}"
            );
            let whole = read_capped(get(&url).await, 50_000).await.unwrap();
            assert_eq!(whole.len(), 50_000);
        }
    }

    #[tokio::test]
    async fn large_bodies_parse_off_the_workers_and_bad_ones_are_malformed() {
        let items: Vec<u32> = (0..40_000).collect();
        let big: &'static [u8] = serde_json::to_vec(&items).unwrap().leak();
        let url = serve(big, true).await;
        let parsed: Vec<u32> = json(get(&url).await, 1 << 20).await.unwrap();
        assert_eq!(parsed, items);
        let url = serve(b"{\"value\": [", false).await;
        let bad = json::<serde_json::Value>(get(&url).await, 1 << 20).await;
        assert!(matches!(bad, Err(BodyError::Malformed(_))), "{bad:?}");
    }
}
