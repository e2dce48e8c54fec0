//! Test harness: the real app on a random loopback port, with fake Microsoft
//! Graph and Azure OpenAI servers (also on random loopback ports) and captured logs.

pub mod binary;
pub mod deps;
pub mod entra;
pub mod faults;
pub mod graph;
pub mod logs;
pub mod openai;
pub mod otlp;
pub mod postgres;
pub mod quality;
pub mod tls;

use std::{collections::HashMap, net::SocketAddr, path::PathBuf};

use linkup_suggestions::{
    App,
    azure_auth::Identity,
    settings::{EmbedderSetting, PostsBackend, Settings},
};
use serde_json::{Value, json};

pub use graph::{Doc, FakeGraph};
pub use openai::FakeOpenAi;

/// A fake upstream's loopback listener. Its kernel queue holds 1024
/// connections, not tokio's 128: a front end such as Azure's or Graph's does
/// not drop the handshakes of a burst (the service opens a connection per
/// call in flight over HTTP/1.1), which would delay them by a second.
pub fn fake_listener() -> tokio::net::TcpListener {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .expect("bind");
    socket.listen(1024).expect("listen")
}

/// The address a started service binary logs (`listening`, JSON logs) on
/// its stdout; the rest of its log is drained, as a log shipper would.
pub fn listening_addr(stdout: std::process::ChildStdout) -> String {
    read_log(stdout, None)
}

/// [`listening_addr`], keeping the log lines that follow in `kept`.
pub fn listening_addr_keeping_log(
    stdout: std::process::ChildStdout,
    kept: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) -> String {
    read_log(stdout, Some(kept))
}

fn read_log(
    stdout: std::process::ChildStdout,
    kept: Option<std::sync::Arc<std::sync::Mutex<Vec<String>>>>,
) -> String {
    use std::io::BufRead;
    let mut lines = std::io::BufReader::new(stdout).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("the service logs its address")
            .expect("a log line");
        let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if let Some(kept) = &kept {
            kept.lock().unwrap().push(line);
        }
        if let Some(addr) = v["fields"]["addr"].as_str() {
            break addr.to_owned();
        }
    };
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if let Some(kept) = &kept {
                kept.lock().unwrap().push(line);
            }
        }
    });
    addr
}

/// The app under test and its fakes.
pub struct TestApp {
    pub addr: SocketAddr,
    /// The admin listener (`server.admin_addr`), when configured.
    pub admin: Option<SocketAddr>,
    pub http: reqwest::Client,
    pub graph: FakeGraph,
    pub openai: FakeOpenAi,
    pub db_path: PathBuf,
    /// Posts are embedded by the multilingual model in the background: a
    /// write returns once they are (a view comes after its post is stored).
    pub embeds_locally: bool,
    _dir: tempfile::TempDir,
    pub shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    pub server: tokio::task::JoinHandle<anyhow::Result<()>>,
}

/// How to start the app.
#[derive(Default)]
pub struct Options {
    /// Configure Azure OpenAI chat (the fake).
    pub llm: bool,
    /// Configure Azure OpenAI embeddings (the fake).
    pub embeddings: bool,
    /// Extra `LINKUP__…` variables.
    pub env: Vec<(&'static str, String)>,
}

/// Starts the app with default options (no LLM).
pub async fn spawn_app() -> TestApp {
    spawn_app_with(Options::default()).await
}

pub async fn spawn_app_with(options: Options) -> TestApp {
    logs::init();
    let graph = FakeGraph::start().await;
    let openai = FakeOpenAi::start().await;
    spawn_app_on(options, graph, openai, Identity::default(), |_| {}).await
}

/// The app over fakes already started, with Entra ID tokens from
/// `identity`; `edit` changes its environment last.
pub async fn spawn_app_on(
    options: Options,
    graph: FakeGraph,
    openai: FakeOpenAi,
    identity: Identity,
    edit: impl FnOnce(&mut HashMap<String, String>),
) -> TestApp {
    logs::init();
    let dir = tempfile::tempdir().expect("temp dir");
    let db_path = dir.path().join("posts.db");
    let mut env = test_env(&graph, &openai, &db_path, &options);
    edit(&mut env);
    let settings = Settings::load_from(&PathBuf::from("config"), env).expect("test settings");
    // (SQLite: the tests of PostgreSQL replicas wait for what they need.)
    let embeds_locally = settings.posts.backend == PostsBackend::Sqlite
        && match settings.posts.embedder {
            EmbedderSetting::Local => true,
            EmbedderSetting::Auto => settings.azure_openai.embedding_deployment.is_empty(),
            _ => false,
        };
    let settings_db_path = settings.posts.db_path.clone();
    let app = App::build_with(settings, identity)
        .await
        .expect("app builds");
    let addr = app.local_addr();
    let admin = app.admin_addr();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async {
        let _ = rx.await;
    }));
    TestApp {
        addr,
        admin,
        http: reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client"),
        graph,
        openai,
        // The database the app opened (a test may name its own).
        db_path: settings_db_path,
        embeds_locally,
        _dir: dir,
        shutdown: Some(tx),
        server,
    }
}

