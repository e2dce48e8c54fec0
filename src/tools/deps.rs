//! What every session's tools use: the Graph client, the post index, Azure
//! OpenAI and the metrics, opened once by the app (`app::Parts`).

use crate::{llm::AzureOpenAi, metrics::Metrics, msgraph::GraphClient, posts::PostIndex};

/// The upstream clients and the post index every session's tools use.
pub struct ToolDeps {
    pub graph: GraphClient,
    pub posts: PostIndex,
    /// What the board knows: the documents shared on posts, their replies.
    pub board: crate::board::Board,
    pub llm: AzureOpenAi,
    /// What every part records into (scraped at `GET /metrics`).
    pub metrics: Metrics,
}
