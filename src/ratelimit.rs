//! What an upstream's rate limits allow: after a 429 no call goes to it until
//! its retry time has passed, and the remaining-requests/tokens headers it
//! sends say when it is close to its limit.

use std::{sync::Mutex, time::Duration};

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

/// The retry time a 429 names: `retry-after-ms` (Azure OpenAI) or
/// `retry-after` in seconds.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let read =
        |name: &str| -> Option<u64> { headers.get(name)?.to_str().ok()?.trim().parse().ok() };
    read("retry-after-ms")
        .map(Duration::from_millis)
        .or_else(|| read("retry-after").map(Duration::from_secs))
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
