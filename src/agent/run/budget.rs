//! A panel's Microsoft Graph budget, stated once: how many Microsoft 365
//! searches a panel may make, and how many a single course of it may.
//! Each search is two Graph requests (files and mail,
//! [`REQUESTS_PER_SEARCH`]); each counts against the caller's and the
//! tenant's Graph throttling (the TypeScript implementation made 2.0 per
//! fallback panel and 5.3 per agent panel).

use crate::tools::{GraphBudget, REQUESTS_PER_SEARCH};

/// Searches a panel may make: the first searches' one (pre-retrieval) and
/// up to two of the model's, broadened retries included.
const SEARCHES_PER_PANEL: u32 = 3;

/// The Graph requests a panel may make, for a new run.
pub fn panel() -> GraphBudget {
    GraphBudget::new(SEARCHES_PER_PANEL * REQUESTS_PER_SEARCH)
}

/// The Graph requests of one search with no broadened retry: the first
/// searches' (what is left above it is set aside while they run) and the
/// direct searches' (their query is already OR-ed).
pub const ONE_SEARCH: u32 = REQUESTS_PER_SEARCH;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panel_may_make_three_searches_of_two_requests() {
        let budget = panel();
        assert_eq!(budget.left(), 6);
        assert!(budget.take(ONE_SEARCH) && budget.take(ONE_SEARCH) && budget.take(ONE_SEARCH));
        assert!(!budget.take(1));
    }
}
