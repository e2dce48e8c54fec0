//! Who a tool call is made for: the caller's Graph token, the requesting
//! post and when its answer is due — the only state the tool server keeps,
//! and only for the call's duration. In-process, each request registers its
//! [`Caller`] and names it in each call's `_meta`; over `/mcp` the caller
//! comes from the HTTP request.

use std::collections::HashMap;
use std::sync::{
    Arc, Mutex, MutexGuard,
    atomic::{AtomicU32, Ordering},
};

use tokio::time::Instant;

use crate::settings::Secret;

/// The caller's context of a tool call.
#[derive(Debug, Default)]
pub struct Caller {
    graph_token: Option<Secret>,
    /// The requesting post: never among the similar posts.
    pub post_id: Option<String>,
    /// Graph requests its searches may still make (None: no limit).
    graph_budget: Option<GraphBudget>,
    /// When the caller's answer is due (the run's deadline; None over `/mcp`).
    deadline: Option<Instant>,
    /// The service is overloaded (brownout): searches spend no CPU on new
    /// texts' vectors.
    overloaded: bool,
}

impl Caller {
    pub fn new(graph_token: Option<Secret>, post_id: Option<String>) -> Self {
        Self {
            graph_token,
            post_id,
            graph_budget: None,
            deadline: None,
            overloaded: false,
        }
    }

    /// Says the service is overloaded (`overloaded` true): searches rank a
    /// text the multilingual model has not seen by words.
    pub fn with_overload(mut self, overloaded: bool) -> Self {
        self.overloaded = overloaded;
        self
    }

    /// Whether the service is overloaded.
    pub fn overloaded(&self) -> bool {
        self.overloaded
    }

    /// The time the caller's answer is due: a search finishes before it
    /// with what it has, rather than wait for a slow upstream past it.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// When the caller's answer is due, if it said.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Limits the Graph requests this caller's searches make, broadened
    /// retries included (each counts against the user's and the tenant's
    /// Graph throttling).
    pub fn with_graph_budget(mut self, budget: GraphBudget) -> Self {
        self.graph_budget = Some(budget);
        self
    }

    /// The caller's Graph token: only for the Graph client.
    pub fn graph_token(&self) -> Option<&Secret> {
        self.graph_token.as_ref()
    }

    /// Takes `requests` from the caller's Graph budget; false (nothing
    /// taken) when it has fewer left.
    pub fn take_graph_requests(&self, requests: u32) -> bool {
        self.graph_budget.as_ref().is_none_or(|b| b.take(requests))
    }
}

/// Graph requests left for a panel, shared by the run that sets it and the
/// tool calls that spend it.
#[derive(Debug, Clone)]
pub struct GraphBudget(Arc<AtomicU32>);

impl GraphBudget {
    pub fn new(requests: u32) -> Self {
        Self(Arc::new(AtomicU32::new(requests)))
    }

    /// Takes `n` requests when that many are left.
    pub fn take(&self, n: u32) -> bool {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                left.checked_sub(n)
            })
            .is_ok()
    }

    /// Lowers what is left to at most `n`.
    pub fn cap(&self, n: u32) {
        self.0.fetch_min(n, Ordering::AcqRel);
    }

    /// Takes what is left above `keep` out of the budget (returned by
    /// [`Self::give_back`]), so the next searches can spend `keep` at most.
    pub fn set_aside(&self, keep: u32) -> u32 {
        let before = self.0.fetch_min(keep, Ordering::AcqRel);
        before.saturating_sub(keep)
    }

    /// Returns `n` requests set aside.
    pub fn give_back(&self, n: u32) {
        self.0.fetch_add(n, Ordering::AcqRel);
    }

    /// Requests left.
    pub fn left(&self) -> u32 {
        self.0.load(Ordering::Acquire)
    }
}

/// The `_meta` key that names the registered caller of an in-process call.
pub const SESSION_META_KEY: &str = "linkup/session";

/// The registered callers of the in-process connection, by session id.
#[derive(Default)]
pub struct SessionRegistry {
    sessions: Mutex<HashMap<String, Arc<Caller>>>,
}

impl SessionRegistry {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<Caller>>> {
        // Each method is one map operation: a poisoned lock is still consistent.
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn get(&self, id: &str) -> Option<Arc<Caller>> {
        self.lock().get(id).cloned()
    }

    /// Registers `caller` under a new random id until the guard is dropped.
    pub fn register(self: &Arc<Self>, caller: Caller) -> Registered {
        let id = uuid::Uuid::new_v4().to_string();
        self.lock().insert(id.clone(), Arc::new(caller));
        Registered {
            registry: self.clone(),
            id,
        }
    }
}

/// A registered caller; unregistered when dropped.
pub struct Registered {
    registry: Arc<SessionRegistry>,
    id: String,
}

impl Registered {
    /// The id tool calls name in their `_meta`.
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// Slots the registry keeps when it empties; a burst's table (~160 KB at
/// 1,000 runs) goes.
const KEPT_WHEN_EMPTY: usize = 64;

impl Drop for Registered {
    fn drop(&mut self) {
        let mut sessions = self.registry.lock();
        sessions.remove(&self.id);
        if sessions.is_empty() && sessions.capacity() > KEPT_WHEN_EMPTY {
            sessions.shrink_to(KEPT_WHEN_EMPTY);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_lets_a_bursts_table_go_when_it_empties() {
        let registry = Arc::new(SessionRegistry::default());
        let burst: Vec<_> = (0..1000)
            .map(|_| registry.register(Caller::default()))
            .collect();
        let last = burst.into_iter().next();
        let kept = registry.lock().capacity();
        assert!(kept >= 1000, "kept while in use: {kept}");
        drop(last);
        assert!(registry.lock().is_empty());
        assert!(registry.lock().capacity() < 2 * KEPT_WHEN_EMPTY);
    }

    #[test]
    fn a_graph_budget_is_spent_whole_requests_at_a_time_and_can_be_lowered() {
        let budget = GraphBudget::new(6);
        let caller = Caller::new(None, None).with_graph_budget(budget.clone());
        assert!(caller.take_graph_requests(2) && caller.take_graph_requests(2));
        budget.cap(1);
        assert!(
            !caller.take_graph_requests(2),
            "one left: not a whole search"
        );
        assert_eq!(budget.left(), 1);
        assert!(
            Caller::new(None, None).take_graph_requests(100),
            "no budget: no limit"
        );
    }

    #[test]
    fn requests_set_aside_cannot_be_spent_until_given_back() {
        let budget = GraphBudget::new(6);
        let aside = budget.set_aside(2);
        assert_eq!(aside, 4);
        assert!(budget.take(2), "one search");
        assert!(!budget.take(2), "no broadened retry: the rest is set aside");
        budget.give_back(aside);
        assert_eq!(budget.left(), 4, "the model's two searches");
        assert_eq!(
            GraphBudget::new(1).set_aside(2),
            0,
            "nothing above what is kept"
        );
    }
}
