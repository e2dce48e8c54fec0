//! Microsoft Graph search client: `POST /v1.0/search/query` as the caller
//! (delegated token), files + list items and mails in two parallel requests,
//! hits mapped to `McpSuggestion`.

use std::{sync::Arc, time::Duration};

use reqwest::{StatusCode, header};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{
    contract::{M365Source, McpSuggestion},
    metrics::{self, Metrics},
    otel,
    ratelimit::{self, PerCaller},
    upstream::{self, BodyError},
};

/// Results per entity group (Graph's `size`).
const PAGE_SIZE: u32 = 10;
/// The message properties a search asks for: Graph's documented message hit
/// carries `subject`, `bodyPreview` and `from` but no `webLink` unless the
/// request names it in `fields`.
const MESSAGE_FIELDS: [&str; 5] = [
    "subject",
    "bodyPreview",
    "from",
    "webLink",
    "receivedDateTime",
];
/// Outlook on the web's link to a message by its id: the form of Graph's own
/// `webLink`, for a hit that comes without one.
const OUTLOOK_READ_LINK: &str = "https://outlook.office365.com/owa/?ItemID=";
/// Largest search answer read by default (`msgraph.max_body_bytes`): ten
/// hits with summaries are a few tens of KB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 512 * 1024;

/// Why a Graph search failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("Graph rejected the token (401)")]
    Unauthorized,
    #[error("Graph denied access (403)")]
    Forbidden,
    #[error("Graph throttled the request (429)")]
    RateLimited { retry_after_secs: Option<u64> },
    #[error("Graph failed with status {0}")]
    Upstream(u16),
    #[error("Graph did not answer in time")]
    Timeout,
    #[error("Graph could not be reached")]
    Connect,
    #[error("Graph answered with an unexpected body")]
    Malformed,
    #[error("Graph's answer was larger than the configured cap")]
    TooLarge,
}

/// A [`GraphError`]'s kind, named as `meta.degraded` (`m365_<kind>`), logs
/// and metrics name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum GraphErrorKind {
    Unauthorized,
    Forbidden,
    RateLimited,
    UpstreamError,
    Timeout,
    Unreachable,
    MalformedResponse,
    TooLarge,
}

impl GraphErrorKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl GraphError {
    /// What kind of failure it is.
    pub fn kind(&self) -> GraphErrorKind {
        match self {
            Self::Unauthorized => GraphErrorKind::Unauthorized,
            Self::Forbidden => GraphErrorKind::Forbidden,
            Self::RateLimited { .. } => GraphErrorKind::RateLimited,
            Self::Upstream(_) => GraphErrorKind::UpstreamError,
            Self::Timeout => GraphErrorKind::Timeout,
            Self::Connect => GraphErrorKind::Unreachable,
            Self::Malformed => GraphErrorKind::MalformedResponse,
            Self::TooLarge => GraphErrorKind::TooLarge,
        }
    }

    /// The kind's name.
    pub fn kind_str(&self) -> &'static str {
        self.kind().as_str()
    }

    fn from_body(e: BodyError) -> Self {
        match e {
            BodyError::TooLarge(_) => Self::TooLarge,
            BodyError::Read(e) => Self::from_reqwest(&e),
            BodyError::Malformed(_) | BodyError::Task => Self::Malformed,
        }
    }

    fn from_reqwest(e: &reqwest::Error) -> Self {
        match upstream::Transport::of(e) {
            upstream::Transport::Timeout => Self::Timeout,
            upstream::Transport::Malformed => Self::Malformed,
            upstream::Transport::Connect => Self::Connect,
        }
    }
}

/// Hits of one search; `partial` names the failure when one group failed.
#[derive(Debug, Default)]
pub struct GraphSearch {
    pub items: Vec<McpSuggestion>,
    pub partial: Option<GraphError>,
}

/// Graph search as a signed-in user.
#[derive(Clone)]
pub struct GraphClient {
    http: reqwest::Client,
    /// Parsed once (None only for a base URL the settings would have rejected).
    endpoint: Option<reqwest::Url>,
    timeout: Duration,
    max_body_bytes: usize,
    metrics: Metrics,
    /// After a 429, none of that caller's searches until its retry time
    /// (shared by the clones).
    limits: Arc<PerCaller>,
}

