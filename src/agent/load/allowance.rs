//! Each caller's allowance of agent runs (`agent.runs_per_caller_per_minute`):
//! a token bucket per caller, so that one caller cannot spend the model
//! deployment's quota, which every user shares. A caller past it gets the
//! fallback's panel (`caller_rate_limited`); everyone else keeps the model.
//!
//! A caller is the SHA-256 of its whole bearer token, never the token's
//! unverified claims (a forged token naming someone else is another caller).
//! Callers without a token cannot be told apart and are not limited here
//! (the admission bound still holds them). The buckets are bounded: when
//! [`MAX_CALLERS`] are kept, those full again are forgotten, and while none
//! is, a new caller is let through untracked rather than growing the table.

use std::{collections::HashMap, sync::Mutex, time::Instant};

use secrecy::ExposeSecret;
use sha2::{Digest, Sha256};

use crate::settings::Secret;

/// Callers whose buckets are kept at most.
const MAX_CALLERS: usize = 10_000;

/// The buckets of the callers seen lately.
pub struct Allowance {
    /// Agent runs a caller may start per minute; 0: no limit.
    per_minute: u32,
    buckets: Mutex<HashMap<[u8; 32], Bucket>>,
}

/// A caller's runs left, as of `at`.
struct Bucket {
    left: f64,
    at: Instant,
}

impl Allowance {
    pub fn new(per_minute: u32) -> Self {
        Self {
            per_minute,
            buckets: Mutex::default(),
        }
    }

    /// Takes one agent run from the allowance of the holder of `token`;
    /// false when it has none left.
    pub fn take(&self, token: Option<&Secret>) -> bool {
        let (Some(token), true) = (token, self.per_minute > 0) else {
            return true;
        };
        let caller: [u8; 32] = Sha256::digest(token.expose_secret().as_bytes()).into();
        let now = Instant::now();
        let capacity = f64::from(self.per_minute);
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_CALLERS && !buckets.contains_key(&caller) {
            buckets.retain(|_, b| refilled(b, capacity, now) < capacity);
            if buckets.len() >= MAX_CALLERS {
                return true;
            }
        }
        let bucket = buckets.entry(caller).or_insert(Bucket {
            left: capacity,
            at: now,
        });
        bucket.left = refilled(bucket, capacity, now);
        bucket.at = now;
        if bucket.left < 1.0 {
            return false;
        }
        bucket.left -= 1.0;
        true
    }
}

/// The runs `b` holds at `now`: what it had, plus a minute's allowance per
/// minute since, up to `capacity`.
fn refilled(b: &Bucket, capacity: f64, now: Instant) -> f64 {
    let minutes = now.duration_since(b.at).as_secs_f64() / 60.0;
    (b.left + minutes * capacity).min(capacity)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_caller_past_its_allowance_is_stopped_and_another_is_not() {
        let allowance = Allowance::new(2);
        let (a, b) = (Secret::from("token-a"), Secret::from("token-b"));
        assert!(allowance.take(Some(&a)) && allowance.take(Some(&a)));
        assert!(!allowance.take(Some(&a)), "a's third run in the minute");
        assert!(allowance.take(Some(&b)), "b has its own allowance");
        assert!(
            allowance.take(None),
            "callers without a token are not told apart"
        );
        assert!(Allowance::new(0).take(Some(&a)), "0: no limit");
    }

    #[test]
    fn the_table_forgets_callers_whose_allowance_is_whole_again() {
        let allowance = Allowance::new(1);
        {
            let mut buckets = allowance.buckets.lock().unwrap();
            let long_ago = Instant::now() - Duration::from_secs(120);
            for i in 0..MAX_CALLERS {
                let key: [u8; 32] = Sha256::digest(i.to_le_bytes()).into();
                buckets.insert(
                    key,
                    Bucket {
                        left: 0.0,
                        at: long_ago,
                    },
                );
            }
        }
        let c = Secret::from("token-c");
        assert!(allowance.take(Some(&c)));
        assert!(!allowance.take(Some(&c)), "c is tracked");
        assert_eq!(
            allowance.buckets.lock().unwrap().len(),
            1,
            "the refilled were forgotten"
        );
    }
}
