//! The sender's TLS configuration: the compiled-in Mozilla roots (`webpki-roots`, already
//! parsed trust anchors, so nothing is read or parsed at start-up) plus the optional extra
//! local-development roots of [`ENV_EXTRA_CA`](super::ENV_EXTRA_CA). Issue 9: the platform
//! verifier parsed the whole system store from disk at init.

use std::sync::Arc;

use rustls::pki_types::{pem::PemObject, CertificateDer};

use super::ConfigError;

/// A rustls client configuration trusting the webpki roots and `extra_ca_pem`'s certificates,
/// offering HTTP/2 and HTTP/1.1.
pub(crate) fn tls_config(extra_ca_pem: Option<&[u8]>) -> Result<rustls::ClientConfig, ConfigError> {
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(pem) = extra_ca_pem {
        let mut added = 0usize;
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| ConfigError::BadCa(e.to_string()))?;
            roots
                .add(cert)
                .map_err(|e| ConfigError::BadCa(e.to_string()))?;
            added += 1;
        }
        if added == 0 {
            return Err(ConfigError::BadCa("no certificate in the PEM data".into()));
        }
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(ConfigError::Tls)?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}
