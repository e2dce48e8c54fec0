//! One scope's token, kept fresh in the background: fetched at start-up,
//! refreshed ahead of expiry, retried with backoff when Entra fails. Callers
//! read what is held and never wait on Entra.

use std::{
    sync::{Arc, RwLock, Weak},
    time::{Duration, SystemTime},
};

use reqwest::header::HeaderValue;
use secrecy::ExposeSecret;

use super::{Token, TokenFailure, TokenSource};
use crate::{contract::TokenStatus, metrics::Metrics, settings::Secret};

/// A fetch not answered by then counts as failed (`timeout`); the SDK's own
/// retries (IMDS: over a minute) are cut there.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// After a failed fetch the next comes this long later, doubling up to
/// [`RETRY_MAX`].
const RETRY_MIN: Duration = Duration::from_secs(1);
const RETRY_MAX: Duration = Duration::from_secs(30);
/// A refresh comes at the later of half the token's life and 4.5 minutes
/// before it expires: inside the SDK's own 5-minute window, where its cache
/// fetches anew instead of answering with the token it holds.
const REFRESH_BEFORE_EXPIRY: Duration = Duration::from_secs(270);

/// A token for one scope, kept fresh by a background task that ends when
/// the last clone is dropped. Cheap to clone.
#[derive(Clone)]
pub struct TokenKeeper {
    shared: Arc<Shared>,
}

struct Shared {
    source: Arc<dyn TokenSource>,
    scope: &'static str,
    /// Which upstream the token is for (`azure_openai`, `postgres`): the
    /// metrics' label and the logs' field.
    upstream: &'static str,
    /// What to fix when Entra refuses, for the warning (names, never secrets).
    hint: String,
    state: RwLock<State>,
    first: tokio::sync::watch::Sender<bool>,
    metrics: Metrics,
}

#[derive(Default)]
struct State {
    held: Option<Held>,
    /// The last fetch's failure; None once one succeeds.
    failure: Option<TokenFailure>,
}

struct Held {
    /// `Bearer <token>`, marked sensitive (never logged by the HTTP stack).
    bearer: HeaderValue,
    secret: Secret,
    expires_at: SystemTime,
}

/// Why no token can be used now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoToken {
    /// The last fetch's failure; None while the first is still under way.
    pub failure: Option<TokenFailure>,
}

impl TokenKeeper {
    /// Starts keeping `scope`'s token from `source`; the first fetch starts
    /// at once. `hint` says what to fix when Entra refuses (role, client id).
    pub fn start(
        source: Arc<dyn TokenSource>,
        scope: &'static str,
        upstream: &'static str,
        hint: String,
        metrics: Metrics,
    ) -> Self {
        let shared = Arc::new(Shared {
            source,
            scope,
            upstream,
            hint,
            state: RwLock::default(),
            first: tokio::sync::watch::channel(false).0,
            metrics,
        });
        tokio::spawn(keep(Arc::downgrade(&shared)));
        Self { shared }
    }

    /// Resolves once the first fetch has ended, either way (at most the
    /// fetch's bound): start-up waits for it so that the first request has
    /// a token, and does not fail without one.
    pub async fn first_fetch(&self) {
        let mut done = self.shared.first.subscribe();
        let _ = tokio::time::timeout(
            FETCH_TIMEOUT + Duration::from_secs(1),
            done.wait_for(|d| *d),
        )
        .await;
    }

    /// `Bearer <token>` for the `Authorization` header.
    pub fn bearer(&self) -> Result<HeaderValue, NoToken> {
        self.read(|held| held.bearer.clone())
    }

    /// The token itself (a database password).
    pub fn password(&self) -> Result<String, NoToken> {
        self.read(|held| held.secret.expose_secret().to_owned())
    }

    fn read<T>(&self, f: impl FnOnce(&Held) -> T) -> Result<T, NoToken> {
        let state = self.shared.lock_read();
        match &state.held {
            Some(held) if held.expires_at > SystemTime::now() => Ok(f(held)),
            _ => Err(NoToken {
                failure: state.failure,
            }),
        }
    }

    /// The state `/readyz` shows.
    pub fn status(&self) -> TokenStatus {
        let state = self.shared.lock_read();
        let expires_in = state
            .held
            .as_ref()
            .and_then(|h| h.expires_at.duration_since(SystemTime::now()).ok());
        TokenStatus {
            state: match (expires_in, state.failure) {
                (Some(_), _) => "ok",
                (None, Some(f)) => f.as_str(),
                (None, None) => "pending",
            }
            .to_owned(),
            expires_in_s: expires_in.map(|d| d.as_secs()),
            refresh_failing: expires_in.is_some() && state.failure.is_some(),
        }
    }
}

