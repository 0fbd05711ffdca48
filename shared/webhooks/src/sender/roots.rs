//! The sender's TLS configuration: [`paygate_tls`]'s (the compiled-in Mozilla roots, already
//! parsed trust anchors, so nothing is read or parsed at start-up; ring; HTTP/1.1) plus the
//! optional extra local-development roots of [`ENV_EXTRA_CA`](super::ENV_EXTRA_CA). Issue 9:
//! the platform verifier parsed the whole system store from disk at init.

use paygate_tls::rustls::{
    self,
    pki_types::{pem::PemObject, CertificateDer},
};

use super::ConfigError;

/// A rustls client configuration trusting the webpki roots and `extra_ca_pem`'s certificates.
pub(crate) fn tls_config(extra_ca_pem: Option<&[u8]>) -> Result<rustls::ClientConfig, ConfigError> {
    let mut roots = paygate_tls::mozilla_roots();
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
    paygate_tls::client_config(roots).map_err(ConfigError::Tls)
}
