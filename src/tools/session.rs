//! Server-side state of one MCP session (one request): the caller's Graph
//! token, the requesting post, and every result collected so far with its `ref`.

use std::collections::HashMap;
use std::sync::{
    Arc, Mutex, MutexGuard,
    atomic::{AtomicBool, Ordering},
};

use crate::{
    contract::{McpSuggestion, PostSummary},
    degraded::Degraded,
    settings::Secret,
};

/// A source of the panel, as named in `unavailableSources`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    M365,
    Posts,
    ActionHint,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::M365 => "m365",
            Self::Posts => "posts",
            Self::ActionHint => "actionHint",
        }
    }
}

/// Results of this session, in collection order, deduplicated.
#[derive(Debug, Default, Clone)]
pub struct Collected {
    /// (`m1`, …) Microsoft 365 items.
    pub m365: Vec<(String, McpSuggestion)>,
    /// (`p1`, …) LinkUp posts.
    pub posts: Vec<(String, PostSummary)>,
    /// The last hint written by `generate_action_hint`.
    pub hint: Option<String>,
    /// Sources a call of which failed, timed out or could not be made.
    pub lost: Vec<Source>,
    /// Sources a call of which answered (with results or with none).
    pub answered: Vec<Source>,
    /// Reasons for `meta.degraded`.
    pub degraded: Vec<Degraded>,
}

/// The `_meta` key that names the session of a tool call.
pub const SESSION_META_KEY: &str = "linkup/session";

/// The live sessions, by id (server-side state of the long-lived MCP server).
#[derive(Default)]
pub struct SessionRegistry {
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

impl SessionRegistry {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.lock().get(id).cloned()
    }

    /// Registers a session until the returned guard is dropped.
    pub fn register(self: &Arc<Self>, session: Arc<Session>) -> Registered {
        self.lock().insert(session.id.clone(), session.clone());
        Registered {
            registry: self.clone(),
            id: session.id.clone(),
        }
    }

    /// Number of live sessions.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Keeps a session registered; unregisters it when dropped.
pub struct Registered {
    registry: Arc<SessionRegistry>,
    id: String,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.registry.lock().remove(&self.id);
    }
}

/// One request's session. Shared by the MCP server (tools write) and the
/// orchestrator (reads the collected results to build the response).
pub struct Session {
    /// Random id, named in each tool call's `_meta`.
    pub id: String,
    graph_token: Option<Secret>,
    pub post_id: String,
    pub post_text: String,
    collected: Mutex<Collected>,
    /// Set once the LLM failed in this request: tools then stop calling it.
    llm_disabled: AtomicBool,
    /// Set once a posts search of this request finished (found or failed).
    posts_searched: AtomicBool,
}

impl Session {
    pub fn new(graph_token: Option<Secret>, post_id: String, post_text: String) -> Arc<Self> {
        Arc::new(Self {
            id: uuid::Uuid::new_v4().to_string(),
            graph_token,
            post_id,
            post_text,
            collected: Mutex::default(),
            llm_disabled: AtomicBool::new(false),
            posts_searched: AtomicBool::new(false),
        })
    }

    /// The caller's Graph token: only for the Graph client.
    pub fn graph_token(&self) -> Option<&Secret> {
        self.graph_token.as_ref()
    }

    fn lock(&self) -> MutexGuard<'_, Collected> {
        // A panic while holding this lock cannot leave it half-written (each
        // method is a few pushes), so a poisoned lock is still usable.
        self.collected.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stops tools of this session from calling the LLM (it just failed).
    pub fn disable_llm(&self) {
        self.llm_disabled.store(true, Ordering::Relaxed);
    }

    /// Whether tools may call the LLM.
    pub fn llm_allowed(&self) -> bool {
        !self.llm_disabled.load(Ordering::Relaxed)
    }

    /// Records that a posts search of this request finished.
    pub fn mark_posts_searched(&self) {
        self.posts_searched.store(true, Ordering::Relaxed);
    }

    /// Records that `source` answered (found something or nothing): it is
    /// not unavailable, whatever other calls to it lost.
    pub fn mark_answered(&self, source: Source) {
        let mut c = self.lock();
        if !c.answered.contains(&source) {
            c.answered.push(source);
        }
    }

    /// Whether a call to `source` answered in this request.
    pub fn answered(&self, source: Source) -> bool {
        self.lock().answered.contains(&source)
    }

    /// Whether a posts search of this request finished.
    pub fn posts_searched(&self) -> bool {
        self.posts_searched.load(Ordering::Relaxed)
    }

