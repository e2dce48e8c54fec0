//! How Azure OpenAI calls prove who they are (an API key or a Microsoft
//! Entra ID token), and what is said when Azure OpenAI refuses.

use std::sync::atomic::Ordering;

use secrecy::ExposeSecret;

use super::{AzureOpenAi, LlmError};
use crate::{azure_auth::TokenKeeper, settings::Secret};

/// How calls prove who they are.
pub enum Auth {
    /// The `api-key` header (none configured: calls are refused).
    ApiKey(Option<Secret>),
    /// `Authorization: Bearer`, a Microsoft Entra ID token kept fresh.
    Entra(TokenKeeper),
}

impl Auth {
    /// `request` with the key or the token held now. No token held: the
    /// call is not made (Entra's failure is logged by the keeper).
    pub(super) fn sign(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::RequestBuilder, LlmError> {
        Ok(match self {
            Self::ApiKey(key) => request.header(
                "api-key",
                key.as_ref()
                    .map(ExposeSecret::expose_secret)
                    .unwrap_or_default(),
            ),
            Self::Entra(keeper) => {
                let bearer = keeper.bearer().map_err(|_| LlmError::NoToken)?;
                request.header(reqwest::header::AUTHORIZATION, bearer)
            }
        })
    }
}

impl AzureOpenAi {
    /// How calls are authenticated, for `/readyz`.
    pub fn auth_status(&self, mode: &str) -> crate::contract::LlmAuthStatus {
        crate::contract::LlmAuthStatus {
            mode: mode.to_owned(),
            token: match &self.inner.auth {
                Auth::ApiKey(_) => None,
                Auth::Entra(keeper) => Some(keeper.status()),
            },
            refused: self.inner.refusal_logged.load(Ordering::Relaxed),
        }
    }

    /// A refused key or token is logged once, with what to fix, until a
    /// call succeeds again.
    pub(super) fn log_refusal<R>(&self, result: &Result<R, LlmError>) {
        let logged = &self.inner.refusal_logged;
        match result {
            Ok(_) => logged.store(false, Ordering::Relaxed),
            Err(LlmError::Unauthorized) if !logged.swap(true, Ordering::Relaxed) => {
                match &self.inner.auth {
                    Auth::ApiKey(_) => tracing::warn!(
                        "Azure OpenAI refused the API key (401/403): check azure_openai.api_key \
                         (AZURE_OPENAI_API_KEY), or whether the resource disables key authentication"
                    ),
                    Auth::Entra(_) => tracing::warn!(
                        "Azure OpenAI refused the Microsoft Entra ID token (401/403): give the \
                         identity (AZURE_CLIENT_ID) the role Cognitive Services OpenAI User on the \
                         Azure OpenAI resource; role assignments take up to 5 minutes to apply"
                    ),
                }
            }
            Err(_) => {}
        }
    }
}