impl Shared {
    fn lock_read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        // A panic while holding the lock leaves the state whole.
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    /// One fetch, bounded; its outcome kept, counted and (on a change) logged.
    /// Returns when to fetch next.
    async fn fetch(&self) -> Duration {
        let started = std::time::Instant::now();
        let result = match tokio::time::timeout(FETCH_TIMEOUT, self.source.token(self.scope)).await
        {
            Ok(result) => result,
            Err(_) => Err(TokenFailure::Timeout),
        };
        let outcome = match &result {
            Ok(_) => "ok",
            Err(f) => f.as_str(),
        };
        self.metrics
            .entra_token_fetch(self.upstream, outcome, started.elapsed().as_secs_f64());
        let mut state = self.state.write().unwrap_or_else(|e| e.into_inner());
        let before = state.failure;
        let next = match result {
            Ok(Token { secret, expires_at }) => {
                let bearer = format!("Bearer {}", secret.expose_secret());
                match HeaderValue::from_str(&bearer) {
                    Ok(mut bearer) => {
                        bearer.set_sensitive(true);
                        self.metrics.entra_token_expiry(self.upstream, expires_at);
                        state.held = Some(Held {
                            bearer,
                            secret,
                            expires_at,
                        });
                        state.failure = None;
                        if before.is_some() {
                            tracing::info!(
                                upstream = self.upstream,
                                "Microsoft Entra ID token obtained again"
                            );
                        }
                        refresh_in(SystemTime::now(), expires_at)
                    }
                    // Not a token a header can carry: Entra answered nonsense.
                    Err(_) => {
                        state.failure = Some(TokenFailure::Unreachable);
                        RETRY_MIN
                    }
                }
            }
            Err(failure) => {
                state.failure = Some(failure);
                if before != Some(failure) {
                    self.warn(failure);
                }
                RETRY_MIN
            }
        };
        drop(state);
        self.first.send_replace(true);
        next
    }

    /// Once per change of failure: what failed and what to fix.
    fn warn(&self, failure: TokenFailure) {
        match failure {
            TokenFailure::Refused { code } => tracing::warn!(
                upstream = self.upstream,
                aadsts = code,
                "Microsoft Entra ID refused a token: {}",
                self.hint
            ),
            TokenFailure::Unreachable | TokenFailure::Timeout => tracing::warn!(
                upstream = self.upstream,
                failure = failure.as_str(),
                "Microsoft Entra ID (or the identity endpoint) could not be reached for a token; retrying"
            ),
        }
    }
}

/// When to refresh a token that expires at `expires_at`.
fn refresh_in(now: SystemTime, expires_at: SystemTime) -> Duration {
    let life = expires_at.duration_since(now).unwrap_or_default();
    life.saturating_sub(REFRESH_BEFORE_EXPIRY)
        .max(life / 2)
        .max(RETRY_MIN)
}

/// The background task: fetch, sleep until the next fetch, until the
/// keeper is gone. Failures back off from [`RETRY_MIN`] to [`RETRY_MAX`].
async fn keep(shared: Weak<Shared>) {
    let mut backoff = RETRY_MIN;
    loop {
        let Some(s) = shared.upgrade() else { return };
        let next = s.fetch().await;
        let failed = s.lock_read().failure.is_some();
        drop(s);
        let wait = if failed {
            let wait = backoff;
            backoff = (backoff * 2).min(RETRY_MAX);
            wait
        } else {
            backoff = RETRY_MIN;
            next
        };
        tokio::time::sleep(wait).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_comes_inside_the_sdks_five_minute_window_and_never_at_once() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let at = |secs| now + Duration::from_secs(secs);
        // A day's token (managed identity): 4.5 minutes before it expires.
        assert_eq!(
            refresh_in(now, at(86_400)),
            Duration::from_secs(86_400 - 270)
        );
        // An hour's token (workload identity): likewise.
        assert_eq!(refresh_in(now, at(3_600)), Duration::from_secs(3_330));
        // A short one: at half its life.
        assert_eq!(refresh_in(now, at(60)), Duration::from_secs(30));
        // An expired one: soon, not in a loop.
        assert_eq!(refresh_in(now, now - Duration::from_secs(5)), RETRY_MIN);
    }
}
