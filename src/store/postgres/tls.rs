//! The TLS of every connection to the database, when the server offers or
//! the URL requires it: the system's trust store, or `posts.tls_ca_file`'s CAs.

use std::path::Path;

use rustls::pki_types::{CertificateDer, pem::PemObject};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::store::OpenError;

/// The connector for the system's trust store, or for the CAs of `ca_file`.
pub fn connector(ca_file: Option<&Path>) -> Result<MakeRustlsConnect, OpenError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let config = match ca_file {
        Some(path) => {
            let ca_error = |source| OpenError::CaFile {
                path: path.to_owned(),
                source,
            };
            let mut roots = rustls::RootCertStore::empty();
            for cert in CertificateDer::pem_file_iter(path).map_err(ca_error)? {
                roots.add(cert.map_err(ca_error)?)?;
            }
            rustls::ClientConfig::builder()
                .with_root_certificates(roots)
                .with_no_client_auth()
        }
        None => {
            use rustls_platform_verifier::ConfigVerifierExt;
            rustls::ClientConfig::with_platform_verifier()?
        }
    };
    Ok(MakeRustlsConnect::new(config))
}
