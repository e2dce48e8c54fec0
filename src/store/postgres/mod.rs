//! PostgreSQL storage, shared by several replicas (`posts.backend =
//! "postgres"`). Every replica keeps the whole index in memory (searches
//! never touch the database) and follows the database's changes
//! ([`follow`]): each write takes the next number of one change counter in its
//! transaction and notifies `post_changes`; a listening connection per
//! replica then applies the posts changed after the last number it applied
//! (deletions and expiry as tombstones), so a missed notification, a
//! reconnection or a late start loses nothing. The schema is versioned and
//! applied at start-up by whichever replica comes first.
//!
//! - [`writes`]: the [`Store`](super::Store) operations, each a transaction
//!   that takes a change number and notifies;
//! - [`mirror`]: this replica's copy of the posts; [`follow`]: the
//!   listening connection that keeps it current;
//! - [`panels`]: the panel cache's shared tier (`cache.shared`);
//! - [`tls`]: the connections' TLS; [`migrate`]: the versioned schema.

mod follow;
mod knowledge;
mod migrate;
mod mirror;
mod panels;
mod tls;
mod upsert;
mod writes;

use std::{sync::Arc, time::Duration};

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};
use secrecy::ExposeSecret;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{Index, OpenError, StoreError, Unavailable};
use crate::{azure_auth::TokenKeeper, settings::PostsSettings};
use follow::{Cursor, Session};
pub use migrate::{MigrationError, migrate};
use mirror::Mirror;

/// A write (or a read of run records) not done by then answers 503.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// Connecting, when the URL does not say (`connect_timeout`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The shared store: a connection pool for writes, and this replica's
/// mirror of the posts, kept current by a listening task.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    pool: Pool,
    mirror: Arc<Mirror>,
    /// The listening task, stopped with the store.
    listener: tokio::task::JoinHandle<()>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

/// How to reach the database.
#[derive(Clone)]
struct Connect {
    config: tokio_postgres::Config,
    tls: MakeRustlsConnect,
    /// With `posts.auth = "entra"`: each new connection's password.
    token: Option<TokenKeeper>,
}

impl Store {
    /// Connects, migrates the schema, loads every post into `index` and
    /// starts following the changes. Fails when the database cannot be reached.
    pub async fn open(
        settings: &PostsSettings,
        index: Arc<dyn Index>,
        token: Option<TokenKeeper>,
    ) -> Result<Self, StoreError> {
        let connect = Connect::from_settings(settings, token)?;
        let pool = pool(&connect, settings.pool_size)?;
        let mut client = pool.get().await.map_err(|e| OpenError::Connect(e.into()))?;
        migrate(&mut client).await.map_err(OpenError::from)?;
        adopt_vectors(&client, index.vector_model().as_deref())
            .await
            .map_err(|e| OpenError::Load(e.into()))?;
        drop(client);
        let mirror = Arc::new(Mirror::new(index));
        let mut cursor = Cursor::default();
        let session = Session::start(&connect, &mirror, &mut cursor)
            .await
            .map_err(OpenError::Load)?;
        tracing::info!(
            posts = mirror.len(),
            seq = cursor.seq,
            "post index loaded from PostgreSQL"
        );
        let listener = tokio::spawn(follow::listen(mirror.clone(), connect, session, cursor));
        Ok(Self {
            inner: Arc::new(Inner {
                pool,
                mirror,
                listener,
            }),
        })
    }

    async fn client(&self) -> Result<Object, StoreError> {
        Ok(self.inner.pool.get().await.map_err(Unavailable::from)?)
    }
}

impl Connect {
    /// The URL's configuration, with our defaults where it says nothing.
    fn from_settings(
        settings: &PostsSettings,
        token: Option<TokenKeeper>,
    ) -> Result<Self, OpenError> {
        let url = settings
            .database_url
            .as_ref()
            .ok_or(OpenError::NoDatabaseUrl)?;
        let mut config = crate::settings::postgres_config(url.expose_secret())
            .ok_or(OpenError::BadDatabaseUrl)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("linkup-suggestions");
        }
        Ok(Self {
            config,
            tls: tls::connector(settings.tls_ca_file.as_deref())?,
            token,
        })
    }

    /// A new connection's configuration: with Entra, the token held now as
    /// its password (open connections outlive their token; without one,
    /// the server refuses the connection and says why).
    fn current(&self) -> tokio_postgres::Config {
        let mut config = self.config.clone();
        if let Some(password) = self.token.as_ref().and_then(|t| t.password().ok()) {
            config.password(password);
        }
        config
    }
}

/// The pool's connections with Entra: each takes the token held when it
/// opens.
struct TokenConnect(Connect);

impl deadpool_postgres::Connect for TokenConnect {
    fn connect(
        &self,
        _: &tokio_postgres::Config,
    ) -> futures::future::BoxFuture<
        '_,
        Result<(tokio_postgres::Client, tokio::task::JoinHandle<()>), tokio_postgres::Error>,
    > {
        Box::pin(async move {
            let (client, connection) = self.0.current().connect(self.0.tls.clone()).await?;
            let driver = tokio::spawn(async move {
                if let Err(e) = connection.await {
                    tracing::warn!(error.message = %e, "post index database connection closed");
                }
            });
            Ok((client, driver))
        })
    }
}

/// The writers' connection pool.
fn pool(connect: &Connect, size: usize) -> Result<Pool, OpenError> {
    let config = ManagerConfig {
        recycling_method: RecyclingMethod::Fast,
    };
    let manager = match connect.token {
        Some(_) => Manager::from_connect(
            connect.config.clone(),
            TokenConnect(connect.clone()),
            config,
        ),
        None => Manager::from_config(connect.config.clone(), connect.tls.clone(), config),
    };
    Ok(Pool::builder(manager)
        .max_size(size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(WRITE_TIMEOUT))
        .create_timeout(Some(CONNECT_TIMEOUT))
        .recycle_timeout(Some(WRITE_TIMEOUT))
        .build()?)
}

/// `work`, or 503 when it takes longer than [`WRITE_TIMEOUT`].
async fn within<T>(work: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
    tokio::time::timeout(WRITE_TIMEOUT, work)
        .await
        .map_err(|_| Unavailable::TimedOut)?
}

/// Vectors stored before each had its model's id came from Azure's
/// embeddings deployment, the only model whose vectors were stored: a
/// replica ranking by one adopts them (others embed those posts again).
async fn adopt_vectors(
    client: &tokio_postgres::Client,
    model: Option<&str>,
) -> Result<(), tokio_postgres::Error> {
    if let Some(azure) = model.filter(|m| m.starts_with(crate::store::AZURE_MODEL_PREFIX)) {
        client
            .execute(
                "UPDATE posts SET embedding_model = $1 WHERE embedding IS NOT NULL AND embedding_model IS NULL",
                &[&azure],
            )
            .await?;
    }
    Ok(())
}