impl GraphClient {
    pub fn new(http: reqwest::Client, base_url: &str, timeout: Duration) -> Self {
        let endpoint = reqwest::Url::parse(&format!(
            "{}/v1.0/search/query",
            base_url.trim_end_matches('/')
        ))
        .ok();
        Self {
            http,
            endpoint,
            timeout,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            metrics: Metrics::default(),
            limits: Arc::default(),
        }
    }

    /// The rate-limit state: `throttled` while some caller waits for a
    /// 429's retry time (its own searches only), else `ok`.
    pub fn rate_limit(&self) -> &'static str {
        if self.limits.throttled_callers() > 0 {
            "throttled"
        } else {
            "ok"
        }
    }

    /// Records its calls into `metrics`.
    pub fn with_metrics(mut self, metrics: Metrics) -> Self {
        self.metrics = metrics;
        self
    }

    /// Caps the size of a search answer read (larger ones fail `TooLarge`).
    pub fn with_max_body_bytes(mut self, max_body_bytes: usize) -> Self {
        self.max_body_bytes = max_body_bytes;
        self
    }

    /// Searches files/list items and mails in parallel. Fails only when both fail.
    pub async fn search(&self, token: &str, query: &str) -> Result<GraphSearch, GraphError> {
        let caller = self.limits.key(token);
        if let Some(secs) = self.limits.refusal(caller) {
            return Err(GraphError::RateLimited {
                retry_after_secs: Some(secs),
            });
        }
        let files = self.timed("files", token, caller, query, &["driveItem", "listItem"]);
        let mails = self.timed("mail", token, caller, query, &["message"]);
        match futures::join!(files, mails) {
            (Ok(mut a), Ok(b)) => {
                a.extend(b);
                Ok(GraphSearch {
                    items: a,
                    partial: None,
                })
            }
            (Ok(items), Err(e)) | (Err(e), Ok(items)) => Ok(GraphSearch {
                items,
                partial: Some(e),
            }),
            (Err(e), Err(_)) => Err(e),
        }
    }

    /// One entity group's search, recorded in the metrics as `group`.
    async fn timed(
        &self,
        group: &'static str,
        token: &str,
        caller: u64,
        query: &str,
        entity_types: &[&str],
    ) -> Result<Vec<McpSuggestion>, GraphError> {
        let started = std::time::Instant::now();
        let span = self
            .endpoint
            .as_ref()
            .map_or_else(tracing::Span::none, otel::client_span);
        let call = self.search_group(token, caller, query, entity_types);
        let result = otel::traced(span, call, GraphError::kind_str).await;
        let seconds = started.elapsed().as_secs_f64();
        self.metrics.graph_call(
            group,
            metrics::outcome(&result, GraphError::kind_str),
            seconds,
        );
        result
    }

    async fn search_group(
        &self,
        token: &str,
        caller: u64,
        query: &str,
        entity_types: &[&str],
    ) -> Result<Vec<McpSuggestion>, GraphError> {
        let mut request = json!({
            "entityTypes": entity_types,
            "query": { "queryString": query },
            "from": 0,
            "size": PAGE_SIZE,
            // A misspelt query that finds nothing is answered for its correction.
            "queryAlterationOptions": { "enableModification": true },
        });
        if entity_types.contains(&"message") {
            request["fields"] = json!(MESSAGE_FIELDS);
        }
        let body = json!({ "requests": [request] });
        let endpoint = self.endpoint.clone().ok_or(GraphError::Connect)?;
        let response = self
            .http
            .post(endpoint)
            .headers(otel::trace_headers())
            .bearer_auth(token)
            .timeout(self.timeout)
            .json(&body)
            .send()
            .await
            .map_err(|e| GraphError::from_reqwest(&e))?;
        let status = response.status();
        otel::client_status(status);
        if status == StatusCode::TOO_MANY_REQUESTS {
            self.limits
                .throttled(caller, ratelimit::retry_after(response.headers()));
        }
        if !status.is_success() {
            return Err(status_error(status, response.headers()));
        }
        let body: SearchResponse = upstream::json(response, self.max_body_bytes)
            .await
            .map_err(GraphError::from_body)?;
        let mut items = Vec::new();
        for hit in body
            .value
            .into_iter()
            .flat_map(|r| r.hits_containers)
            .flat_map(|c| c.hits)
        {
            match map_hit(hit) {
                Some(item) => items.push(item),
                // Nothing to link to: counted, never silently lost.
                None => self.metrics.graph_hit_dropped("no_link"),
            }
        }
        Ok(items)
    }
}

