//! Thin entry point: the command line, settings, telemetry, serve until
//! SIGTERM/Ctrl-C. `linkup-suggestions --help` lists the commands.
//!
//! Exit codes: 0 done; 1 a start-up or run failure (port in use, an
//! unreadable file: the message names the address or absolute path); 2 a
//! usage error or an invalid configuration. Each failure is printed once,
//! on stderr.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
    sync::LazyLock,
    time::Duration,
};

use clap::{Parser, Subcommand};
use linkup_suggestions::{
    App, app, otel,
    settings::{PostsBackend, PostsSettings, Secret, Settings},
    store::copy,
    telemetry, upstream,
};

/// jemalloc: the service allocates many small, short-lived buffers (JSON,
/// HTTP) across threads; see BENCHMARKS.md for what it changed.
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options: a background thread returns freed memory to the OS on
/// its decay schedule even while the process is idle (without it, purging
/// only happens inside allocations, so RSS stayed up after a burst; B11), and
/// freed pages go back within 3 s, not 10 s: after a burst the pages the burst
/// and then the closed idle upstream connections freed were still resident
/// 15 s later (B14; B1's CPU per request within its noise).
#[allow(non_upper_case_globals)]
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static malloc_conf: &[u8; 43] = b"background_thread:true,dirty_decay_ms:3000\0";

/// Hands the calling thread's jemalloc cache back to the shared arenas, as a
/// worker thread goes idle. A thread's cache keeps freed blocks for its next
/// allocations, and jemalloc trims it only as that thread allocates again:
/// after a burst those blocks, and the slabs they sit in, stayed resident for
/// as long as the service was quiet (BENCHMARKS.md, B14). Called at every
/// park; B1's instructions per request did not change with it.
/// False when this jemalloc has no such control (nothing is handed back).
fn return_thread_cache() -> bool {
    use std::sync::OnceLock;
    // `thread.tcache.flush`, looked up once: a park must stay cheap.
    static MIB: OnceLock<Option<[usize; 3]>> = OnceLock::new();
    let mib = MIB.get_or_init(|| {
        let mut mib = [0usize; 3];
        let mut len = mib.len();
        // SAFETY: a NUL-terminated name and a buffer of `len` MIB entries.
        let rc = unsafe {
            tikv_jemalloc_sys::mallctlnametomib(
                c"thread.tcache.flush".as_ptr(),
                mib.as_mut_ptr(),
                &mut len,
            )
        };
        (rc == 0 && len == mib.len()).then_some(mib)
    });
    mib.is_some_and(|mib| {
        // SAFETY: a write-only control with no arguments (no old or new value).
        let rc = unsafe {
            tikv_jemalloc_sys::mallctlbymib(
                mib.as_ptr(),
                mib.len(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
            )
        };
        rc == 0
    })
}

/// Caps the C allocator (glibc's malloc: SQLite, the system resolver) at one
/// arena. glibc gives each new thread that allocates an arena of its own, up
/// to 8 per core, and never unmaps one; after a burst the blocking threads'
/// arenas (SQLite work) stayed resident with their free chunks, 0.5–1.6 MB
/// at 8,000 connections (B14). Those threads are few (SQLite work takes at
/// most 6 at once) and rarely allocate at the same moment.
/// False where this is not glibc or it refused.
fn one_c_heap() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: takes no pointers; glibc applies it to the arenas it would
        // create from now on, under its own lock.
        unsafe { libc::mallopt(libc::M_ARENA_MAX, 1) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// The crate's version, and the commit it was built from when the build
/// said (`LINKUP_COMMIT`: the Dockerfile's build argument; an image has no
/// `.git` to ask).
static VERSION: LazyLock<String> = LazyLock::new(|| {
    let version = env!("CARGO_PKG_VERSION");
    match option_env!("LINKUP_COMMIT").map(str::trim) {
        Some(commit) if !commit.is_empty() => format!("{version} (commit {commit})"),
        _ => version.to_owned(),
    }
});

/// The Suggestions panel service for LinkUp: Microsoft 365 documents,
/// similar posts and a next-step hint for a post.
#[derive(Parser)]
#[command(name = "linkup-suggestions", version = VERSION.as_str())]
struct Cli {
    /// Directory of the per-environment configuration files
    /// (`{APP_ENV}.toml`); the defaults are compiled in, so it need not
    /// exist. Relative to the working directory.
    #[arg(long, global = true, value_name = "DIR", default_value = "config")]
    config: PathBuf,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the HTTP API (the default command).
    Serve,
    /// Exit 0 when the instance configured here answers 200 on `/healthz`
    /// (the container's HEALTHCHECK: the image has no curl).
    Healthcheck,
    /// Copy a SQLite post index (posts, vectors, run records) into
    /// PostgreSQL; running it again replaces rather than duplicates.
    MigratePosts {
        /// The SQLite file to copy from.
        #[arg(long, value_name = "sqlite:PATH", value_parser = sqlite_path)]
        from: PathBuf,
        /// The PostgreSQL database to copy into; defaults to
        /// `posts.database_url` / `DATABASE_URL`.
        #[arg(long, value_name = "postgres://USER:PASSWORD@HOST/DB")]
        to: Option<String>,
    },
}

fn sqlite_path(value: &str) -> Result<PathBuf, String> {
    value
        .strip_prefix("sqlite:")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| "expected sqlite:PATH".to_owned())
}

fn main() -> ExitCode {
    // Usage errors exit 2 (clap's own code), --help and --version 0.
    let cli = Cli::parse();
    let cwd = match std::env::current_dir() {
        Ok(dir) => dir,
        Err(e) => return fail(1, format!("reading the working directory: {e}")),
    };
    let config_dir = cwd.join(&cli.config);
    let settings = match Settings::load(&config_dir) {
        Ok(s) => s.with_paths_under(&cwd),
        Err(e) => return fail(2, e),
    };
    one_c_heap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_park(|| {
            return_thread_cache();
        })
        // A blocking thread (SQLite, large bodies) that has no work for a
        // second ends, and its cache goes with it, not 10 s later (tokio's
        // default).
        .thread_keep_alive(std::time::Duration::from_secs(1))
        .build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => return fail(1, format!("starting the async runtime: {e}")),
    };
    runtime.block_on(async move {
        match cli.command.unwrap_or(Command::Serve) {
            Command::Serve => serve(settings, &cwd, &config_dir).await,
            Command::Healthcheck => healthcheck(&settings).await,
            Command::MigratePosts { from, to } => {
                telemetry::init(&settings.log, None);
                migrate_posts(&settings, &cwd.join(from), to).await
            }
        }
    })
}

