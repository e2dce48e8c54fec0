//! The store's operations on PostgreSQL. Each write is one transaction that
//! takes the next change number (the counter's row lock orders writers) and
//! notifies the listening replicas; it returns once this replica applied it.

use async_trait::async_trait;

use super::{
    Store,
    panels::{drop_panels, prune_panels},
    within,
};
use crate::{
    contract::PostSummary,
    store::{
        PendingPost, StoreError, StoredPost, StoredRun,
        knowledge::{Change, Written},
        records::{encode, now_ms},
    },
};

/// A replica embedding posts holds them this long; others skip them meanwhile.
const CLAIM_MS: i64 = 60_000;
/// Tombstones are deleted this long after the deletion; a replica that has
/// not caught up by then reloads every post.
const TOMBSTONE_MS: i64 = 7 * 24 * 3600 * 1000;
const NEXT_SEQ: &str = "UPDATE change_counter SET seq = seq + 1 RETURNING seq";
const NOTIFY: &str = "SELECT pg_notify('post_changes', $1)";

#[async_trait]
impl crate::store::Store for Store {
    fn stale(&self) -> bool {
        !self.inner.mirror.connected()
    }

    /// From memory: this replica's mirror holds every live post's body.
    async fn get_many(
        &self,
        ids: Vec<String>,
        now_ms: i64,
    ) -> Result<Vec<PostSummary>, StoreError> {
        Ok(self.inner.mirror.get_many(&ids, now_ms))
    }

    /// Inserts or replaces posts in one transaction; returns for each
    /// whether it was new. Returns once this replica's index shows them.
    async fn upsert(&self, posts: Vec<StoredPost>) -> Result<Vec<bool>, StoreError> {
        // With no change to refuse, the write is always done.
        let written = self
            .write_with_knowledge(posts, Vec::new(), now_ms())
            .await?;
        Ok(written.map(|(created, _)| created).unwrap_or_default())
    }

    async fn write(
        &self,
        posts: Vec<StoredPost>,
        changes: Vec<(String, Change)>,
        now_ms: i64,
    ) -> Result<Written, StoreError> {
        self.write_with_knowledge(posts, changes, now_ms).await
    }

