//! [`HttpSender`]: the reqwest-based [`WebhookSender`] (invariants 5 and 6).
//!
//! One `reqwest::Client`, built once, with the [`SafeResolver`], no proxy, no redirects,
//! HTTPS only. Each attempt — DNS, connect, TLS, request, response head and the (capped)
//! body read — runs under one deadline of at most [`DELIVERY_TIMEOUT`].

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use async_trait::async_trait;
use paygate_domain::{
    ports::{SendOutcome, WebhookSender},
    webhook::AttemptError,
};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::sender::ssrf::{
    check_url, EgressPolicy, ResolveError, Resolver, SafeResolver, SystemResolver,
};

/// The spec's limit for a whole attempt; a configured timeout is capped at this.
pub const DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);

/// How much of a response body is kept (bytes, before lossy UTF-8 decoding).
pub const RESPONSE_BODY_CAP: usize = 2048;

/// Sent as `User-Agent` on every webhook.
pub use paygate_domain::webhook::USER_AGENT;

/// Local-development exemptions: comma-separated IPs that may be delivered to although
/// private (e.g. `127.0.0.1`). Not set in the deployed template.
pub const ENV_ALLOW_ADDRS: &str = "PAYGATE_WEBHOOK_ALLOW_ADDRS";

/// Local-development trust: path of a PEM file with extra root certificates (e.g. the
/// self-signed root of a local HTTPS receiver). Not set in the deployed template.
pub const ENV_EXTRA_CA: &str = "PAYGATE_WEBHOOK_EXTRA_CA";

/// How to build an [`HttpSender`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SenderConfig {
    /// Exempt addresses; [`EgressPolicy::strict`] in production.
    pub policy: EgressPolicy,
    /// Extra trusted root certificates (PEM, one or more), added to the compiled-in
    /// webpki roots.
    pub extra_ca_pem: Option<Vec<u8>>,
    /// Deadline for a whole attempt; capped at [`DELIVERY_TIMEOUT`].
    pub timeout: Duration,
}

impl Default for SenderConfig {
    fn default() -> Self {
        Self {
            policy: EgressPolicy::strict(),
            extra_ca_pem: None,
            timeout: DELIVERY_TIMEOUT,
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{ENV_ALLOW_ADDRS}: {0}")]
    AllowList(#[from] crate::sender::ssrf::BadAllowEntry),
    #[error("{ENV_EXTRA_CA}: cannot read {path}: {source}")]
    ReadCa {
        path: String,
        source: std::io::Error,
    },
    #[error("extra CA certificates: {0}")]
    BadCa(String),
    #[error("cannot build the TLS configuration: {0}")]
    Tls(paygate_tls::rustls::Error),
    #[error("cannot build the HTTP client: {0}")]
    Client(reqwest::Error),
}

impl SenderConfig {
    /// The production defaults, plus the two local-development variables
    /// [`ENV_ALLOW_ADDRS`] and [`ENV_EXTRA_CA`] when set. Neither exists in the deployed
    /// template, so a deployed function always gets the strict policy and the webpki roots.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// [`Self::from_env`] over any variable source.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let policy = match var(ENV_ALLOW_ADDRS) {
            Some(list) => EgressPolicy::parse_allow_list(&list)?,
            None => EgressPolicy::strict(),
        };
        let extra_ca_pem = match var(ENV_EXTRA_CA).filter(|p| !p.trim().is_empty()) {
            Some(path) => {
                Some(std::fs::read(&path).map_err(|source| ConfigError::ReadCa { path, source })?)
            }
            None => None,
        };
        Ok(Self {
            policy,
            extra_ca_pem,
            timeout: DELIVERY_TIMEOUT,
        })
    }
}

/// Posts webhooks; build once per process and share.
#[derive(Debug, Clone)]
pub struct HttpSender {
    client: reqwest::Client,
    policy: Arc<EgressPolicy>,
    timeout: Duration,
}

impl HttpSender {
    /// A sender resolving names with the system resolver.
    pub fn new(config: SenderConfig) -> Result<Self, ConfigError> {
        Self::with_resolver(config, Arc::new(SystemResolver))
    }

