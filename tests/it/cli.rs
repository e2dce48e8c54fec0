//! The command line as an operator meets it: `--help`, `--version`, usage
//! errors, exit codes and their one message, and a binary that runs from
//! any directory with nothing beside it.

use std::net::TcpListener;

use serde_json::{Value, json};

use crate::support::{
    binary::{self, Binary},
    post_body,
};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn help_lists_the_commands_and_serves_nothing() {
    for args in [&["--help"][..], &["help"], &["serve", "--help"]] {
        let out = binary::run(args, &[]);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let help = stdout(&out);
        assert!(help.contains("Usage: linkup-suggestions"), "{help}");
        assert!(help.contains("--config <DIR>"), "{help}");
    }
    let help = stdout(&binary::run(&["--help"], &[]));
    for command in ["serve", "healthcheck", "migrate-posts", "--version"] {
        assert!(help.contains(command), "{command} in {help}");
    }
    let help = stdout(&binary::run(&["migrate-posts", "--help"], &[]));
    assert!(
        help.contains("--from <sqlite:PATH>") && help.contains("--to"),
        "{help}"
    );
}

#[test]
fn version_names_the_crate_version() {
    let out = binary::run(&["--version"], &[]);
    assert_eq!(out.status.code(), Some(0));
    let version = stdout(&out);
    assert!(
        version.starts_with(&format!("linkup-suggestions {}", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
}

#[test]
fn an_unknown_argument_prints_usage_and_exits_2() {
    for args in [&["--frobnicate"][..], &["frobnicate"], &["serve", "extra"]] {
        let out = binary::run(args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains("Usage:"), "{args:?}: {err}");
        assert!(stdout(&out).is_empty(), "nothing served: {}", stdout(&out));
    }
    let out = binary::run(&["migrate-posts", "--from", "posts.db"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("sqlite:PATH"), "{}", stderr(&out));
}

#[test]
fn an_invalid_setting_exits_2_with_one_line_naming_the_key() {
    for (var, value, key) in [
        ("LINKUP__AGENT__TIMEOUT_MS", "soon", "agent.timeout_ms"),
        ("LINKUP__LOG__LEVEL", "linkup_suggestions=loud", "log.level"),
        // A bare word is a target to tracing: a typo would silence the logs.
        ("LINKUP__LOG__LEVEL", "inf", "log.level"),
        ("RUST_LOG", "debugg", "log.level"),
        // Too small for its runs beside 10,000 connections' buffers.
        (
            "LINKUP__SERVER__MEMORY_BUDGET_MB",
            "256",
            "server.memory_budget_mb",
        ),
    ] {
        let out = binary::run(&[], &[(var, value)]);
        assert_eq!(out.status.code(), Some(2), "{var}");
        let err = stderr(&out);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(key), "{err}");
    }
}

/// One line, each of whose parts (split at ": ") is said once.
fn said_once(err: &str) {
    let line = err.trim();
    assert_eq!(line.lines().count(), 1, "{err}");
    for part in line.split(": ").map(str::trim).filter(|p| p.len() >= 8) {
        assert_eq!(line.matches(part).count(), 1, "`{part}` repeats in: {line}");
    }
}

#[test]
fn every_start_up_failure_says_each_cause_once() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let busy = taken.local_addr().unwrap().to_string();
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let unreachable = format!("postgres://linkup:pw@127.0.0.1:{closed}/linkup");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a-file"), "").unwrap();
    let any_port = ("LINKUP__SERVER__ADDR", "127.0.0.1:0");
    // (what fails, the environment, the exit code)
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, i32);
    let cases: [Case; 7] = [
        (
            "a missing model",
            vec![any_port, ("LINKUP__POSTS__MODEL_PATH", "models/missing")],
            1,
        ),
        (
            "a store path under a file",
            vec![any_port, ("LINKUP__POSTS__DB_PATH", "a-file/posts.db")],
            1,
        ),
        (
            "an unreachable PostgreSQL",
            vec![
                any_port,
                ("LINKUP__POSTS__BACKEND", "postgres"),
                ("LINKUP__POSTS__DATABASE_URL", &unreachable),
            ],
            1,
        ),
        ("a port in use", vec![("LINKUP__SERVER__ADDR", &busy)], 1),
        (
            "an admin port in use",
            vec![any_port, ("LINKUP__SERVER__ADMIN_ADDR", &busy)],
            1,
        ),
        (
            "workload identity without its variables",
            vec![
                any_port,
                ("AZURE_OPENAI_ENDPOINT", "https://contoso.openai.azure.com"),
                ("LINKUP__AZURE_OPENAI__AUTH", "workload-identity"),
            ],
            2,
        ),
        (
            "a mistyped log level",
            vec![any_port, ("LINKUP__LOG__LEVEL", "inf")],
            2,
        ),
    ];
    for (case, env, code) in cases {
        let out = binary::run_in(Some(dir.path()), &["serve"], &env);
        assert_eq!(out.status.code(), Some(code), "{case}: {}", stderr(&out));
        said_once(&stderr(&out));
    }
}

#[test]
fn a_port_in_use_exits_1_with_one_line_naming_the_address() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let out = binary::run_in(Some(dir.path()), &[], &[("LINKUP__SERVER__ADDR", &addr)]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(&addr), "{err}");
}

