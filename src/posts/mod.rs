//! The post index: LinkUp posts pushed to us, searched in memory by text
//! (BM25) and by meaning (a local model, or Azure OpenAI's embeddings),
//! fused. What it searches is kept by the [`store`](crate::store), which
//! keeps the in-memory [`ranking`] in step with what it committed; this
//! module decides what a post's searchable text is, embeds posts with Azure
//! in the background, and ranks. Expired posts are never returned and are
//! purged periodically.
//!
//! - [`ranking`]: the in-memory index (the store's `Index`): [`lexical`]
//!   BM25, [`vectors`] for both models, loaded in bulk at start-up;
//! - [`local_model`]: the in-process embedding model;
//! - [`relevance`]: which candidates are related enough to show.

mod lexical;
pub mod local_model;
mod ranking;
mod relevance;
mod vectors;

use std::{sync::Arc, time::Duration};

use crate::{
    contract::PostSummary,
    keywords::index_terms,
    llm::{AzureOpenAi, LlmError, LlmErrorKind},
    metrics::Metrics,
    settings::{EmbedderSetting, PostsSettings},
    store::{self, Store, StoreError, StoredPost, now_ms},
};
use local_model::{LocalModel, ModelError};
use ranking::{Ranking, WordHits};
use relevance::{Floors, related_by_meaning};
pub use store::parse_time_ms;
pub(crate) use vectors::fuse;

/// Ranked ids with their score (coverage by words, or similarity).
type Scored = Vec<(String, f32)>;

/// Candidates taken from each ranking before fusion.
const CANDIDATES: usize = 50;
/// Least share of the query's term weight a post must contain to be related
/// by words (see [`lexical::Lexical::search`]).
const MIN_COVERAGE: f32 = 0.4;
/// By words, a post is not suggested when its coverage is under this share
/// of the best candidate's.
const RELATIVE_FLOOR: f32 = 0.75;
/// Posts embedded per call to the embeddings deployment.
const EMBED_BATCH: usize = 64;

/// Which model ranks posts by meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedder {
    /// The Azure OpenAI embeddings deployment; the local model stands in
    /// while it fails.
    Azure,
    /// The local model, in process.
    Local,
    /// None: words only.
    None,
}

impl Embedder {
    /// As `/readyz` and `/metrics` name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Azure => "azure",
            Self::Local => "local",
            Self::None => "none",
        }
    }
}

/// Why the post index failed.
#[derive(Debug, thiserror::Error)]
pub enum PostIndexError {
    #[error("{0} (set posts.model_path, or posts.embedder = \"none\" to rank by words only)")]
    Model(#[from] ModelError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("post index lock poisoned")]
    Poisoned,
    #[error("post index task failed")]
    Task,
}

/// Search results; `lexical_only` when semantic ranking was wanted but unavailable.
#[derive(Debug, Default)]
pub struct PostSearch {
    pub posts: Vec<PostSummary>,
    pub lexical_only: bool,
    /// Why the query's Azure embedding failed (`LlmError::kind`), when it did.
    pub embedding_error: Option<LlmErrorKind>,
    /// The local model ranked by meaning in place of the failed Azure one.
    pub local_stand_in: bool,
}

/// Cheap to clone; all clones share the store and the ranking.
#[derive(Clone)]
pub struct PostIndex {
    store: Arc<dyn Store>,
    ranking: Arc<Ranking>,
    llm: AzureOpenAi,
    embedder: Embedder,
    /// One embedding pass at a time: concurrent passes would embed the same rows.
    embedding: Arc<tokio::sync::Mutex<()>>,
    floors: Floors,
    metrics: Metrics,
    /// `log.payloads`: each search logs its candidates and why each was
    /// kept or dropped (post ids and scores; development only).
    payload_logs: bool,
}

impl PostIndex {
    /// Opens the configured store (creating or migrating its schema) and
    /// loads the ranking, with the local model unless `posts.embedder` is
    /// `none`. A missing or corrupt model file is an error naming it.
    pub async fn open(settings: &PostsSettings, llm: AzureOpenAi) -> Result<Self, PostIndexError> {
        let embedder = match settings.embedder {
            EmbedderSetting::None => Embedder::None,
            EmbedderSetting::Local => Embedder::Local,
            EmbedderSetting::Azure => Embedder::Azure,
            EmbedderSetting::Auto if llm.embeddings_configured() => Embedder::Azure,
            EmbedderSetting::Auto => Embedder::Local,
        };
        let model = match embedder {
            Embedder::None => None,
            _ => {
                let path = settings.model_path.clone();
                let model = tokio::task::spawn_blocking(move || LocalModel::load(&path))
                    .await
                    .map_err(|_| PostIndexError::Task)??;
                tracing::info!(
                    model = model.name(),
                    dims = model.dims(),
                    bytes = model.table_bytes(),
                    "local embedding model loaded"
                );
                Some(Arc::new(model))
            }
        };
        let ranking = Arc::new(Ranking::new(model));
        Ok(Self {
            store: store::open(settings, ranking.clone()).await?,
            ranking,
            llm,
            embedder,
            embedding: Arc::default(),
            floors: Floors::default(),
            metrics: Metrics::default(),
            payload_logs: false,
        })
    }

