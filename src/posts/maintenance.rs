//! The index's background work: purging expired posts, and embedding posts
//! stored without a vector (or with another model's): by the multilingual
//! model on the blocking pool, or by the Azure embeddings deployment. A
//! post is searchable by words until its vector is stored.

use std::time::Duration;

use super::{Embedder, PostIndex, PostIndexError};
use crate::store::{PendingPost, now_ms};

/// Posts embedded per call to the embeddings deployment.
const EMBED_BATCH: usize = 64;
/// Posts embedded per blocking task by the multilingual model (about 15
/// ms each: a task holds a core for a quarter of a second at most).
const LOCAL_BATCH: usize = 16;

impl PostIndex {
    /// Deletes expired posts; returns how many.
    pub async fn purge_expired(&self) -> Result<usize, PostIndexError> {
        Ok(self.store.purge_expired(now_ms()).await?)
    }

    /// Embeds posts stored without a vector of the index's model; returns
    /// how many got one.
    pub async fn embed_pending(&self) -> usize {
        let _one_pass = self.embedding.lock().await;
        let batch_size = match self.embedder {
            Embedder::None => return 0,
            Embedder::Local => LOCAL_BATCH,
            Embedder::Azure => EMBED_BATCH,
        };
        let mut done = 0;
        loop {
            let batch = match self.store.pending_embeddings(batch_size).await {
                Ok(batch) if !batch.is_empty() => batch,
                Ok(_) => return done,
                Err(e) => {
                    tracing::warn!(error.message = %e, "post embedding deferred");
                    return done;
                }
            };
            let Some(vectors) = self.embed_batch(&batch).await else {
                return done;
            };
            let full = batch.len() == batch_size;
            match self
                .store
                .set_embeddings(batch.into_iter().zip(vectors).collect())
                .await
            {
                Ok(stored) => done += stored,
                Err(e) => {
                    tracing::warn!(error.message = %e, "post vectors not stored");
                    return done;
                }
            }
            if !full {
                return done;
            }
        }
    }

    /// The vectors of `batch`'s texts by the stored vectors' model; None
    /// (logged) when they could not be computed now.
    async fn embed_batch(&self, batch: &[PendingPost]) -> Option<Vec<Vec<f32>>> {
        let model = self.stored.as_ref()?;
        let texts: Vec<&str> = batch.iter().map(|(_, text, _)| text.as_str()).collect();
        // A vector of another size than the model's is never stored (an
        // Azure deployment answering other `dimensions` than asked).
        let sized = |v: &Vec<Vec<f32>>| model.dims().is_none_or(|d| v.iter().all(|v| v.len() == d));
        match model.embed(&texts, None).await {
            Ok(v) if !sized(&v) => {
                tracing::warn!(error.kind = "malformed_response", "post embedding deferred");
                None
            }
            Ok(v) => {
                if self.embedder == Embedder::Local {
                    self.metrics.local_embeddings("post", v.len() as u64);
                }
                Some(v)
            }
            Err(e) => {
                tracing::warn!(
                    error.kind = e.kind_str(),
                    pending = batch.len(),
                    "post embedding deferred"
                );
                None
            }
        }
    }

    /// Runs purging and deferred embedding in the background until dropped.
    pub fn spawn_maintenance(
        &self,
        purge_every: Duration,
        embed_every: Duration,
    ) -> tokio::task::JoinHandle<()> {
        let index = self.clone();
        tokio::spawn(async move {
            let mut purge = tokio::time::interval(purge_every);
            let mut embed = tokio::time::interval(embed_every);
            loop {
                tokio::select! {
                    _ = purge.tick() => match index.purge_expired().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(purged = n, "expired posts purged"),
                        Err(e) => tracing::error!(error.message = %e, "purge failed"),
                    },
                    _ = embed.tick() => {
                        index.embed_pending().await;
                    },
                }
            }
        })
    }
}
