//! The app's parts without its HTTP server, for tests and benchmarks that
//! call the tools or the post index directly: settings as the tests run the
//! app, and the tools' dependencies built on them.

use std::{path::Path, sync::Arc};

use linkup_suggestions::{
    parts::Parts, settings::Settings, store::Store, tools::ToolDeps, upstream::Upstreams,
};

/// The defaults, a SQLite post index in `dir`, and `env` on top.
pub fn settings(dir: &Path, env: &[(&str, String)]) -> Settings {
    let db = dir.join("posts.db").display().to_string();
    let env = std::iter::once(("LINKUP__POSTS__DB_PATH", db))
        .chain(env.iter().cloned())
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    Settings::load_from(Path::new("config"), env).expect("the test settings load")
}

/// The tools' dependencies, and the directory their post index lives in.
pub struct Deps {
    pub deps: Arc<ToolDeps>,
    /// The store the post index was opened over (for run records).
    pub store: Arc<dyn Store>,
    pub settings: Settings,
    _dir: tempfile::TempDir,
}

/// [`Deps`] on [`settings`] with `env`, in a new temporary directory.
pub async fn tool_deps(env: &[(&str, String)]) -> Deps {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let settings = settings(dir.path(), env);
    let http = Upstreams::new(&settings).expect("the HTTP clients");
    let parts = Parts::open(
        &settings,
        http,
        Default::default(),
        Default::default(),
        None,
    )
    .await
    .expect("the tools' dependencies");
    Deps {
        deps: Arc::new(parts.tools()),
        store: parts.store,
        settings,
        _dir: dir,
    }
}
