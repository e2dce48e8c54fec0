//! A fake Microsoft Graph search endpoint (`POST /v1.0/search/query`), speaking
//! the documented wire format: `requests[].entityTypes/query.queryString/from/size`
//! in, `value[].hitsContainers[].hits[].{hitId,rank,summary,resource}` out,
//! `resource` typed by `@odata.type`; summaries carry `<c0>`/`<ddd/>` highlights;
//! errors as `{"error": {"code", "message"}}`. KQL is approximated: words
//! match whole words (plural or singular), `"quoted phrases"` words in a row;
//! terms are ANDed, `OR` between terms makes any match.

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{
    Json, Router,
    body::Bytes,
    extract::State,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::post,
};
use serde_json::{Value, json};

use super::faults::{self, Fault};

/// The token of the user whose documents `FakeGraph::add` adds.
pub const TOKEN: &str = "graph-token-SECRET-4f1c";
/// Another user's token (their documents: `FakeGraph::add_for`).
pub const OTHER_TOKEN: &str = "graph-token-OTHER-9a2e";

/// What the fake does for one entity group.
#[derive(Clone, Debug)]
pub enum Behavior {
    Normal,
    Status(u16),
    Hang,
    Delay(Duration),
    Malformed,
    /// 200 and headers, then a byte every 200 ms, forever.
    Drip,
    /// This body (see [`huge_answer`]), with or without `Content-Length`.
    Huge {
        body: Bytes,
        announced: bool,
    },
    /// The normal answer cut in half, then the connection closes.
    Truncated,
    /// About `percent` % of requests get one of the faults above (and 429s).
    Chaos {
        percent: u64,
        huge: Bytes,
    },
}

/// A search answer of about `bytes` bytes in Graph's format: many hits with
/// long summaries (as a misbehaving proxy or tenant could return).
pub fn huge_answer(bytes: usize) -> Bytes {
    let summary = "deployment <c0>pipeline</c0> runbook ".repeat(250);
    let one = hit(
        0,
        &Doc::file(
            "Big",
            "https://contoso.sharepoint.com/sites/dev/big.docx",
            &summary,
        ),
        "pipeline",
        true,
        MailLinks::WhenAsked,
    )
    .to_string();
    let hits: Vec<Value> = (0..bytes / one.len() + 1)
        .map(|i| {
            hit(
                i,
                &Doc::file(
                    &format!("Big {i}"),
                    &format!("https://contoso.sharepoint.com/sites/dev/big-{i}.docx"),
                    &summary,
                ),
                "pipeline",
                true,
                MailLinks::WhenAsked,
            )
        })
        .collect();
    let answer = json!({ "value": [{ "searchTerms": ["pipeline"], "hitsContainers": [
        { "hits": hits, "total": 100_000, "moreResultsAvailable": true } ] }] });
    Bytes::from(answer.to_string())
}

/// Kinds of indexed items.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    DriveItem,
    ListItem,
    Message,
}

/// One indexed document or mail.
#[derive(Clone, Debug)]
pub struct Doc {
    pub kind: Kind,
    pub title: String,
    pub url: String,
    pub body: String,
}

impl Doc {
    pub fn file(title: &str, url: &str, body: &str) -> Self {
        Self {
            kind: Kind::DriveItem,
            title: title.into(),
            url: url.into(),
            body: body.into(),
        }
    }
    pub fn list_item(title: &str, url: &str, body: &str) -> Self {
        Self {
            kind: Kind::ListItem,
            title: title.into(),
            url: url.into(),
            body: body.into(),
        }
    }
    pub fn mail(subject: &str, url: &str, body: &str) -> Self {
        Self {
            kind: Kind::Message,
            title: subject.into(),
            url: url.into(),
            body: body.into(),
        }
    }
}

/// A small engineering corpus: a runbook, an onboarding guide and a mail, each
/// found by different keywords (for query expansion).
pub fn engineering_corpus() -> Vec<Doc> {
    vec![
        Doc::file(
            "Deployment pipeline runbook",
            "https://contoso.sharepoint.com/sites/dev/runbook.docx",
            "How our deployment pipeline works",
        ),
        Doc::file(
            "CI/CD onboarding guide",
            "https://contoso.sharepoint.com/sites/dev/cicd.docx",
            "Continuous integration and deployment for every repo",
        ),
        Doc::mail(
            "Release process",
            "https://outlook.office365.com/owa/?ItemID=AAMk1",
            "The release process and the deployment checklist",
        ),
    ]
}