    /// Where the posts and run records are kept.
    pub fn store(&self) -> Arc<dyn Store> {
        self.store.clone()
    }

    /// Which model ranks posts by meaning.
    pub fn embedder(&self) -> Embedder {
        self.embedder
    }

    /// The local model's name, when it is loaded.
    pub fn local_model(&self) -> Option<String> {
        self.ranking.model().map(|m| m.name().to_owned())
    }

    /// How specific a word is: among the posts, the inverse document
    /// frequency `ln((N + 1) / (df + 0.5))` of its index term (a word no post
    /// has is as specific as can be, unless the language holds it common:
    /// then not at all); in an index too small for that to tell
    /// (under 30 posts), its rarity in the language by the local model's
    /// vocabulary (0 without a model: the text's order decides).
    pub fn specificity(&self, word: &str) -> f32 {
        let Some(term) = index_terms(word).into_iter().next() else {
            return 0.0;
        };
        let ranking = &self.ranking;
        let (n, df) = ranking.document_frequency(&term);
        if n < relevance::MIN_POSTS_FOR_SPREAD {
            return ranking.model().map_or(0.0, |m| m.rarity(word));
        }
        // A word no post has but the language holds common (`set`, `team`)
        // says nothing of the topic, as in the ranking by words.
        if df == 0 && ranking.model().is_some_and(|m| m.pieces(word) == 1) {
            return 0.0;
        }
        ((n as f32 + 1.0) / (df as f32 + 0.5)).ln()
    }

    /// How related each of `texts` is to `query` by the local model's
    /// meaning, in standard deviations above the posts' mean similarity to
    /// `query` (the same yardstick as [`relevance::Floors`]). None without a
    /// local model or with too few posts to tell.
    pub fn relatedness(&self, query: &str, texts: &[&str]) -> Option<Vec<f32>> {
        let ranking = &self.ranking;
        let model = ranking.model()?;
        let q = model.embed(query)?;
        let (_, spread) = ranking.nearest_local_to(&q, now_ms(), &[], 1)?;
        if !relevance::tells(spread) {
            return None;
        }
        Some(
            texts
                .iter()
                .map(|t| {
                    let cos = model
                        .embed(t)
                        .map_or(0.0, |v| v.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>());
                    (cos - spread.mean) / spread.std
                })
                .collect(),
        )
    }

    /// Stores posts (one transaction); returns for each whether it was new.
    /// Vectors are computed afterwards, so ingestion never waits on Azure.
    pub async fn upsert(&self, posts: Vec<PostSummary>) -> Result<Vec<bool>, PostIndexError> {
        let stored: Vec<StoredPost> = posts
            .into_iter()
            .map(|post| StoredPost {
                search_text: search_text(&post),
                expires_at_ms: parse_time_ms(&post.expires_at),
                post,
                vector: None,
            })
            .collect();
        let created = self.store.upsert(stored).await?;
        if self.embedder == Embedder::Azure {
            let index = self.clone();
            tokio::spawn(async move { index.embed_pending().await });
        }
        Ok(created)
    }

    /// The live post with this id.
    pub async fn get(&self, id: &str) -> Result<Option<PostSummary>, PostIndexError> {
        Ok(self
            .store
            .get_many(vec![id.to_owned()], now_ms())
            .await?
            .pop())
    }

    /// Deletes a post; true when it existed.
    pub async fn delete(&self, id: &str) -> Result<bool, PostIndexError> {
        Ok(self.store.delete(id).await?)
    }

    /// Whether searches may miss other replicas' latest writes (the shared
    /// database is unreachable).
    pub fn stale(&self) -> bool {
        self.store.stale()
    }

    /// Records its searches into `metrics`.
    pub fn with_metrics(mut self, metrics: Metrics) -> Self {
        self.metrics = metrics;
        self
    }

    /// Posts indexed, and how many of them have a vector.
    pub fn counts(&self) -> (usize, usize) {
        self.ranking.counts()
    }

    /// Logs each search's candidates and floors at debug level (`log.payloads`).
    pub fn with_payload_logs(mut self, on: bool) -> Self {
        self.payload_logs = on;
        self
    }

    /// Sets the least cosine similarity of a post related by meaning in a
    /// small index (see [`relevance::Floors`]).
    pub fn with_min_similarity(mut self, min_similarity: f32) -> Self {
        self.floors.min_similarity = min_similarity;
        self
    }

