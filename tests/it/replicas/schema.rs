//! The schema: migrations applied once by replicas starting together, and
//! `migrate-posts` from SQLite.

use linkup_suggestions::store::postgres::{MigrationError, migrate};

use crate::support::{
    Options,
    binary::{self},
    post_body, post_ids,
    postgres::PgServer,
    spawn_app_with,
};

use super::*;
use crate::board;

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
        vec![vec![], vec![], vec![1, 2, 3, 4]],
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
    assert_eq!(versions, vec![1, 2, 3, 4]);
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
                known: 4
            }
        ),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_database_of_the_previous_schema_gains_the_panel_cache_and_keeps_its_posts() {
    let pg = tokio::task::spawn_blocking(PgServer::start).await.unwrap();
    pg.create_db("linkup");
    let url = pg.url("linkup");
    // As the build before the panel cache left it: version 1, with a post.
    let db = client(&url).await;
    db.batch_execute(concat!(
        include_str!("../../../migrations/postgres/0001_posts.sql"),
        "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now());
         INSERT INTO schema_migrations (version, name) VALUES (1, 'posts');
         INSERT INTO posts (id, body, search_text, seq) VALUES ('p-1', '{}', 'x', 1);"
    ))
    .await
    .unwrap();
    assert_eq!(
        migrate(&mut client(&url).await).await.unwrap(),
        vec![2, 3, 4]
    );
    let rows = |sql: &'static str| {
        let db = &db;
        async move { db.query_one(sql, &[]).await.unwrap().get::<_, i64>(0) }
    };
    assert_eq!(rows("SELECT count(*) FROM posts").await, 1);
    assert_eq!(rows("SELECT count(*) FROM panel_cache").await, 0);
}

/// `linkup-suggestions migrate-posts` with these arguments: (exit code, stdout).
fn migrate_posts(args: &[&str]) -> (i32, String) {
    let out = binary::run(&[&["migrate-posts"], args].concat(), &[]);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn migrate_posts_moves_a_sqlite_index_with_its_vectors_and_run_records_to_postgresql() {
    let (_pg, url) = database().await;
    let mut single = spawn_app_with(Options {
        embeddings: true,
        ..Options::default()
    })
    .await;
    for (id, text) in [
        ("m-1", "Where can I borrow a projector for the town hall?"),
        ("m-2", "Lost a blue umbrella near the cafeteria"),
        ("m-3", "Book club meets on Thursday: this month is Pachinko"),
    ] {
        assert_eq!(single.put_post(id, post_body(text, &[])).await, 201);
    }
    let share = "/api/posts/m-1/shared-documents/d-1";
    let body = board::share_body(
        "Projector booking.docx",
        "https://contoso.sharepoint.com/pb",
    );
    assert_eq!(board::call(&single, "PUT", share, Some(body)).await.0, 201);
    let reply = board::reply_body("The AV desk lends them");
    let path = "/api/posts/m-1/replies/r-1";
    assert_eq!(board::call(&single, "PUT", path, Some(reply)).await.0, 201);
    single.wait_until_embedded(3).await;
    let res = single
        .http
        .post(single.url("/api/suggestions"))
        .json(&ask("projector for the town hall"))
        .send()
        .await
        .unwrap();
    let run_id = res.headers()["x-run-id"].to_str().unwrap().to_owned();
    single.shutdown.take().unwrap().send(()).unwrap();
    (&mut single.server).await.unwrap().unwrap();
    let from = format!("sqlite:{}", single.db_path.display());

    let (code, out) = migrate_posts(&["--from", &from, "--to", &url]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("copied 3 posts (3 with vectors) and 1 run records"),
        "{out}"
    );
    // Again: harmless (posts replaced, not doubled).
    assert_eq!(migrate_posts(&["--from", &from, "--to", &url]).0, 0);

    let replica = replica(&url, true).await;
    assert_eq!(gauge(&replica, "linkup_posts").await, 3.0);
    assert_eq!(gauge(&replica, "linkup_posts_embedded").await, 3.0);
    let (_, body) = replica.suggest(ask("projector town hall"), None).await;
    assert_eq!(post_ids(&body)[0], "m-1", "{body}");
    let shares = "/api/posts/m-1/shared-documents";
    let (_, list) = board::call(&replica, "GET", shares, None).await;
    assert_eq!(board::item_ids(&list), ["d-1"], "shares are copied");
    let (_, list) = board::call(&replica, "GET", "/api/posts/m-1/replies", None).await;
    assert_eq!(board::item_ids(&list), ["r-1"], "replies are copied");
    let embedded_posts = replica
        .openai
        .received()
        .iter()
        .filter(|r| r.path.ends_with("/embeddings"))
        .count();
    assert_eq!(
        embedded_posts, 1,
        "only the query is embedded, not the posts"
    );
    let res = replica
        .http
        .get(replica.url(&format!("/api/runs/{run_id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);

    // Mistakes are named, not half-done.
    assert_eq!(
        migrate_posts(&["--from", &from]).0,
        2,
        "no --to, no DATABASE_URL"
    );
    assert_eq!(migrate_posts(&["--to", &url]).0, 2);
    let (code, _) = migrate_posts(&["--from", "sqlite:/nonexistent/posts.db", "--to", &url]);
    assert_eq!(code, 1);
}
