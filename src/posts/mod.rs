//! The post index: LinkUp posts pushed to us, searched in memory by text
//! (BM25) and by meaning (the multilingual model in process, or Azure
//! OpenAI's embeddings), fused. What it searches is kept by the
//! [`store`](crate::store), which keeps the in-memory [`ranking`] in step
//! with what it committed; this module decides what a post's searchable
//! text is, embeds posts in the background (once per post: the vectors are
//! stored), and ranks. Expired posts are never returned and are purged
//! periodically.
//!
//! - [`ranking`]: the in-memory index (the store's `Index`): [`lexical`]
//!   BM25, [`vectors`] per model id, loaded in bulk at start-up;
//! - [`models`]: the one seam for the embedding models (id, size, texts to
//!   vectors): [`multilingual`], the local model (Korean and English, in
//!   process); [`word_model`] (static token vectors: an English post's
//!   Microsoft 365 hits by meaning, words' rarity, Azure's stand-in); and
//!   Azure OpenAI's embeddings deployment;
//! - [`search`]: a query's candidates by words and by meaning, fused;
//!   [`relevance`]: which of them are related enough to show, judged
//!   against the models' [`reference`] board;
//! - [`maintenance`]: purging expired posts, embedding posts with Azure.

mod lexical;
mod maintenance;
mod meaning;
mod models;
pub mod multilingual;
mod ranking;
mod reference;
mod relevance;
mod search;
mod spelling;
mod vectors;
pub mod word_model;

use std::sync::Arc;

use crate::{
    contract::PostSummary,
    llm::AzureOpenAi,
    metrics::Metrics,
    settings::{EmbedderSetting, PostsSettings},
    store::{self, Store, StoreError, StoredPost, now_ms},
};
pub use meaning::Meaning;
use models::EmbeddingModel;
use multilingual::Multilingual;
use ranking::Ranking;
pub use relevance::Admit;
use relevance::Floors;
pub use search::{CANDIDATES, PostSearch, Within};
pub use store::parse_time_ms;
use word_model::{ModelError, WordModel};

/// The model compiled into the binary, loaded once per process: it is the
/// same bytes every time and never changes, so every post index a process
/// builds (one in the service, one per app in a test process) shares it.
fn embedded_model() -> Result<Arc<WordModel>, ModelError> {
    static EMBEDDED: std::sync::OnceLock<Arc<WordModel>> = std::sync::OnceLock::new();
    if let Some(model) = EMBEDDED.get() {
        return Ok(model.clone());
    }
    let model = Arc::new(WordModel::embedded()?);
    Ok(EMBEDDED.get_or_init(|| model).clone())
}

/// Ranked ids with their score (coverage by words, or similarity).
type Scored = Vec<(String, f32)>;

/// Which model ranks posts by meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedder {
    /// The Azure OpenAI embeddings deployment; the word model stands in
    /// while it fails.
    Azure,
    /// The local model: the multilingual model, in process.
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
    #[error("{0} (set posts.local_model_file, or posts.embedder = \"none\" to rank by words only)")]
    Multilingual(ModelError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("post index lock poisoned")]
    Poisoned,
    #[error("post index task failed")]
    Task,
}

/// Cheap to clone; all clones share the store and the ranking.
#[derive(Clone)]
pub struct PostIndex {
    store: Arc<dyn Store>,
    ranking: Arc<Ranking>,
    embedder: Embedder,
    /// The model of the stored vectors: Azure's deployment or the local model.
    stored: Option<Arc<dyn EmbeddingModel>>,
    /// One embedding pass at a time: concurrent passes would embed the same rows.
    embedding: Arc<tokio::sync::Mutex<()>>,
    floors: Floors,
    metrics: Metrics,
    /// `log.payloads`: each search logs its candidates and why each was
    /// kept or dropped (post ids and scores; development only).
    payload_logs: bool,
}

/// What the post index ranks with, made before its store is opened: the
/// store keeps it in step from the first row it loads.
pub struct Ranker {
    ranking: Arc<Ranking>,
    embedder: Embedder,
    stored: Option<Arc<dyn EmbeddingModel>>,
}

impl Ranker {
    /// What the store keeps in step with its rows.
    pub fn index(&self) -> Arc<dyn store::Index> {
        self.ranking.clone()
    }
}

