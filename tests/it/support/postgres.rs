//! A throwaway PostgreSQL server per test: Debian's server programs
//! (installed by tests/postgres/setup.sh when missing), `initdb` in a temp
//! dir, `postgres` on a free loopback port, stopped and deleted on drop.
//! As root, the server runs as the `postgres` user (it refuses root).

use std::{
    os::unix::{fs::MetadataExt, process::CommandExt},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::OnceLock,
    time::{Duration, Instant},
};

pub struct PgServer {
    child: Option<Child>,
    port: u16,
    bin: PathBuf,
    dir: tempfile::TempDir,
    user: Option<(u32, u32)>,
}

/// The directory of initdb and postgres, installed the first time if needed.
fn bin_dir() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let out = Command::new("bash")
            .arg("tests/postgres/setup.sh")
            .stderr(Stdio::inherit())
            .output()
            .expect("bash runs tests/postgres/setup.sh");
        assert!(
            out.status.success(),
            "tests/postgres/setup.sh failed: PostgreSQL is not installed"
        );
        let stdout = String::from_utf8(out.stdout).expect("utf-8");
        PathBuf::from(stdout.lines().last().expect("the bin dir"))
    })
}

/// The postgres user's uid and gid when we are root (the server refuses root).
fn server_user() -> Option<(u32, u32)> {
    let me = std::fs::metadata("/proc/self").ok()?.uid();
    if me != 0 {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    let line = passwd.lines().find(|l| l.starts_with("postgres:"))?;
    let fields: Vec<&str> = line.split(':').collect();
    Some((fields.get(2)?.parse().ok()?, fields.get(3)?.parse().ok()?))
}

impl PgServer {
    /// Starts a fresh server (blocking; call from `spawn_blocking` or a sync test).
    pub fn start() -> Self {
        let bin = bin_dir().to_owned();
        let user = server_user();
        let dir = tempfile::Builder::new()
            .prefix("pg")
            .tempdir_in("/tmp")
            .expect("temp dir");
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).expect("chown");
        }
        let data = dir.path().join("data");
        let status = as_server_user(Command::new(bin.join("initdb")), user, dir.path())
            .args([
                "-D",
                data.to_str().unwrap(),
                "-U",
                "postgres",
                "--auth=trust",
            ])
            .args(["-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .status()
            .expect("initdb runs");
        assert!(status.success(), "initdb failed");
        let mut server = Self {
            child: None,
            port: 0,
            bin,
            dir,
            user,
        };
        // A free port may be taken before postgres binds it: try again.
        for _ in 0..5 {
            if server.run() {
                return server;
            }
        }
        panic!("PostgreSQL did not start: {}", server.log());
    }

    /// Starts postgres on a free port; false if it exited before it was ready.
    fn run(&mut self) -> bool {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        self.launch(port)
    }

    /// Starts postgres on `port` and waits until it accepts connections.
    fn launch(&mut self, port: u16) -> bool {
        let log = std::fs::File::create(self.dir.path().join("pg.log")).expect("log file");
        let data = self.dir.path().join("data");
        let child = as_server_user(
            Command::new(self.bin.join("postgres")),
            self.user,
            self.dir.path(),
        )
        .args([
            "-D",
            data.to_str().unwrap(),
            "-k",
            self.dir.path().to_str().unwrap(),
        ])
        .args(["-p", &port.to_string(), "-c", "listen_addresses=127.0.0.1"])
        // Throwaway data: no fsync (the machine does not crash during a
        // test), but commits are written before they are acknowledged, so a
        // stopped server comes back with every acknowledged write.
        .args(["-c", "fsync=off", "-c", "full_page_writes=off"])
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("postgres starts");
        self.child = Some(child);
        self.port = port;
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Some(Ok(Some(_))) = self.child.as_mut().map(Child::try_wait) {
                self.child = None;
                return false;
            }
            let ready = Command::new(self.bin.join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    /// A connection URL for database `db` (created with [`Self::create_db`]).
    pub fn url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Creates a database.
    pub fn create_db(&self, db: &str) {
        let status = Command::new(self.bin.join("createdb"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                db,
            ])
            .status()
            .expect("createdb runs");
        assert!(status.success(), "createdb {db} failed");
    }

    /// Runs `statement` in database `db` as the superuser (psql).
    pub fn sql(&self, db: &str, statement: &str) {
        let out = Command::new(self.bin.join("psql"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
            ])
            .args(["-d", db, "-v", "ON_ERROR_STOP=1", "-c", statement])
            .env("PGSSLMODE", "prefer")
            .output()
            .expect("psql runs");
        assert!(
            out.status.success(),
            "psql failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Stops the server at once (connections are cut); `start_again` brings it back.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SIGQUIT: immediate shutdown.
            let _ = Command::new("kill")
                .args(["-QUIT", &child.id().to_string()])
                .status();
            let _ = child.wait();
        }
    }

    /// Starts the stopped server again on the same port.
    pub fn start_again(&mut self) {
        let port = self.port;
        assert!(
            self.launch(port),
            "PostgreSQL did not start again: {}",
            self.log()
        );
    }

    /// Requires TLS from now on: a certificate for 127.0.0.1 and localhost
    /// signed by a CA of its own (made with openssl), `ssl = on`, and
    /// pg_hba.conf rejecting every connection without TLS. Restarts the
    /// server on its port; returns the CA's certificate (PEM).
    pub fn require_tls(&mut self) -> PathBuf {
        self.require_tls_with("")
    }

    /// [`Self::require_tls`], with `hba` (pg_hba.conf lines) ahead of its
    /// rules (e.g. a role that must give its password).
    pub fn require_tls_with(&mut self, hba: &str) -> PathBuf {
        let dir = &self.dir.path().to_owned();
        let certs = super::tls::test_certs(dir);
        let data = dir.join("data");
        for (from, file) in [(&certs.cert, "server.crt"), (&certs.key, "server.key")] {
            std::fs::copy(from, data.join(file)).unwrap();
            if let Some((uid, gid)) = self.user {
                std::os::unix::fs::chown(data.join(file), Some(uid), Some(gid)).unwrap();
            }
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            data.join("server.key"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
        let conf = data.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).unwrap();
        text.push_str("\nssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
        std::fs::write(&conf, text).unwrap();
        std::fs::write(
            data.join("pg_hba.conf"),
            format!("{hba}local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n"),
        )
        .unwrap();
        self.stop();
        self.start_again();
        certs.ca
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("pg.log")).unwrap_or_default()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `cmd` run as the server's user (when we are root), in `dir`.
fn as_server_user(mut cmd: Command, user: Option<(u32, u32)>, dir: &Path) -> Command {
    cmd.current_dir(dir);
    if let Some((uid, gid)) = user {
        cmd.uid(uid).gid(gid);
    }
    cmd
}
