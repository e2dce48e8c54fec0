//! A post's shared documents and replies in SQLite: a JSON column of its
//! row, so they are deleted with it (by `DELETE` or by expiry) and nothing
//! of an expired post outlives it; and writes of posts with changes to it,
//! in one transaction.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::Db;
use crate::store::{
    Knowledge, StoreError, StoredPost,
    knowledge::{Change, Changed, Refused, Written},
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

/// A post's knowledge after a change: (post id, expiry, knowledge).
type Changed1 = (String, Option<i64>, Knowledge);
/// A change applied: what it did, its post's expiry and knowledge.
type Applied = (Changed, Option<i64>, Knowledge);

impl Db {
    /// Upserts `posts`, then applies `changes`, in one transaction under
    /// the writer (rolled back when a change is refused).
    pub fn write_with_knowledge(
        &self,
        posts: &[StoredPost],
        changes: Vec<(String, Change)>,
        now_ms: i64,
    ) -> Result<Written, StoreError> {
        type Done = Result<(Vec<(bool, bool)>, Vec<Changed>, Vec<Changed1>), (usize, Refused)>;
        let committed = |conn: &mut Connection| -> rusqlite::Result<Done> {
            let tx = conn.transaction()?;
            let created = self.upsert_rows(&tx, posts)?;
            let (mut changed, mut after) = (Vec::new(), Vec::new());
            for (i, (post_id, change)) in changes.into_iter().enumerate() {
                match change_row(&tx, &post_id, change, now_ms)? {
                    // Dropping `tx` rolls back: nothing is written.
                    Err(refused) => return Ok(Err((i, refused))),
                    Ok((outcome, expires, knowledge)) => {
                        changed.push(outcome);
                        after.retain(|(id, _, _): &Changed1| *id != post_id);
                        after.push((post_id, expires, knowledge));
                    }
                }
            }
            tx.commit()?;
            Ok(Ok((created, changed, after)))
        };
        let done = self.write_indexed(committed, |index, done| {
            if let Ok((created, _, after)) = done {
                self.index_upserted(index, posts, created);
                for (id, expires, knowledge) in after {
                    index.set_knowledge(id, *expires, knowledge.clone());
                }
            }
        })?;
        Ok(done.map(|(created, changed, _)| {
            (created.into_iter().map(|(new, _)| new).collect(), changed)
        }))
    }
}

/// Applies `change` to the live post `post_id`'s knowledge within `tx`.
fn change_row(
    tx: &Transaction<'_>,
    post_id: &str,
    change: Change,
    now_ms: i64,
) -> rusqlite::Result<Result<Applied, Refused>> {
    let row: Option<(Option<String>, Option<i64>)> = tx
        .query_row(
            "SELECT knowledge, expires_at FROM posts
             WHERE id = ?1 AND (expires_at IS NULL OR expires_at > ?2)",
            params![post_id, now_ms],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((column, expires)) = row else {
        return Ok(Err(Refused::NoPost));
    };
    let mut knowledge = Knowledge::from_column(column.as_deref());
    let outcome = match knowledge.apply(change) {
        Ok(outcome) => outcome,
        Err(refused) => return Ok(Err(refused)),
    };
    tx.execute(
        "UPDATE posts SET knowledge = ?2 WHERE id = ?1",
        params![post_id, knowledge.to_column()],
    )?;
    Ok(Ok((outcome, expires, knowledge)))
}
