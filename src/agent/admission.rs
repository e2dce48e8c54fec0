//! Admission of suggestions runs: how many run at once (bounded by the
//! memory budget, `server.runs_in_flight_bound()`), a short wait for a slot,
//! the cheaper fallback past three quarters of the bound, and beyond it a
//! refusal that says when to come back.
//!
//! A semaphore, not tower's `ConcurrencyLimit` and `LoadShed` layers: runs
//! start at three doors (both HTTP routes, and `/mcp`'s `get_suggestions`
//! inside rmcp's service, where no tower layer sees them), the wait for a
//! slot is bounded (tower's limit waits without bound; its load shedding does
//! not wait at all), and the brownout needs the number of runs in flight.

use std::{
    hash::{BuildHasher, Hasher},
    sync::Arc,
    time::Duration,
};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::metrics::{Admitted, Metrics, RunInFlight};

/// The slots of suggestions runs.
pub struct Admission {
    slots: Arc<Semaphore>,
    bound: usize,
    /// Past this many runs in flight, new runs take the fallback.
    soft: usize,
    wait: Duration,
    metrics: Metrics,
}

/// A run's slot, held until the run is over.
pub struct Ticket {
    _slot: OwnedSemaphorePermit,
    _counted: RunInFlight,
    /// Admitted past the soft threshold: the run takes the fallback.
    pub(super) brownout: bool,
}

/// No slot was free in time: the caller should come back after
/// `retry_after_secs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overloaded {
    pub retry_after_secs: u64,
}

impl Admission {
    /// At most `bound` runs at once, a run waiting up to `wait` for a slot.
    pub fn new(bound: usize, wait: Duration, metrics: Metrics) -> Self {
        let bound = bound.max(1);
        Self {
            slots: Arc::new(Semaphore::new(bound)),
            bound,
            soft: (bound * 3 / 4).max(1),
            wait,
            metrics,
        }
    }

    /// Admits every run (tests; the app sets its bound).
    pub fn unbounded() -> Self {
        Self::new(Semaphore::MAX_PERMITS, Duration::ZERO, Metrics::default())
    }

    /// Runs in flight now.
    pub fn in_flight(&self) -> usize {
        self.bound - self.slots.available_permits()
    }

    /// A slot for a run, waiting for one at most the admission wait.
    pub async fn admit(&self) -> Result<Ticket, Overloaded> {
        let slot = match self.slots.clone().try_acquire_owned() {
            Ok(slot) => Some(slot),
            Err(_) => tokio::time::timeout(self.wait, self.slots.clone().acquire_owned())
                .await
                .ok()
                .and_then(Result::ok),
        };
        let Some(slot) = slot else {
            self.metrics.admission(Admitted::Shed);
            return Err(Overloaded::jittered());
        };
        let brownout = self.in_flight() > self.soft;
        self.metrics.admission(if brownout {
            Admitted::Degraded
        } else {
            Admitted::Agent
        });
        Ok(Ticket {
            _slot: slot,
            _counted: self.metrics.run_started(),
            brownout,
        })
    }
}

impl Overloaded {
    /// Come back in 1 to 3 s, at random, so that refused clients do not all
    /// return in the same second.
    fn jittered() -> Self {
        // A fresh `RandomState` is randomly keyed: std's randomness, no crate.
        let random = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        Self {
            retry_after_secs: 1 + random % 3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn past_three_quarters_runs_are_cheaper_and_beyond_the_bound_refused_with_a_retry_time() {
        let admission = Admission::new(4, Duration::from_millis(10), Metrics::default());
        let mut held = Vec::new();
        for _ in 0..3 {
            let ticket = admission.admit().await.unwrap();
            assert!(!ticket.brownout);
            held.push(ticket);
        }
        let fourth = admission.admit().await.unwrap();
        assert!(fourth.brownout, "past 3 of 4: the fallback");
        let refused = admission.admit().await.err().expect("full");
        assert!((1..=3).contains(&refused.retry_after_secs));
        assert_eq!(admission.in_flight(), 4);
        drop(fourth);
        held.pop();
        let again = admission.admit().await.unwrap();
        assert!(!again.brownout, "as load falls, the agent path returns");
        assert_eq!(admission.in_flight(), 3);
    }

    #[tokio::test]
    async fn a_run_waits_for_a_slot_freed_within_the_admission_wait() {
        let admission = Arc::new(Admission::new(
            1,
            Duration::from_secs(5),
            Metrics::default(),
        ));
        let held = admission.admit().await.unwrap();
        let waiting = tokio::spawn({
            let admission = admission.clone();
            async move { admission.admit().await.is_ok() }
        });
        tokio::task::yield_now().await;
        drop(held);
        assert!(waiting.await.unwrap(), "admitted once the slot was free");
    }
}
