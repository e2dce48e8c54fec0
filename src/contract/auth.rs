//! How the service authenticates to Azure, as `/readyz` shows it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Azure OpenAI's authentication in `/readyz`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct LlmAuthStatus {
    /// `api-key`, `workload-identity`, `managed-identity` or `client-secret`
    /// (what `azure_openai.auth = "auto"` decided at start-up).
    pub mode: String,
    /// Keyless: the Microsoft Entra ID token's state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<TokenStatus>,
    /// Azure OpenAI refused the key or token at the last call (401/403;
    /// runs say `llm_unauthorized`).
    pub refused: bool,
}

/// A Microsoft Entra ID token kept by the service.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TokenStatus {
    /// `ok` (a token is held), `pending` (the first fetch has not ended),
    /// or why none is held: `refused` (Entra refused: the identity, its
    /// federated credential or secret), `unreachable`, `timeout`.
    pub state: String,
    /// Seconds until the held token expires (a refresh comes well before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in_s: Option<u64>,
    /// A refresh failed while the held token is still good (retried).
    #[serde(default)]
    pub refresh_failing: bool,
}
