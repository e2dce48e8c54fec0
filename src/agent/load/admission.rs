//! Admission of suggestions runs: how many run at once (bounded by the
//! memory budget, `server.runs_in_flight_bound()`), a short wait for a slot,
//! the cheaper fallback past three quarters of the bound, and beyond it a
//! refusal that says when to come back: within a window that widens as
//! refusals outnumber the runs that finish, so refused clients come back
//! about as fast as slots free up, not in a storm of refusals.
//!
//! A semaphore, not tower's `ConcurrencyLimit` and `LoadShed` layers: runs
//! start at three doors (both HTTP routes, and `/mcp`'s `get_suggestions`
//! inside rmcp's service, where no tower layer sees them), the wait for a
//! slot is bounded (tower's limit waits without bound; its load shedding does
//! not wait at all), and the brownout needs the number of runs in flight.

use std::{
    hash::{BuildHasher, Hasher},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use tokio::{
    sync::{OwnedSemaphorePermit, Semaphore},
    time::Instant,
};

use crate::metrics::{Admitted, Metrics, RunInFlight};

/// The slots of suggestions runs.
pub struct Admission {
    slots: Arc<Semaphore>,
    bound: usize,
    /// Past this many runs in flight, new runs take the fallback.
    soft: usize,
    wait: Duration,
    metrics: Metrics,
    pace: Arc<Pace>,
}

/// A run's slot, held until the run is over.
pub struct Ticket {
    _slot: OwnedSemaphorePermit,
    _counted: RunInFlight,
    pace: Arc<Pace>,
    /// Admitted past the soft threshold: the run takes the fallback.
    pub(in crate::agent) brownout: bool,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.pace.finished.fetch_add(1, Ordering::Relaxed);
    }
}

/// The shortest and the longest window refused clients are told to come
/// back within, in seconds.
const SPREAD_SECS: (u64, u64) = (3, 30);

/// How far refusals outrun the runs that finish: the window the next
/// refusals' `Retry-After` is drawn from.
struct Pace {
    /// Runs finished since start-up.
    finished: AtomicU64,
    /// Touched by refusals only: nothing on an admitted run's path waits on it.
    window: Mutex<Window>,
}

/// The refusals since `started`, the finished-run count then, and the
/// window they were given; a new one starts with the first refusal a
/// second or more after `started`.
struct Window {
    started: Instant,
    finished_before: u64,
    refused: u64,
    spread_secs: u64,
}

impl Pace {
    fn new() -> Self {
        Self {
            finished: AtomicU64::new(0),
            window: Mutex::new(Window {
                started: Instant::now(),
                finished_before: 0,
                refused: 0,
                spread_secs: SPREAD_SECS.0,
            }),
        }
    }

    /// The window, in seconds, for a refusal now; at most once a second it
    /// is set again from the last second's refusals and finished runs.
    fn spread_for_refusal(&self) -> u64 {
        let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
        let elapsed = w.started.elapsed();
        if elapsed >= Duration::from_secs(1) {
            let finished_now = self.finished.load(Ordering::Relaxed);
            let secs = elapsed.as_secs_f64();
            let refused = w.refused as f64 / secs;
            let finished = finished_now.saturating_sub(w.finished_before) as f64 / secs;
            *w = Window {
                started: Instant::now(),
                finished_before: finished_now,
                refused: 0,
                spread_secs: next_spread(w.spread_secs, elapsed.as_secs(), refused, finished),
            };
        }
        w.refused += 1;
        w.spread_secs
    }
}

/// The next window, from the last one (`spread`, in seconds), the seconds
/// since it was set, and the rates of refusals and finished runs per second
/// over them. The clients waiting to come back are about the refusals times
/// their mean wait (Little's law); spread over `waiting / finished` seconds
/// they come back about as fast as slots free up. The window widens at once
/// and narrows by a second per second, so that one quiet second does not
/// call every waiting client back at once.
fn next_spread(spread: u64, elapsed_secs: u64, refused_per_sec: f64, finished_per_sec: f64) -> u64 {
    let waiting = refused_per_sec * (1 + spread) as f64 / 2.0;
    let needed = (waiting / finished_per_sec.max(1.0)).ceil() as u64;
    needed
        .max(spread.saturating_sub(elapsed_secs))
        .clamp(SPREAD_SECS.0, SPREAD_SECS.1)
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
            pace: Arc::new(Pace::new()),
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

    /// Past the soft threshold now: new runs take the fallback.
    pub fn browned_out(&self) -> bool {
        self.in_flight() > self.soft
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
            return Err(Overloaded::within(self.pace.spread_for_refusal()));
        };
        let brownout = self.browned_out();
        self.metrics.admission(if brownout {
            Admitted::Degraded
        } else {
            Admitted::Agent
        });
        Ok(Ticket {
            _slot: slot,
            _counted: self.metrics.run_started(),
            pace: self.pace.clone(),
            brownout,
        })
    }
}

impl Overloaded {
    /// Come back in 1 to `spread_secs` s, at random, so that refused clients
    /// do not all return in the same second.
    fn within(spread_secs: u64) -> Self {
        // A fresh `RandomState` is randomly keyed: std's randomness, no crate.
        let random = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        Self {
            retry_after_secs: 1 + random % spread_secs.max(1),
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

    /// `Retry-After` values of `n` refusals now (the service is full).
    async fn refusals(admission: &Admission, n: usize) -> Vec<u64> {
        let mut secs = Vec::new();
        for _ in 0..n {
            let refused = admission.admit().await.err().expect("full");
            secs.push(refused.retry_after_secs);
        }
        secs
    }

    #[tokio::test(start_paused = true)]
    async fn refused_clients_are_sent_further_off_while_refusals_outrun_finished_runs() {
        let admission = Admission::new(1, Duration::ZERO, Metrics::default());
        let held = admission.admit().await.unwrap();
        let first = refusals(&admission, 50).await;
        assert!(first.iter().all(|s| (1..=3).contains(s)), "{first:?}");

        // A second with 50 refusals and no run finished: come back later.
        tokio::time::advance(Duration::from_secs(1)).await;
        let storm = refusals(&admission, 200).await;
        assert!(storm.iter().all(|s| (1..=30).contains(s)), "{storm:?}");
        assert!(storm.iter().any(|s| *s > 3), "{storm:?}");

        // Runs finish far faster than clients are refused, and a minute
        // passes: back to 1 to 3 s.
        drop(held);
        for _ in 0..10_000 {
            drop(admission.admit().await.unwrap());
        }
        let _held = admission.admit().await.unwrap();
        tokio::time::advance(Duration::from_secs(60)).await;
        let calm = refusals(&admission, 50).await;
        assert!(calm.iter().all(|s| (1..=3).contains(s)), "{calm:?}");
    }

    #[test]
    fn the_window_fits_the_waiting_clients_to_the_finished_runs() {
        // Fewer refused than finished: 1 to 3 s, as without pressure.
        assert_eq!(next_spread(3, 1, 100.0, 800.0), 3);
        // 3,200 refused a second told 1-3 s (2 s on average): ~6,400
        // waiting, 800 runs finishing a second: 8 s.
        assert_eq!(next_spread(3, 1, 3_200.0, 800.0), 8);
        // Nothing finishing: the longest window.
        assert_eq!(next_spread(3, 1, 100.0, 0.0), 30);
        // Narrowing: a second at a time, however calm the second.
        assert_eq!(next_spread(20, 1, 0.0, 800.0), 19);
        assert_eq!(next_spread(20, 30, 0.0, 800.0), 3);
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
