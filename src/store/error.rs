//! Why a store failed, typed, and worded for the operator: a database's own
//! code and message, a TLS failure's cause, never a password or a value.

use std::{error::Error as _, path::PathBuf};

use tokio_postgres::error::SqlState;

use super::postgres::MigrationError;

/// A store's failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the post store: {0}")]
    Open(#[from] OpenError),
    #[error("post store SQLite error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("post store database error: {}", describe(.0))]
    Postgres(tokio_postgres::Error),
    /// The database is unreachable or refuses work for now (503, retry).
    #[error("the post store database is unavailable: {0}")]
    Unavailable(Unavailable),
    #[error("post store lock poisoned")]
    Poisoned,
    #[error("post store task failed")]
    Task,
}

/// Why a store could not be opened (at start-up, or by `migrate-posts`).
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("creating the directory {}: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: no such SQLite file", .0.display())]
    NoSqliteFile(PathBuf),
    #[error("posts.database_url is not set")]
    NoDatabaseUrl,
    #[error("posts.database_url is not a PostgreSQL connection URL")]
    BadDatabaseUrl,
    #[error("posts.tls_ca_file {}: {source}", path.display())]
    CaFile {
        path: PathBuf,
        source: rustls::pki_types::pem::Error,
    },
    #[error("database TLS: {0}")]
    Tls(#[from] rustls::Error),
    #[error("the database connection pool: {0}")]
    Pool(#[from] deadpool_postgres::BuildError),
    #[error("connecting to PostgreSQL: {0}")]
    Connect(Unavailable),
    #[error("{0}")]
    Migrate(#[from] MigrationError),
    #[error("loading the posts: {0}")]
    Load(Unavailable),
}

/// Why the database is unreachable or refuses work for now.
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    #[error("{}", describe(.0))]
    Database(tokio_postgres::Error),
    #[error("no connection in time")]
    PoolTimeout,
    #[error("the database did not answer in time")]
    TimedOut,
    #[error("the connection closed")]
    Closed,
    #[error("the mirror's lock was poisoned")]
    Poisoned,
}

impl From<deadpool_postgres::PoolError> for Unavailable {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        match e {
            deadpool_postgres::PoolError::Backend(e) => Self::Database(e),
            deadpool_postgres::PoolError::Closed => Self::Closed,
            _ => Self::PoolTimeout,
        }
    }
}

impl From<tokio_postgres::Error> for Unavailable {
    fn from(e: tokio_postgres::Error) -> Self {
        Self::Database(e)
    }
}

/// Database errors that mean "unreachable or not now" (503, retry later);
/// any other is the store's own failure.
impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> Self {
        let transient = match e.code() {
            None => true,
            Some(code) => {
                matches!(&code.code()[..2], "08" | "53" | "57")
                    || [
                        SqlState::READ_ONLY_SQL_TRANSACTION,
                        SqlState::T_R_SERIALIZATION_FAILURE,
                        SqlState::T_R_DEADLOCK_DETECTED,
                    ]
                    .contains(code)
            }
        };
        if transient {
            Self::Unavailable(Unavailable::Database(e))
        } else {
            Self::Postgres(e)
        }
    }
}

impl From<Unavailable> for StoreError {
    fn from(e: Unavailable) -> Self {
        Self::Unavailable(e)
    }
}

/// A PostgreSQL error as the operator needs it: the server's SQLSTATE and
/// message when the server answered (never its detail, which may quote
/// values), else the client's error and its causes (a TLS handshake's, with
/// what to do about an unknown issuer).
pub fn describe(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{} {}", db.code().code(), db.message());
    }
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text = format!("{text}: {c}");
        cause = c.source();
    }
    if text.contains("UnknownIssuer") {
        text.push_str(
            " (the server's certificate is not signed by a trusted CA: set posts.tls_ca_file to its CA)",
        );
    }
    text
}
