//! What a search reads, in memory, whichever the store: the posts' BM25 text
//! index, their stored vectors (the multilingual model's or Azure OpenAI's,
//! computed once per post and stored with the model's id), and the word
//! model's vectors, computed here from the text (never stored: the model is
//! static and fast). It is the store's [`Index`]: the store keeps it
//! in step with what it committed (SQLite: after each commit; PostgreSQL:
//! changes applied in sequence order).

use std::{
    hash::{BuildHasher, RandomState},
    sync::{Arc, PoisonError, RwLock},
};

use super::{
    PostIndexError, Scored,
    lexical::Lexical,
    local_model::LocalModel,
    multilingual::Multilingual,
    vectors::{Spread, VectorSet},
};
use crate::store::{Index, Loader, Vector};

/// The text index and both vector sets, each behind its own lock.
pub struct Ranking {
    lexical: RwLock<Lexical>,
    /// The stored vectors, of `vector_model`.
    vectors: RwLock<VectorSet>,
    /// The word model's vectors.
    local: RwLock<VectorSet>,
    model: Option<Arc<LocalModel>>,
    /// What computes the stored vectors, when it is in process.
    multilingual: Option<Arc<Multilingual>>,
    /// The stored vectors' model id; None: vectors are not held.
    vector_model: Option<String>,
    /// Digests texts: a query that is a stored post's text finds its vector.
    texts: RandomState,
}

/// Posts read in bulk (at start-up, or a replica's full reload), installed
/// at once by [`Ranking::load`]. While the caller reads and indexes the
/// texts, a thread of its own computes their local vectors: at 100,000 posts
/// each takes about a second, so the start-up takes one, not two.
pub struct Load {
    ranking: Arc<Ranking>,
    lexical: Lexical,
    vectors: VectorSet,
    local: Option<LocalLoad>,
}

/// The local vectors' thread and the batch of texts on its way to it.
struct LocalLoad {
    batch: Vec<Text>,
    to_embed: std::sync::mpsc::Sender<Vec<Text>>,
    embedded: std::thread::JoinHandle<VectorSet>,
}

/// A post's id, searchable text and expiry.
type Text = (String, String, Option<i64>);

/// Texts sent to the embedding thread at a time.
const LOAD_BATCH: usize = 256;

impl Loader for Load {
    fn insert(
        &mut self,
        id: &str,
        text: &str,
        expires_at_ms: Option<i64>,
        vector: Option<Vec<f32>>,
    ) {
        self.lexical.insert(id, text, expires_at_ms);
        if let Some(v) = vector.filter(|_| self.ranking.vector_model.is_some()) {
            let digest = self.ranking.digest(text);
            self.vectors.insert(id.to_owned(), digest, expires_at_ms, v);
        }
        if let Some(local) = &mut self.local {
            local
                .batch
                .push((id.to_owned(), text.to_owned(), expires_at_ms));
            if local.batch.len() == LOAD_BATCH {
                let batch = std::mem::take(&mut local.batch);
                // A failed send means the thread is gone: `finish` says so.
                let _ = local.to_embed.send(batch);
            }
        }
    }

    fn install(mut self: Box<Self>) {
        let local = self.finish();
        let ranking = &self.ranking;
        *write(&ranking.lexical) = std::mem::take(&mut self.lexical);
        *write(&ranking.vectors) = std::mem::take(&mut self.vectors);
        *write(&ranking.local) = local;
    }
}

impl Load {
    /// The local vectors of every text inserted (empty without a model).
    fn finish(&mut self) -> VectorSet {
        let Some(local) = self.local.take() else {
            return VectorSet::default();
        };
        let _ = local.to_embed.send(local.batch);
        drop(local.to_embed);
        local.embedded.join().unwrap_or_else(|_| {
            tracing::error!(
                "the local embedding thread failed: posts are ranked by words until re-indexed"
            );
            VectorSet::default()
        })
    }
}

impl Ranking {
    /// An empty ranking; with a word model, posts get its vectors as they
    /// are indexed. Stored vectors are held when `vector_model` names their
    /// model (`multilingual` computes them in process).
    pub fn new(
        model: Option<Arc<LocalModel>>,
        multilingual: Option<Arc<Multilingual>>,
        vector_model: Option<String>,
    ) -> Self {
        Self {
            lexical: RwLock::default(),
            vectors: RwLock::default(),
            local: RwLock::default(),
            model,
            multilingual,
            vector_model,
            texts: RandomState::new(),
        }
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
        self.vectors.read().ok()?.of_text(text)
    }