/// Starts the app with the engineering corpus in the fake Graph and one
/// stored post, `p-77`, about the deployment pipeline.
pub async fn spawn_app_with_corpus(options: Options) -> TestApp {
    let app = spawn_app_with(options).await;
    app.graph.add(graph::engineering_corpus());
    app.put_post(
        "p-77",
        post_body("Our deployment pipeline uses GitHub Actions", &["devops"]),
    )
    .await;
    app
}

/// The environment the app is configured with.
pub fn test_env(
    graph: &FakeGraph,
    openai: &FakeOpenAi,
    db: &std::path::Path,
    o: &Options,
) -> HashMap<String, String> {
    let mut env: HashMap<String, String> = [
        ("LINKUP__SERVER__ADDR", "127.0.0.1:0".to_owned()),
        ("LINKUP__MSGRAPH__BASE_URL", graph.url()),
        ("LINKUP__POSTS__DB_PATH", db.display().to_string()),
        ("LINKUP__SERVER__SHUTDOWN_GRACE_MS", "5000".to_owned()),
        // Tests send the same request again and expect a run; the panel
        // cache's own tests turn it on.
        ("LINKUP__CACHE__ENABLED", "false".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    if o.llm || o.embeddings {
        env.insert("AZURE_OPENAI_ENDPOINT".into(), openai.url());
        env.insert("AZURE_OPENAI_API_KEY".into(), openai::API_KEY.into());
    }
    if !o.llm {
        env.insert(
            "LINKUP__AZURE_OPENAI__CHAT_DEPLOYMENT".into(),
            String::new(),
        );
    }
    if !o.embeddings {
        env.insert(
            "LINKUP__AZURE_OPENAI__EMBEDDING_DEPLOYMENT".into(),
            String::new(),
        );
    }
    for (k, v) in &o.env {
        env.insert((*k).to_owned(), v.clone());
    }
    env
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// `POST /api/suggestions` with an optional Graph token; returns (status, body).
    pub async fn suggest(&self, body: Value, token: Option<&str>) -> (u16, Value) {
        let res = self.suggest_response(body, token).await;
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// `POST /api/suggestions` as `suggest` sends it; the whole response,
    /// headers included.
    pub async fn suggest_response(&self, body: Value, token: Option<&str>) -> reqwest::Response {
        let mut req = self.http.post(self.url("/api/suggestions")).json(&body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        req.send().await.expect("request")
    }

    /// `POST /api/suggestions` asking for the NDJSON event stream, with an
    /// optional Graph token; the response, to read as it streams.
    pub async fn stream(&self, body: Value, token: Option<&str>) -> reqwest::Response {
        let mut req = self
            .http
            .post(self.url("/api/suggestions"))
            .header("accept", "application/x-ndjson")
            .json(&body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        req.send().await.expect("request")
    }

    /// `GET path`, its body as text (whatever the status).
    pub async fn get_text(&self, path: &str) -> String {
        let res = self.http.get(self.url(path)).send().await.expect("get");
        res.text().await.expect("a body")
    }

    /// `GET path`, its JSON body (whatever the status).
    pub async fn get_json(&self, path: &str) -> Value {
        let res = self.http.get(self.url(path)).send().await.expect("get");
        res.json().await.expect("a JSON body")
    }

    /// Stores a post through the ingestion API.
    pub async fn put_post(&self, id: &str, body: Value) -> u16 {
        self.put(id, body).await.0
    }

    /// `PUT /api/posts/{id}`; returns (status, body).
    pub async fn put(&self, id: &str, body: Value) -> (u16, Value) {
        let res = self
            .http
            .put(self.url(&format!("/api/posts/{id}")))
            .json(&body)
            .send()
            .await
            .expect("put");
        let status = res.status().as_u16();
        let body = res.json().await.unwrap_or(Value::Null);
        self.wait_until_local_vectors().await;
        (status, body)
    }

    /// With the multilingual model, waits (at most two minutes: one core
    /// embeds 50–70 posts a second, fewer while other tests run) until
    /// every post stored has its vector.
    pub async fn wait_until_local_vectors(&self) {
        if !self.embeds_locally {
            return;
        }
        for _ in 0..2400 {
            let conn = rusqlite::Connection::open(&self.db_path).expect("the post index");
            let waiting: i64 = conn
                .query_row(
                    "SELECT count(*) FROM posts WHERE embedding IS NULL",
                    [],
                    |r| r.get(0),
                )
                .expect("count");
            if waiting == 0 {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("posts were not embedded by the multilingual model");
    }

    /// Posts in the index with a vector.
    pub fn embedded_count(&self) -> i64 {
        let conn = rusqlite::Connection::open(&self.db_path).expect("the post index");
        conn.query_row(
            "SELECT count(*) FROM posts WHERE embedding IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .expect("count")
    }

    /// Waits (at most 10 s) until `n` posts have their vector.
    pub async fn wait_until_embedded(&self, n: i64) {
        for _ in 0..200 {
            if self.embedded_count() >= n {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("posts were not embedded");
    }

    /// `POST /api/posts/batch`; returns (status, body).
    pub async fn post_batch(&self, posts: &[Value]) -> (u16, Value) {
        let res = self
            .http
            .post(self.url("/api/posts/batch"))
            .json(&serde_json::json!({ "posts": posts }))
            .send()
            .await
            .expect("post batch");
        let status = res.status().as_u16();
        let body = res.json().await.unwrap_or(Value::Null);
        self.wait_until_local_vectors().await;
        (status, body)
    }
}

/// How much longer than asked a fake's scripted delays slept (its timer's
/// overshoot: the fake's time, not the service's).
#[derive(Debug, Default, Clone, Copy)]
pub struct Oversleep {
    pub delays: usize,
    pub total: std::time::Duration,
}

/// A fake's scripted delay: sleeps `d`; returns how much longer the timer slept.
pub async fn delay(d: std::time::Duration) -> std::time::Duration {
    let started = std::time::Instant::now();
    tokio::time::sleep(d).await;
    started.elapsed().saturating_sub(d)
}

impl Oversleep {
    pub fn add(&mut self, over: std::time::Duration) {
        self.delays += 1;
        self.total += over;
    }
}

/// A valid post body with this text, expiring in a year.
pub fn post_body(text: &str, tags: &[&str]) -> Value {
    json!({
        "authorId": "u1", "authorName": "Kim", "text": text, "tags": tags,
        "lat": 37.5, "lng": 127.0, "mode": "online", "category": "question",
        "createdAt": "2026-11-01T09:00:00Z", "expiresAt": "2099-01-01T00:00:00Z",
        "interestedCount": 3, "joinCount": 1
    })
}

/// Titles of the `m365` items of a response.
pub fn titles(body: &Value) -> Vec<String> {
    body["m365"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| i["title"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Ids of the `posts` of a response.
pub fn post_ids(body: &Value) -> Vec<String> {
    body["posts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| p["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Strings of a JSON array field.
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}
