//! What an upstream's rate limits allow: after a 429 no call goes to it until
//! its retry time has passed, and the remaining-requests/tokens headers it
//! sends say when it is close to its limit. Azure OpenAI is throttled per
//! deployment ([`RateLimit`]); Microsoft Graph per caller ([`PerCaller`]):
//! Graph limits each user and app as well as the tenant, so one heavy user's
//! 429 must not empty everyone's panel. One parser reads every Retry-After.

use std::{
    collections::HashMap,
    hash::{BuildHasher, RandomState},
    sync::Mutex,
    time::{Duration, SystemTime},
};

use reqwest::header::HeaderMap;
use tokio::time::Instant;

/// Under this share of its limit left, an upstream is in `warning`.
const WARNING_SHARE: f64 = 0.1;
/// Throttled for this long after a 429 that said nothing about when to retry.
const DEFAULT_RETRY: Duration = Duration::from_secs(10);

/// One upstream's rate-limit state (`ok`, `warning`, `throttled`).
#[derive(Default)]
pub struct RateLimit(Mutex<State>);

#[derive(Default)]
struct State {
    throttled_until: Option<Instant>,
    /// (remaining, most seen remaining as the limit's estimate), per kind.
    requests: Option<(u64, u64)>,
    tokens: Option<(u64, u64)>,
}

impl RateLimit {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How long calls must still wait, when the upstream is throttled.
    pub fn throttled_for(&self) -> Option<Duration> {
        let until = self.lock().throttled_until?;
        until
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
    }

    /// The refusal of a call while throttled: the seconds left, rounded up.
    pub fn refusal(&self) -> Option<u64> {
        self.throttled_for()
            .map(|wait| wait.as_secs_f64().ceil() as u64)
    }

    /// A 429: no call until `retry_after` (Azure's `retry-after-ms` or
    /// `retry-after`; 10 s when it said nothing) has passed.
    pub fn throttled(&self, retry_after: Option<Duration>) {
        let until = Instant::now() + retry_after.unwrap_or(DEFAULT_RETRY);
        let mut s = self.lock();
        s.throttled_until = Some(s.throttled_until.map_or(until, |u| u.max(until)));
    }

    /// Reads Azure OpenAI's `x-ratelimit-remaining-requests` / `-tokens`.
    pub fn observe(&self, headers: &HeaderMap) {
        let read =
            |name: &str| -> Option<u64> { headers.get(name)?.to_str().ok()?.trim().parse().ok() };
        let mut guard = self.lock();
        let s = &mut *guard;
        for (slot, name) in [
            (&mut s.requests, "x-ratelimit-remaining-requests"),
            (&mut s.tokens, "x-ratelimit-remaining-tokens"),
        ] {
            if let Some(remaining) = read(name) {
                let most = slot.map_or(remaining, |(_, m)| m.max(remaining));
                *slot = Some((remaining, most));
            }
        }
    }

    /// `throttled` until the retry time, `warning` under 10 % of the limit
    /// left, else `ok`.
    pub fn state(&self) -> &'static str {
        if self.throttled_for().is_some() {
            return "throttled";
        }
        let s = self.lock();
        let low = |slot: Option<(u64, u64)>| {
            slot.is_some_and(|(left, most)| most > 0 && (left as f64) < most as f64 * WARNING_SHARE)
        };
        if low(s.requests) || low(s.tokens) {
            "warning"
        } else {
            "ok"
        }
    }
}

/// The retry time a 429 names: `retry-after-ms` (Azure OpenAI; fractional
/// milliseconds), else `retry-after` as delay-seconds or an HTTP-date (RFC
/// 9110 §10.2.3; a date in the past is no wait).
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name)?.to_str().ok().map(str::trim);
    let millis = text("retry-after-ms")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map(|ms| Duration::from_secs_f64(ms / 1000.0));
    millis.or_else(|| {
        let v = text("retry-after")?;
        match v.parse::<f64>() {
            Ok(secs) if secs.is_finite() && secs >= 0.0 => Some(Duration::from_secs_f64(secs)),
            Ok(_) => None,
            Err(_) => httpdate::parse_http_date(v).ok().map(|at| {
                at.duration_since(SystemTime::now())
                    .unwrap_or(Duration::ZERO)
            }),
        }
    })
}

/// Throttling remembered per caller, keyed by a hash of who the caller is
/// (never the token itself): callers whose retry time has passed are
/// forgotten, and at most [`MAX_CALLERS`] are remembered.
#[derive(Default)]
pub struct PerCaller {
    callers: Mutex<HashMap<u64, Instant>>,
    hasher: RandomState,
}

/// Callers remembered as throttled at most (a few dozen bytes each); beyond,
/// the one whose retry time comes first is forgotten.
const MAX_CALLERS: usize = 10_000;

