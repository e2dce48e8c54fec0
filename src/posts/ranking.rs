//! What a search reads, in memory, whichever the store: the posts' BM25 text
//! index and their vectors, held per model id: the stored model's (the
//! multilingual model's or Azure OpenAI's, computed once per post and
//! stored with the model's id) and the word model's, computed here from the
//! text (never stored: the model is static and fast). It is the store's [`Index`]: the store keeps it
//! in step with what it committed (SQLite: after each commit; PostgreSQL:
//! changes applied in sequence order).

use std::{
    collections::HashMap,
    hash::{BuildHasher, RandomState},
    sync::{Arc, Mutex, PoisonError, RwLock},
};

use super::{
    PostIndexError, Scored,
    lexical::Lexical,
    models::EmbeddingModel,
    multilingual::Multilingual,
    vectors::{Spread, VectorSet},
    word_model::WordModel,
};
use crate::store::{Index, Knowledge, Loader, Vector};

mod load;

/// The text index and the vectors of each model, each behind its own lock.
pub struct Ranking {
    lexical: RwLock<Lexical>,
    /// Vectors by model id: `vector_model`'s and `word_model_id`'s.
    vectors: HashMap<String, RwLock<VectorSet>>,
    word_model: Option<Arc<WordModel>>,
    word_model_id: Option<String>,
    /// What computes the stored vectors, when it is in process.
    multilingual: Option<Arc<Multilingual>>,
    /// The stored vectors' model id; None: vectors are not held.
    vector_model: Option<String>,
    /// Digests texts: a query that is a stored post's text finds its vector.
    texts: RandomState,
    /// The word model's vectors of texts judged lately, by digest (see
    /// [`Self::word_vector`]).
    word_vectors: Mutex<HashMap<u64, Option<Arc<[f32]>>>>,
}

/// Texts whose word-model vectors are remembered at most (1 KiB each);
/// past it the memo starts again.
const WORD_VECTORS: usize = 1024;

impl Ranking {
    /// An empty ranking; with a word model, posts get its vectors as they
    /// are indexed. Stored vectors are held when `vector_model` names their
    /// model (`multilingual` computes them in process).
    pub fn new(
        word_model: Option<Arc<WordModel>>,
        multilingual: Option<Arc<Multilingual>>,
        vector_model: Option<String>,
    ) -> Self {
        let word_model_id = word_model.as_ref().map(|m| m.id());
        let ids = vector_model.iter().chain(&word_model_id);
        Self {
            lexical: RwLock::default(),
            vectors: ids.map(|id| (id.clone(), RwLock::default())).collect(),
            word_model,
            word_model_id,
            multilingual,
            vector_model,
            texts: RandomState::new(),
            word_vectors: Mutex::default(),
        }
    }

    /// The vectors of the model with this id, when they are held.
    fn set(&self, model: Option<&str>) -> Option<&RwLock<VectorSet>> {
        self.vectors.get(model?)
    }

    /// The word model's vectors, when it is loaded.
    fn words_set(&self) -> Option<&RwLock<VectorSet>> {
        self.set(self.word_model_id.as_deref())
    }

    /// The stored model's vectors, when they are held.
    fn stored_set(&self) -> Option<&RwLock<VectorSet>> {
        self.set(self.vector_model.as_deref())
    }

    /// The digest of a text, as stored vectors are found by.
    pub fn digest(&self, text: &str) -> u64 {
        self.texts.hash_one(text)
    }

    /// The multilingual model, when it computes the stored vectors.
    pub fn multilingual(&self) -> Option<&Arc<Multilingual>> {
        self.multilingual.as_ref()
    }

    /// The stored vector computed from a text of digest `text`, if any.
    pub fn stored_vector(&self, text: u64) -> Option<Vec<f32>> {
        self.stored_set()?.read().ok()?.of_text(text)
    }

    /// The word model, when there is one.
    pub fn word_model(&self) -> Option<&WordModel> {
        self.word_model.as_deref()
    }

    /// Ids of up to `limit` live posts containing any of `terms`, best first.
    pub fn by_words(
        &self,
        terms: &[String],
        now_ms: i64,
        limit: usize,
    ) -> Result<WordHits, PostIndexError> {
        let lexical = self.lexical.read().map_err(|_| PostIndexError::Poisoned)?;
        // Rare in the language: a tokenizer whose vocabulary holds the
        // frequent words whole splits it (the multilingual model's knows
        // Korean words; the word model's, LLaMA's, splits them all).
        let is_rare = |term: &str| match &self.multilingual {
            Some(m) => Some(m.pieces(term) > 1),
            None => self.word_model.as_ref().map(|m| m.pieces(term) > 1),
        };
        let (ranked, sharing_rare) = lexical.search_rare(terms, now_ms, limit, &is_rare);
        Ok(WordHits {
            ranked,
            sharing_rare,
        })
    }

    /// The `limit` live posts most similar to `query` by their stored
    /// vectors, without `exclude`, and the spread of the similarities; None
    /// when none are held or they are unreadable.
    pub fn nearest(
        &self,
        query: &[f32],
        now_ms: i64,
        exclude: &[String],
        limit: usize,
    ) -> Option<(Scored, Spread)> {
        let set = self.stored_set()?.read().ok()?;
        Some(set.nearest(query, now_ms, exclude, limit))
    }

