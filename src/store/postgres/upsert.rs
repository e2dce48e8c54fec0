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
    models: Vec<Option<&'a str>>,
    knowledge: Vec<Option<String>>,
}

impl<'a> Columns<'a> {
    /// The rows of `posts`; vectors of another model than `model` are
    /// left out (their posts are embedded again).
    pub fn of(posts: &'a [StoredPost], model: Option<&str>) -> Self {
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
            vectors: rows.iter().map(|&p| ours(p, model).map(encode)).collect(),
            models: rows
                .iter()
                .map(|&p| ours(p, model).and(p.vector_model.as_deref()))
                .collect(),
            knowledge: rows
                .iter()
                .map(|p| p.knowledge.as_ref().and_then(|k| k.to_column()))
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
                "INSERT INTO posts (id, body, search_text, expires_at, embedding, embedding_model, seq,
                                    knowledge)
                 SELECT u.id, u.body::jsonb, u.search_text, u.expires_at, u.embedding, u.model, $6,
                        u.knowledge::jsonb
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::bytea[], $7::text[],
                             $8::text[])
                      AS u(id, body, search_text, expires_at, embedding, model, knowledge)
                 ON CONFLICT (id) DO UPDATE SET
                   body = excluded.body,
                   knowledge = coalesce(excluded.knowledge, posts.knowledge),
                   search_text = excluded.search_text,
                   expires_at = excluded.expires_at,
                   embedding = CASE WHEN excluded.embedding IS NOT NULL THEN excluded.embedding
                               WHEN posts.search_text = excluded.search_text THEN posts.embedding END,
                   embedding_model = CASE WHEN excluded.embedding IS NOT NULL THEN excluded.embedding_model
                               WHEN posts.search_text = excluded.search_text THEN posts.embedding_model END,
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
            &[
                &c.ids,
                &c.bodies,
                &c.texts,
                &c.expires,
                &c.vectors,
                &seq,
                &c.models,
                &c.knowledge,
            ],
        )
        .await?;
        Ok(())
    }
}

/// `post`'s vector, unless another model than `model` computed it.
fn ours<'a>(post: &'a StoredPost, model: Option<&str>) -> Option<&'a [f32]> {
    let ours = model.is_none() || post.vector_model.as_deref() == model;
    post.vector.as_deref().filter(|_| ours)
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
