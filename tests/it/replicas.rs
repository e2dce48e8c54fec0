//! Several replicas on one PostgreSQL (a real server per test, started by
//! support/postgres.rs).

use linkup_suggestions::posts::postgres::{MigrationError, migrate};

use crate::support::postgres::PgServer;

async fn client(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connects");
    tokio::spawn(connection);
    client
}

#[tokio::test(flavor = "multi_thread")]
async fn migrations_run_once_when_three_replicas_start_together() {
    let pg = tokio::task::spawn_blocking(PgServer::start).await.unwrap();
    pg.create_db("linkup");
    let url = pg.url("linkup");
    let replicas = (0..3).map(|_| {
        let url = url.clone();
        tokio::spawn(async move { migrate(&mut client(&url).await).await })
    });
    let mut applied: Vec<Vec<i32>> = Vec::new();
    for replica in replicas {
        applied.push(replica.await.unwrap().expect("migrates"));
    }
    applied.sort();
    assert_eq!(
        applied,
        vec![vec![], vec![], vec![1]],
        "one replica applies, the others find it done"
    );

    let db = client(&url).await;
    let versions: Vec<i32> = db
        .query(
            "SELECT version FROM schema_migrations ORDER BY version",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, vec![1]);
    let counters: i64 = db
        .query_one("SELECT count(*) FROM change_counter", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(counters, 1, "the migration's own inserts ran once");

    // A later start finds nothing to do; a schema from a newer build is refused.
    assert_eq!(
        migrate(&mut client(&url).await).await.unwrap(),
        Vec::<i32>::new()
    );
    db.execute(
        "INSERT INTO schema_migrations (version, name) VALUES (99, 'future')",
        &[],
    )
    .await
    .unwrap();
    let err = migrate(&mut client(&url).await).await.unwrap_err();
    assert!(
        matches!(
            err,
            MigrationError::Newer {
                found: 99,
                known: 1
            }
        ),
        "{err}"
    );
}