    /// A sender resolving names with `resolver` (every answer still goes through the
    /// [`SafeResolver`] check).
    pub fn with_resolver(
        config: SenderConfig,
        resolver: Arc<dyn Resolver>,
    ) -> Result<Self, ConfigError> {
        let policy = Arc::new(config.policy);
        let timeout = config.timeout.min(DELIVERY_TIMEOUT);
        let builder = reqwest::Client::builder()
            .dns_resolver(SafeResolver::new(resolver, policy.clone()))
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .https_only(true)
            .connect_timeout(timeout)
            .user_agent(USER_AGENT);
        let tls = crate::sender::roots::tls_config(config.extra_ca_pem.as_deref())?;
        let client = builder
            .tls_backend_preconfigured(tls)
            .build()
            .map_err(ConfigError::Client)?;
        Ok(Self {
            client,
            policy,
            timeout,
        })
    }

    /// The deadline each attempt runs under.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    async fn post(&self, url: &str, headers: &[(String, String)], body: Vec<u8>) -> Reply {
        let url = match check_url(url, &self.policy) {
            Ok(u) => u,
            Err(blocked) => {
                tracing::warn!(%blocked, "webhook refused before sending");
                return Reply::Failed(AttemptError::Blocked);
            }
        };
        let headers = match header_map(headers) {
            Some(h) => h,
            None => {
                tracing::error!("webhook not sent: a request header is not valid HTTP");
                return Reply::Failed(AttemptError::Connection);
            }
        };
        let exchange = async {
            let mut response = self
                .client
                .post(url)
                .headers(headers)
                .body(body)
                .send()
                .await?;
            let status = response.status().as_u16();
            let mut kept = Vec::new();
            while kept.len() < RESPONSE_BODY_CAP {
                match response.chunk().await? {
                    Some(chunk) => kept.extend_from_slice(&chunk),
                    None => break,
                }
            }
            // Whatever is left unread is dropped with the connection.
            Ok::<_, reqwest::Error>((status, capped_text(kept)))
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Err(_) => Reply::Failed(AttemptError::Timeout),
            Ok(Ok((status, body))) => Reply::Response(status, body),
            Ok(Err(e)) => {
                let kind = classify(&e);
                // The URL stays out of logs: merchants put tokens in them.
                let e = e.without_url();
                tracing::warn!(error = %error_chain(&e), ?kind, "webhook attempt failed");
                Reply::Failed(kind)
            }
        }
    }
}

enum Reply {
    Response(u16, String),
    Failed(AttemptError),
}

#[async_trait]
impl WebhookSender for HttpSender {
    /// Exactly one of `status_code` and `error` is set: a status only when a response head
    /// and its (capped) body arrived in time. Success is a 2xx status
    /// (`Attempt::is_success`); a 3xx is a failure like any other non-2xx.
    async fn send(&self, url: &str, headers: &[(String, String)], body: Vec<u8>) -> SendOutcome {
        let started = Instant::now();
        let reply = self.post(url, headers, body).await;
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        match reply {
            Reply::Response(status, response_body) => SendOutcome {
                status_code: Some(status),
                error: None,
                response_body,
                duration_ms,
            },
            Reply::Failed(error) => SendOutcome {
                status_code: None,
                error: Some(error),
                response_body: String::new(),
                duration_ms,
            },
        }
    }
}

fn header_map(headers: &[(String, String)]) -> Option<HeaderMap> {
    let mut map = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes()).ok()?;
        let value = HeaderValue::from_str(value).ok()?;
        map.insert(name, value);
    }
    Some(map)
}

