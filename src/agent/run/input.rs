//! What a run needs from the request.

use tokio::time::Instant;

use crate::{contract::SuggestionsRequest, settings::Secret};

/// What a run needs from the request.
pub struct RunInput {
    /// The run's id (`meta.runId`, `X-Run-Id`).
    pub run_id: String,
    pub post_id: String,
    pub text: String,
    pub tags: Vec<String>,
    pub category: Option<String>,
    /// The caller's Microsoft Graph token, if any.
    pub graph_token: Option<Secret>,
    /// When the request arrived: the deadline counts from here.
    pub arrived: Instant,
}

impl RunInput {
    /// What the run searches similar posts for when the model does not: the
    /// text and the author's tags, which name the post's topic.
    pub fn posts_query(&self) -> String {
        crate::posts::search_text(&self.text, &self.tags)
    }

    /// A new run id.
    pub fn new_run_id() -> String {
        uuid::Uuid::new_v4().to_string()
    }

    /// The run for a validated `POST /api/suggestions` body.
    pub fn for_request(
        req: SuggestionsRequest,
        graph_token: Option<Secret>,
        arrived: Instant,
    ) -> Self {
        Self {
            run_id: Self::new_run_id(),
            post_id: req.post_id,
            text: req.text,
            tags: req.tags,
            category: req.category,
            graph_token,
            arrived,
        }
    }
}
