//! What the app opens once (`App::build`) and hands to its parts: the upstream clients
//! (Microsoft Graph; Azure OpenAI with the credential it authenticates
//! with), the post index over the store (the panel cache told of every
//! post written, here or on another replica) and the cache's shared tier.

use std::{sync::Arc, time::Duration};

use crate::{
    azure_auth::Tokens,
    board::{Board, Memory, WithBoard},
    cache::{Invalidating, PanelCache},
    llm::{AzureOpenAi, LlmAuthHeader as Auth},
    metrics::Metrics,
    msgraph::GraphClient,
    posts::{PostIndex, PostIndexError},
    settings::Settings,
    store::{self, Store},
    tools::ToolDeps,
    upstream::Upstreams,
};

/// The clients, the post index and its store, opened once.
pub struct Parts {
    pub graph: GraphClient,
    pub llm: AzureOpenAi,
    pub posts: PostIndex,
    /// The documents shared on posts and their replies.
    pub board: Board,
    /// The store under the post index; it keeps the run records too.
    pub store: Arc<dyn Store>,
    pub metrics: Metrics,
}

impl Parts {
    /// The clients as `settings` configure them, over `http` and recording
    /// into `metrics`; the store (its schema created or migrated) and the
    /// post index over it. With `cache`, every post written or removed
    /// drops its cached panels, and with `cache.shared` the store keeps the
    /// cache's shared tier.
    pub async fn open(
        settings: &Settings,
        http: Upstreams,
        metrics: Metrics,
        tokens: Tokens,
        cache: Option<PanelCache>,
    ) -> Result<Self, PostIndexError> {
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
        let memory = Arc::new(Memory::default());
        let with_board: Arc<dyn store::Index> = WithBoard::new(ranker.index(), memory.clone());
        let index = match &cache {
            Some(cache) => Arc::new(Invalidating {
                inner: with_board,
                cache: cache.clone(),
            }),
            None => with_board,
        };
        let store = store::open(&settings.posts, index, tokens.database).await?;
        if let Some(cache) = cache.filter(|_| settings.cache.shared)
            && let Some(panels) = store.shared_panels()
        {
            let timeout = Duration::from_millis(settings.cache.shared_timeout_ms);
            cache.share(panels, timeout);
        }
        let posts = PostIndex::new(ranker, store.clone())
            .with_min_similarity(settings.posts.min_similarity)
            .with_payload_logs(settings.log.payloads)
            .with_metrics(metrics.clone());
        Ok(Self {
            graph,
            llm,
            posts,
            board: Board::new(store.clone(), memory, metrics.clone()),
            store,
            metrics,
        })
    }

    /// What the tools hold.
    pub fn tools(&self) -> ToolDeps {
        ToolDeps {
            graph: self.graph.clone(),
            posts: self.posts.clone(),
            board: self.board.clone(),
            llm: self.llm.clone(),
            metrics: self.metrics.clone(),
        }
    }
}
