//! The gateway's webhook sending side (re-exported at the crate root).
//!
//! - [`ssrf`]: the egress guard — [`check_url`], [`ip_forbidden`], [`SafeResolver`].
//! - [`client`]: [`HttpSender`], the `WebhookSender` the deliver function uses.
//! - [`deliver`]: the request headers of an attempt.
//!
//! ```no_run
//! # async fn demo() -> Result<(), paygate_webhooks::ConfigError> {
//! use paygate_domain::ports::WebhookSender;
//! use paygate_webhooks::{signed_headers, HttpSender, SenderConfig};
//!
//! // Once per process (Lambda init): strict policy, compiled-in webpki roots, 10 s per attempt.
//! let sender = HttpSender::new(SenderConfig::from_env()?)?;
//! let body = br#"{"id":"evt_1"}"#.to_vec();
//! let headers = signed_headers("payment.captured", "dlv_1", &["whsec_…"], 1_795_251_600, &body);
//! let outcome = sender.send("https://merchant.example/hooks", &headers, body).await;
//! # let _ = outcome;
//! # Ok(()) }
//! ```

pub mod client;
pub mod deliver;
mod roots;
pub mod ssrf;

pub use client::{
    ConfigError, HttpSender, SenderConfig, DELIVERY_TIMEOUT, ENV_ALLOW_ADDRS, ENV_EXTRA_CA,
    RESPONSE_BODY_CAP, USER_AGENT,
};
pub use deliver::{signed_headers, webhook_headers};
pub use ssrf::{check_url, ip_forbidden, Blocked, EgressPolicy, Resolver, SafeResolver};
