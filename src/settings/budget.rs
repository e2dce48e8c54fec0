//! The memory budget (`server.memory_budget_mb`): how many suggestions runs
//! may be in flight beside the idle process, the panel cache and the open
//! connections.

use super::{CacheSettings, ServerSettings, Settings};

impl Settings {
    /// Suggestions runs in flight at most, the panel cache counted in the
    /// memory budget (see [`ServerSettings::derived_runs_in_flight`]).
    pub fn runs_in_flight_bound(&self) -> usize {
        self.server
            .runs_in_flight_bound(self.cache.resident_bound())
    }
}

impl ServerSettings {
    /// Suggestions runs in flight at most: `max_in_flight`, or what 80 % of
    /// `memory_budget_mb` holds beside the idle process (the local model,
    /// the index, the code: ~64 MiB), the panel cache when full
    /// (`cache_bytes`) and `max_connections` open connections (~20 KiB
    /// each: hyper's buffers and the connection's task), at ~150 KiB a run
    /// (B4 and B14: ~135 KiB per run in flight). `None` when the rest
    /// leaves no room for [`MIN_DERIVED_RUNS`].
    pub fn derived_runs_in_flight(&self, cache_bytes: u64) -> Option<usize> {
        const IDLE_KIB: u64 = 64 * 1024;
        const PER_CONNECTION_KIB: u64 = 20;
        const PER_RUN_KIB: u64 = 150;
        let usable = (self.memory_budget_mb * 1024 * 8 / 10)
            .checked_sub(IDLE_KIB)?
            .checked_sub(cache_bytes.div_ceil(1024))?
            .checked_sub(self.max_connections as u64 * PER_CONNECTION_KIB)?;
        let runs = (usable / PER_RUN_KIB) as usize;
        (runs >= MIN_DERIVED_RUNS).then_some(runs)
    }

    /// Suggestions runs in flight at most: `max_in_flight`, else
    /// [`Self::derived_runs_in_flight`] beside a cache of `cache_bytes`
    /// (validation refused settings without one).
    pub fn runs_in_flight_bound(&self, cache_bytes: u64) -> usize {
        if self.max_in_flight > 0 {
            return self.max_in_flight;
        }
        self.derived_runs_in_flight(cache_bytes)
            .unwrap_or(MIN_DERIVED_RUNS)
    }
}

/// The fewest runs in flight a derived bound may allow: below it the memory
/// budget is too small for the connections it accepts.
pub const MIN_DERIVED_RUNS: usize = 64;

impl CacheSettings {
    /// What the cache may hold in memory: `max_bytes` when it is on.
    pub fn resident_bound(&self) -> u64 {
        if self.enabled { self.max_bytes } else { 0 }
    }
}
