//! A post's shared documents and replies on PostgreSQL: a JSON column of
//! its row, changed in the transaction of a write (with the posts it
//! brings), which takes a change number, so every replica applies it
//! through the change feed; a tombstone clears it.

use super::{
    Store,
    upsert::{Columns, created},
    within,
    writes::{next_seq, notify},
};
use crate::store::{
    Knowledge, StoreError, StoredPost,
    knowledge::{Change, Changed, Refused, Written},
};

impl Store {
    /// Upserts `posts`, then applies `changes` (each live post's row locked
    /// meanwhile), in one transaction rolled back when a change is refused.
    /// Returns once this replica applied it.
    pub(super) async fn write_with_knowledge(
        &self,
        posts: Vec<StoredPost>,
        changes: Vec<(String, Change)>,
        now_ms: i64,
    ) -> Result<Written, StoreError> {
        let columns = Columns::of(&posts, self.inner.mirror.model.as_deref());
        let (written, seq) = within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            // The counter first, as every write takes it: one lock order.
            let seq = next_seq(&tx).await?;
            let existing: Vec<String> = tx
                .query(
                    "SELECT id FROM posts WHERE id = ANY($1) AND NOT deleted",
                    &[&columns.ids],
                )
                .await?
                .iter()
                .map(|r| r.get(0))
                .collect();
            columns.write(&tx, seq).await?;
            let mut changed = Vec::with_capacity(changes.len());
            for (i, (post_id, change)) in changes.into_iter().enumerate() {
                match change_row(&tx, &post_id, change, now_ms, seq).await? {
                    Ok(outcome) => changed.push(outcome),
                    // Dropping `tx` rolls back: nothing is written.
                    Err(refused) => return Ok((Err((i, refused)), None)),
                }
            }
            super::panels::drop_panels(&tx, &columns.ids).await?;
            notify(&tx, seq).await?;
            tx.commit().await?;
            Ok((Ok((created(&posts, &existing), changed)), Some(seq)))
        })
        .await?;
        if let Some(seq) = seq {
            self.inner.mirror.wait_applied(seq).await;
        }
        Ok(written)
    }
}

/// Applies `change` to the live post `post_id`'s knowledge within `tx`, as
/// change `seq`.
async fn change_row(
    tx: &deadpool_postgres::Transaction<'_>,
    post_id: &str,
    change: Change,
    now_ms: i64,
    seq: i64,
) -> Result<Result<Changed, Refused>, StoreError> {
    let Some(row) = tx
        .query_opt(
            "SELECT knowledge::text FROM posts
             WHERE id = $1 AND NOT deleted AND (expires_at IS NULL OR expires_at > $2)
             FOR UPDATE",
            &[&post_id, &now_ms],
        )
        .await?
    else {
        return Ok(Err(Refused::NoPost));
    };
    let mut knowledge = Knowledge::from_column(row.get::<_, Option<&str>>(0));
    let outcome = match knowledge.apply(change) {
        Ok(outcome) => outcome,
        Err(refused) => return Ok(Err(refused)),
    };
    tx.execute(
        "UPDATE posts SET knowledge = $2::text::jsonb, seq = $3 WHERE id = $1",
        &[&post_id, &knowledge.to_column(), &seq],
    )
    .await?;
    Ok(Ok(outcome))
}
