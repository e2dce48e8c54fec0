//! A post's shared documents and replies in SQLite: a JSON column of its
//! row, so they are deleted with it (by `DELETE` or by expiry) and nothing
//! of an expired post outlives it.

use rusqlite::{Connection, OptionalExtension, params};

use super::Db;
use crate::store::{
    Knowledge, StoreError,
    knowledge::{Change, Changed, Refused},
};

/// Adds the `knowledge` column to a database written before it.
pub fn add_column(conn: &Connection) -> rusqlite::Result<()> {
    let has_column = conn
        .prepare("SELECT 1 FROM pragma_table_info('posts') WHERE name = 'knowledge'")?
        .exists([])?;
    if !has_column {
        conn.execute_batch("ALTER TABLE posts ADD COLUMN knowledge TEXT")?;
    }
    Ok(())
}

impl Db {
    /// Applies `change` to the live post `post_id`'s knowledge, in one
    /// transaction under the writer; None when there is no such post.
    pub fn change_knowledge(
        &self,
        post_id: &str,
        change: Change,
        now_ms: i64,
    ) -> Result<Option<Result<Changed, Refused>>, StoreError> {
        type Outcome = Option<(Result<Changed, Refused>, Option<i64>, Knowledge)>;
        let committed = |conn: &mut Connection| -> rusqlite::Result<Outcome> {
            let tx = conn.transaction()?;
            let row: Option<(Option<String>, Option<i64>)> = tx
                .query_row(
                    "SELECT knowledge, expires_at FROM posts
                     WHERE id = ?1 AND (expires_at IS NULL OR expires_at > ?2)",
                    params![post_id, now_ms],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            let Some((column, expires)) = row else {
                return Ok(None);
            };
            let mut knowledge = Knowledge::from_column(column.as_deref());
            let outcome = knowledge.apply(change);
            if outcome.is_ok() {
                tx.execute(
                    "UPDATE posts SET knowledge = ?2 WHERE id = ?1",
                    params![post_id, knowledge.to_column()],
                )?;
                tx.commit()?;
            }
            Ok(Some((outcome, expires, knowledge)))
        };
        let outcome = self.write_indexed(committed, |index, outcome| {
            if let Some((Ok(_), expires, knowledge)) = outcome {
                index.set_knowledge(post_id, *expires, knowledge.clone());
            }
        })?;
        Ok(outcome.map(|(outcome, _, _)| outcome))
    }
}
