//! A throwaway certificate authority and a loopback server certificate it
//! signed, made with the `openssl` command for each test that needs TLS.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

/// PEM files in a test's directory.
pub struct TestCerts {
    /// The CA a client trusts (`SSL_CERT_FILE`, `posts.tls_ca_file`).
    pub ca: PathBuf,
    /// The server's certificate, for `127.0.0.1` and `localhost`.
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Makes a CA and a server certificate in `dir`, valid for two days.
pub fn test_certs(dir: &Path) -> TestCerts {
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl runs");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let new_key = ["-newkey", "rsa:2048", "-nodes"];
    openssl(
        &[
            &["req", "-x509"][..],
            &new_key,
            &["-days", "2", "-subj", "/CN=linkup test CA"],
            &["-keyout", "ca.key", "-out", "ca.crt"],
        ]
        .concat(),
    );
    openssl(
        &[
            &["req"][..],
            &new_key,
            &[
                "-subj",
                "/CN=localhost",
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
            ],
        ]
        .concat(),
    );
    std::fs::write(
        dir.join("san.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "san.ext",
        "-out",
        "server.crt",
    ]);
    TestCerts {
        ca: dir.join("ca.crt"),
        cert: dir.join("server.crt"),
        key: dir.join("server.key"),
    }
}
