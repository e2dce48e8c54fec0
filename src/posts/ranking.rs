//! What a search reads, in memory, whichever the store: the posts' BM25 text
//! index and their vectors. The store keeps it in step with what it committed
//! (SQLite: after each commit; PostgreSQL: changes applied in sequence order).

use std::sync::{PoisonError, RwLock};

use super::{PostIndexError, Scored, lexical::Lexical, vectors::VectorSet};

/// The text index and the vectors, each behind its own lock.
#[derive(Default)]
pub struct Ranking {
    lexical: RwLock<Lexical>,
    vectors: RwLock<VectorSet>,
}

impl Ranking {
    pub fn new(lexical: Lexical, vectors: VectorSet) -> Self {
        Self {
            lexical: RwLock::new(lexical),
            vectors: RwLock::new(vectors),
        }
    }

    /// Ids of up to `limit` live posts containing any of `terms`, best first.
    pub fn by_words(
        &self,
        terms: &[String],
        now_ms: i64,
        limit: usize,
    ) -> Result<Scored, PostIndexError> {
        let lexical = self.lexical.read().map_err(|_| PostIndexError::Poisoned)?;
        Ok(lexical.search(terms, now_ms, limit))
    }

    /// The `limit` live posts most similar to `query`, without `exclude`;
    /// None when the vectors are unreadable.
    pub fn nearest(
        &self,
        query: &[f32],
        now_ms: i64,
        exclude: &[String],
        limit: usize,
    ) -> Option<Scored> {
        let set = self.vectors.read().ok()?;
        Some(set.nearest(query, now_ms, exclude, limit))
    }

    /// Posts indexed, and how many of them have a vector.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.lexical.read().map_or(0, |l| l.len()),
            self.vectors.read().map_or(0, |v| v.len()),
        )
    }

    /// Adds or replaces a post's text; its vector is kept only when `vector`
    /// says so (`Keep`), replaced (`Set`) or dropped (`Drop`).
    pub fn index(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
        write(&self.lexical).insert(id, text, expires_at_ms);
        match vector {
            Vector::Keep => {}
            Vector::Set(v) => write(&self.vectors).insert(id.to_owned(), expires_at_ms, v),
            Vector::Drop => write(&self.vectors).remove(id),
        }
    }

    /// Updates an indexed post whose text is unchanged: its expiry, and its
    /// vector as `vector` says (far cheaper than [`Self::index`], which
    /// rewrites the postings of every term of the text).
    pub fn refresh(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
        if !write(&self.lexical).set_expiry(id, expires_at_ms) {
            write(&self.lexical).insert(id, text, expires_at_ms);
        }
        match vector {
            Vector::Keep => {}
            Vector::Set(v) => write(&self.vectors).insert(id.to_owned(), expires_at_ms, v),
            Vector::Drop => write(&self.vectors).remove(id),
        }
    }

    /// Sets a post's vector.
    pub fn set_vector(&self, id: String, expires_at_ms: Option<i64>, vector: Vec<f32>) {
        write(&self.vectors).insert(id, expires_at_ms, vector);
    }

    /// Removes posts from both indexes.
    pub fn remove<'a>(&self, ids: impl IntoIterator<Item = &'a str> + Clone) {
        write(&self.lexical).remove_many(ids.clone());
        let mut vectors = write(&self.vectors);
        ids.into_iter().for_each(|id| vectors.remove(id));
    }

    /// Replaces everything with `other`'s content (a full reload).
    pub fn replace(&self, other: Ranking) {
        let (lexical, vectors) = (
            other
                .lexical
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner),
            other
                .vectors
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner),
        );
        *write(&self.lexical) = lexical;
        *write(&self.vectors) = vectors;
    }
}

/// What indexing a post's text does to its vector.
pub enum Vector {
    Keep,
    Set(Vec<f32>),
    Drop,
}

/// A write lock even after a panic elsewhere: both indexes stay usable (an
/// interrupted insert leaves at worst one post half-indexed).
fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}