    /// A copy of everything collected so far.
    pub fn snapshot(&self) -> Collected {
        self.lock().clone()
    }

    /// Everything collected so far, leaving the session empty.
    pub fn take_collected(&self) -> Collected {
        std::mem::take(&mut *self.lock())
    }

    /// Adds Microsoft 365 items, merging duplicates (normalised URL, else
    /// case-folded title; the longer description wins). Returns their refs.
    pub fn add_m365(&self, items: Vec<McpSuggestion>) -> Vec<String> {
        let mut c = self.lock();
        items
            .into_iter()
            .map(|item| {
                let existing = c.m365.iter_mut().find(|(_, old)| same_document(old, &item));
                match existing {
                    Some((r, old)) => {
                        if item.description.chars().count() > old.description.chars().count() {
                            *old = item;
                        }
                        r.clone()
                    }
                    None => {
                        let r = format!("m{}", c.m365.len() + 1);
                        c.m365.push((r.clone(), item));
                        r
                    }
                }
            })
            .collect()
    }

    /// Adds posts, merging by id. Returns their refs.
    pub fn add_posts(&self, posts: Vec<PostSummary>) -> Vec<String> {
        let mut c = self.lock();
        posts
            .into_iter()
            .map(|post| match c.posts.iter().find(|(_, p)| p.id == post.id) {
                Some((r, _)) => r.clone(),
                None => {
                    let r = format!("p{}", c.posts.len() + 1);
                    c.posts.push((r.clone(), post));
                    r
                }
            })
            .collect()
    }

    pub fn set_hint(&self, hint: Option<String>) {
        self.lock().hint = hint;
    }

    /// Whether `reason` is among the degradations so far.
    pub fn has_degraded(&self, reason: Degraded) -> bool {
        self.lock().degraded.contains(&reason)
    }

    /// Whether a call to `source` was lost.
    pub fn is_lost(&self, source: Source) -> bool {
        self.lock().lost.contains(&source)
    }

    /// Records that a call to `source` was lost (failed, timed out, over its
    /// size cap, or could not be made), with a reason for `meta.degraded`.
    /// The source is unavailable unless another call to it answered.
    pub fn mark_lost(&self, source: Source, reason: Degraded) {
        let mut c = self.lock();
        if !c.lost.contains(&source) {
            c.lost.push(source);
        }
        push_unique(&mut c.degraded, reason);
    }

    /// Records a degradation that left the source usable.
    pub fn degrade(&self, reason: Degraded) {
        push_unique(&mut self.lock().degraded, reason);
    }
}

fn push_unique(list: &mut Vec<Degraded>, item: Degraded) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn same_document(a: &McpSuggestion, b: &McpSuggestion) -> bool {
    match (normalise_url(&a.url), normalise_url(&b.url)) {
        (Some(x), Some(y)) => x == y,
        _ => a.title.to_lowercase() == b.title.to_lowercase(),
    }
}

/// Lower-cased URL without fragment or trailing slash (SharePoint paths are
/// case-insensitive); None when empty.
fn normalise_url(url: &str) -> Option<String> {
    let url = url.trim();
    let url = url.split('#').next().unwrap_or(url).trim_end_matches('/');
    (!url.is_empty()).then(|| url.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::M365Source;

    fn doc(title: &str, url: &str, description: &str) -> McpSuggestion {
        McpSuggestion {
            title: title.into(),
            url: url.into(),
            description: description.into(),
            source_type: "m365".into(),
            source: M365Source::Sharepoint,
            status: "available".into(),
        }
    }

    #[test]
    fn duplicate_urls_merge_and_the_longer_description_wins() {
        let s = Session::new(None, "p".into(), "t".into());
        let refs1 = s.add_m365(vec![doc("Guide", "https://x.sharepoint.com/a/", "short")]);
        let refs2 = s.add_m365(vec![
            doc(
                "Guide v2",
                "HTTPS://x.sharepoint.com/a#top",
                "a much longer description",
            ),
            doc("Other", "https://x.sharepoint.com/b", ""),
        ]);
        assert_eq!(refs1, vec!["m1"]);
        assert_eq!(refs2, vec!["m1", "m2"]);
        let c = s.snapshot();
        assert_eq!(c.m365.len(), 2);
        assert_eq!(c.m365[0].1.description, "a much longer description");
    }

    #[test]
    fn items_without_url_merge_by_case_folded_title() {
        let s = Session::new(None, "p".into(), "t".into());
        s.add_m365(vec![doc("Runbook", "", "one"), doc("RUNBOOK", "", "two")]);
        assert_eq!(s.snapshot().m365.len(), 1);
    }
}
