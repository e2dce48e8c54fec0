//! The one seam between the post index and its embedding models: what a
//! model is to the index (an id stored beside its vectors, a vector size,
//! texts in and unit vectors out), whichever computes it. The multilingual
//! model and the word model compute in process; Azure OpenAI's embeddings
//! deployment over the network. The [`ranking`](super::ranking) holds
//! vectors per model id.
//!
//! "Local" names one thing: the multilingual model in process
//! (`posts.embedder = "local"`). The word model is the word model.

use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::time::Instant;

use super::{multilingual::Multilingual, word_model::WordModel};
use crate::llm::{AzureOpenAi, LlmError, LlmErrorKind};

/// A model that turns texts into unit vectors.
pub trait EmbeddingModel: Send + Sync {
    /// The id stored beside the vectors it computed: a change of the model,
    /// or of how it embeds, embeds every post again.
    fn id(&self) -> String;

    /// Components of its vectors; None where the model says only by its
    /// answers (an Azure deployment asked for no `dimensions`).
    fn dims(&self) -> Option<usize>;

    /// One vector per text, in order; given up at `by`.
    fn embed<'a>(
        &'a self,
        texts: &'a [&'a str],
        by: Option<Instant>,
    ) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>>;
}

/// Why a model gave no vectors.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(transparent)]
    Azure(#[from] LlmError),
    #[error("the texts were not embedded in time")]
    Timeout,
    #[error("the model's task failed")]
    Failed,
    #[error("a text has nothing the model can embed")]
    Empty,
}

impl EmbedError {
    /// As `meta.degraded` (`embeddings_<kind>`) and logs name it.
    pub fn kind(&self) -> LlmErrorKind {
        match self {
            Self::Azure(e) => e.kind(),
            Self::Timeout => LlmErrorKind::Timeout,
            Self::Failed | Self::Empty => LlmErrorKind::UpstreamError,
        }
    }

    pub fn kind_str(&self) -> &'static str {
        self.kind().as_str()
    }
}

/// Waits for `work` until `by` (no limit without one).
async fn until<T>(
    by: Option<Instant>,
    work: impl Future<Output = Result<T, EmbedError>>,
) -> Result<T, EmbedError> {
    if by.is_some_and(|by| by <= Instant::now()) {
        // Given up already: no work that nothing would wait for.
        return Err(EmbedError::Timeout);
    }
    match by {
        Some(by) => tokio::time::timeout_at(by, work)
            .await
            .unwrap_or(Err(EmbedError::Timeout)),
        None => work.await,
    }
}

/// The embeddings deployment of an Azure OpenAI resource.
pub struct Azure(pub AzureOpenAi);

impl EmbeddingModel for Azure {
    fn id(&self) -> String {
        self.0.embeddings_model().unwrap_or_default()
    }

    fn dims(&self) -> Option<usize> {
        self.0.embedding_dimensions()
    }

    fn embed<'a>(
        &'a self,
        texts: &'a [&'a str],
        by: Option<Instant>,
    ) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        Box::pin(until(by, async move {
            let vectors = self.0.embed(texts).await?;
            if vectors.len() == texts.len() {
                Ok(vectors)
            } else {
                Err(LlmError::Malformed.into())
            }
        }))
    }
}

/// The multilingual model, on its pool of blocking threads.
impl EmbeddingModel for Arc<Multilingual> {
    fn id(&self) -> String {
        Multilingual::id(self)
    }

    fn dims(&self) -> Option<usize> {
        Some(Multilingual::dims(self))
    }

    fn embed<'a>(
        &'a self,
        texts: &'a [&'a str],
        by: Option<Instant>,
    ) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        let texts = texts.iter().map(|t| (*t).to_owned()).collect();
        Box::pin(until(by, async move {
            self.embed_many(texts).await.ok_or(EmbedError::Failed)
        }))
    }
}

/// The word model, computed in place (microseconds a text).
impl EmbeddingModel for WordModel {
    fn id(&self) -> String {
        format!("words:{}", self.name())
    }

    fn dims(&self) -> Option<usize> {
        Some(WordModel::dims(self))
    }

    fn embed<'a>(
        &'a self,
        texts: &'a [&'a str],
        _by: Option<Instant>,
    ) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        let vectors = texts
            .iter()
            .map(|t| self.embed_text(t).ok_or(EmbedError::Empty))
            .collect();
        Box::pin(std::future::ready(vectors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each model's vectors: one per text, of its size, at unit length.
    async fn unit_vectors_of_its_size(model: &dyn EmbeddingModel) {
        let texts = [
            "VPN keeps dropping at home",
            "재택근무 중 VPN 연결이 끊겨요",
        ];
        let vectors = model.embed(&texts, None).await.unwrap();
        assert_eq!(vectors.len(), 2, "{}", model.id());
        for v in &vectors {
            assert_eq!(Some(v.len()), model.dims(), "{}", model.id());
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-3, "{}: {norm}", model.id());
        }
    }

    #[tokio::test]
    async fn both_models_in_process_answer_through_the_one_seam_with_distinct_ids() {
        let multilingual = Arc::new(Multilingual::load(None).unwrap());
        let words = WordModel::embedded().unwrap();
        unit_vectors_of_its_size(&multilingual).await;
        unit_vectors_of_its_size(&words).await;
        assert_ne!(
            EmbeddingModel::id(&multilingual),
            EmbeddingModel::id(&words)
        );
    }

    #[tokio::test]
    async fn a_deadline_already_past_embeds_nothing() {
        let multilingual = Arc::new(Multilingual::load(None).unwrap());
        let past = Some(Instant::now());
        let answer = multilingual.embed(&["a text"], past).await;
        assert!(matches!(answer, Err(EmbedError::Timeout)), "{answer:?}");
    }

    #[tokio::test]
    async fn a_text_the_word_model_cannot_read_is_an_error_not_a_zero_vector() {
        let words = WordModel::embedded().unwrap();
        let answer = words.embed(&[""], None).await;
        assert!(matches!(answer, Err(EmbedError::Empty)), "{answer:?}");
    }
}
