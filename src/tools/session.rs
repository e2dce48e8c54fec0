//! Who a tool call is made for: the caller's Graph token and the requesting
//! post — the only state the tool server keeps, and only for the call's
//! duration. In-process, each request registers its [`Caller`] and names it in
//! each call's `_meta`; over `/mcp` the caller comes from the HTTP request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::settings::Secret;

/// The caller's context of a tool call.
#[derive(Debug, Default)]
pub struct Caller {
    graph_token: Option<Secret>,
    /// The requesting post: never among the similar posts.
    pub post_id: Option<String>,
}

impl Caller {
    pub fn new(graph_token: Option<Secret>, post_id: Option<String>) -> Self {
        Self {
            graph_token,
            post_id,
        }
    }

    /// The caller's Graph token: only for the Graph client.
    pub fn graph_token(&self) -> Option<&Secret> {
        self.graph_token.as_ref()
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

impl Drop for Registered {
    fn drop(&mut self) {
        self.registry.lock().remove(&self.id);
    }
}
