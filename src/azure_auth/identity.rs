//! The official SDK's credentials (`azure_identity`) as a [`TokenSource`]:
//! the one `azure_openai.auth` names, built from the SDK's own variables,
//! sending through a transport we give it (our reqwest client; in tests, one
//! that routes Entra's host to a loopback fake).

use std::{sync::Arc, time::SystemTime};

use azure_core::{
    cloud::{CloudConfiguration, CustomConfiguration},
    credentials::TokenCredential,
    http::{ClientOptions, StatusCode, Transport},
};
use azure_identity::{
    ClientSecretCredential, ClientSecretCredentialOptions, ManagedIdentityCredential,
    ManagedIdentityCredentialOptions, UserAssignedId, WorkloadIdentityCredential,
    WorkloadIdentityCredentialOptions,
};
use futures::future::BoxFuture;
use secrecy::ExposeSecret;

use super::{Token, TokenFailure, TokenSource};
use crate::settings::{AzureIdentityEnv, LlmAuth};

/// An Azure SDK credential.
pub struct AzureIdentity {
    credential: Arc<dyn TokenCredential>,
}

impl AzureIdentity {
    /// The credential `auth` names (a keyless one), configured from `env`,
    /// sending through `transport`. Fails when `env` lacks what it needs
    /// (settings validation says which variable first) or a workload
    /// identity's token file cannot be read.
    pub fn new(
        auth: LlmAuth,
        env: &AzureIdentityEnv,
        transport: Transport,
    ) -> azure_core::Result<Self> {
        let client_options = ClientOptions {
            transport: Some(transport),
            // The keeper retries, with its own backoff and bound.
            retry: azure_core::http::RetryOptions::none(),
            cloud: env.authority_host.as_ref().map(|host| {
                let mut custom = CustomConfiguration::default();
                custom.authority_host = host.clone();
                Arc::new(CloudConfiguration::from(custom))
            }),
            ..ClientOptions::default()
        };
        let credential: Arc<dyn TokenCredential> = match auth {
            LlmAuth::WorkloadIdentity => {
                let mut options = WorkloadIdentityCredentialOptions::default();
                options.credential_options.client_options = client_options;
                options.client_id = env.client_id.clone();
                options.tenant_id = env.tenant_id.clone();
                options.token_file_path = env.federated_token_file.clone();
                WorkloadIdentityCredential::new(Some(options))?
            }
            LlmAuth::ClientSecret => {
                let secret = env
                    .client_secret
                    .as_ref()
                    .map(|s| s.expose_secret().to_owned())
                    .unwrap_or_default();
                ClientSecretCredential::new(
                    env.tenant_id.as_deref().unwrap_or_default(),
                    env.client_id.clone().unwrap_or_default(),
                    secret.into(),
                    Some(ClientSecretCredentialOptions { client_options }),
                )?
            }
            // Reads IDENTITY_ENDPOINT / IDENTITY_HEADER itself; without them,
            // the VM's instance metadata endpoint.
            LlmAuth::ManagedIdentity | LlmAuth::Auto | LlmAuth::ApiKey => {
                ManagedIdentityCredential::new(Some(ManagedIdentityCredentialOptions {
                    user_assigned_id: env.client_id.clone().map(UserAssignedId::ClientId),
                    client_options,
                }))?
            }
        };
        Ok(Self { credential })
    }
}

impl TokenSource for AzureIdentity {
    fn token<'a>(&'a self, scope: &'a str) -> BoxFuture<'a, Result<Token, TokenFailure>> {
        Box::pin(async move {
            let token = self
                .credential
                .get_token(&[scope], None)
                .await
                .map_err(|e| classify(&e))?;
            Ok(Token {
                secret: token.token.secret().to_owned().into(),
                expires_at: SystemTime::from(token.expires_on),
            })
        })
    }
}

/// What a credential's error says: refused when Entra or the identity
/// endpoint answered 4xx (with the AADSTS number when there is one),
/// unreachable otherwise. Nothing of the message is kept beyond the number:
/// it is not ours to log.
fn classify(e: &azure_core::Error) -> TokenFailure {
    let mut refused = false;
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(azure) = err.downcast_ref::<azure_core::Error>()
            && let azure_core::error::ErrorKind::HttpResponse { status, .. } = azure.kind()
        {
            refused |= status.is_client_error() && *status != StatusCode::TooManyRequests;
        }
        source = err.source();
    }
    let code = aadsts_code(&e.to_string());
    if refused || code.is_some() {
        TokenFailure::Refused { code }
    } else {
        TokenFailure::Unreachable
    }
}

/// The number of the first `AADSTS<number>` in `message`.
fn aadsts_code(message: &str) -> Option<u32> {
    let at = message.find("AADSTS")? + "AADSTS".len();
    let digits: String = message[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_aadsts_number_is_all_that_is_kept_of_a_message() {
        assert_eq!(
            aadsts_code(
                "ClientSecretCredential authentication failed. AADSTS7000215: Invalid client secret."
            ),
            Some(7_000_215)
        );
        assert_eq!(aadsts_code("connection refused"), None);
        assert_eq!(aadsts_code("AADSTS"), None);
    }
}
