//! The Azure OpenAI embeddings deployment: its calls (one vector per
//! input, in order) and the id stored beside its vectors.

use super::{
    AzureOpenAi, LlmError,
    azure::refuse_while_throttled,
    wire::{EmbeddingsRequest, EmbeddingsResponse},
};
use crate::{metrics, otel};

/// Room for an embeddings answer's envelope (model, usage) beside its vectors.
const EMBEDDINGS_ENVELOPE_BYTES: usize = 4 * 1024;

impl AzureOpenAi {
    /// The id of the embeddings deployment's vectors, stored beside them:
    /// `azure:` then the resource's host, the deployment and the vector size
    /// asked (`default` when none is), so a change of any is noticed.
    pub fn embeddings_model(&self) -> Option<String> {
        let url = self.inner.embeddings_url.as_ref()?;
        let dims = self
            .inner
            .dimensions
            .map_or_else(|| "default".to_owned(), |d| d.to_string());
        Some(format!(
            "{}{}/{}@{dims}",
            crate::store::AZURE_MODEL_PREFIX,
            url.host_str().unwrap_or_default(),
            self.inner.embedding_deployment
        ))
    }

    /// The vector size asked of the deployment (`embedding_dimensions`);
    /// None: the deployment's own.
    pub fn embedding_dimensions(&self) -> Option<usize> {
        self.inner.dimensions.map(|d| d as usize)
    }

    /// Embeds each input; the result has one vector per input, in order.
    pub async fn embed(&self, inputs: &[&str]) -> Result<Vec<Vec<f32>>, LlmError> {
        let started = std::time::Instant::now();
        let model = self.inner.embedding_deployment.as_str();
        let span = tracing::debug_span!(
            "embeddings",
            otel.name = format!("embeddings {model}"),
            otel.kind = "client",
            gen_ai.operation.name = "embeddings",
            gen_ai.provider.name = otel::PROVIDER,
            gen_ai.request.model = model,
        );
        let result = otel::traced(span, self.embed_call(inputs), LlmError::kind_str).await;
        self.metrics.llm_call(
            "embeddings",
            &self.inner.embedding_deployment,
            metrics::outcome(&result, LlmError::kind_str),
            started.elapsed().as_secs_f64(),
        );
        result
    }

    async fn embed_call(&self, inputs: &[&str]) -> Result<Vec<Vec<f32>>, LlmError> {
        let url = self
            .inner
            .embeddings_url
            .as_ref()
            .ok_or(LlmError::Unconfigured)?;
        refuse_while_throttled(&self.inner.embeddings_limit)?;
        let body = EmbeddingsRequest {
            model: self
                .inner
                .v1
                .then_some(self.inner.embedding_deployment.as_str()),
            input: inputs,
            dimensions: self.inner.dimensions,
        };
        let cap = EMBEDDINGS_ENVELOPE_BYTES
            + inputs.len() * self.inner.max_embedding_body_bytes_per_input;
        let mut response: EmbeddingsResponse = self
            .post(
                url,
                &body,
                self.inner.embeddings_timeout,
                cap,
                &self.inner.embeddings_limit,
            )
            .await?;
        if response.data.len() != inputs.len() {
            return Err(LlmError::Malformed);
        }
        response.data.sort_by_key(|d| d.index);
        Ok(response.data.into_iter().map(|d| d.embedding).collect())
    }
}