    /// A bulk load (with the model, its embedding thread started).
    fn load(self: Arc<Self>) -> Load {
        let local = self.model.clone().map(|model| {
            let (to_embed, batches) = std::sync::mpsc::channel::<Vec<Text>>();
            let embedded = std::thread::spawn(move || {
                let mut set = VectorSet::default();
                for (id, text, expires) in batches.into_iter().flatten() {
                    if let Some(v) = model.embed(&text) {
                        set.insert(id, 0, expires, v);
                    }
                }
                set
            });
            LocalLoad {
                batch: Vec::with_capacity(LOAD_BATCH),
                to_embed,
                embedded,
            }
        });
        Load {
            ranking: self,
            lexical: Lexical::default(),
            vectors: VectorSet::default(),
            local,
        }
    }

    /// The word model, when there is one.
    pub fn model(&self) -> Option<&LocalModel> {
        self.model.as_deref()
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
            None => self.model.as_ref().map(|m| m.pieces(term) > 1),
        };
        let (ranked, sharing_rare) = lexical.search_rare(terms, now_ms, limit, &is_rare);
        Ok(WordHits {
            ranked,
            sharing_rare,
        })
    }

    /// The `limit` live posts most similar to `query` by their stored
    /// vectors, without `exclude`, and the spread of the similarities; None
    /// when the vectors are unreadable.
    pub fn nearest(
        &self,
        query: &[f32],
        now_ms: i64,
        exclude: &[String],
        limit: usize,
    ) -> Option<(Scored, Spread)> {
        let set = self.vectors.read().ok()?;
        Some(set.nearest(query, now_ms, exclude, limit))
    }

    /// As [`Self::nearest`], by the local model's vectors: None without a
    /// model, or when `query` has no token.
    pub fn nearest_local(
        &self,
        query: &str,
        now_ms: i64,
        exclude: &[String],
        limit: usize,
    ) -> Option<(Scored, Spread)> {
        let vector = self.model.as_ref()?.embed(query)?;
        self.nearest_local_to(&vector, now_ms, exclude, limit)
    }

    /// As [`Self::nearest_local`], for a vector of the local model.
    pub fn nearest_local_to(
        &self,
        vector: &[f32],
        now_ms: i64,
        exclude: &[String],
        limit: usize,
    ) -> Option<(Scored, Spread)> {
        let set = self.local.read().ok()?;
        Some(set.nearest(vector, now_ms, exclude, limit))
    }

    /// Posts indexed, and how many of them have a (stored) vector.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.lexical.read().map_or(0, |l| l.len()),
            self.vectors.read().map_or(0, |v| v.len()),
        )
    }

    /// The term statistics of the text index: posts, and the posts containing `term`.
    pub fn document_frequency(&self, term: &str) -> (usize, usize) {
        self.lexical
            .read()
            .map_or((0, 0), |l| (l.len(), l.document_frequency(term)))
    }

    fn index_local(&self, id: &str, text: &str, expires_at_ms: Option<i64>) {
        let Some(model) = &self.model else { return };
        match model.embed(text) {
            Some(v) => write(&self.local).insert(id.to_owned(), 0, expires_at_ms, v),
            None => write(&self.local).remove(id),
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
        self.index_local(id, text, expires_at_ms);
        self.apply(id, text, expires_at_ms, vector);
    }

    /// Updates an indexed post whose text is unchanged: its expiry, and its
    /// vector as `vector` says (far cheaper than [`Self::index`], which
    /// rewrites the postings of every term of the text).
    fn refresh(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
        if !write(&self.lexical).set_expiry(id, expires_at_ms) {
            write(&self.lexical).insert(id, text, expires_at_ms);
        }
        // The text is unchanged, so is its local vector (embedded again only
        // when missing); its expiry is not.
        if !write(&self.local).set_expiry(id, expires_at_ms) {
            self.index_local(id, text, expires_at_ms);
        }
        match vector {
            Vector::Keep => {
                write(&self.vectors).set_expiry(id, expires_at_ms);
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
        let (mut vectors, mut local) = (write(&self.vectors), write(&self.local));
        ids.iter().for_each(|&id| {
            vectors.remove(id);
            local.remove(id);
        });
    }

    fn posts(&self) -> usize {
        self.counts().0
    }

    fn vector_model(&self) -> Option<String> {
        self.vector_model.clone()
    }
}

impl Ranking {
    /// Applies a change of a post's stored vector (none held without a vector model).
    fn apply(&self, id: &str, text: &str, expires_at_ms: Option<i64>, vector: Vector) {
        match vector {
            Vector::Set(_) | Vector::Keep if self.vector_model.is_none() => {}
            Vector::Keep => {}
            Vector::Set(v) => {
                let digest = self.digest(text);
                write(&self.vectors).insert(id.to_owned(), digest, expires_at_ms, v);
            }
            Vector::Drop => write(&self.vectors).remove(id),
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