    /// As [`Self::nearest`], by the word model's vectors of the posts and
    /// its `vector` of the query: None without the word model.
    pub fn nearest_by_word_model(
        &self,
        vector: &[f32],
        now_ms: i64,
        exclude: &[String],
        limit: usize,
    ) -> Option<(Scored, Spread)> {
        let set = self.words_set()?.read().ok()?;
        Some(set.nearest(vector, now_ms, exclude, limit))
    }

    /// The word model's vector of `text` (None: it has no token), without
    /// the model: remembered, as the texts judged against a post recur
    /// from view to view (the titles of shared documents, a post's hits)
    /// and the tokenizer costs most of a judgement.
    pub fn word_vector(&self, text: &str) -> Option<Arc<[f32]>> {
        let model = self.word_model.as_ref()?;
        let digest = self.digest(text);
        let memo = || {
            self.word_vectors
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        };
        if let Some(vector) = memo().get(&digest) {
            return vector.clone();
        }
        let vector: Option<Arc<[f32]>> = model.embed_text(text).map(Into::into);
        let mut memo = memo();
        if memo.len() >= WORD_VECTORS {
            memo.clear();
        }
        memo.insert(digest, vector.clone());
        vector
    }

    /// How similar the posts are to the word model's `vector` of a text of
    /// digest `text` (see [`VectorSet::spread`]): None without the word
    /// model.
    pub fn word_model_spread(&self, text: u64, vector: &[f32]) -> Option<Spread> {
        let set = self.words_set()?.read().ok()?;
        Some(set.spread(text, vector))
    }

    /// Posts indexed, and how many of them have a (stored) vector.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.lexical.read().map_or(0, |l| l.len()),
            self.stored_set()
                .and_then(|s| s.read().ok())
                .map_or(0, |v| v.len()),
        )
    }

    /// The term statistics of the text index: posts, and the posts containing `term`.
    pub fn document_frequency(&self, term: &str) -> (usize, usize) {
        self.lexical
            .read()
            .map_or((0, 0), |l| (l.len(), l.document_frequency(term)))
    }

    /// The word model's vector of a post's text.
    fn index_words(&self, id: &str, text: &str, expires_at_ms: Option<i64>) {
        let (Some(model), Some(set)) = (&self.word_model, self.words_set()) else {
            return;
        };
        match model.embed_text(text) {
            Some(v) => write(set).insert(id.to_owned(), 0, expires_at_ms, v),
            None => write(set).remove(id),
        }
    }
}

impl Index for Ranking {
    fn loader(self: Arc<Self>) -> Box<dyn Loader> {
        Box::new(self.load())
    }

    /// Adds or replaces a post's text; its vector is kept only when `vector`
    /// says so (`Keep`), replaced (`Set`) or dropped (`Drop`).
    fn index(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
        write(&self.lexical).insert(id, text, expires_at_ms);
        self.index_words(id, text, expires_at_ms);
        self.apply(id, text, expires_at_ms, vector);
    }

    /// Updates an indexed post whose text is unchanged: its expiry, and its
    /// vector as `vector` says (far cheaper than [`Self::index`], which
    /// rewrites the postings of every term of the text).
    fn refresh(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
        if !write(&self.lexical).set_expiry(id, expires_at_ms) {
            write(&self.lexical).insert(id, text, expires_at_ms);
        }
        // The text is unchanged, so is its word model's vector (embedded
        // again only when missing); its expiry is not.
        if let Some(set) = self.words_set()
            && !write(set).set_expiry(id, expires_at_ms)
        {
            self.index_words(id, text, expires_at_ms);
        }
        match vector {
            Vector::Keep => {
                if let Some(set) = self.stored_set() {
                    write(set).set_expiry(id, expires_at_ms);
                }
            }
            vector => self.apply(id, text, expires_at_ms, vector),
        }
    }

    /// Sets a post's vector.
    fn set_vector(&self, id: String, text: &str, expires_at_ms: Option<i64>, vector: Vec<f32>) {
        self.apply(&id, text, expires_at_ms, Vector::Set(vector));
    }

    /// Removes posts from every index.
    fn remove(&self, ids: &[&str]) {
        write(&self.lexical).remove_many(ids.iter().copied());
        for set in self.vectors.values() {
            let mut set = write(set);
            ids.iter().for_each(|&id| set.remove(id));
        }
    }

    fn posts(&self) -> usize {
        self.counts().0
    }

    fn vector_model(&self) -> Option<String> {
        self.vector_model.clone()
    }

    /// Shared documents and replies are the board's (`crate::board`).
    fn set_knowledge(&self, _: &str, _: Option<i64>, _: Knowledge) {}
}

impl Ranking {
    /// Applies a change of a post's stored vector (none held without a vector model).
    fn apply(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
        let Some(set) = self.stored_set() else { return };
        match vector {
            Vector::Keep => {}
            Vector::Set(v) => {
                let digest = self.digest(text);
                write(set).insert(id.to_owned(), digest, expires_at_ms, v);
            }
            Vector::Drop => write(set).remove(id),
        }
    }
}

/// Posts found by words: by BM25 with their coverage, and those sharing a
/// rare word of the query (related even when they share nothing else).
#[derive(Debug, Default)]
pub struct WordHits {
    pub ranked: Scored,
    pub sharing_rare: Vec<String>,
}

/// A write lock even after a panic elsewhere: both indexes stay usable (an
/// interrupted insert leaves at worst one post half-indexed).
fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}
