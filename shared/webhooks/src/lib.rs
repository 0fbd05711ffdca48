//! Webhooks, one feature in one crate.
//!
//! - The pipeline over the domain ports: [`sweep`] the outbox, [`fanout`] events to
//!   endpoints, [`deliver`] attempts. Each step is safe to run twice on the same input: SQS
//!   delivers at least once, and so does everything built on it.
//! - [`signature`]: `X-Svc-Signature`, signing and verifying (also the merchant-side
//!   verification library).
//! - [`sender`]: the SSRF-guarded HTTPS client (`HttpSender`) and the request headers.

pub mod deliver;
pub mod fanout;
pub mod health;
pub mod sender;
pub mod signature;
pub mod sweep;

pub use deliver::{deliver, DeliverDeps, DeliverOutcome, USER_AGENT};
pub use fanout::{fanout, FanoutDeps};
pub use sweep::{sweep, SweepDeps, SweepReport};

pub use sender::{
    check_url, ip_forbidden, signed_headers, webhook_headers, Blocked, ConfigError, EgressPolicy,
    HttpSender, Resolver, SafeResolver, SenderConfig, DELIVERY_TIMEOUT, ENV_ALLOW_ADDRS,
    ENV_EXTRA_CA, RESPONSE_BODY_CAP,
};

use paygate_domain::StoreError;

/// A step could not finish; the message goes back to its queue and is tried again.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error("store: {0}")]
    Store(#[from] StoreError),
}
