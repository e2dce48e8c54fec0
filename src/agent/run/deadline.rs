//! A run's time, each share stated once: when its answer is due (from the
//! request's arrival), when the model must have answered (leaving the
//! direct searches their reserve), the model's fair share, how long the
//! first searches may hold the model back, how long an identical request
//! waits for a shared run, and when an answer counts as late.

use std::time::Duration;

use tokio::time::Instant;

/// The reserve left after the model's last call, for the direct searches
/// that complete a failed agent run: this share of the run's time...
const DIRECT_RESERVE_SHARE: u32 = 4;
/// ... at most this long.
const DIRECT_RESERVE_MAX: Duration = Duration::from_secs(3);
/// An identical request waits for a shared run this long past its own
/// deadline (the run's answer leaves a few milliseconds after it).
const SHARED_RUN_GRACE: Duration = Duration::from_secs(1);
/// An answer this long past its deadline counts as late (`linkup_run_late`).
const LATE: Duration = Duration::from_millis(50);

/// A run's time: `timeout` (`agent.timeout_ms`) from the request's arrival.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    arrived: Instant,
    timeout: Duration,
}

impl Deadline {
    pub fn new(arrived: Instant, timeout: Duration) -> Self {
        Self { arrived, timeout }
    }

    /// When the answer is due.
    pub fn at(&self) -> Instant {
        self.arrived + self.timeout
    }

    /// When LLM calls must end: the deadline minus the direct searches'
    /// reserve (a quarter of the run's time, at most 3 s).
    pub fn llm_until(&self) -> Instant {
        let reserve = (self.timeout / DIRECT_RESERVE_SHARE).min(DIRECT_RESERVE_MAX);
        self.at() - reserve
    }

    /// Half the model's time: a call cut by [`Self::llm_until`] after it
    /// was given less than this was not the model's failure.
    pub fn llm_fair_time(&self) -> Duration {
        (self.llm_until() - self.arrived) / 2
    }

    /// How long the first searches (pre-retrieval) may hold the model
    /// back: half its fair time; past it the model starts without them.
    pub fn first_searches(&self) -> Duration {
        self.llm_fair_time() / 2
    }

    /// How long an identical request waits for a run already under way.
    pub fn shared_run_until(&self) -> Instant {
        self.at() + SHARED_RUN_GRACE
    }

    /// Whether an answer leaving now is late.
    pub fn is_late(&self) -> bool {
        self.arrived.elapsed() > self.timeout + LATE
    }

    /// Time since the request arrived.
    pub fn elapsed(&self) -> Duration {
        self.arrived.elapsed()
    }

    /// Milliseconds since the request arrived (`meta.elapsedMs`).
    pub fn elapsed_ms(&self) -> u64 {
        self.elapsed().as_millis() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_keeps_a_quarter_of_the_time_for_the_direct_searches_at_most_three_seconds() {
        let now = Instant::now();
        let short = Deadline::new(now, Duration::from_millis(2_000));
        assert_eq!(short.llm_until() - now, Duration::from_millis(1_500));
        assert_eq!(short.llm_fair_time(), Duration::from_millis(750));
        assert_eq!(short.first_searches(), Duration::from_millis(375));
        let long = Deadline::new(now, Duration::from_secs(30));
        assert_eq!(long.llm_until() - now, Duration::from_secs(27));
        assert_eq!(long.shared_run_until() - now, Duration::from_secs(31));
    }
}
