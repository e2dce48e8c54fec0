//! The multilingual model as the post index uses it: multilingual-e5-small
//! in process ([`linkup_e5`]), every text embedded as a query (`query: `;
//! posts and questions are the same kind of text, and a post's stored
//! vector then serves the views of it), its language's mean vector
//! subtracted and the rest at unit length. Without the correction a Korean
//! text is nearer every Korean text than the English one on its topic (on
//! the tuning half, Korean→English hit@5 0.09 raw, 0.57 corrected).
//!
//! How similar a text is to posts is judged against the model's
//! [`reference`] board ([`Multilingual::spread`]).
//!
//! Embedding is CPU work (about 15 ms a post): it runs on blocking threads,
//! at most one per core at a time ([`Multilingual::embed`]), and the last
//! texts embedded for queries are remembered.

use std::{path::Path, sync::Arc};

use linkup_e5::{Kind, Model};
use tokio::{sync::Semaphore, time::Instant};

use super::{
    reference,
    vectors::{Spread, VectorSet},
    word_model::ModelError,
};
use crate::keywords::korean::is_korean;

/// The model compiled into the binary: multilingual-e5-small, 4-bit, its
/// vocabulary cut to Korean and English (`models/multilingual-e5-small`).
const EMBEDDED: &[u8] = include_bytes!("../../models/multilingual-e5-small/e5-small-koen-q4.bin");
const EMBEDDED_NAME: &str = "multilingual-e5-small-koen-q4";
/// Each language's mean vector of the compiled-in model (written by the
/// `language_means` test from the tuning half's posts).
const MEANS: &str = include_str!("../../models/multilingual-e5-small/language-means.json");
/// Queries whose vectors are remembered.
const RECENT: u64 = 4096;

/// A text's language, as the correction tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Language {
    Korean,
    Other,
}

/// Each language's mean vector, subtracted from its texts' vectors.
#[derive(serde::Deserialize)]
struct LanguageMeans {
    ko: Vec<f32>,
    en: Vec<f32>,
}

/// The loaded model, its correction, its pool and its recent queries.
pub struct Multilingual {
    model: Model,
    name: String,
    means: LanguageMeans,
    /// The reference board.
    reference: VectorSet,
    /// Blocking threads embedding at once: one per core.
    pool: Arc<Semaphore>,
    /// Recent queries' vectors, by their text's digest.
    recent: moka::future::Cache<u64, Arc<[f32]>>,
}

impl Multilingual {
    /// The compiled-in model, or the `E5S1` file at `path` (its vocabulary
    /// must cover Korean and English: the correction's means are the
    /// compiled-in model's, and apply to any file of the same network).
    pub fn load(path: Option<&Path>) -> Result<Self, ModelError> {
        let label = path.map_or_else(
            || Path::new("(embedded)").join(EMBEDDED_NAME),
            Path::to_owned,
        );
        let invalid = |reason: String| ModelError::Invalid {
            path: label.clone(),
            reason,
        };
        let (bytes, name): (&'static [u8], String) = match path {
            None => (EMBEDDED, EMBEDDED_NAME.to_owned()),
            Some(p) => {
                let bytes = std::fs::read(p).map_err(|source| ModelError::Read {
                    path: p.to_owned(),
                    source,
                })?;
                let name = p
                    .file_stem()
                    .map_or_else(|| "e5".to_owned(), |s| s.to_string_lossy().into_owned());
                (Box::leak(bytes.into_boxed_slice()), name)
            }
        };
        let model = Model::from_bytes(bytes).map_err(|e| invalid(e.to_string()))?;
        let means: LanguageMeans =
            serde_json::from_str(MEANS).map_err(|e| invalid(format!("language means: {e}")))?;
        if means.ko.len() != model.dims() || means.en.len() != model.dims() {
            return Err(invalid(format!(
                "{} dimensions, not the {} of the language means",
                model.dims(),
                means.ko.len()
            )));
        }
        let reference =
            reference::multilingual(reference::MULTILINGUAL, model.dims()).map_err(invalid)?;
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Ok(Self {
            model,
            name,
            means,
            reference,
            pool: Arc::new(Semaphore::new(cores)),
            recent: moka::future::Cache::new(RECENT),
        })
    }

    /// The model's name (`/readyz`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The id stored beside its vectors: the model and how texts are
    /// embedded (a change of either embeds every post again).
    pub fn id(&self) -> String {
        format!("{}/query/language-means-1", self.name)
    }

    /// Components of its vectors.
    pub fn dims(&self) -> usize {
        self.model.dims()
    }

    /// How similar the model finds texts to `query`, by its reference
    /// board: what a similarity to it is judged against.
    pub fn spread(&self, query: &[f32]) -> Spread {
        self.reference.nearest(query, 0, &[], 1).1
    }

    /// How many pieces the model's vocabulary cuts `word` into: one for a
    /// word frequent in Korean or English (the vocabulary holds it whole).
    pub fn pieces(&self, word: &str) -> usize {
        self.model.pieces(word)
    }

