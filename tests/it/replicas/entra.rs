//! `posts.auth = "entra"`: each new connection's password is the token held
//! then. The test's token source hands out the role's passwords as the
//! test rotates them (`ALTER ROLE`): new connections take the new one, and
//! the service keeps answering and writing.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use futures::future::BoxFuture;
use linkup_suggestions::azure_auth::{Identity, Token, TokenFailure, TokenSource};

use crate::support::{FakeGraph, FakeOpenAi, Options, post_body, postgres::PgServer, spawn_app_on};

/// Passwords as tokens, two seconds long (refreshed every second).
struct Rotating(Mutex<String>);

impl TokenSource for Rotating {
    fn token<'a>(&'a self, scope: &'a str) -> BoxFuture<'a, Result<Token, TokenFailure>> {
        assert_eq!(scope, "https://ossrdbms-aad.database.windows.net/.default");
        let password = self.0.lock().unwrap().clone();
        Box::pin(async move {
            Ok(Token {
                secret: password.into(),
                expires_at: SystemTime::now() + Duration::from_secs(2),
            })
        })
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn new_connections_take_the_token_held_when_they_open() {
    let pg = tokio::task::spawn_blocking(PgServer::start).await.unwrap();
    pg.create_db("linkup");
    pg.sql(
        "linkup",
        "CREATE ROLE rot LOGIN PASSWORD 'pw-1'; GRANT ALL ON SCHEMA public TO rot",
    );
    let (pg, ca) = tokio::task::spawn_blocking(move || {
        let mut pg = pg;
        // The role must give its password; the others are trusted.
        let ca = pg.require_tls_with("hostssl all rot 127.0.0.1/32 scram-sha-256\n");
        (pg, ca)
    })
    .await
    .unwrap();
    let tokens = Arc::new(Rotating(Mutex::new("pw-1".into())));
    let url = format!(
        "postgres://rot@localhost:{}/linkup?sslmode=verify-full",
        pg.port()
    );
    let options = Options {
        env: vec![
            ("LINKUP__POSTS__BACKEND", "postgres".to_owned()),
            ("LINKUP__POSTS__AUTH", "entra".to_owned()),
            ("LINKUP__POSTS__DATABASE_URL", url),
            ("LINKUP__POSTS__TLS_CA_FILE", ca.display().to_string()),
        ],
        ..Options::default()
    };
    let identity = Identity {
        transport: None,
        source: Some(tokens.clone()),
    };
    let app = spawn_app_on(
        options,
        FakeGraph::start().await,
        FakeOpenAi::start().await,
        identity,
        |_| {},
    )
    .await;
    assert_eq!(
        app.put_post("p-1", post_body("Parking at the Seoul office", &[]))
            .await,
        201
    );
    assert_eq!(
        app.get_json("/readyz").await["postStoreToken"]["state"],
        "ok"
    );

    // Rotated: the old password no longer opens a connection.
    pg.sql("linkup", "ALTER ROLE rot PASSWORD 'pw-2'");
    *tokens.0.lock().unwrap() = "pw-2".into();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    // Every open connection cut: the pool and the listener open new ones.
    pg.sql(
        "linkup",
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'rot'",
    );
    let mut status = 0;
    for _ in 0..20 {
        status = app
            .put_post("p-2", post_body("Bike racks at the Seoul office", &[]))
            .await;
        if status == 201 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(
        status, 201,
        "a write on a new connection, with the new password"
    );
    // The listening connection reconnects with the new password too.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while app.get_json("/readyz").await["postStoreReachable"] != true {
        assert!(
            std::time::Instant::now() < deadline,
            "the listener did not reconnect"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (status, body) = app
        .suggest(
            serde_json::json!({"postId": "p-9", "text": "Where are the bike racks at the Seoul office?"}),
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert!(
        crate::support::post_ids(&body).contains(&"p-2".to_owned()),
        "{body}"
    );
}
