//! The store over TLS to a server that requires it, and what start-up says
//! when it cannot connect: the server's SQLSTATE and message, the TLS
//! failure's cause and what to set, never the password.

use linkup_suggestions::{settings::Settings, upstream::Upstreams};

use crate::support::{deps, postgres::PgServer};

/// Opens the app's parts on `url` (with `ca`, the CA to trust): the error's
/// whole text when it cannot.
async fn open(url: &str, ca: Option<&std::path::Path>) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let mut env = vec![
        ("LINKUP__POSTS__BACKEND", "postgres".to_owned()),
        ("LINKUP__POSTS__DATABASE_URL", url.to_owned()),
    ];
    if let Some(ca) = ca {
        env.push(("LINKUP__POSTS__TLS_CA_FILE", ca.display().to_string()));
    }
    let settings: Settings = deps::settings(dir.path(), &env);
    let http = Upstreams::new(&settings).unwrap();
    linkup_suggestions::parts::Parts::open(
        &settings,
        http,
        Default::default(),
        Default::default(),
        None,
    )
    .await
    .map(drop)
    .map_err(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_requiring_tls_is_reached_with_its_ca_and_refusals_say_why() {
    let mut pg = tokio::task::spawn_blocking(PgServer::start).await.unwrap();
    pg.create_db("linkup");
    let ca = tokio::task::spawn_blocking(move || {
        let ca = pg.require_tls();
        (pg, ca)
    })
    .await
    .unwrap();
    let (pg, ca) = ca;
    let port = pg.port();
    let url =
        |mode: &str| format!("postgres://postgres:hunter2@localhost:{port}/linkup?sslmode={mode}");

    open(&url("require"), Some(&ca))
        .await
        .expect("TLS with the server's CA in posts.tls_ca_file");

    let untrusted = open(&url("require"), None).await.unwrap_err();
    assert!(untrusted.contains("UnknownIssuer"), "{untrusted}");
    assert!(untrusted.contains("set posts.tls_ca_file"), "{untrusted}");

    let plain = open(&url("disable"), Some(&ca)).await.unwrap_err();
    assert!(plain.contains("28000"), "the server's SQLSTATE: {plain}");
    assert!(
        plain.contains("no encryption"),
        "the server's message: {plain}"
    );

    for text in [&untrusted, &plain] {
        assert!(!text.contains("hunter2"), "{text}");
    }
}
