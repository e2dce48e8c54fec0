//! The index's background work: purging expired posts, and embedding posts
//! stored without a vector with the Azure embeddings deployment (the local
//! model needs no pass: it embeds as posts are indexed).

use std::time::Duration;

use super::{Embedder, PostIndex, PostIndexError};
use crate::store::now_ms;

/// Posts embedded per call to the embeddings deployment.
const EMBED_BATCH: usize = 64;

impl PostIndex {
    /// Deletes expired posts; returns how many.
    pub async fn purge_expired(&self) -> Result<usize, PostIndexError> {
        Ok(self.store.purge_expired(now_ms()).await?)
    }

    /// Embeds posts stored without a vector; returns how many got one.
    pub async fn embed_pending(&self) -> usize {
        let _one_pass = self.embedding.lock().await;
        let mut done = 0;
        loop {
            let batch = match self.store.pending_embeddings(EMBED_BATCH).await {
                Ok(batch) if !batch.is_empty() => batch,
                Ok(_) => return done,
                Err(e) => {
                    tracing::warn!(error.message = %e, "post embedding deferred");
                    return done;
                }
            };
            let inputs: Vec<&str> = batch.iter().map(|(_, text, _)| text.as_str()).collect();
            let vectors = match self.llm.embed(&inputs).await {
                Ok(v) if v.len() == batch.len() => v,
                Ok(_) => {
                    tracing::warn!(error.kind = "malformed", "post embedding deferred");
                    return done;
                }
                Err(e) => {
                    tracing::warn!(
                        error.kind = e.kind_str(),
                        pending = batch.len(),
                        "post embedding deferred"
                    );
                    return done;
                }
            };
            let full = batch.len() == EMBED_BATCH;
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
                    _ = embed.tick() => if index.embedder == Embedder::Azure {
                        index.embed_pending().await;
                    },
                }
            }
        })
    }
}