impl PerCaller {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Instant>> {
        self.callers.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The key of the caller behind `token`: its tenant and user (`tid`,
    /// `oid` claims, read without verification; Graph verifies the token),
    /// else the whole token; hashed either way.
    pub fn key(&self, token: &str) -> u64 {
        match caller_claims(token) {
            Some((tid, oid)) => self.hasher.hash_one((tid, oid)),
            None => self.hasher.hash_one(token),
        }
    }

    /// The seconds `key` must still wait, rounded up, while throttled.
    pub fn refusal(&self, key: u64) -> Option<u64> {
        let until = *self.lock().get(&key)?;
        until
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .map(|wait| wait.as_secs_f64().ceil() as u64)
    }

    /// A 429 for `key`: no call for it until `retry_after` (10 s when absent).
    pub fn throttled(&self, key: u64, retry_after: Option<Duration>) {
        let now = Instant::now();
        let until = now + retry_after.unwrap_or(DEFAULT_RETRY);
        let mut callers = self.lock();
        callers.retain(|_, u| *u > now);
        if callers.len() >= MAX_CALLERS {
            let first = callers.iter().min_by_key(|(_, u)| **u).map(|(k, _)| *k);
            first.map(|k| callers.remove(&k));
        }
        let at = callers.entry(key).or_insert(until);
        *at = (*at).max(until);
    }

    /// Callers still throttled.
    pub fn throttled_callers(&self) -> usize {
        let now = Instant::now();
        self.lock().values().filter(|u| **u > now).count()
    }
}

/// The `tid` and `oid` claims of a JWT, when `token` is one.
fn caller_claims(token: &str) -> Option<(String, String)> {
    use base64::Engine;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let claim = |name: &str| claims.get(name)?.as_str().map(str::to_owned);
    Some((claim("tid")?, claim("oid")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| {
                (
                    reqwest::header::HeaderName::from_static(k),
                    v.parse().unwrap(),
                )
            })
            .collect()
    }

    #[tokio::test(start_paused = true)]
    async fn a_429_throttles_until_its_retry_time_has_passed() {
        let limit = RateLimit::default();
        assert_eq!(limit.state(), "ok");
        limit.throttled(retry_after(&headers(&[("retry-after", "2")])));
        assert_eq!(limit.state(), "throttled");
        tokio::time::advance(Duration::from_millis(1_900)).await;
        assert!(limit.throttled_for().is_some(), "still 100 ms to go");
        tokio::time::advance(Duration::from_millis(200)).await;
        assert_eq!(limit.throttled_for(), None);
        assert_eq!(limit.state(), "ok");
    }

    #[test]
    fn retry_after_ms_wins_over_retry_after() {
        let h = headers(&[("retry-after-ms", "1500"), ("retry-after", "2")]);
        assert_eq!(retry_after(&h), Some(Duration::from_millis(1_500)));
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn retry_after_reads_fractions_and_http_dates() {
        let h = headers(&[("retry-after-ms", "2500.5")]);
        assert_eq!(retry_after(&h), Some(Duration::from_micros(2_500_500)));
        assert_eq!(
            retry_after(&headers(&[("retry-after", "1.5")])),
            Some(Duration::from_millis(1_500))
        );
        let in_a_minute = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(61));
        let wait = retry_after(&headers(&[("retry-after", &in_a_minute)])).unwrap();
        assert!(
            wait > Duration::from_secs(58) && wait <= Duration::from_secs(61),
            "{wait:?}"
        );
        let past = httpdate::fmt_http_date(SystemTime::now() - Duration::from_secs(60));
        assert_eq!(
            retry_after(&headers(&[("retry-after", &past)])),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")])), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-3")])), None);
    }

    /// A JWT-shaped token with these claims (unsigned: only Graph verifies).
    fn token(claims: &str) -> String {
        use base64::Engine;
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        format!("{}.{}.sig", b64(r#"{"alg":"RS256"}"#), b64(claims))
    }

    #[tokio::test(start_paused = true)]
    async fn one_callers_429_throttles_that_caller_only_and_is_then_forgotten() {
        let limits = PerCaller::default();
        let kim = limits.key(&token(r#"{"tid":"t1","oid":"kim","exp":1}"#));
        let kim_again = limits.key(&token(r#"{"tid":"t1","oid":"kim","exp":2}"#));
        let lee = limits.key(&token(r#"{"tid":"t1","oid":"lee"}"#));
        let opaque = limits.key("not-a-jwt");
        assert_eq!(kim, kim_again, "a renewed token is the same caller");
        assert!(kim != lee && lee != opaque);
        limits.throttled(kim, Some(Duration::from_secs(3)));
        assert_eq!(limits.refusal(kim), Some(3));
        assert_eq!(limits.refusal(lee), None, "another user is not throttled");
        assert_eq!(limits.throttled_callers(), 1);
        tokio::time::advance(Duration::from_secs(4)).await;
        assert_eq!(limits.refusal(kim), None);
        limits.throttled(lee, None);
        assert_eq!(
            limits.lock().len(),
            1,
            "kim's passed retry time was forgotten"
        );
    }

    #[test]
    fn under_a_tenth_of_the_limit_left_is_a_warning() {
        let limit = RateLimit::default();
        limit.observe(&headers(&[("x-ratelimit-remaining-requests", "100")]));
        assert_eq!(limit.state(), "ok");
        limit.observe(&headers(&[("x-ratelimit-remaining-requests", "9")]));
        assert_eq!(limit.state(), "warning");
        limit.observe(&headers(&[("x-ratelimit-remaining-requests", "50")]));
        assert_eq!(limit.state(), "ok");
    }
}
