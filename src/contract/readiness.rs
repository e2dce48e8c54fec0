//! `GET /readyz`'s body: what the replica serves with, and how each
//! upstream and store is doing.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{LlmAuthStatus, TokenStatus};

/// `GET /readyz`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Readiness {
    /// Whether suggestions are served (the post index answers and the MCP
    /// tools list, and the process is not shutting down); an unreachable
    /// PostgreSQL does not make it false.
    pub ready: bool,
    /// SIGTERM was received: requests are still served for
    /// `server.shutdown_delay_ms`, but no new ones should be routed here.
    pub shutting_down: bool,
    /// The post index answers searches (from memory with PostgreSQL).
    pub post_index: bool,
    /// Where posts are stored: `sqlite` or `postgres`.
    pub post_store: String,
    /// Whether that store is reachable: false while PostgreSQL is down
    /// (writes answer 503, searches may be stale: `posts_stale`).
    pub post_store_reachable: bool,
    pub mcp_tools: Vec<String>,
    pub llm_configured: bool,
    /// The chat deployment's family as used now: `chat` or `reasoning`.
    pub llm_model_family: String,
    /// Parameters the chat deployment refused (left out since; `response_format:json_object`:
    /// no response format at all).
    pub llm_dropped_parameters: Vec<String>,
    pub embeddings_configured: bool,
    /// Which model ranks posts by meaning: `azure`, `local` or `none`.
    pub embedder: String,
    /// The model in process that ranks posts when nothing upstream does:
    /// the local (multilingual) model (`local`), or the word model standing
    /// in while Azure's embeddings fail (`azure`).
    pub local_model: Option<String>,
    /// The word model (Microsoft 365 hits by meaning, words' rarity), if loaded.
    pub word_model: Option<String>,
    pub graph_base_url: String,
    pub llm_circuit_open: bool,
    /// How Azure OpenAI calls are authenticated, and how that goes.
    pub llm_auth: LlmAuthStatus,
    /// With `posts.auth = "entra"`: the database token's state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_store_token: Option<TokenStatus>,
    /// With `cache.shared`: whether its table answers now. A shared tier
    /// that does not answer is only missed panels: it never makes the
    /// replica unready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panel_cache_shared_reachable: Option<bool>,
    /// Each upstream's rate-limit state: `ok`, `warning` (under 10 % of its
    /// limit left) or `throttled` (a 429's retry time has not passed).
    pub rate_limits: RateLimits,
}

/// Rate-limit state per upstream.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RateLimits {
    pub azure_openai_chat: String,
    pub azure_openai_embeddings: String,
    pub graph: String,
}
