//! A post's shared documents and replies on PostgreSQL: a JSON column of
//! its row, changed in one transaction that takes a change number, so
//! every replica applies it through the change feed; a tombstone clears it.

use super::{
    Store, within,
    writes::{next_seq, notify},
};
use crate::store::{
    Knowledge, StoreError,
    knowledge::{Change, Changed, Refused},
};

impl Store {
    /// Applies `change` to the live post `post_id`'s knowledge (the row
    /// locked meanwhile); None when there is no such post. Returns once
    /// this replica applied it.
    pub(super) async fn apply_knowledge(
        &self,
        post_id: &str,
        change: Change,
        now_ms: i64,
    ) -> Result<Option<Result<Changed, Refused>>, StoreError> {
        let (outcome, seq) = within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            // The counter first, as every write takes it: one lock order.
            let seq = next_seq(&tx).await?;
            let Some(row) = tx
                .query_opt(
                    "SELECT knowledge::text FROM posts
                     WHERE id = $1 AND NOT deleted AND (expires_at IS NULL OR expires_at > $2)
                     FOR UPDATE",
                    &[&post_id, &now_ms],
                )
                .await?
            else {
                return Ok((None, None));
            };
            let mut knowledge = Knowledge::from_column(row.get::<_, Option<&str>>(0));
            let outcome = knowledge.apply(change);
            if outcome.is_err() {
                return Ok((Some(outcome), None));
            }
            tx.execute(
                "UPDATE posts SET knowledge = $2::text::jsonb, seq = $3 WHERE id = $1",
                &[&post_id, &knowledge.to_column(), &seq],
            )
            .await?;
            notify(&tx, seq).await?;
            tx.commit().await?;
            Ok((Some(outcome), Some(seq)))
        })
        .await?;
        if let Some(seq) = seq {
            self.inner.mirror.wait_applied(seq).await;
        }
        Ok(outcome)
    }
}
