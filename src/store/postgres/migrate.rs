//! The schema, versioned: migrations applied at start-up by whichever
//! replica comes first, under an advisory lock.

use tokio_postgres::Client;

/// The schema's migrations, in order: (version, name, SQL). Applied ones are
/// never edited; a change is a new migration.
const MIGRATIONS: &[(i32, &str, &str)] = &[
    (
        1,
        "posts",
        include_str!("../../../migrations/postgres/0001_posts.sql"),
    ),
    (
        2,
        "panel_cache",
        include_str!("../../../migrations/postgres/0002_panel_cache.sql"),
    ),
    (
        3,
        "embedding_model",
        include_str!("../../../migrations/postgres/0003_embedding_model.sql"),
    ),
    (
        4,
        "knowledge",
        include_str!("../../../migrations/postgres/0004_knowledge.sql"),
    ),
];

/// The advisory lock that lets one replica migrate at a time (an arbitrary,
/// fixed key: "linkup" in ASCII).
const MIGRATION_LOCK: i64 = 0x6c69_6e6b_7570;

/// Why the schema could not be brought up to date.
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    #[error(
        "the database's schema is version {found}, newer than this build's {known}: run a newer build"
    )]
    Newer { found: i32, known: i32 },
    #[error("migrating the schema: {0}")]
    Postgres(#[from] tokio_postgres::Error),
}

/// Applies the migrations the database lacks, in one transaction under an
/// advisory lock: replicas starting together apply each migration once, the
/// others wait and find it done. Returns the versions applied.
pub async fn migrate(client: &mut Client) -> Result<Vec<i32>, MigrationError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version    integer PRIMARY KEY,
            name       text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )",
    )
    .await?;
    let current: i32 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM schema_migrations",
            &[],
        )
        .await?
        .get(0);
    let known = MIGRATIONS.last().map_or(0, |m| m.0);
    if current > known {
        return Err(MigrationError::Newer {
            found: current,
            known,
        });
    }
    let mut applied = Vec::new();
    for (version, name, sql) in MIGRATIONS.iter().filter(|m| m.0 > current) {
        tx.batch_execute(sql).await?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
            &[version, name],
        )
        .await?;
        applied.push(*version);
    }
    tx.commit().await?;
    if !applied.is_empty() {
        tracing::info!(versions = ?applied, "post index schema migrated");
    }
    Ok(applied)
}
