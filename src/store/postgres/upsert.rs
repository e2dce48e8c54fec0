//! The rows of one upsert of posts, and which of them were new.

use std::collections::HashMap;

use crate::store::{StoreError, StoredPost, records::encode};

/// Posts as the columns of one `unnest` upsert: one row per id, the last
/// of a batch winning (as when written one after another).
pub(super) struct Columns<'a> {
    pub ids: Vec<&'a str>,
    bodies: Vec<String>,
    texts: Vec<&'a str>,
    expires: Vec<Option<i64>>,
    vectors: Vec<Option<Vec<u8>>>,
}

impl<'a> Columns<'a> {
    pub fn of(posts: &'a [StoredPost]) -> Self {
        let mut last: HashMap<&str, usize> = HashMap::new();
        for (i, p) in posts.iter().enumerate() {
            last.insert(p.post.id.as_str(), i);
        }
        let rows: Vec<&StoredPost> = posts
            .iter()
            .enumerate()
            .filter(|(i, p)| last.get(p.post.id.as_str()) == Some(i))
            .map(|(_, p)| p)
            .collect();
        Self {
            ids: rows.iter().map(|p| p.post.id.as_str()).collect(),
            bodies: rows
                .iter()
                .map(|p| serde_json::to_string(&p.post).unwrap_or_default())
                .collect(),
            texts: rows.iter().map(|p| p.search_text.as_str()).collect(),
            expires: rows.iter().map(|p| p.expires_at_ms).collect(),
            vectors: rows
                .iter()
                .map(|p| p.vector.as_deref().map(encode))
                .collect(),
        }
    }

    /// Writes the rows as change `seq`: a stored vector is kept when the
    /// text did not change, and so is its embedding claim.
    pub async fn write(
        &self,
        tx: &deadpool_postgres::Transaction<'_>,
        seq: i64,
    ) -> Result<(), StoreError> {
        let upsert = tx
            .prepare_cached(
                "INSERT INTO posts (id, body, search_text, expires_at, embedding, seq)
                 SELECT u.id, u.body::jsonb, u.search_text, u.expires_at, u.embedding, $6
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::bytea[])
                      AS u(id, body, search_text, expires_at, embedding)
                 ON CONFLICT (id) DO UPDATE SET
                   body = excluded.body,
                   search_text = excluded.search_text,
                   expires_at = excluded.expires_at,
                   embedding = CASE WHEN excluded.embedding IS NOT NULL THEN excluded.embedding
                               WHEN posts.search_text = excluded.search_text THEN posts.embedding END,
                   embedding_claimed_until = CASE WHEN posts.search_text = excluded.search_text
                               THEN posts.embedding_claimed_until END,
                   deleted = false,
                   deleted_at = NULL,
                   seq = excluded.seq",
            )
            .await?;
        let c = self;
        tx.execute(
            &upsert,
            &[&c.ids, &c.bodies, &c.texts, &c.expires, &c.vectors, &seq],
        )
        .await?;
        Ok(())
    }
}

/// For each post of a batch, whether it was new: not among the `existing`
/// ids, nor earlier in the batch.
pub(super) fn created(posts: &[StoredPost], existing: &[String]) -> Vec<bool> {
    let mut seen: Vec<&str> = existing.iter().map(String::as_str).collect();
    posts
        .iter()
        .map(|p| {
            let new = !seen.contains(&p.post.id.as_str());
            if new {
                seen.push(&p.post.id);
            }
            new
        })
        .collect()
}