impl PostIndex {
    /// The ranking, with the configured model and the word model unless
    /// `posts.embedder` is `none` (a missing or corrupt model file is an
    /// error naming it); the store is
    /// then opened with [`Ranker::index`] and given to [`PostIndex::new`].
    pub async fn ranker(
        settings: &PostsSettings,
        llm: &AzureOpenAi,
    ) -> Result<Ranker, PostIndexError> {
        let embedder = match settings.embedder {
            EmbedderSetting::None => Embedder::None,
            EmbedderSetting::Local => Embedder::Local,
            EmbedderSetting::Azure => Embedder::Azure,
            EmbedderSetting::Auto if llm.embeddings_configured() => Embedder::Azure,
            EmbedderSetting::Auto => Embedder::Local,
        };
        let word_model = match embedder {
            Embedder::None => None,
            _ => {
                let path = settings.model_path.clone();
                let model = tokio::task::spawn_blocking(move || match path {
                    Some(dir) => WordModel::load(&dir).map(Arc::new),
                    None => embedded_model(),
                })
                .await
                .map_err(|_| PostIndexError::Task)??;
                tracing::info!(
                    model = model.name(),
                    dims = model.dims(),
                    bytes = model.table_bytes(),
                    "word embedding model loaded"
                );
                Some(model)
            }
        };
        let multilingual = match embedder {
            Embedder::Local => {
                let file = settings.local_model_file.clone();
                let model =
                    tokio::task::spawn_blocking(move || Multilingual::load(file.as_deref()))
                        .await
                        .map_err(|_| PostIndexError::Task)?
                        .map_err(PostIndexError::Multilingual)?;
                tracing::info!(model = model.name(), "multilingual embedding model loaded");
                Some(Arc::new(model))
            }
            _ => None,
        };
        let stored: Option<Arc<dyn EmbeddingModel>> = match embedder {
            Embedder::Azure => llm
                .embeddings_configured()
                .then(|| Arc::new(models::Azure(llm.clone())) as _),
            Embedder::Local => multilingual.clone().map(|m| Arc::new(m) as _),
            Embedder::None => None,
        };
        let vector_model = stored.as_ref().map(|m| m.id());
        Ok(Ranker {
            ranking: Arc::new(Ranking::new(word_model, multilingual, vector_model)),
            embedder,
            stored,
        })
    }

    /// The post index over `store`, opened with `ranker`'s index.
    pub fn new(ranker: Ranker, store: Arc<dyn Store>) -> Self {
        let floors = match ranker.embedder {
            Embedder::Local => Floors::multilingual(),
            _ => Floors::default(),
        };
        Self {
            store,
            ranking: ranker.ranking,
            embedder: ranker.embedder,
            stored: ranker.stored,
            embedding: Arc::default(),
            floors,
            metrics: Metrics::default(),
            payload_logs: false,
        }
    }

    /// Which model ranks posts by meaning.
    pub fn embedder(&self) -> Embedder {
        self.embedder
    }

    /// The name of the model in process that ranks by meaning when
    /// nothing upstream does: the local model, else the word model standing
    /// in for Azure (`/readyz`'s `local_model`).
    pub fn in_process_model(&self) -> Option<String> {
        match self.ranking.multilingual() {
            Some(m) => Some(m.name().to_owned()),
            None => self.ranking.word_model().map(|m| m.name().to_owned()),
        }
    }

    /// The word model's name, when it is loaded.
    pub fn word_model(&self) -> Option<String> {
        self.ranking.word_model().map(|m| m.name().to_owned())
    }

    /// Stores posts (one transaction); returns for each whether it was new.
    /// Vectors are computed afterwards, so ingestion never waits on Azure.
    pub async fn upsert(&self, posts: Vec<PostSummary>) -> Result<Vec<bool>, PostIndexError> {
        match self.write(posts, Vec::new()).await? {
            Ok((created, _)) => Ok(created),
            // No change to refuse.
            Err(_) => Ok(Vec::new()),
        }
    }

    /// Stores posts, then applies `changes` to the shared documents and
    /// replies of live posts, in one transaction: a refused change writes
    /// nothing (see [`store::knowledge::Written`]).
    pub async fn write(
        &self,
        posts: Vec<PostSummary>,
        changes: Vec<(String, store::knowledge::Change)>,
    ) -> Result<store::knowledge::Written, PostIndexError> {
        let has_posts = !posts.is_empty();
        let stored: Vec<StoredPost> = posts
            .into_iter()
            .map(|post| StoredPost {
                search_text: search_text(&post.text, &post.tags),
                expires_at_ms: parse_time_ms(&post.expires_at),
                post,
                vector: None,
                vector_model: None,
                knowledge: None,
            })
            .collect();
        let written = self.store.write(stored, changes, now_ms()).await?;
        if has_posts && written.is_ok() && self.embedder != Embedder::None {
            let index = self.clone();
            tokio::spawn(async move { index.embed_pending().await });
        }
        Ok(written)
    }

    /// The live post with this id.
    pub async fn get(&self, id: &str) -> Result<Option<PostSummary>, PostIndexError> {
        Ok(self.get_many(vec![id.to_owned()]).await?.pop())
    }

    /// The live posts of `ids`, in that order (the gone ones left out).
    pub async fn get_many(&self, ids: Vec<String>) -> Result<Vec<PostSummary>, PostIndexError> {
        Ok(self.store.get_many(ids, now_ms()).await?)
    }

    /// Which of `ids` are still live posts (not deleted, not expired).
    pub async fn live(
        &self,
        ids: Vec<String>,
    ) -> Result<std::collections::HashSet<String>, PostIndexError> {
        Ok(self
            .store
            .get_many(ids, now_ms())
            .await?
            .into_iter()
            .map(|p| p.id)
            .collect())
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
}

/// What the index searches and embeds: a post's text and tags; also the
/// query of a view's posts search, which then reads the post's stored vector.
pub fn search_text(text: &str, tags: &[String]) -> String {
    let mut s = text.trim().to_owned();
    for tag in tags {
        s.push(' ');
        s.push_str(tag);
    }
    s
}
