//! The TLS client configuration of every outbound HTTPS call a function makes: AWS (the SDK's
//! HTTP client, `paygate_aws::http`), the banks (`paygate_bankkit::transport`), webhook
//! endpoints (`paygate_webhooks::sender`) and the deploy hook's Lambda and CodeDeploy calls.
//! One place decides the crypto provider, the trust anchors and the protocols offered:
//!
//! - **ring** as rustls's provider (issue 20): AWS-LC, the SDK's and reqwest's default, made
//!   every function about 0.27 MB larger zipped for the same TLS 1.2/1.3 suites; a function
//!   links one provider only.
//! - **The compiled-in Mozilla roots** (`webpki-roots`, already parsed trust anchors), not
//!   the platform store, which was read and parsed from disk at start-up (issue 9); the
//!   webhook sender adds its local-development roots to them.
//! - **HTTP/1.1 only** (ALPN): no function needs HTTP/2 for one request at a time, and the
//!   `h2` stack it links was ~0.5 MB of every binary.

use std::sync::Arc;

pub use rustls;

/// The crypto provider every client uses.
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The compiled-in Mozilla roots.
pub fn mozilla_roots() -> rustls::RootCertStore {
    rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    }
}

/// A client configuration trusting `roots`, on [`provider`], offering HTTP/1.1.
pub fn client_config(roots: rustls::RootCertStore) -> Result<rustls::ClientConfig, rustls::Error> {
    let mut config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// [`client_config`] of the [`mozilla_roots`].
// The one `expect`: ring supports rustls's default protocol versions (TLS 1.2 and 1.3).
#[allow(clippy::expect_used)]
pub fn default_client_config() -> rustls::ClientConfig {
    client_config(mozilla_roots()).expect("ring supports the default protocol versions")
}

/// Makes [`provider`] the process's default, for code that builds a rustls configuration
/// without naming a provider (axum-server's `RustlsConfig` in the CLI's and the tests' local
/// HTTPS receivers): in a build that also compiles AWS-LC in (the CLI's and the tests'
/// default reqwest clients), rustls cannot pick one itself. Idempotent.
pub fn install_process_default() {
    // Err only when a default is already installed, which is all this asks.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offers_http1_only_and_trusts_the_mozilla_roots() {
        let config = default_client_config();
        assert_eq!(config.alpn_protocols, vec![b"http/1.1".to_vec()]);
        assert!(webpki_roots::TLS_SERVER_ROOTS.len() > 100);
        assert_eq!(
            mozilla_roots().roots.len(),
            webpki_roots::TLS_SERVER_ROOTS.len()
        );
    }

    #[test]
    fn the_provider_is_ring_with_tls13_and_tls12_suites() {
        let p = provider();
        let names: Vec<String> = p
            .cipher_suites
            .iter()
            .map(|s| format!("{:?}", s.suite()))
            .collect();
        assert!(names.iter().any(|n| n.starts_with("TLS13_")), "{names:?}");
        assert!(
            names.iter().any(|n| n.starts_with("TLS_ECDHE_")),
            "{names:?}"
        );
    }
}
