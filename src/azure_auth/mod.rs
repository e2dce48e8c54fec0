//! Microsoft Entra ID tokens for the Azure upstreams that take them (Azure
//! OpenAI, Azure Database for PostgreSQL): the [`TokenSource`] seam the
//! clients ask, the official SDK's credentials behind it ([`identity`]),
//! and the [`TokenKeeper`] that fetches a token at start-up and refreshes it
//! ahead of expiry in the background, so that no request waits on Entra.

mod identity;
mod keeper;

use std::{sync::Arc, time::SystemTime};

use futures::future::BoxFuture;

pub use identity::AzureIdentity;
pub use keeper::TokenKeeper;

use crate::{
    metrics::Metrics,
    settings::{LlmAuth, PostsAuth, PostsBackend, Secret, Settings},
    upstream::HttpConfig,
};

/// Azure OpenAI's scope (Cognitive Services).
pub const OPENAI_SCOPE: &str = "https://cognitiveservices.azure.com/.default";
/// Azure Database for PostgreSQL's scope.
pub const POSTGRES_SCOPE: &str = "https://ossrdbms-aad.database.windows.net/.default";

/// Where bearer tokens come from: the Azure SDK's credentials in
/// production; tests and other clouds can give their own.
pub trait TokenSource: Send + Sync {
    /// A token for `scope`.
    fn token<'a>(&'a self, scope: &'a str) -> BoxFuture<'a, Result<Token, TokenFailure>>;
}

/// An access token and when it expires.
pub struct Token {
    pub secret: Secret,
    pub expires_at: SystemTime,
}

/// Why no token came.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum TokenFailure {
    /// Entra (or the identity endpoint) answered, refusing (e.g. `AADSTS…`,
    /// an unknown client id, a federated credential that does not match).
    /// `code` is the AADSTS number when it said one.
    Refused { code: Option<u32> },
    /// It could not be reached, or failed on its side.
    Unreachable,
    /// It did not answer within the fetch's time.
    Timeout,
}

impl TokenFailure {
    /// The failure's name (metrics, `/readyz`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Where the service's Entra tokens come from: the Azure SDK's credentials
/// sending through our HTTP client, unless a test or another cloud gives
/// its own transport (e.g. one routing Entra's host to a fake) or source.
#[derive(Clone, Default)]
pub struct Identity {
    pub transport: Option<azure_core::http::Transport>,
    pub source: Option<Arc<dyn TokenSource>>,
}

/// The tokens the settings call for, kept fresh.
#[derive(Clone, Default)]
pub struct Tokens {
    /// With a keyless `azure_openai.auth` and an endpoint.
    pub openai: Option<TokenKeeper>,
    /// With `posts.auth = "entra"` on PostgreSQL.
    pub database: Option<TokenKeeper>,
}

impl Tokens {
    /// Starts keeping the tokens `settings` call for, and waits for each
    /// first fetch to end (at most its bound; start-up goes on without one).
    /// Fails only when a credential cannot be built (its variables, a
    /// workload identity's unreadable token file).
    pub async fn start(
        settings: &Settings,
        identity: Identity,
        metrics: &Metrics,
    ) -> Result<Self, azure_core::Error> {
        let llm = settings.azure_openai.auth;
        let env = &settings.azure_identity;
        let openai = llm.keyless() && settings.azure_openai.endpoint.is_some();
        let database = settings.posts.auth == PostsAuth::Entra
            && settings.posts.backend == PostsBackend::Postgres;
        if !openai && !database {
            return Ok(Self::default());
        }
        let transport = match identity.transport {
            Some(t) => t,
            None => {
                let client = HttpConfig::of(&settings.server).client().map_err(|e| {
                    azure_core::Error::with_message(
                        azure_core::error::ErrorKind::Other,
                        e.to_string(),
                    )
                })?;
                azure_core::http::Transport::new(Arc::new(client))
            }
        };
        let source = |auth: LlmAuth| -> Result<Arc<dyn TokenSource>, azure_core::Error> {
            Ok(match &identity.source {
                Some(source) => source.clone(),
                None => Arc::new(AzureIdentity::new(auth, env, transport.clone())?),
            })
        };
        let client_id = env
            .client_id
            .as_deref()
            .unwrap_or("the system-assigned identity");
        let keeper = |auth: LlmAuth, scope, upstream, fix: &str| -> Result<_, azure_core::Error> {
            let hint = format!(
                "check the identity ({}; client id {client_id}) and its federated credential or secret; {fix}",
                auth.as_str()
            );
            Ok(TokenKeeper::start(
                source(auth)?,
                scope,
                upstream,
                hint,
                metrics.clone(),
            ))
        };
        let tokens = Self {
            openai: openai
                .then(|| {
                    keeper(
                        llm,
                        OPENAI_SCOPE,
                        "azure_openai",
                        "it needs the role Cognitive Services OpenAI User on the Azure OpenAI resource",
                    )
                })
                .transpose()?,
            database: database
                .then(|| {
                    keeper(
                        env.identity_for_database(llm),
                        POSTGRES_SCOPE,
                        "postgres",
                        "the database needs a role for it (pgaadauth_create_principal), named as the user in posts.database_url",
                    )
                })
                .transpose()?,
        };
        let first = |k: &Option<TokenKeeper>| {
            let k = k.clone();
            async move {
                if let Some(k) = k {
                    k.first_fetch().await;
                }
            }
        };
        futures::join!(first(&tokens.openai), first(&tokens.database));
        Ok(tokens)
    }
}
