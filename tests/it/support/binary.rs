//! The service's real binary, for what only a process shows: start-up and
//! exit codes, signals, a kill -9, and the log lines it writes.

use std::{
    ffi::OsStr,
    process::{Child, Command, Output, Stdio},
    sync::{Arc, Mutex},
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
        let mut child = command()
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

    /// The log lines written since it listened.
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
    command()
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the service binary runs")
}

fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_linkup-suggestions"));
    command.env_clear();
    command
}