    /// `text`'s vector, corrected by its language's mean (blocking: call on
    /// a blocking thread).
    pub fn embed_now(&self, text: &str) -> Vec<f32> {
        let raw = self.model.embed(text, Kind::Query);
        let mean = match language(text) {
            Language::Korean => &self.means.ko,
            Language::Other => &self.means.en,
        };
        let mut v: Vec<f32> = raw.iter().zip(mean).map(|(x, m)| x - m).collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm.is_normal() {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }

    /// The vectors of `texts`, on a blocking thread of the pool.
    pub async fn embed_many(self: &Arc<Self>, texts: Vec<String>) -> Option<Vec<Vec<f32>>> {
        let permit = self.pool.clone().acquire_owned().await.ok()?;
        self.embed_with(permit, texts).await
    }

    async fn embed_with(
        self: &Arc<Self>,
        _permit: tokio::sync::OwnedSemaphorePermit,
        texts: Vec<String>,
    ) -> Option<Vec<Vec<f32>>> {
        let model = self.clone();
        tokio::task::spawn_blocking(move || texts.iter().map(|t| model.embed_now(t)).collect())
            .await
            .ok()
    }

    /// A query's vector (`digest`: its text's), and whether this call
    /// embedded it: remembered, or embedded on the pool when a thread of it
    /// frees by `by` (a burst waits for threads, it queues no work past its
    /// deadline). Concurrent queries of one text wait for one embedding;
    /// once started, it is finished and remembered even if `by` passes.
    /// `new_texts` false (overload): only a remembered vector.
    pub async fn query(
        self: &Arc<Self>,
        text: &str,
        digest: u64,
        by: Option<Instant>,
        new_texts: bool,
    ) -> Option<(Arc<[f32]>, bool)> {
        if let Some(v) = self.recent.get(&digest).await {
            return Some((v, false));
        }
        if !new_texts || by.is_some_and(|by| by <= Instant::now()) {
            return None;
        }
        // moka runs one caller's `init` for a key; the others wait for it.
        let init = self.embed_query(text, digest);
        let shared = self.recent.entry(digest).or_optionally_insert_with(init);
        let entry = match by {
            Some(by) => tokio::time::timeout_at(by, shared).await.ok()??,
            None => shared.await?,
        };
        let embedded = entry.is_fresh();
        Some((entry.into_value(), embedded))
    }

    /// `text`'s vector, embedded on the pool when a thread frees; the
    /// embedding is remembered even when its caller has gone.
    async fn embed_query(self: &Arc<Self>, text: &str, digest: u64) -> Option<Arc<[f32]>> {
        let permit = self.pool.clone().acquire_owned().await.ok()?;
        let model = self.clone();
        let text = text.to_owned();
        tokio::spawn(async move {
            let v: Arc<[f32]> = model.embed_with(permit, vec![text]).await?.pop()?.into();
            model.recent.insert(digest, v.clone()).await;
            Some(v)
        })
        .await
        .ok()?
    }
}

fn language(text: &str) -> Language {
    if is_korean(text) {
        Language::Korean
    } else {
        Language::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::posts::meaning::dot as cosine;

    #[test]
    fn a_korean_question_is_nearer_the_english_post_on_its_topic_than_a_korean_one_on_another() {
        let model = Multilingual::load(None).unwrap();
        let question = model.embed_now("VPN 연결이 계속 끊겨요. 재택근무 중인데 해결 방법 있나요?");
        let english = model.embed_now("VPN keeps disconnecting when working from home, any fix?");
        let korean_other = model.embed_now("구내식당 점심 메뉴는 어디서 확인하나요?");
        assert!(
            cosine(&question, &english) > cosine(&question, &korean_other),
            "{} vs {}",
            cosine(&question, &english),
            cosine(&question, &korean_other)
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_queries_of_one_new_text_share_one_embedding() {
        let model = Arc::new(Multilingual::load(None).unwrap());
        let text = "Who do I ask about parking permits for the garage?";
        let views: Vec<_> = (0..8)
            .map(|_| {
                let model = model.clone();
                tokio::spawn(async move { model.query(text, 7, None, true).await })
            })
            .collect();
        let mut answers = Vec::new();
        for view in views {
            answers.push(view.await.unwrap().expect("a vector"));
        }
        let embedded = answers.iter().filter(|(_, now)| *now).count();
        assert_eq!(embedded, 1, "one embedding for eight views of a new text");
        assert!(answers.iter().all(|(v, _)| v[..] == answers[0].0[..]));
    }

    #[tokio::test]
    async fn a_query_is_embedded_once_then_remembered_and_not_embedded_under_overload() {
        let model = Arc::new(Multilingual::load(None).unwrap());
        let text = "How do I book a meeting room for ten people?";
        let overload = model.query(text, 1, None, false).await;
        assert!(overload.is_none(), "overload: only remembered vectors");
        let (first, embedded) = model.query(text, 1, None, true).await.unwrap();
        let (again, embedded_again) = model.query(text, 1, None, false).await.unwrap();
        assert!(embedded && !embedded_again);
        assert!(
            Arc::ptr_eq(&first, &again),
            "remembered, not embedded again"
        );
        let past = Some(Instant::now());
        assert!(model.query("another text", 2, past, true).await.is_none());
        assert!(
            model.recent.get(&2).await.is_none(),
            "no work past a deadline"
        );
        // Every thread busy: a query waits for one until its time is up,
        // and leaves no work queued behind it.
        let busy: Vec<_> = (0..model.pool.available_permits())
            .map(|_| model.pool.clone().try_acquire_owned().unwrap())
            .collect();
        let soon = Some(Instant::now() + std::time::Duration::from_millis(50));
        assert!(model.query("a third text", 3, soon, true).await.is_none());
        drop(busy);
        assert!(
            model.recent.get(&3).await.is_none(),
            "nothing embedded after"
        );
    }
}
