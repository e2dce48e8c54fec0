//! The post index wrapped so that every post written or removed drops its
//! cached panels.

use std::sync::Arc;

use super::PanelCache;
use crate::store::{Index, Knowledge, Vector};

/// The post index, telling the cache of every post written or removed
/// (here or, on PostgreSQL, on another replica through the change feed):
/// its panels go at once.
pub struct Invalidating {
    pub inner: Arc<dyn Index>,
    pub cache: PanelCache,
}

impl Index for Invalidating {
    fn loader(self: Arc<Self>) -> Box<dyn crate::store::Loader> {
        self.inner.clone().loader()
    }

    fn index(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
        self.inner.index(id, text, expires_at_ms, vector);
        self.cache.invalidate_post(id);
    }

    fn refresh(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
        self.inner.refresh(id, text, expires_at_ms, vector);
        self.cache.invalidate_post(id);
    }

    fn set_vector(&self, id: String, text: &str, expires_at_ms: Option<i64>, vector: Vec<f32>) {
        self.inner.set_vector(id, text, expires_at_ms, vector);
    }

    fn remove(&self, ids: &[&str]) {
        self.inner.remove(ids);
        for id in ids {
            self.cache.invalidate_post(id);
        }
    }

    fn posts(&self) -> usize {
        self.inner.posts()
    }

    fn vector_model(&self) -> Option<String> {
        self.inner.vector_model()
    }

    /// Panels that may show these shares are other posts': they are left
    /// to expire (`cache.ttl_s`).
    fn set_knowledge(&self, id: &str, expires_at_ms: Option<i64>, knowledge: Knowledge) {
        self.inner.set_knowledge(id, expires_at_ms, knowledge);
    }
}