    /// Up to `limit` live posts related to `query`, most relevant first,
    /// without `exclude`. Only related posts: by words, a post must contain
    /// enough of the query's term weight and three quarters of the best
    /// candidate's; by meaning, be similar enough and within a band of the
    /// best candidate. Meaning weighs twice words in the ranking, so a post
    /// saying the same in other words comes first.
    pub async fn search(
        &self,
        query: &str,
        exclude: &[String],
        limit: usize,
    ) -> Result<PostSearch, PostIndexError> {
        let started = std::time::Instant::now();
        let result = self.search_ranked(query, exclude, limit).await;
        self.metrics.post_search(started.elapsed().as_secs_f64());
        result
    }

    async fn search_ranked(
        &self,
        query: &str,
        exclude: &[String],
        limit: usize,
    ) -> Result<PostSearch, PostIndexError> {
        let now = now_ms();
        let words = self.by_words(query, now, exclude, CANDIDATES)?;
        let lexical = &words.ranked;
        let (semantic, embedding_error) = self.semantic(query, now, exclude).await;
        let local_stand_in = embedding_error.is_some() && semantic.is_some();
        let (ids, lexical_only) = match semantic {
            Some((semantic, spread)) => {
                let related: Vec<&str> = related_by_coverage(&words)
                    .chain(related_by_meaning(&semantic, spread, &self.floors))
                    .collect();
                if self.payload_logs {
                    log_candidates(&words, Some((&semantic, spread)), &related);
                }
                let ids: Vec<String> = fuse(&[(lexical, 1.0), (&semantic, 2.0)])
                    .into_iter()
                    .filter(|id| related.contains(&id.as_str()))
                    .take(limit)
                    .collect();
                (ids, false)
            }
            None => {
                let ids = related_by_words(&words, limit);
                if self.payload_logs {
                    let related: Vec<&str> = ids.iter().map(String::as_str).collect();
                    log_candidates(&words, None, &related);
                }
                (ids, self.embedder != Embedder::None)
            }
        };
        Ok(PostSearch {
            posts: self.summaries(ids, now).await?,
            lexical_only,
            embedding_error,
            local_stand_in,
        })
    }

    /// Up to `limit` live posts related to `query` by words, without
    /// `exclude`: in memory (and SQLite) only, no upstream call.
    pub async fn search_by_words(
        &self,
        query: &str,
        exclude: &[String],
        limit: usize,
    ) -> Result<Vec<PostSummary>, PostIndexError> {
        let now = now_ms();
        let words = self.by_words(query, now, exclude, CANDIDATES)?;
        self.summaries(related_by_words(&words, limit), now).await
    }

    /// Up to `limit` live posts by text rank (BM25) with their coverage,
    /// without `exclude`.
    fn by_words(
        &self,
        query: &str,
        now: i64,
        exclude: &[String],
        limit: usize,
    ) -> Result<WordHits, PostIndexError> {
        let mut found = self
            .ranking
            .by_words(&index_terms(query), now, limit + exclude.len())?;
        found.ranked.retain(|(id, _)| !exclude.contains(id));
        found.ranked.truncate(limit);
        found.sharing_rare.retain(|id| !exclude.contains(id));
        Ok(found)
    }

    /// The live posts with these ids, in this order.
    async fn summaries(
        &self,
        ids: Vec<String>,
        now: i64,
    ) -> Result<Vec<PostSummary>, PostIndexError> {
        Ok(self.store.get_many(ids, now).await?)
    }

    /// Ranking by meaning, by the configured model; when Azure's query
    /// embedding fails, by the local model, with the failure's kind. None
    /// when no model ranked (none configured, or the vectors unreadable).
    async fn semantic(
        &self,
        query: &str,
        now: i64,
        exclude: &[String],
    ) -> (Option<(Scored, vectors::Spread)>, Option<LlmErrorKind>) {
        let ranking = &self.ranking;
        let local = || ranking.nearest_local(query, now, exclude, CANDIDATES);
        match self.embedder {
            Embedder::None => (None, None),
            Embedder::Local => (local(), None),
            Embedder::Azure => match self
                .llm
                .embed(&[query])
                .await
                .and_then(|mut v| v.pop().ok_or(LlmError::Malformed))
            {
                Ok(vector) => (ranking.nearest(&vector, now, exclude, CANDIDATES), None),
                Err(e) => {
                    tracing::warn!(
                        error.kind = e.kind_str(),
                        "query embedding failed; the local model ranks"
                    );
                    (local(), Some(e.kind()))
                }
            },
        }
    }

    /// Deletes expired posts; returns how many.
    pub async fn purge_expired(&self) -> Result<usize, PostIndexError> {
        Ok(self.store.purge_expired(now_ms()).await?)
    }