/// At most [`RESPONSE_BODY_CAP`] bytes as text; a character cut in half by the cap is
/// dropped rather than shown as U+FFFD.
fn capped_text(mut bytes: Vec<u8>) -> String {
    if bytes.len() > RESPONSE_BODY_CAP {
        bytes.truncate(RESPONSE_BODY_CAP);
        if let Err(e) = std::str::from_utf8(&bytes) {
            if e.error_len().is_none() {
                bytes.truncate(e.valid_up_to());
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `e` and its causes. `io::Error::source` skips the error an `io::Error` wraps (rustls and
/// hyper wrap theirs in one, sometimes two), so the walk steps into the wrapped error.
fn causes<'a>(
    e: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(e), |e| {
        match e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => e.source(),
        }
    })
}

/// Maps a reqwest error to why the attempt failed.
fn classify(e: &reqwest::Error) -> AttemptError {
    for cause in causes(e) {
        if let Some(r) = cause.downcast_ref::<ResolveError>() {
            return match r {
                ResolveError::Blocked(_) => AttemptError::Blocked,
                ResolveError::Lookup { .. } | ResolveError::NoAddress { .. } => AttemptError::Dns,
            };
        }
        if cause.downcast_ref::<paygate_tls::rustls::Error>().is_some() {
            return AttemptError::Tls;
        }
    }
    if e.is_timeout() {
        AttemptError::Timeout
    } else {
        AttemptError::Connection
    }
}

fn error_chain(e: &reqwest::Error) -> String {
    causes(e)
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_cap_cuts_bytes_and_half_characters() {
        assert_eq!(capped_text(b"short".to_vec()), "short");
        let long = vec![b'a'; RESPONSE_BODY_CAP + 10];
        assert_eq!(capped_text(long).len(), RESPONSE_BODY_CAP);
        let mut split = vec![b'a'; RESPONSE_BODY_CAP - 1];
        split.extend_from_slice("é".as_bytes()); // 2 bytes: cut after the first
        split.extend_from_slice(b"tail");
        let text = capped_text(split);
        assert_eq!(text.len(), RESPONSE_BODY_CAP - 1);
        assert!(!text.contains('\u{fffd}'));
        assert_eq!(capped_text(vec![0xff, b'x']), "\u{fffd}x");
    }

    #[test]
    fn timeout_is_capped_at_the_spec_limit() {
        let s = HttpSender::new(SenderConfig {
            timeout: Duration::from_secs(60),
            ..SenderConfig::default()
        });
        assert_eq!(s.map(|s| s.timeout()).ok(), Some(DELIVERY_TIMEOUT));
    }

    #[test]
    fn env_config() {
        let none = SenderConfig::from_vars(|_| None);
        assert_eq!(none.ok(), Some(SenderConfig::default()));

        let allow = SenderConfig::from_vars(|k| {
            (k == ENV_ALLOW_ADDRS).then(|| " 127.0.0.1 , ::1,".to_owned())
        });
        assert_eq!(
            allow.ok().map(|c| c.policy.allow),
            Some(
                vec!["127.0.0.1".parse().ok(), "::1".parse().ok()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
            )
        );

        let bad = SenderConfig::from_vars(|k| (k == ENV_ALLOW_ADDRS).then(|| "localhost".into()));
        assert!(matches!(bad, Err(ConfigError::AllowList(_))));

        let missing =
            SenderConfig::from_vars(|k| (k == ENV_EXTRA_CA).then(|| "/nonexistent.pem".into()));
        assert!(matches!(missing, Err(ConfigError::ReadCa { .. })));
    }

    #[test]
    fn bad_pem_is_a_config_error() {
        for pem in [
            &b"-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n"[..],
            b"no pem here",
        ] {
            let r = HttpSender::new(SenderConfig {
                extra_ca_pem: Some(pem.to_vec()),
                ..SenderConfig::default()
            });
            assert!(matches!(r, Err(ConfigError::BadCa(_))), "{pem:?}");
        }
    }

    #[test]
    fn invalid_header_values_are_refused() {
        assert!(header_map(&[("X-Ok".into(), "fine".into())]).is_some());
        assert!(header_map(&[("X-Bad".into(), "line\nbreak".into())]).is_none());
        assert!(header_map(&[("bad name".into(), "v".into())]).is_none());
    }
}
