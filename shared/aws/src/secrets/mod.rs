//! Secrets Manager: webhook signing secrets ([`SecretsManagerSigning`]) and per-account
//! bank credentials ([`SecretsManagerCredentials`]), each cached in-process by the one
//! [`crate::cache::TtlCache`]; the points per-card limit's HMAC key
//! ([`SecretsManagerCardKey`]), read once per instance. Secret values never reach a log:
//! errors carry the secret's id only.

mod bank;
mod card_key;
mod signing;

use std::time::Duration;

pub use bank::SecretsManagerCredentials;
pub use card_key::SecretsManagerCardKey;
pub use signing::SecretsManagerSigning;

use paygate_domain::StoreError;

/// The Secrets Manager client, built on first use ([`crate::OnFirstUse`]).
pub type Client = crate::OnFirstUse<aws_sdk_secretsmanager::Client>;

/// How long a read secret is reused before Secrets Manager is asked again. A rotation does
/// not wait for it: it bumps the endpoint's `secret_version`, and a cached copy of an older
/// version is read again before the next delivery signs.
pub const DEFAULT_TTL: Duration = Duration::from_secs(300);

fn unavailable(op: &str, id: &str, e: &impl std::fmt::Display) -> StoreError {
    tracing::warn!(op, secret_id = id, error = %e, "secrets manager call failed");
    StoreError::Unavailable(format!("secrets manager {op} failed"))
}
