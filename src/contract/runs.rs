//! The run record (`GET /api/runs/{runId}`): what a run did, for operators.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::RunPath;

/// What a run did (`GET /api/runs/{runId}`): names, counts and timings,
/// never post text, queries, tool outputs or tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    pub run_id: String,
    /// When the request arrived (RFC 3339, UTC).
    pub started_at: String,
    pub path: RunPath,
    /// LLM rounds made.
    pub rounds: u32,
    pub elapsed_ms: u64,
    pub degraded: Vec<String>,
    pub unavailable_sources: Vec<String>,
    /// Each graph step, in order.
    pub steps: Vec<RunStep>,
    /// Each tool call, in the order they finished.
    pub tool_calls: Vec<RunToolCall>,
    /// Tokens of each LLM chat call.
    pub llm_usage: Vec<RunUsage>,
}

/// One step of the agent graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunStep {
    /// `llmCall`, `toolExec` or `formatResponse`.
    pub node: String,
    pub step: usize,
    /// LLM rounds made when the step ended.
    pub round: u32,
    /// Since the request arrived.
    pub elapsed_ms: u64,
}

/// One tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunToolCall {
    pub tool: String,
    pub ok: bool,
    /// Why it failed (`tool_error`, `invalid_arguments`, `mcp_error`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<String>,
    /// Results it returned.
    pub count: usize,
    /// The call's own duration.
    pub elapsed_ms: u64,
    /// Its arguments: kept only with `log.payloads` (development).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub arguments: Option<serde_json::Value>,
}

/// The tokens of one LLM chat call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunUsage {
    /// The round the call made (1 for the first).
    pub round: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
}