fn status_error(status: StatusCode, headers: &header::HeaderMap) -> GraphError {
    match status {
        StatusCode::UNAUTHORIZED => GraphError::Unauthorized,
        StatusCode::FORBIDDEN => GraphError::Forbidden,
        StatusCode::TOO_MANY_REQUESTS => GraphError::RateLimited {
            retry_after_secs: ratelimit::retry_after(headers)
                .map(|d| d.as_secs_f64().ceil() as u64),
        },
        other => GraphError::Upstream(other.as_u16()),
    }
}

#[derive(Deserialize)]
struct SearchResponse {
    #[serde(default)]
    value: Vec<SearchResponseItem>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SearchResponseItem {
    #[serde(default)]
    hits_containers: Vec<HitsContainer>,
}

#[derive(Deserialize)]
struct HitsContainer {
    #[serde(default)]
    hits: Vec<SearchHit>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SearchHit {
    /// For a message, its id (what `GET /me/messages/{id}` takes).
    #[serde(default)]
    hit_id: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    resource: Value,
}

/// Maps one hit; None for a hit with nothing to link to.
fn map_hit(hit: SearchHit) -> Option<McpSuggestion> {
    let r = &hit.resource;
    let text = |key: &str| r.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let odata_type = text("@odata.type").unwrap_or_default();
    let summary = hit
        .summary
        .as_deref()
        .map(strip_highlights)
        .filter(|s| !s.is_empty());
    let (source, url, title, fallback_description) = if odata_type.ends_with("message") {
        let url = match text("webLink") {
            Some(link) => link.to_owned(),
            None => outlook_link(text("id").or(hit.hit_id.as_deref())?),
        };
        let title = text("subject").unwrap_or("(no subject)");
        (
            M365Source::Email,
            url,
            title.to_owned(),
            text("bodyPreview"),
        )
    } else {
        let url = text("webUrl")?.to_owned();
        let title = text("name")
            .map(str::to_owned)
            .or_else(|| {
                r.pointer("/fields/title")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| title_from_url(&url));
        let source = if odata_type.ends_with("driveItem") && is_personal_site(&url) {
            M365Source::Onedrive
        } else {
            M365Source::Sharepoint
        };
        (source, url, title, None)
    };
    let description = summary
        .or_else(|| fallback_description.map(strip_highlights))
        .unwrap_or_default();
    Some(McpSuggestion {
        title: strip_highlights(&title),
        url,
        description,
        source_type: "m365".to_owned(),
        source,
        status: "available".to_owned(),
    })
}

/// Outlook on the web's link to the message with this id.
fn outlook_link(id: &str) -> String {
    let id = percent_encoding::utf8_percent_encode(id, percent_encoding::NON_ALPHANUMERIC);
    format!("{OUTLOOK_READ_LINK}{id}&exvsurl=1&viewmodel=ReadMessageItem")
}

/// A OneDrive for Business URL lives on the tenant's `-my.sharepoint.com` host.
fn is_personal_site(url: &str) -> bool {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| h.to_ascii_lowercase().ends_with("-my.sharepoint.com"))
        })
        .unwrap_or(false)
}

/// A readable title for hits without a name (list items, site pages): the
/// last path segment, decoded, without `.aspx`, dashes as spaces; a list
/// item's `12_.000` becomes "<list> item 12".
fn title_from_url(url: &str) -> String {
    let path = url
        .split(['?', '#'])
        .next()
        .unwrap_or(url)
        .trim_end_matches('/');
    let mut segments = path.rsplit('/').map(|s| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    });
    let last = segments.next().unwrap_or_default();
    if let Some(n) = last
        .strip_suffix("_.000")
        .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
    {
        let list = segments.next().unwrap_or_default();
        return format!("{list} item {n}");
    }
    let stem = last.strip_suffix(".aspx").unwrap_or(&last);
    stem.replace('-', " ")
}

