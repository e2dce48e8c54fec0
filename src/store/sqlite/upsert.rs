//! Posts written to SQLite: the rows of an upsert, and the index brought
//! up to date with them.

use rusqlite::{Connection, params};

use super::Db;
use crate::store::{Index, Knowledge, StoreError, StoredPost, Vector, records::encode};

impl Db {
    /// Inserts or replaces posts in one transaction; returns for each whether it was new.
    pub fn upsert(&self, posts: &[StoredPost]) -> Result<Vec<bool>, StoreError> {
        let committed = |conn: &mut Connection| {
            let tx = conn.transaction()?;
            let created = self.upsert_rows(&tx, posts)?;
            tx.commit()?;
            Ok(created)
        };
        let created = self.write_indexed(committed, |index, created| {
            self.index_upserted(index, posts, created)
        })?;
        Ok(created.into_iter().map(|(is_new, _)| is_new).collect())
    }

    /// Writes `posts` within `tx`; for each, whether it was new and whether
    /// it has a vector. The stored vector is kept when the searchable text
    /// did not change (or replaced by the post's own, when it brings one).
    pub(super) fn upsert_rows(
        &self,
        tx: &rusqlite::Transaction<'_>,
        posts: &[StoredPost],
    ) -> rusqlite::Result<Vec<(bool, bool)>> {
        let mut created = Vec::with_capacity(posts.len());
        let mut exists = tx.prepare_cached("SELECT 1 FROM posts WHERE id = ?1")?;
        let mut upsert = tx.prepare_cached(
            "INSERT INTO posts (id, body, search_text, expires_at, embedding, embedding_model,
                                knowledge)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT(id) DO UPDATE SET body = excluded.body,
               knowledge = coalesce(excluded.knowledge, posts.knowledge),
               expires_at = excluded.expires_at,
               embedding = CASE WHEN excluded.embedding IS NOT NULL THEN excluded.embedding
                           WHEN posts.search_text = excluded.search_text
                           THEN posts.embedding ELSE NULL END,
               embedding_model = CASE WHEN excluded.embedding IS NOT NULL
                           THEN excluded.embedding_model
                           WHEN posts.search_text = excluded.search_text
                           THEN posts.embedding_model ELSE NULL END,
               search_text = excluded.search_text
             RETURNING embedding IS NOT NULL",
        )?;
        for p in posts {
            let is_new = !exists.exists(params![p.post.id])?;
            let body = serde_json::to_string(&p.post).unwrap_or_default();
            let vector = self.kept_vector(p);
            let model = vector.and(p.vector_model.as_deref());
            let knowledge = p.knowledge.as_ref().and_then(Knowledge::to_column);
            let has_vector: bool = upsert.query_row(
                params![
                    p.post.id,
                    body,
                    p.search_text,
                    p.expires_at_ms,
                    vector.map(|v| encode(v)),
                    model,
                    knowledge
                ],
                |r| r.get(0),
            )?;
            created.push((is_new, has_vector));
        }
        Ok(created)
    }

    /// Brings the index up to date with posts [`Self::upsert_rows`] wrote.
    pub(super) fn index_upserted(
        &self,
        index: &dyn Index,
        posts: &[StoredPost],
        created: &[(bool, bool)],
    ) {
        for (p, (_, has_vector)) in posts.iter().zip(created) {
            let vector = match (self.kept_vector(p), has_vector) {
                (Some(v), _) => Vector::Set(v.clone()),
                (None, true) => Vector::Keep,
                (None, false) => Vector::Drop,
            };
            index.index(&p.post.id, &p.search_text, p.expires_at_ms, vector);
            if let Some(knowledge) = &p.knowledge {
                index.set_knowledge(&p.post.id, p.expires_at_ms, knowledge.clone());
            }
        }
    }
}
