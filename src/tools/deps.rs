//! What every session's tools use — the Graph client, the post index, Azure
//! OpenAI, the metrics — and their wiring: the one used by the app, the
//! tests and the benches.

use std::{sync::Arc, time::Duration};

use crate::{
    azure_auth::Tokens,
    cache::{Invalidating, PanelCache},
    llm::{AzureOpenAi, LlmAuthHeader as Auth},
    metrics::Metrics,
    msgraph::GraphClient,
    posts::{PostIndex, PostIndexError},
    settings::Settings,
    store::{self, Store},
    upstream::Upstreams,
};

/// The upstream clients and the post index every session's tools use.
pub struct ToolDeps {
    pub graph: GraphClient,
    pub posts: PostIndex,
    pub llm: AzureOpenAi,
    /// What every part records into (scraped at `GET /metrics`).
    pub metrics: Metrics,
}

impl ToolDeps {
    /// The clients as `settings` configure them, over `http` and recording
    /// into `metrics`, and the post index over the store this opens
    /// (creating or migrating its schema): handed back too, for the run
    /// records, which it also keeps.
    pub async fn open(
        settings: &Settings,
        http: Upstreams,
        metrics: Metrics,
        tokens: Tokens,
        cache: Option<PanelCache>,
    ) -> Result<(Self, Arc<dyn Store>), PostIndexError> {
        let graph = GraphClient::new(
            http.graph,
            &settings.msgraph.base_url,
            Duration::from_millis(settings.msgraph.timeout_ms),
        )
        .with_max_body_bytes(settings.msgraph.max_body_bytes)
        .with_metrics(metrics.clone());
        let auth = match tokens.openai {
            Some(keeper) => Auth::Entra(keeper),
            None => Auth::ApiKey(settings.azure_openai.api_key.clone()),
        };
        let llm = AzureOpenAi::with_auth(http.azure, &settings.azure_openai, auth)
            .with_metrics(metrics.clone());
        let ranker = PostIndex::ranker(&settings.posts, &llm).await?;
        // Every post written or removed, here or on another replica, drops
        // its cached panels.
        let index = match &cache {
            Some(cache) => Arc::new(Invalidating {
                inner: ranker.index(),
                cache: cache.clone(),
            }),
            None => ranker.index(),
        };
        let store = store::open(&settings.posts, index, tokens.database).await?;
        if let Some(cache) = cache.filter(|_| settings.cache.shared)
            && let Some(panels) = store.shared_panels()
        {
            cache.share(
                panels,
                Duration::from_millis(settings.cache.shared_timeout_ms),
            );
        }
        let posts = PostIndex::new(ranker, store.clone(), llm.clone())
            .with_min_similarity(settings.posts.min_similarity)
            .with_payload_logs(settings.log.payloads)
            .with_metrics(metrics.clone());
        let deps = Self {
            graph,
            posts,
            llm,
            metrics,
        };
        Ok((deps, store))
    }
}