/// One request the fake received.
#[derive(Clone, Debug)]
pub struct Received {
    /// The HTTP version the request came over.
    pub version: axum::http::Version,
    pub authorization: Option<String>,
    /// The W3C trace context the request carried.
    pub traceparent: Option<String>,
    pub body: Value,
}

#[derive(Default)]
struct Script {
    docs: Vec<Doc>,
    /// Other users' documents, by token.
    users: std::collections::HashMap<String, Vec<Doc>>,
    files: Option<Behavior>,
    mail: Option<Behavior>,
    received: Vec<Received>,
    /// (query substring, status): requests whose query contains it fail.
    failing_queries: Vec<(String, u16)>,
    in_flight: usize,
    max_in_flight: usize,
    chaos: super::faults::Chaos,
    /// Answers delayed, and how much longer than asked their timers slept.
    oversleep: super::Oversleep,
    /// How message hits carry their link.
    mail_links: MailLinks,
    /// Tokens throttled (429), with the Retry-After value sent.
    throttled: std::collections::HashMap<String, String>,
    /// Connections accepted.
    connections: usize,
    /// The urls of the documents each answer held, in order.
    returned: Vec<String>,
}

/// How the fake's message hits carry their link.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub enum MailLinks {
    /// As Graph documents: `webLink` only when the request's `fields` ask for it.
    #[default]
    WhenAsked,
    /// Never `webLink` (a tenant or version that ignores `fields`); `hitId` is the message id.
    Never,
    /// Neither `webLink` nor `hitId`: nothing to link to.
    Unlinkable,
}

/// Handle of a running fake; clones share it.
#[derive(Clone)]
pub struct FakeGraph {
    addr: SocketAddr,
    script: Arc<Mutex<Script>>,
    tls: bool,
}

