//! The service's real binary, for what only a process shows: start-up and
//! exit codes, signals, a kill -9, and the log lines it writes. The test
//! build's binary, or the one `LINKUP_TEST_BINARY` names (CI runs the CLI
//! tests again with the release binary).

use std::{
    ffi::OsStr,
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

/// The running binary; killed when dropped.
pub struct Binary {
    child: Child,
    /// Where it listens (`host:port`).
    pub addr: String,
    logs: Arc<Mutex<Vec<String>>>,
}

impl Binary {
    /// Starts the binary with nothing but `env` in its environment, JSON logs
    /// and a free loopback port unless `env` says otherwise; returns once it
    /// listens.
    pub fn start<K: AsRef<OsStr>, V: AsRef<OsStr>>(env: impl IntoIterator<Item = (K, V)>) -> Self {
        Self::start_in(None, env)
    }

    /// [`Binary::start`] with `dir` as its working directory.
    pub fn start_in<K: AsRef<OsStr>, V: AsRef<OsStr>>(
        dir: Option<&Path>,
        env: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Self::start_with(dir, &[], env)
    }

    /// [`Binary::start_in`] with command-line `args`.
    pub fn start_with<K: AsRef<OsStr>, V: AsRef<OsStr>>(
        dir: Option<&Path>,
        args: &[&str],
        env: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let mut command = command();
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        let mut child = command
            .args(args)
            .env("LINKUP__SERVER__ADDR", "127.0.0.1:0")
            .env("LINKUP__LOG__FORMAT", "json")
            .envs(env)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the service binary starts");
        let logs = Arc::default();
        let stdout = child.stdout.take().expect("its stdout");
        let addr = super::listening_addr_keeping_log(stdout, Arc::clone(&logs));
        Self { child, addr, logs }
    }

    /// The log lines written so far.
    pub fn logs(&self) -> Vec<String> {
        self.logs.lock().unwrap().clone()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends it SIGTERM (what Kubernetes and Docker send to stop it).
    pub fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "SIGTERM sent");
    }

    /// Kills it (SIGKILL: no shutdown at all) and waits for it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Its exit status once it exits by itself; None while it runs.
    pub fn try_exit(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().expect("its status")
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the binary to its end with `args` and nothing but `env`.
pub fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    run_in(None, args, env)
}

/// [`run`] in the working directory `dir`; a binary still running after 20 s
/// (serving where it should have exited) is killed and fails the test.
pub fn run_in(dir: Option<&Path>, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = command();
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the service binary runs");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("its status").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("`linkup-suggestions {}` did not exit", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("its output")
}

/// The binary under test.
pub fn path() -> PathBuf {
    std::env::var_os("LINKUP_TEST_BINARY")
        .map(PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_linkup-suggestions").into())
}

fn command() -> Command {
    let mut command = Command::new(path());
    command.env_clear();
    command
}