    /// Deletes a post (a tombstone every replica applies); true when it existed.
    async fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let seq = within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let seq = next_seq(&tx).await?;
            let deleted = tx
                .execute(
                    "UPDATE posts SET deleted = true, deleted_at = $3, body = NULL,
                       knowledge = NULL, search_text = NULL, embedding = NULL, embedding_claimed_until = NULL, seq = $2
                     WHERE id = $1 AND NOT deleted",
                    &[&id, &seq, &now_ms()],
                )
                .await?;
            if deleted == 0 {
                // Nothing changed: the counter's increment is rolled back.
                return Ok(None);
            }
            drop_panels(&tx, &[id]).await?;
            notify(&tx, seq).await?;
            tx.commit().await?;
            Ok(Some(seq))
        })
        .await?;
        if let Some(seq) = seq {
            self.inner.mirror.wait_applied(seq).await;
        }
        Ok(seq.is_some())
    }

    /// Turns the posts expired at `now_ms` into tombstones (dropping their
    /// shared panels), deletes the tombstones older than a week and the
    /// expired shared panels; returns how many posts expired.
    async fn purge_expired(&self, now_ms: i64) -> Result<usize, StoreError> {
        within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let any: bool = tx
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM posts WHERE NOT deleted AND expires_at <= $1)",
                    &[&now_ms],
                )
                .await?
                .get(0);
            let mut expired = 0;
            if any {
                let seq = next_seq(&tx).await?;
                let ids: Vec<String> = tx
                    .query(
                        "UPDATE posts SET deleted = true, deleted_at = $1, body = NULL,
                           knowledge = NULL, search_text = NULL, embedding = NULL, embedding_claimed_until = NULL,
                           seq = $2
                         WHERE NOT deleted AND expires_at <= $1 RETURNING id",
                        &[&now_ms, &seq],
                    )
                    .await?
                    .iter()
                    .map(|r| r.get(0))
                    .collect();
                expired = ids.len();
                let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                drop_panels(&tx, &ids).await?;
                notify(&tx, seq).await?;
            }
            prune_panels(&tx, now_ms).await?;
            tx.execute(
                "WITH gone AS (DELETE FROM posts WHERE deleted AND deleted_at <= $1 RETURNING seq)
                 UPDATE change_counter SET purged_through = greatest(purged_through, gone.seq)
                 FROM (SELECT max(seq) AS seq FROM gone) AS gone WHERE gone.seq IS NOT NULL",
                &[&(now_ms - TOMBSTONE_MS)],
            )
            .await?;
            tx.commit().await?;
            Ok(expired)
        })
        .await
    }

    /// Claims up to `limit` posts waiting for a vector that no other replica
    /// is embedding (`FOR UPDATE SKIP LOCKED`, then a lease of a minute).
    async fn pending_embeddings(&self, limit: usize) -> Result<Vec<PendingPost>, StoreError> {
        within(async {
            let client = self.client().await?;
            let rows = client
                .query(
                    "UPDATE posts SET embedding_claimed_until = $2 + $3
                     WHERE id IN (SELECT id FROM posts
                                  WHERE (embedding IS NULL OR embedding_model IS DISTINCT FROM $4)
                                    AND NOT deleted
                                    AND (embedding_claimed_until IS NULL OR embedding_claimed_until <= $2)
                                  ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
                     RETURNING id, search_text, expires_at",
                    &[&(limit as i64), &now_ms(), &CLAIM_MS, &self.inner.mirror.model],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect())
        })
        .await
    }

    /// Stores vectors (for every replica), each unless its post's text
    /// changed since it was claimed; returns how many were stored, once this
    /// replica's index has them.
    async fn set_embeddings(
        &self,
        items: Vec<(PendingPost, Vec<f32>)>,
    ) -> Result<usize, StoreError> {
        let ids: Vec<&str> = items.iter().map(|((id, _, _), _)| id.as_str()).collect();
        let texts: Vec<&str> = items.iter().map(|((_, t, _), _)| t.as_str()).collect();
        let vectors: Vec<Vec<u8>> = items.iter().map(|(_, v)| encode(v)).collect();
        let stored = within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let seq = next_seq(&tx).await?;
            let stored = tx
                .execute(
                    "UPDATE posts SET embedding = u.embedding, embedding_model = $5,
                            embedding_claimed_until = NULL, seq = $4
                     FROM unnest($1::text[], $2::text[], $3::bytea[]) AS u(id, search_text, embedding)
                     WHERE posts.id = u.id AND posts.search_text = u.search_text AND NOT posts.deleted",
                    &[&ids, &texts, &vectors, &seq, &self.inner.mirror.model],
                )
                .await?;
            if stored == 0 {
                return Ok((0, None));
            }
            notify(&tx, seq).await?;
            tx.commit().await?;
            Ok((stored as usize, Some(seq)))
        })
        .await?;
        if let (_, Some(seq)) = stored {
            self.inner.mirror.wait_applied(seq).await;
        }
        Ok(stored.0)
    }

    /// Stores run records, then purges those past their retention at
    /// `now_ms` and the oldest beyond `max_records`; returns how many were purged.
    async fn put_runs(
        &self,
        runs: Vec<StoredRun>,
        now_ms: i64,
        max_records: u64,
    ) -> Result<usize, StoreError> {
        let ids: Vec<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
        let keep: Vec<i64> = runs.iter().map(|r| r.keep_until_ms).collect();
        let records: Vec<&str> = runs.iter().map(|r| r.record.as_str()).collect();
        within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            tx.execute(
                "INSERT INTO runs (run_id, keep_until, record)
                 SELECT * FROM unnest($1::text[], $2::int8[], $3::text[])
                 ON CONFLICT (run_id) DO UPDATE SET keep_until = excluded.keep_until,
                   record = excluded.record",
                &[&ids, &keep, &records],
            )
            .await?;
            let purged = purge_runs(&tx, now_ms, max_records).await?;
            tx.commit().await?;
            Ok(purged)
        })
        .await
    }

    /// Purges the run records past their retention at `now_ms` and the
    /// oldest beyond `max_records`; returns how many.
    async fn purge_runs(&self, now_ms: i64, max_records: u64) -> Result<usize, StoreError> {
        within(async {
            let client = self.client().await?;
            purge_runs(&client, now_ms, max_records).await
        })
        .await
    }

    fn shared_panels(&self) -> Option<std::sync::Arc<dyn crate::store::SharedPanels>> {
        Some(std::sync::Arc::new(self.clone()))
    }

    /// A run's record (JSON), unless unknown or past its retention at `now_ms`.
    async fn get_run(&self, run_id: &str, now_ms: i64) -> Result<Option<String>, StoreError> {
        within(async {
            let client = self.client().await?;
            Ok(client
                .query_opt(
                    "SELECT record FROM runs WHERE run_id = $1 AND keep_until > $2",
                    &[&run_id, &now_ms],
                )
                .await?
                .map(|r| r.get(0)))
        })
        .await
    }
}

/// Takes the next change number: the counter's row lock orders the writers,
/// so numbers become visible in order.
pub(super) async fn next_seq(tx: &deadpool_postgres::Transaction<'_>) -> Result<i64, StoreError> {
    Ok(tx.query_one(NEXT_SEQ, &[]).await?.get(0))
}

/// Tells every listening replica that change `seq` is committed (delivered
/// at commit).
pub(super) async fn notify(
    tx: &deadpool_postgres::Transaction<'_>,
    seq: i64,
) -> Result<(), StoreError> {
    tx.execute(NOTIFY, &[&seq.to_string()]).await?;
    Ok(())
}

async fn purge_runs(
    client: &impl deadpool_postgres::GenericClient,
    now_ms: i64,
    max_records: u64,
) -> Result<usize, StoreError> {
    let expired = client
        .execute("DELETE FROM runs WHERE keep_until <= $1", &[&now_ms])
        .await?;
    let excess = client
        .execute(
            "DELETE FROM runs WHERE seq <= (SELECT max(seq) FROM runs) - $1",
            &[&(max_records as i64)],
        )
        .await?;
    Ok((expired + excess) as usize)
}