#[test]
fn an_unreadable_model_exits_1_naming_its_absolute_path() {
    let dir = tempfile::tempdir().unwrap();
    let out = binary::run_in(
        Some(dir.path()),
        &["serve"],
        &[
            ("LINKUP__SERVER__ADDR", "127.0.0.1:0"),
            ("LINKUP__POSTS__MODEL_PATH", "models/missing"),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let path = dir.path().join("models/missing/tokenizer.json");
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(!err.contains("opening the post index"), "{err}");
}

#[tokio::test]
async fn from_an_empty_directory_it_serves_with_the_embedded_model_and_keeps_data_there() {
    let dir = tempfile::tempdir().unwrap();
    let binary = Binary::start_in(Some(dir.path()), [("APP_ENV", "production")]);
    let http = linkup_suggestions::upstream::http_client().unwrap();
    let url = |path: &str| format!("http://{}{path}", binary.addr);

    let ready: Value = http
        .get(url("/readyz"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        ready["localModel"], "multilingual-e5-small-koen-q4",
        "{ready}"
    );
    assert_eq!(ready["wordModel"], "wordllama-l2-supercat-256", "{ready}");
    let status = http
        .put(url("/api/posts/p-car"))
        .json(&post_body(
            "Looking for a carpool to the campus every morning",
            &[],
        ))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 201);
    let body: Value = http
        .post(url("/api/suggestions"))
        .json(&json!({"postId": "q", "text": "Is there a carpool to the campus?"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["posts"][0]["id"], "p-car", "{body}");
    assert_eq!(
        body["meta"]["degraded"],
        json!(["llm_unconfigured", "m365_no_token"]),
        "no posts_* reason: ranked as configured: {body}"
    );

    assert!(
        dir.path().join("data/posts.db").is_file(),
        "data/ under the working directory"
    );
    let logs = binary.logs().join("\n");
    let db = dir.path().join("data/posts.db");
    assert!(
        logs.contains(&db.display().to_string()),
        "the absolute path is logged: {logs}"
    );
    assert!(logs.contains("(compiled in)"), "{logs}");
}

#[test]
fn config_names_the_directory_of_the_environment_file() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings");
    std::fs::create_dir(&settings).unwrap();
    std::fs::write(
        settings.join("staging.toml"),
        "[posts]\ndb_path = \"elsewhere/staging.db\"\n",
    )
    .unwrap();
    let env = [("APP_ENV", "staging")];
    drop(Binary::start_with(Some(dir.path()), &[], env));
    assert!(
        !dir.path().join("elsewhere").exists(),
        "config/ is the default"
    );
    assert!(dir.path().join("data/posts.db").is_file());

    drop(Binary::start_with(
        Some(dir.path()),
        &["--config", "settings"],
        env,
    ));
    assert!(dir.path().join("elsewhere/staging.db").is_file());
}
