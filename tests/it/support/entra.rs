//! A fake Microsoft Entra ID on loopback, as its documentation describes
//! it: the v2.0 token endpoint (`POST /{tenant}/oauth2/v2.0/token`, the
//! client credentials grant with a client assertion — workload identity —
//! or a client secret), answering `{token_type, expires_in, access_token}` or
//! its `AADSTS…` error body; and the App Service / Container Apps identity
//! endpoint (`GET ?resource=…&api-version=2019-08-01` with
//! `X-IDENTITY-HEADER`), answering `access_token` and `expires_on`.
//! [`ToLoopback`] is the transport that routes the SDK's https Entra host
//! to the fake (the SDK refuses a plain-http authority).

use std::{
    collections::HashMap,
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{
    Json, Router,
    extract::{Path, Query, State},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use serde_json::json;

/// The identity endpoint's shared secret (`IDENTITY_HEADER`).
pub const IDENTITY_HEADER: &str = "identity-header-SECRET-5c1a";

/// Hears of each token issued.
type OnIssue = Arc<dyn Fn(&str) + Send + Sync>;

/// How the fake answers.
#[derive(Default)]
struct Entra {
    /// Tokens issued so far (`entra-token-1`, `entra-token-2`, …).
    issued: usize,
    /// Lifetime of the tokens issued.
    expires_in: u64,
    /// Answer `AADSTS700016` (unknown application).
    refuse: bool,
    /// Answer 503 (Entra or the identity endpoint down).
    down: bool,
    /// Wait this long before answering every fetch after the first.
    slow_after_first: Duration,
    /// Each token request's form fields (or query, for the identity endpoint).
    requests: Vec<HashMap<String, String>>,
    /// Called with each token issued (e.g. the fake Azure OpenAI's accepted token).
    on_issue: Option<OnIssue>,
}

#[derive(Clone)]
pub struct FakeEntra {
    addr: SocketAddr,
    state: Arc<Mutex<Entra>>,
}

impl FakeEntra {
    /// Issues hour-long tokens; `on_issue` hears of each.
    pub async fn start(on_issue: impl Fn(&str) + Send + Sync + 'static) -> Self {
        let state = Arc::new(Mutex::new(Entra {
            expires_in: 3599,
            on_issue: Some(Arc::new(on_issue)),
            ..Entra::default()
        }));
        let app = Router::new()
            .route("/{tenant}/oauth2/v2.0/token", post(token))
            .route("/msi/token", get(identity_endpoint))
            .with_state(state.clone());
        let listener = super::fake_listener();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, state }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The App Service identity endpoint's URL (`IDENTITY_ENDPOINT`).
    pub fn identity_endpoint(&self) -> String {
        format!("http://{}/msi/token", self.addr)
    }

    pub fn expires_in(&self, secs: u64) {
        self.state.lock().unwrap().expires_in = secs;
    }

    pub fn refuse(&self, refuse: bool) {
        self.state.lock().unwrap().refuse = refuse;
    }

    pub fn down(&self, down: bool) {
        self.state.lock().unwrap().down = down;
    }

    pub fn slow_after_first(&self, d: Duration) {
        self.state.lock().unwrap().slow_after_first = d;
    }

    /// The token requests so far.
    pub fn requests(&self) -> Vec<HashMap<String, String>> {
        self.state.lock().unwrap().requests.clone()
    }

    pub fn issued(&self) -> usize {
        self.state.lock().unwrap().issued
    }
}

/// What the fake does with one token request: its delay, then an answer.
fn answer(
    state: &Mutex<Entra>,
    fields: HashMap<String, String>,
) -> (Duration, Result<(String, u64), Response>) {
    let mut s = state.lock().unwrap();
    let first = s.requests.is_empty();
    s.requests.push(fields);
    let delay = if first {
        Duration::ZERO
    } else {
        s.slow_after_first
    };
    if s.down {
        return (
            delay,
            Err((StatusCode::SERVICE_UNAVAILABLE, "").into_response()),
        );
    }
    if s.refuse {
        // Entra's documented error body.
        let body = json!({
            "error": "unauthorized_client",
            "error_description": "AADSTS700016: Application with identifier '00000000-0000-0000-0000-000000000001' was not found in the directory 'contoso'. Trace ID: 0 Correlation ID: 0 Timestamp: 2026-11-26 10:00:00Z",
            "error_codes": [700016],
            "timestamp": "2026-11-26 10:00:00Z",
            "trace_id": "00000000-0000-0000-0000-000000000000",
            "correlation_id": "00000000-0000-0000-0000-000000000000",
            "error_uri": "https://login.microsoftonline.com/error?code=700016"
        });
        return (
            delay,
            Err((StatusCode::BAD_REQUEST, Json(body)).into_response()),
        );
    }
    s.issued += 1;
    let token = format!("entra-token-{}", s.issued);
    (delay, Ok((token, s.expires_in)))
}

/// Tells `on_issue` of a token as it is sent.
fn issue(state: &Mutex<Entra>, token: &str) {
    if let Some(f) = &state.lock().unwrap().on_issue {
        f(token);
    }
}

async fn token(
    State(state): State<Arc<Mutex<Entra>>>,
    Path(_tenant): Path<String>,
    form: String,
) -> Response {
    let fields = url::form_urlencoded::parse(form.as_bytes())
        .into_owned()
        .collect();
    let (delay, result) = answer(&state, fields);
    tokio::time::sleep(delay).await;
    match result {
        Ok((token, expires_in)) => {
            issue(&state, &token);
            Json(json!({
            "token_type": "Bearer",
            "expires_in": expires_in,
            "ext_expires_in": expires_in,
            "access_token": token,
            }))
            .into_response()
        }
        Err(refusal) => refusal,
    }
}

async fn identity_endpoint(
    State(state): State<Arc<Mutex<Entra>>>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if headers
        .get("x-identity-header")
        .and_then(|v| v.to_str().ok())
        != Some(IDENTITY_HEADER)
    {
        return (
            StatusCode::BAD_REQUEST,
            "missing or wrong X-IDENTITY-HEADER",
        )
            .into_response();
    }
    if query.get("api-version").map(String::as_str) != Some("2019-08-01") {
        return (StatusCode::BAD_REQUEST, "unsupported api-version").into_response();
    }
    let resource = query.get("resource").cloned().unwrap_or_default();
    let (delay, result) = answer(&state, query);
    tokio::time::sleep(delay).await;
    match result {
        Ok((token, expires_in)) => {
            issue(&state, &token);
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs();
            Json(json!({
                "access_token": token,
                "expires_on": (now + expires_in).to_string(),
                "resource": resource,
                "token_type": "Bearer",
                "client_id": "00000000-0000-0000-0000-000000000002",
            }))
            .into_response()
        }
        Err(refusal) => refusal,
    }
}

/// The SDK's transport for tests: every request goes to `addr` over plain
/// http, whatever host it named (the SDK only takes an https authority).
#[derive(Debug)]
pub struct ToLoopback {
    addr: SocketAddr,
    client: reqwest::Client,
}

impl ToLoopback {
    pub fn transport(addr: SocketAddr) -> azure_core::http::Transport {
        // reqwest is built without a crypto provider: install the app's.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        azure_core::http::Transport::new(Arc::new(Self { addr, client }))
    }
}

#[async_trait::async_trait]
impl azure_core::http::HttpClient for ToLoopback {
    async fn execute_request(
        &self,
        request: &azure_core::http::Request,
    ) -> azure_core::Result<azure_core::http::AsyncRawResponse> {
        let mut request = request.clone();
        let url = request.url_mut();
        let _ = url.set_scheme("http");
        let _ = url.set_host(Some(&self.addr.ip().to_string()));
        let _ = url.set_port(Some(self.addr.port()));
        self.client.execute_request(&request).await
    }
}
