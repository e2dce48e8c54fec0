//! The panel cache at the HTTP edge: what a request's `Cache-Control` and
//! `If-None-Match` ask (read as RFC 9111 and RFC 9110 say; a malformed one
//! is ignored), and a panel answered with its validators: `ETag`, `Age` when
//! cached, and on the GET route `Cache-Control: private, max-age` and
//! `Vary: Authorization`; 304 (GET) or 412 (POST) when `If-None-Match`
//! matches.

use std::time::Duration;

use axum::{
    Json,
    body::Body,
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};

use crate::{agent::RunEvent, contract::CombinedSuggestionsResponse};

/// Which route asked: only GET answers are cacheable by HTTP caches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route {
    Post,
    Get,
}

/// What the request asks of caches.
#[derive(Debug, Default)]
pub(super) struct Conditions {
    /// `no-cache` or `max-age=0`: compute afresh (and replace the entry).
    pub no_cache: bool,
    /// `no-store`: neither read nor write the cache.
    pub no_store: bool,
    if_none_match: Option<IfNoneMatch>,
}

#[derive(Debug)]
enum IfNoneMatch {
    Any,
    /// The entity tags' opaque parts (weak or strong: `If-None-Match`
    /// compares weakly).
    Tags(Vec<String>),
}

impl Conditions {
    pub fn read(headers: &HeaderMap) -> Self {
        let mut c = Self::default();
        for value in headers.get_all(header::CACHE_CONTROL) {
            let Ok(value) = value.to_str() else { continue };
            for directive in value.split(',') {
                let directive = directive.trim().to_ascii_lowercase();
                match directive.as_str() {
                    "no-cache" | "max-age=0" => c.no_cache = true,
                    "no-store" => c.no_store = true,
                    _ => {}
                }
            }
        }
        c.if_none_match = if_none_match(headers);
        c
    }

    /// Whether `etag` matches `If-None-Match` (weak comparison).
    fn matches(&self, etag: &str) -> bool {
        let opaque = etag.trim_start_matches("W/");
        match &self.if_none_match {
            None => false,
            Some(IfNoneMatch::Any) => true,
            Some(IfNoneMatch::Tags(tags)) => tags.iter().any(|t| t == opaque),
        }
    }
}

/// `If-None-Match` parsed: `*`, or a list of entity tags; None when absent
/// or malformed (then ignored, as if not sent).
fn if_none_match(headers: &HeaderMap) -> Option<IfNoneMatch> {
    let mut tags = Vec::new();
    for value in headers.get_all(header::IF_NONE_MATCH) {
        let value = value.to_str().ok()?.trim();
        if value == "*" {
            return Some(IfNoneMatch::Any);
        }
        for tag in value.split(',') {
            let opaque = tag.trim().trim_start_matches("W/");
            let valid = opaque.len() >= 2
                && opaque.starts_with('"')
                && opaque.ends_with('"')
                && !opaque[1..opaque.len() - 1].contains('"');
            if !valid {
                return None;
            }
            tags.push(opaque.to_owned());
        }
    }
    (!tags.is_empty()).then_some(IfNoneMatch::Tags(tags))
}

/// How a panel is answered.
pub(super) struct Answer<'a> {
    pub route: Route,
    pub conditions: &'a Conditions,
    pub stream: bool,
    pub etag: &'a str,
    /// How long it is still served from the cache (`max-age`).
    pub fresh_for: Duration,
    /// Cached: its age.
    pub age: Option<Duration>,
}

impl Answer<'_> {
    /// `panel` with its validators; 304 or 412 when `If-None-Match` matches.
    pub fn respond(&self, panel: CombinedSuggestionsResponse) -> Response {
        let matched = self.conditions.matches(self.etag);
        let mut response = match (matched, self.route) {
            (true, Route::Get) => StatusCode::NOT_MODIFIED.into_response(),
            // A POST cannot be 304 (RFC 9110 §13.1.2): the precondition failed.
            (true, Route::Post) => StatusCode::PRECONDITION_FAILED.into_response(),
            (false, _) if self.stream => {
                let event = RunEvent::Result {
                    data: Box::new(panel),
                };
                let mut line = serde_json::to_vec(&event).unwrap_or_default();
                line.push(b'\n');
                let mut r = Body::from(line).into_response();
                r.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/x-ndjson"),
                );
                r
            }
            (false, _) => Json(panel).into_response(),
        };
        let headers = response.headers_mut();
        if let Ok(etag) = HeaderValue::from_str(self.etag) {
            headers.insert(header::ETAG, etag);
        }
        if let Some(age) = self.age {
            headers.insert(header::AGE, HeaderValue::from(age.as_secs()));
        }
        if self.route == Route::Get {
            let control = format!("private, max-age={}", self.fresh_for.as_secs());
            if let Ok(control) = HeaderValue::from_str(&control) {
                headers.insert(header::CACHE_CONTROL, control);
            }
            headers.insert(header::VARY, HeaderValue::from_static("Authorization"));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conditions(pairs: &[(&str, &str)]) -> Conditions {
        let mut headers = HeaderMap::new();
        for (k, v) in pairs {
            headers.append(
                header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        Conditions::read(&headers)
    }

    #[test]
    fn if_none_match_compares_weakly_and_a_malformed_one_is_ignored() {
        let tag = "\"abc\"";
        assert!(conditions(&[("if-none-match", "\"x\", W/\"abc\"")]).matches(tag));
        assert!(conditions(&[("if-none-match", "*")]).matches(tag));
        assert!(!conditions(&[("if-none-match", "\"x\"")]).matches(tag));
        assert!(
            !conditions(&[("if-none-match", "abc")]).matches(tag),
            "unquoted"
        );
        assert!(!conditions(&[]).matches(tag));
    }

    #[test]
    fn cache_control_directives_are_read_case_blind_and_unknown_ones_ignored() {
        let c = conditions(&[("cache-control", "No-Cache, foo=\"bar\"")]);
        assert!(c.no_cache && !c.no_store);
        assert!(conditions(&[("cache-control", "max-age=0")]).no_cache);
        assert!(conditions(&[("cache-control", "no-store")]).no_store);
        let c = conditions(&[("cache-control", "max-age=abc,,")]);
        assert!(!c.no_cache && !c.no_store);
    }
}
