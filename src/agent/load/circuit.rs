//! Circuit breaker for the LLM: after N consecutive failures the agent is
//! skipped (fallback serves) for a cooldown; the first success closes it.

use std::{
    sync::Mutex,
    time::{Duration, Instant},
};

/// Shared by all requests.
pub struct Circuit {
    threshold: u32,
    cooldown: Duration,
    state: Mutex<(u32, Option<Instant>)>,
}

impl Circuit {
    pub fn new(threshold: u32, cooldown: Duration) -> Self {
        Self {
            threshold,
            cooldown,
            state: Mutex::new((0, None)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (u32, Option<Instant>)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// True while the cooldown after the last trip runs.
    pub fn is_open(&self) -> bool {
        matches!(self.lock().1, Some(until) if Instant::now() < until)
    }

    pub fn record_success(&self) {
        *self.lock() = (0, None);
    }

    /// Counts a failure; trips the breaker at the threshold.
    pub fn record_failure(&self) {
        let mut s = self.lock();
        s.0 += 1;
        if s.0 >= self.threshold {
            s.1 = Some(Instant::now() + self.cooldown);
            s.0 = 0;
            tracing::warn!(
                cooldown_ms = self.cooldown.as_millis() as u64,
                "LLM circuit opened"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_after_the_threshold_and_closes_after_the_cooldown() {
        let c = Circuit::new(2, Duration::from_millis(30));
        c.record_failure();
        assert!(!c.is_open());
        c.record_failure();
        assert!(c.is_open());
        std::thread::sleep(Duration::from_millis(40));
        assert!(!c.is_open());
    }

    #[test]
    fn a_success_resets_the_count() {
        let c = Circuit::new(2, Duration::from_secs(60));
        c.record_failure();
        c.record_success();
        c.record_failure();
        assert!(!c.is_open());
    }
}