/// Removes Graph's hit highlighting (`<c0>`…`</c0>`, `<c1>`, … one tag per
/// highlighted term, and `<ddd/>`) and collapses spaces.
pub fn strip_highlights(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        match highlight_tag_len(tail) {
            Some(len) => {
                if tail.starts_with("<ddd/>") {
                    out.push_str("… ");
                }
                rest = &tail[len..];
            }
            None => {
                out.push('<');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The length of the highlight tag `s` starts with: `<ddd/>`, `<cN>` or `</cN>`.
fn highlight_tag_len(s: &str) -> Option<usize> {
    if s.starts_with("<ddd/>") {
        return Some("<ddd/>".len());
    }
    let after = s.strip_prefix("</c").or_else(|| s.strip_prefix("<c"))?;
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && after[digits..].starts_with('>')).then(|| s.len() - after.len() + digits + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlight_markup_is_stripped() {
        assert_eq!(
            strip_highlights(
                "Set up <c0>CI</c0>/CD <ddd/> the <c1>pipeline</c1>  now <c12>x</c12> <code>"
            ),
            "Set up CI/CD … the pipeline now x <code>"
        );
        assert_eq!(strip_highlights("a < b"), "a < b");
    }

    #[test]
    fn drive_items_on_personal_sites_are_onedrive() {
        let hit = |url: &str, ty: &str| SearchHit {
            hit_id: None,
            summary: Some("s".into()),
            resource: json!({"@odata.type": ty, "name": "Doc.docx", "webUrl": url}),
        };
        let od = map_hit(hit(
            "https://contoso-my.sharepoint.com/personal/kim/Documents/Doc.docx",
            "#microsoft.graph.driveItem",
        ))
        .unwrap();
        assert_eq!(od.source, M365Source::Onedrive);
        let sp = map_hit(hit(
            "https://contoso.sharepoint.com/sites/dev/Doc.docx",
            "#microsoft.graph.driveItem",
        ))
        .unwrap();
        assert_eq!(sp.source, M365Source::Sharepoint);
        let li = map_hit(hit(
            "https://contoso-my.sharepoint.com/personal/kim/Lists/x/1_.000",
            "#microsoft.graph.listItem",
        ))
        .unwrap();
        assert_eq!(li.source, M365Source::Sharepoint);
    }

    #[test]
    fn untitled_hits_get_a_readable_title_from_their_url() {
        assert_eq!(
            title_from_url(
                "https://c.sharepoint.com/sites/dev/SitePages/Pipeline-request-form.aspx"
            ),
            "Pipeline request form"
        );
        assert_eq!(
            title_from_url("https://c.sharepoint.com/sites/dev/Lists/Requests/12_.000"),
            "Requests item 12"
        );
        assert_eq!(
            title_from_url("https://c.sharepoint.com/sites/dev/Shared%20Documents/a%20b.docx"),
            "a b.docx"
        );
    }

    #[test]
    fn messages_are_email_with_subject_and_weblink() {
        let m = map_hit(SearchHit {
            hit_id: Some("AAMkA=".into()),
            summary: None,
            resource: json!({"@odata.type": "#microsoft.graph.message", "subject": "Pipeline",
                "bodyPreview": "see <c0>CI</c0>", "webLink": "https://outlook.office365.com/owa/?ItemID=1"}),
        })
        .unwrap();
        assert_eq!(
            (
                m.source,
                m.title.as_str(),
                m.description.as_str(),
                m.url.as_str()
            ),
            (
                M365Source::Email,
                "Pipeline",
                "see CI",
                "https://outlook.office365.com/owa/?ItemID=1"
            )
        );
    }

    #[test]
    fn a_message_without_a_web_link_is_linked_by_its_id_and_one_without_either_is_none() {
        // Graph's documented message hit: subject, bodyPreview, from; no webLink.
        let message = |hit_id: Option<&str>| SearchHit {
            hit_id: hit_id.map(str::to_owned),
            summary: Some("<c0>Contoso</c0> all hands<ddd/>".into()),
            resource: json!({"@odata.type": "#microsoft.graph.message", "subject": "Meet the new Contoso CEO",
                "bodyPreview": "Welcome", "from": {"emailAddress": {"name": "Lee", "address": "lee@contoso.com"}}}),
        };
        let m = map_hit(message(Some("AAMkAGI2+/=="))).unwrap();
        assert_eq!(
            m.url,
            "https://outlook.office365.com/owa/?ItemID=AAMkAGI2%2B%2F%3D%3D&exvsurl=1&viewmodel=ReadMessageItem"
        );
        assert_eq!(m.description, "Contoso all hands…");
        assert!(map_hit(message(None)).is_none());
    }
}