/// Prints `message` once, on stderr, and exits with `code`.
fn fail(code: u8, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("linkup-suggestions: {message}");
    ExitCode::from(code)
}

async fn serve(settings: Settings, cwd: &Path, config_dir: &Path) -> ExitCode {
    // A bad trace export configuration costs the traces, not the service:
    // it is logged once the logs are set up.
    let (traces_layer, traces, traces_error) = match otel::from_env(upstream::http_client) {
        Ok(traces) => {
            let (layer, traces) = traces.unzip();
            (layer, traces, None)
        }
        Err(e) => (None, None, Some(e)),
    };
    telemetry::init(&settings.log, traces_layer);
    if let Some(e) = traces_error {
        tracing::warn!(
            error.message = app::one_line(&e),
            "trace export not started"
        );
    }
    if settings.log.payloads {
        tracing::warn!(
            "log.payloads is on: tool arguments (written from user text) and result summaries are logged, streamed and kept in run records; development only"
        );
    }
    tracing::info!(
        version = VERSION.as_str(),
        working_dir = %cwd.display(),
        config_dir = %config_dir.display(),
        config_dir_exists = config_dir.is_dir(),
        posts.backend = ?settings.posts.backend,
        posts.db_path = %settings.posts.db_path.display(),
        posts.model_path = %settings.posts.model_path.as_deref().map_or("(compiled in)".into(), |p| p.display().to_string()),
        posts.local_model_file = %settings.posts.local_model_file.as_deref().map_or("(compiled in)".into(), |p| p.display().to_string()),
        "starting"
    );
    let app = match App::build(settings).await {
        Ok(app) => app,
        Err(e) => return fail(1, app::one_line(&e)),
    };
    tracing::info!(addr = %app.local_addr(), traces = traces.is_some(), "listening");
    let served = app.run_until_stopped().await;
    if let Some(traces) = traces {
        traces.shutdown().await;
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(1, app::one_line(&e)),
    }
}

