//! This replica's mirror of the live posts: the index the store keeps in
//! step, the posts' bodies (searches read them from memory), and how far
//! the change feed was applied.

use std::{
    collections::HashMap,
    hash::{BuildHasher, RandomState},
    sync::{
        Arc, RwLock,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use tokio::sync::watch;
use tokio_postgres::Row;

use crate::{
    contract::PostSummary,
    store::{Index, Knowledge, Vector, records::decode},
};

/// How long a write waits for this replica's index to show it.
const APPLY_WAIT: Duration = Duration::from_secs(2);

/// This replica's copy of the live posts: the index and the bodies.
pub(super) struct Mirror {
    pub(super) index: Arc<dyn Index>,
    pub(super) bodies: RwLock<HashMap<String, Body>>,
    /// The listening connection is up and has caught up.
    pub(super) connected: AtomicBool,
    /// The last change number applied.
    pub(super) applied: watch::Sender<i64>,
    /// Hashes search texts (whether a change changed the text).
    pub(super) text_hashes: RandomState,
    /// The index's vector model: the only vectors it is given.
    pub(super) model: Option<String>,
}

/// A post's JSON and expiry, and a hash of its search text.
pub(super) struct Body {
    pub(super) expires_at_ms: Option<i64>,
    pub(super) text_hash: u64,
    pub(super) json: Box<str>,
}

impl Mirror {
    pub fn new(index: Arc<dyn Index>) -> Self {
        Self {
            model: index.vector_model(),
            index,
            bodies: RwLock::default(),
            connected: AtomicBool::default(),
            applied: watch::Sender::default(),
            text_hashes: RandomState::default(),
        }
    }

    /// Posts indexed.
    pub fn len(&self) -> usize {
        self.index.posts()
    }

    /// Whether the listening connection is up and has caught up (else the
    /// index may miss other replicas' writes).
    pub fn connected(&self) -> bool {
        self.connected.load(Ordering::Relaxed)
    }

    /// The posts with these ids live at `now_ms`, in this order.
    pub fn get_many(&self, ids: &[String], now_ms: i64) -> Vec<PostSummary> {
        let Ok(bodies) = self.bodies.read() else {
            return Vec::new();
        };
        ids.iter()
            .filter_map(|id| bodies.get(id))
            .filter(|b| b.expires_at_ms.is_none_or(|e| e > now_ms))
            .filter_map(|b| serde_json::from_str(&b.json).ok())
            .collect()
    }

    /// A stored vector, when the index's model computed it.
    pub fn vector(&self, blob: Option<&[u8]>, model: Option<&str>) -> Option<Vec<f32>> {
        let ours = self.model.is_some() && model == self.model.as_deref();
        blob.filter(|_| ours).map(decode)
    }

    /// Applies one changed row (see `CHANGES_AFTER_SEQ`).
    pub fn apply(&self, row: &Row) {
        let id: String = row.get(0);
        let Ok(mut bodies) = self.bodies.write() else {
            return;
        };
        if row.get::<_, bool>(2) {
            self.index.remove(&[id.as_str()]);
            bodies.remove(&id);
            return;
        }
        let (json, text): (String, String) = (row.get(3), row.get(4));
        let expires_at_ms: Option<i64> = row.get(5);
        let vector = match self.vector(row.get(6), row.get(7)) {
            Some(v) => Vector::Set(v),
            None => Vector::Drop,
        };
        let text_hash = self.text_hashes.hash_one(&text);
        // Most changes leave the text as it was (a vector, counts): the
        // text index is only rewritten when it changed.
        if bodies.get(&id).is_some_and(|b| b.text_hash == text_hash) {
            self.index.refresh(&id, &text, expires_at_ms, vector);
        } else {
            self.index.index(&id, &text, expires_at_ms, vector);
        }
        let knowledge = Knowledge::from_column(row.get::<_, Option<&str>>(8));
        self.index.set_knowledge(&id, expires_at_ms, knowledge);
        bodies.insert(
            id,
            Body {
                expires_at_ms,
                text_hash,
                json: json.into(),
            },
        );
    }

    /// Waits (a little) until this replica has applied change `seq`.
    pub async fn wait_applied(&self, seq: i64) {
        if !self.connected.load(Ordering::Relaxed) {
            return;
        }
        let mut applied = self.applied.subscribe();
        let _ = tokio::time::timeout(APPLY_WAIT, applied.wait_for(|a| *a >= seq)).await;
    }
}
