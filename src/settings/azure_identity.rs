//! How the service proves who it is to Azure: `azure_openai.auth`,
//! `posts.auth`, and the Azure SDKs' own identity variables
//! (`AZURE_CLIENT_ID`, `AZURE_FEDERATED_TOKEN_FILE`, `IDENTITY_ENDPOINT`, …)
//! read once at start-up. `auto` is decided here, once.

use std::{collections::HashMap, path::PathBuf};

use serde::Deserialize;

use super::Secret;

/// `azure_openai.auth`: how Azure OpenAI calls are authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, strum::IntoStaticStr)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum LlmAuth {
    /// Decided at start-up from what is present (see [`LlmAuth::decide`]).
    Auto,
    /// The `api-key` header.
    ApiKey,
    /// AKS Workload Identity: a federated token file exchanged with Entra.
    WorkloadIdentity,
    /// App Service / Container Apps identity endpoint, else the VM's IMDS.
    ManagedIdentity,
    /// An app registration's client secret (`AZURE_CLIENT_SECRET`).
    ClientSecret,
}

impl LlmAuth {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether calls carry a Microsoft Entra ID bearer token.
    pub fn keyless(self) -> bool {
        !matches!(self, Self::Auto | Self::ApiKey)
    }

    /// `auto` settled: an API key configured by any means, else workload
    /// identity when its token file is given, else managed identity when
    /// an identity endpoint is, else the API key (there is none: calls are
    /// refused, as without a key before). Explicit values stay as they are.
    pub fn decide(self, api_key: bool, env: &AzureIdentityEnv) -> Self {
        match self {
            Self::Auto if api_key => Self::ApiKey,
            Self::Auto if env.federated_token_file.is_some() => Self::WorkloadIdentity,
            Self::Auto if env.identity_endpoint => Self::ManagedIdentity,
            Self::Auto => Self::ApiKey,
            explicit => explicit,
        }
    }
}

/// `posts.auth`: how PostgreSQL connections authenticate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PostsAuth {
    /// The password in `posts.database_url`.
    Password,
    /// A Microsoft Entra ID token as each new connection's password.
    Entra,
}

/// The Azure SDKs' identity variables, as the environment gave them.
#[derive(Debug, Clone, Default)]
pub struct AzureIdentityEnv {
    pub client_id: Option<String>,
    pub tenant_id: Option<String>,
    pub federated_token_file: Option<PathBuf>,
    /// Entra's host for another cloud (`https://login.microsoftonline.us`).
    pub authority_host: Option<String>,
    /// App Service / Container Apps set `IDENTITY_ENDPOINT` (read by the
    /// Azure SDK itself; here only whether it is there).
    pub identity_endpoint: bool,
    pub client_secret: Option<Secret>,
}

impl AzureIdentityEnv {
    /// The variables in `env` (empty ones count as unset).
    pub fn from_env(env: &HashMap<String, String>) -> Self {
        let var = |name: &str| env.get(name).filter(|v| !v.trim().is_empty()).cloned();
        Self {
            client_id: var("AZURE_CLIENT_ID"),
            tenant_id: var("AZURE_TENANT_ID"),
            federated_token_file: var("AZURE_FEDERATED_TOKEN_FILE").map(PathBuf::from),
            authority_host: var("AZURE_AUTHORITY_HOST"),
            identity_endpoint: var("IDENTITY_ENDPOINT").is_some(),
            client_secret: var("AZURE_CLIENT_SECRET").map(Secret::from),
        }
    }

    /// The variables `auth` needs that are missing, by name.
    pub fn missing_for(&self, auth: LlmAuth) -> Vec<&'static str> {
        let mut missing = Vec::new();
        let mut need = |present: bool, name| {
            if !present {
                missing.push(name);
            }
        };
        match auth {
            LlmAuth::WorkloadIdentity => {
                need(
                    self.federated_token_file.is_some(),
                    "AZURE_FEDERATED_TOKEN_FILE",
                );
                need(self.client_id.is_some(), "AZURE_CLIENT_ID");
                need(self.tenant_id.is_some(), "AZURE_TENANT_ID");
            }
            LlmAuth::ClientSecret => {
                need(self.tenant_id.is_some(), "AZURE_TENANT_ID");
                need(self.client_id.is_some(), "AZURE_CLIENT_ID");
                need(self.client_secret.is_some(), "AZURE_CLIENT_SECRET");
            }
            LlmAuth::Auto | LlmAuth::ApiKey | LlmAuth::ManagedIdentity => {}
        }
        missing
    }

    /// The identity `posts.auth = "entra"` uses when Azure OpenAI takes an
    /// API key: the first the environment provides, as `auto` finds it, a
    /// client secret next, else managed identity (a VM's IMDS).
    pub fn identity_for_database(&self, llm: LlmAuth) -> LlmAuth {
        if llm.keyless() {
            return llm;
        }
        match LlmAuth::Auto.decide(false, self) {
            LlmAuth::ApiKey if self.client_secret.is_some() => LlmAuth::ClientSecret,
            LlmAuth::ApiKey => LlmAuth::ManagedIdentity,
            found => found,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> AzureIdentityEnv {
        AzureIdentityEnv::from_env(
            &pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn auto_prefers_a_key_then_workload_identity_then_managed_identity() {
        let aks = env(&[
            ("AZURE_FEDERATED_TOKEN_FILE", "/var/run/token"),
            ("IDENTITY_ENDPOINT", "http://localhost:42356/msi/token"),
        ]);
        let app_service = env(&[("IDENTITY_ENDPOINT", "http://localhost:42356/msi/token")]);
        assert_eq!(LlmAuth::Auto.decide(true, &aks), LlmAuth::ApiKey);
        assert_eq!(LlmAuth::Auto.decide(false, &aks), LlmAuth::WorkloadIdentity);
        assert_eq!(
            LlmAuth::Auto.decide(false, &app_service),
            LlmAuth::ManagedIdentity
        );
        assert_eq!(LlmAuth::Auto.decide(false, &env(&[])), LlmAuth::ApiKey);
        // Explicit values are taken as they are, whatever is present.
        assert_eq!(
            LlmAuth::ManagedIdentity.decide(true, &aks),
            LlmAuth::ManagedIdentity
        );
        assert_eq!(
            LlmAuth::Auto.decide(false, &env(&[("AZURE_FEDERATED_TOKEN_FILE", " ")])),
            LlmAuth::ApiKey
        );
    }

    #[test]
    fn explicit_modes_name_the_variables_they_miss() {
        let some = env(&[("AZURE_CLIENT_ID", "c")]);
        assert_eq!(
            some.missing_for(LlmAuth::WorkloadIdentity),
            ["AZURE_FEDERATED_TOKEN_FILE", "AZURE_TENANT_ID"]
        );
        assert_eq!(
            some.missing_for(LlmAuth::ClientSecret),
            ["AZURE_TENANT_ID", "AZURE_CLIENT_SECRET"]
        );
        assert!(some.missing_for(LlmAuth::ManagedIdentity).is_empty());
    }
}