    /// Embeds posts stored without a vector; returns how many got one.
    pub async fn embed_pending(&self) -> usize {
        let _one_pass = self.embedding.lock().await;
        let mut done = 0;
        loop {
            let batch = match self.store.pending_embeddings(EMBED_BATCH).await {
                Ok(batch) if !batch.is_empty() => batch,
                Ok(_) => return done,
                Err(e) => {
                    tracing::warn!(error.message = %e, "post embedding deferred");
                    return done;
                }
            };
            let inputs: Vec<&str> = batch.iter().map(|(_, text, _)| text.as_str()).collect();
            let vectors = match self.llm.embed(&inputs).await {
                Ok(v) if v.len() == batch.len() => v,
                Ok(_) => {
                    tracing::warn!(error.kind = "malformed", "post embedding deferred");
                    return done;
                }
                Err(e) => {
                    tracing::warn!(
                        error.kind = e.kind_str(),
                        pending = batch.len(),
                        "post embedding deferred"
                    );
                    return done;
                }
            };
            let full = batch.len() == EMBED_BATCH;
            match self
                .store
                .set_embeddings(batch.into_iter().zip(vectors).collect())
                .await
            {
                Ok(stored) => done += stored,
                Err(e) => {
                    tracing::warn!(error.message = %e, "post vectors not stored");
                    return done;
                }
            }
            if !full {
                return done;
            }
        }
    }

    /// Runs purging and deferred embedding in the background until dropped.
    pub fn spawn_maintenance(
        &self,
        purge_every: Duration,
        embed_every: Duration,
    ) -> tokio::task::JoinHandle<()> {
        let index = self.clone();
        tokio::spawn(async move {
            let mut purge = tokio::time::interval(purge_every);
            let mut embed = tokio::time::interval(embed_every);
            loop {
                tokio::select! {
                    _ = purge.tick() => match index.purge_expired().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(purged = n, "expired posts purged"),
                        Err(e) => tracing::error!(error.message = %e, "purge failed"),
                    },
                    _ = embed.tick() => if index.embedder == Embedder::Azure {
                        index.embed_pending().await;
                    },
                }
            }
        })
    }
}

/// Ids of the candidates scoring at least `floor(best score)`.
pub(crate) fn above(candidates: &Scored, floor: impl Fn(f32) -> f32) -> impl Iterator<Item = &str> {
    let best = candidates.iter().map(|(_, s)| *s).fold(0f32, f32::max);
    let floor = floor(best);
    candidates
        .iter()
        .filter(move |(_, s)| *s >= floor)
        .map(|(id, _)| id.as_str())
}

/// Logs every candidate of a search with its scores and whether a floor
/// admitted it (`log.payloads`, development: post ids and numbers only).
fn log_candidates(words: &WordHits, meaning: Option<(&Scored, vectors::Spread)>, related: &[&str]) {
    let mut ids: Vec<&str> = words.ranked.iter().map(|(id, _)| id.as_str()).collect();
    if let Some((semantic, _)) = meaning {
        ids.extend(semantic.iter().map(|(id, _)| id.as_str()));
    }
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        let coverage = words.ranked.iter().find(|(x, _)| x == id).map(|(_, c)| *c);
        let rare_word = words.sharing_rare.iter().any(|x| x == id);
        let (similarity, z) = meaning
            .and_then(|(s, spread)| {
                let cos = s.iter().find(|(x, _)| x == id)?.1;
                Some((cos, (cos - spread.mean) / spread.std))
            })
            .unzip();
        tracing::debug!(
            post = id,
            coverage,
            rare_word,
            similarity,
            z,
            kept = related.contains(&id),
            "post candidate"
        );
    }
}

/// Ids of the candidates related by words: enough coverage, or a rare word shared.
fn related_by_coverage(words: &WordHits) -> impl Iterator<Item = &str> {
    above(&words.ranked, |best| {
        MIN_COVERAGE.max(best * RELATIVE_FLOOR)
    })
    .chain(words.sharing_rare.iter().map(String::as_str))
}

/// The first `limit` posts related by words, in text rank order.
fn related_by_words(words: &WordHits, limit: usize) -> Vec<String> {
    let related: Vec<&str> = related_by_coverage(words).collect();
    words
        .ranked
        .iter()
        .map(|(id, _)| id.as_str())
        .filter(|id| related.contains(id))
        .take(limit)
        .map(str::to_owned)
        .collect()
}

/// What the index searches: text and tags (the category is in the tags' company).
fn search_text(post: &PostSummary) -> String {
    let mut s = post.text.clone();
    for tag in &post.tags {
        s.push(' ');
        s.push_str(tag);
    }
    s.push(' ');
    s.push_str(post.category.as_str());
    s
}