/// Copies the SQLite post index at `from` into `to` (default
/// `posts.database_url`).
async fn migrate_posts(settings: &Settings, from: &Path, to: Option<String>) -> ExitCode {
    let to = match to {
        // `postgres:` before a URL without `//` is the scheme of `--from`'s form.
        Some(v) => Secret::from(
            v.strip_prefix("postgres:")
                .filter(|r| !r.starts_with("//"))
                .unwrap_or(&v),
        ),
        None => match settings.posts.database_url.clone() {
            Some(url) => url,
            None => {
                return fail(
                    2,
                    "migrate-posts: --to, posts.database_url or DATABASE_URL must name the PostgreSQL database",
                );
            }
        },
    };
    let target = PostsSettings {
        backend: PostsBackend::Postgres,
        database_url: Some(to),
        ..settings.posts.clone()
    };
    match copy::sqlite_to_postgres(from, &target, settings.runs.max_records).await {
        Ok(c) => {
            println!(
                "copied {} posts ({} with vectors) and {} run records; {} expired posts skipped",
                c.posts, c.vectors, c.runs, c.expired_skipped
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(1, format!("migrate-posts: {e}")),
    }
}

/// Exits 0 when `GET /healthz` on the configured port answers 200.
async fn healthcheck(settings: &Settings) -> ExitCode {
    let url = format!("http://127.0.0.1:{}/healthz", settings.server.addr.port());
    let ok = match upstream::http_client() {
        Ok(client) => client
            .get(url)
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success()),
        Err(_) => false,
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    /// The flush works in the jemalloc this binary is built with (a renamed
    /// control, or a jemalloc without thread caches, would silently keep an
    /// idle worker's cache). What it returns is measured by B14, not here.
    #[test]
    fn the_thread_cache_flush_runs_in_this_builds_jemalloc() {
        // Something in the cache to hand back.
        let kept: Vec<Vec<u8>> = (0..1000).map(|i| vec![0; 64 + i % 512]).collect();
        drop(kept);
        assert!(super::return_thread_cache());
        assert!(super::return_thread_cache(), "looked up once, then reused");
    }

    /// jemalloc took `malloc_conf`: it ignores an option it does not know
    /// (a note on stderr), and the service would keep its defaults.
    #[test]
    fn jemalloc_runs_with_the_compiled_options() {
        fn read<T: Default>(name: &std::ffi::CStr) -> T {
            let mut value = T::default();
            let mut len = std::mem::size_of::<T>();
            // SAFETY: a NUL-terminated name and a buffer of `len` bytes of
            // the option's type (`bool`, `ssize_t`).
            let rc = unsafe {
                tikv_jemalloc_sys::mallctl(
                    name.as_ptr(),
                    (&raw mut value).cast(),
                    &mut len,
                    std::ptr::null_mut(),
                    0,
                )
            };
            assert_eq!(rc, 0, "{name:?}");
            value
        }
        assert!(read::<bool>(c"opt.background_thread"));
        assert_eq!(read::<isize>(c"opt.dirty_decay_ms"), 3000);
    }

    /// New threads' C allocations go to the arenas already there: without
    /// the cap, glibc gives each new thread that allocates an arena of its
    /// own, up to 8 per core.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn c_allocations_of_new_threads_take_no_arena_of_their_own() {
        /// glibc's arenas: `malloc_info` writes a `<heap nr="…">` for each.
        fn arenas() -> usize {
            let mut buf: *mut libc::c_char = std::ptr::null_mut();
            let mut len = 0;
            // SAFETY: the stream writes to `buf`, which is freed once read.
            unsafe {
                let stream = libc::open_memstream(&mut buf, &mut len);
                assert!(!stream.is_null());
                assert_eq!(libc::malloc_info(0, stream), 0);
                libc::fclose(stream);
                let xml = String::from_utf8_lossy(std::slice::from_raw_parts(buf.cast(), len))
                    .into_owned();
                libc::free(buf.cast());
                xml.matches("<heap nr=").count()
            }
        }
        assert!(super::one_c_heap());
        let before = arenas();
        let threads: Vec<_> = (0..8)
            .map(|_| {
                std::thread::spawn(|| {
                    // SAFETY: a block allocated and freed here.
                    unsafe { libc::free(libc::malloc(4096)) }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
        assert_eq!(arenas(), before);
    }
}