impl FakeGraph {
    pub async fn start() -> Self {
        let (listener, addr, script, app) = Self::bind().await;
        // As Azure's and Graph's front ends do: no Nagle delay between a
        // response's HTTP/2 frames.
        let accepted = script.clone();
        let listener = axum::serve::ListenerExt::tap_io(listener, move |tcp| {
            let _ = tcp.set_nodelay(true);
            accepted.lock().unwrap().connections += 1;
        });
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            addr,
            script,
            tls: false,
        }
    }

    /// Serves over TLS with `certs`, offering `alpn` in the handshake (as
    /// Graph's front end offers `h2` and `http/1.1`).
    pub async fn start_tls(certs: &super::tls::TestCerts, alpn: &[&str]) -> Self {
        use rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};
        let (listener, addr, script, app) = Self::bind().await;
        let chain = CertificateDer::pem_file_iter(&certs.cert)
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let key = PrivateKeyDer::from_pem_file(&certs.key).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
        config.alpn_protocols = alpn.iter().map(|p| p.as_bytes().to_vec()).collect();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let accepted = script.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let _ = tcp.set_nodelay(true);
                accepted.lock().unwrap().connections += 1;
                let (acceptor, app) = (acceptor.clone(), app.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service = hyper_util::service::TowerToHyperService::new(app);
                    let _ = hyper_util::server::conn::auto::Builder::new(
                        hyper_util::rt::TokioExecutor::new(),
                    )
                    .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                    .await;
                });
            }
        });
        Self {
            addr,
            script,
            tls: true,
        }
    }

    async fn bind() -> (
        tokio::net::TcpListener,
        SocketAddr,
        Arc<Mutex<Script>>,
        Router,
    ) {
        let script = Arc::new(Mutex::new(Script::default()));
        let app = Router::new()
            .route("/v1.0/search/query", post(search))
            .with_state(script.clone());
        let listener = super::fake_listener();
        let addr = listener.local_addr().expect("addr");
        (listener, addr, script, app)
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.script.lock().unwrap().connections
    }

    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    pub fn add(&self, docs: impl IntoIterator<Item = Doc>) {
        self.script.lock().unwrap().docs.extend(docs);
    }

    /// Documents only the holder of `token` finds (Graph searches as the
    /// token's user).
    pub fn add_for(&self, token: &str, docs: impl IntoIterator<Item = Doc>) {
        let mut s = self.script.lock().unwrap();
        s.users.entry(token.to_owned()).or_default().extend(docs);
    }

    /// Behaviour of the driveItem/listItem group.
    pub fn files(&self, b: Behavior) {
        self.script.lock().unwrap().files = Some(b);
    }

    /// Behaviour of the message group.
    pub fn mail(&self, b: Behavior) {
        self.script.lock().unwrap().mail = Some(b);
    }

    /// Requests whose query string contains `needle` answer `status`.
    /// Answers this token's requests 429 with this `Retry-After` (Graph
    /// throttles per user and app as well as per tenant).
    pub fn throttle_user(&self, token: &str, retry_after: &str) {
        let mut s = self.script.lock().unwrap();
        s.throttled.insert(token.to_owned(), retry_after.to_owned());
    }

    /// How message hits carry their link (default: as documented).
    pub fn mail_links(&self, links: MailLinks) {
        self.script.lock().unwrap().mail_links = links;
    }

    pub fn fail_query(&self, needle: &str, status: u16) {
        self.script
            .lock()
            .unwrap()
            .failing_queries
            .push((needle.to_owned(), status));
    }

    /// The most requests that were in progress at once.
    pub fn max_in_flight(&self) -> usize {
        self.script.lock().unwrap().max_in_flight
    }

    /// Starts [`Self::max_in_flight`] again from the requests in progress now.
    pub fn reset_max_in_flight(&self) {
        let mut s = self.script.lock().unwrap();
        s.max_in_flight = s.in_flight;
    }

    /// Answers delayed so far, and their timers' total sleep beyond the delay asked.
    pub fn oversleep(&self) -> super::Oversleep {
        self.script.lock().unwrap().oversleep
    }

    pub fn received(&self) -> Vec<Received> {
        self.script.lock().unwrap().received.clone()
    }

    /// The urls of the documents answered so far, in order (what the
    /// searches found, before the service ranked them).
    pub fn returned(&self) -> Vec<String> {
        self.script.lock().unwrap().returned.clone()
    }

    /// The query strings received, in order.
    pub fn queries(&self) -> Vec<String> {
        self.received()
            .iter()
            .map(|r| {
                r.body["requests"][0]["query"]["queryString"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    }
}

fn error(status: u16, code: &str, message: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut res = (status, Json(json!({ "error": { "code": code, "message": message,
        "innerError": { "date": "2026-11-23T00:00:00", "request-id": "00000000-0000-0000-0000-000000000000" } } })))
        .into_response();
    if status == StatusCode::TOO_MANY_REQUESTS {
        res.headers_mut()
            .insert("retry-after", "3".parse().unwrap());
    }
    res
}

/// Counts requests in progress (for the concurrency the service achieves).
struct InFlight(Arc<Mutex<Script>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.lock().unwrap().in_flight -= 1;
    }
}

async fn search(
    State(script): State<Arc<Mutex<Script>>>,
    version: axum::http::Version,
    headers: HeaderMap,
    body: String,
) -> Response {
    let _in_flight = {
        let mut s = script.lock().unwrap();
        s.in_flight += 1;
        s.max_in_flight = s.max_in_flight.max(s.in_flight);
        InFlight(script.clone())
    };
    let authorization = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let parsed: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    script.lock().unwrap().received.push(Received {
        version,
        authorization: authorization.clone(),
        traceparent: headers
            .get("traceparent")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        body: parsed.clone(),
    });
    let user = authorization
        .as_deref()
        .and_then(|a| a.strip_prefix("Bearer "))
        .filter(|t| *t == TOKEN || script.lock().unwrap().users.contains_key(*t))
        .map(str::to_owned);
    let Some(user) = user else {
        return error(
            401,
            "InvalidAuthenticationToken",
            "Access token validation failure. Invalid audience.",
        );
    };
    let throttled = script.lock().unwrap().throttled.get(&user).cloned();
    if let Some(retry_after) = throttled {
        let mut res = error(429, "TooManyRequests", "Please retry again later.");
        res.headers_mut()
            .insert("retry-after", retry_after.parse().unwrap());
        return res;
    }
    let Some(request) = parsed["requests"].get(0) else {
        return error(
            400,
            "BadRequest",
            "Requests must contain at least one request",
        );
    };
    let types: Vec<&str> = request["entityTypes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let is_mail = types.contains(&"message");
    if is_mail && types.len() > 1 {
        return error(
            400,
            "BadRequest",
            "EntityType 'message' cannot be combined with other entity types.",
        );
    }
    let query = request["query"]["queryString"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let size = request["size"].as_u64().unwrap_or(25) as usize;
    let web_link_asked = request["fields"]
        .as_array()
        .is_some_and(|f| f.iter().any(|v| v == "webLink"));
    let mail_links = script.lock().unwrap().mail_links;
    let failing = script
        .lock()
        .unwrap()
        .failing_queries
        .iter()
        .find(|(n, _)| query.contains(n.as_str()))
        .map(|(_, c)| *c);
    if let Some(code) = failing {
        return error(code, "TooManyRequests", "Please retry again later.");
    }
    let (behavior, docs) = {
        let s = script.lock().unwrap();
        let b = if is_mail {
            s.mail.clone()
        } else {
            s.files.clone()
        };
        let docs = match s.users.get(&user) {
            Some(docs) => docs.clone(),
            None => s.docs.clone(),
        };
        (b.unwrap_or(Behavior::Normal), docs)
    };
    let behavior = match behavior {
        Behavior::Chaos { percent, huge } => {
            let fault = script.lock().unwrap().chaos.pick(percent);
            match fault {
                None => Behavior::Normal,
                Some(Fault::Status500) => Behavior::Status(500),
                Some(Fault::Status429) => Behavior::Status(429),
                Some(Fault::Hang) => Behavior::Hang,
                Some(Fault::Truncated) => Behavior::Truncated,
                Some(Fault::Huge) => Behavior::Huge {
                    body: huge,
                    announced: false,
                },
                Some(Fault::Drip) => Behavior::Drip,
            }
        }
        other => other,
    };
    match &behavior {
        Behavior::Normal | Behavior::Truncated | Behavior::Chaos { .. } => {}
        Behavior::Status(429) => return error(429, "TooManyRequests", "Please retry again later."),
        Behavior::Status(code) => return error(*code, "generalException", "An error occurred"),
        Behavior::Hang => std::future::pending::<()>().await,
        Behavior::Delay(d) => {
            let over = super::delay(*d).await;
            script.lock().unwrap().oversleep.add(over);
        }
        Behavior::Malformed => {
            return (StatusCode::OK, "{\"value\": [{\"hitsContainers\": ").into_response();
        }
        Behavior::Drip => return faults::drip(),
        Behavior::Huge { body, announced } => return faults::large(body.clone(), *announced),
    }
    // Sorted by relevance, as Graph documents its results: here, how many
    // of the query's terms a document has (its title counting twice).
    let mut found: Vec<(usize, &Doc)> = docs
        .iter()
        .filter(|d| (d.kind == Kind::Message) == is_mail)
        .filter(|d| matches(&query, d))
        .map(|d| (relevance(&query, d), d))
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    let found: Vec<(usize, &Doc)> = found.into_iter().take(size).collect();
    script
        .lock()
        .unwrap()
        .returned
        .extend(found.iter().map(|(_, d)| d.url.clone()));
    let hits: Vec<Value> = found
        .into_iter()
        .enumerate()
        .map(|(i, (_, d))| hit(i, d, &query, web_link_asked, mail_links))
        .collect();
    let container = if hits.is_empty() {
        json!({ "total": 0, "moreResultsAvailable": false })
    } else {
        json!({ "hits": hits, "total": hits.len(), "moreResultsAvailable": false })
    };
    let answer = Json(json!({
        "value": [{ "searchTerms": terms(&query), "hitsContainers": [container] }],
        "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#Collection(microsoft.graph.searchResponse)"
    }));
    if matches!(behavior, Behavior::Truncated) {
        return faults::truncated(Bytes::from(answer.0.to_string()));
    }
    answer.into_response()
}

/// The query's terms: words, and `"quoted phrases"` as one term; `OR`/`AND`
/// are operators, not terms.
fn terms(query: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, part) in query.split('"').enumerate() {
        if i % 2 == 1 {
            if !part.trim().is_empty() {
                out.push(part.trim().to_lowercase());
            }
            continue;
        }
        out.extend(
            part.split_whitespace()
                .filter(|t| *t != "OR" && *t != "AND")
                .map(|t| t.to_lowercase()),
        );
    }
    out
}

/// Words of a text, lower-cased (Graph's word breaking, roughly).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether two words match as Graph's English linguistics would match them
/// (a plural finds its singular and the other way round).
fn same_word(a: &str, b: &str) -> bool {
    let base = |w: &str| -> String {
        w.strip_suffix("es")
            .filter(|s| {
                s.ends_with("ss") || s.ends_with('x') || s.ends_with("ch") || s.ends_with("sh")
            })
            .or_else(|| {
                w.strip_suffix('s')
                    .filter(|s| s.len() > 2 && !s.ends_with('s'))
            })
            .unwrap_or(w)
            .to_owned()
    };
    a == b || base(a) == base(b) || same_korean_stem(a, b)
}

/// Whether two Korean words share their stem as Microsoft Search's Korean
/// linguistics would find it: it breaks words and stems them reductively
/// (particles and endings after the stem come off; SharePoint's "Linguistic
/// search features", Korean). Roughly: one word is the other with something
/// after it, the shorter of at least two syllables (`휴가` finds `휴가를`;
/// `휴가를` finds `휴가`; `신청은` does not find `신청서`).
fn same_korean_stem(a: &str, b: &str) -> bool {
    let hangul = |w: &str| w.chars().all(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c));
    let (short, long) = if a.chars().count() <= b.chars().count() {
        (a, b)
    } else {
        (b, a)
    };
    hangul(short) && hangul(long) && short.chars().count() >= 2 && long.starts_with(short)
}

/// Whether a term (a word, or a phrase: its words in a row) is in the words.
fn contains(hay: &[String], term: &str) -> bool {
    let needle = words(term);
    !needle.is_empty()
        && hay
            .windows(needle.len())
            .any(|w| w.iter().zip(&needle).all(|(a, b)| same_word(a, b)))
}

/// KQL, approximately: terms ANDed, any match when `OR` is between them.
fn matches(query: &str, doc: &Doc) -> bool {
    let hay = words(&format!("{} {}", doc.title, doc.body));
    let terms = terms(query);
    if terms.is_empty() {
        return false;
    }
    if query.split_whitespace().any(|t| t == "OR") {
        terms.iter().any(|t| contains(&hay, t))
    } else {
        terms.iter().all(|t| contains(&hay, t))
    }
}

/// A message's id: the `ItemID` of its Outlook link when it has one.
pub fn mail_id(url: &str) -> String {
    url.split_once("ItemID=")
        .map(|(_, rest)| rest.split('&').next().unwrap_or(rest))
        .map(|id| {
            percent_encoding::percent_decode_str(id)
                .decode_utf8_lossy()
                .into_owned()
        })
        .unwrap_or_else(|| format!("AAMk{}", url.len()))
}

/// The query's terms in the document, those in its title counted twice.
fn relevance(query: &str, doc: &Doc) -> usize {
    let (title, body) = (words(&doc.title), words(&doc.body));
    terms(query)
        .iter()
        .map(|t| 2 * usize::from(contains(&title, t)) + usize::from(contains(&body, t)))
        .sum()
}

fn hit(i: usize, d: &Doc, query: &str, web_link_asked: bool, links: MailLinks) -> Value {
    let mut summary = d.body.clone();
    for t in terms(query) {
        if let Some(pos) = summary.to_lowercase().find(&t) {
            let end = pos + t.len();
            if summary.is_char_boundary(pos) && summary.is_char_boundary(end) {
                summary = format!(
                    "{}<c0>{}</c0>{}",
                    &summary[..pos],
                    &summary[pos..end],
                    &summary[end..]
                );
            }
        }
    }
    summary.push_str("<ddd/>");
    let resource = match d.kind {
        Kind::DriveItem => json!({
            "@odata.type": "#microsoft.graph.driveItem", "id": format!("01ABC{i}"), "name": d.title,
            "webUrl": d.url, "size": 18432, "createdDateTime": "2026-03-01T10:00:00Z",
            "lastModifiedDateTime": "2026-10-01T10:00:00Z",
            "parentReference": { "driveId": "b!xyz", "siteId": "contoso.sharepoint.com,1,2" },
        }),
        Kind::ListItem => json!({
            "@odata.type": "#microsoft.graph.listItem", "id": format!("{i}"), "webUrl": d.url,
            "parentReference": { "siteId": "contoso.sharepoint.com,1,2" },
            "sharepointIds": { "listId": "l1", "listItemId": format!("{i}") },
        }),
        // Graph's documented message hit: no `id`, no `webLink` unless asked
        // for in `fields`; the hit's `hitId` is the message's id.
        Kind::Message => {
            let mut m = json!({
                "@odata.type": "#microsoft.graph.message", "subject": d.title,
                "bodyPreview": d.body, "importance": "normal",
                "receivedDateTime": "2026-10-01T10:00:00Z",
                "from": { "emailAddress": { "name": "Lee", "address": "lee@contoso.com" } },
            });
            if web_link_asked && links == MailLinks::WhenAsked {
                m["webLink"] = json!(d.url);
            }
            m
        }
    };
    let hit_id = match (d.kind, links) {
        (Kind::Message, MailLinks::Unlinkable) => None,
        (Kind::Message, _) => Some(mail_id(&d.url)),
        _ => Some(format!("hit-{i}")),
    };
    let mut hit = json!({ "rank": i + 1, "summary": summary, "resource": resource });
    if let Some(id) = hit_id {
        hit["hitId"] = json!(id);
    }
    hit
}
