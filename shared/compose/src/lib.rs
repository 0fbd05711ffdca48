//! The composition root: the only place the gateway is wired. Every function's
//! dependencies are built here by one builder ([`Build::build`]) from a [`Wiring`]: the AWS
//! clients, the [`Names`] of tables, queues and secret prefixes, the clock and ids, and the
//! dev server's local knobs ([`Overrides`], all `None` when deployed). A Lambda calls
//! [`from_env`] once at init; the dev server calls the same builders with its local names,
//! so local and deployed wiring cannot differ.
//!
//! One cargo feature per area, so each function links only what it uses: `payments`
//! (authorizer, get-payment), `banks` (money operations, points, test payments, the
//! reconciler, with every bank protocol), `webhooks` (fan-out, delivery, sweeper), `admin`
//! (the dashboard's admin API).

// Without an area (the deploy hook: logging, names and the clock only) most settings
// readers have no caller.
#![cfg_attr(not(any(feature = "payments", feature = "webhooks")), allow(dead_code))]

mod adapters;
pub mod logging;
mod names;
mod settings;
pub mod system;
mod wiring;

#[cfg(all(test, feature = "banks", feature = "webhooks"))]
mod tests;

#[cfg(feature = "admin")]
mod admin;
#[cfg(feature = "payments")]
mod card;
/// Every bank family's decline table, checked together and rendered into the API docs.
#[cfg(feature = "banks")]
pub mod declines;
#[cfg(feature = "payments")]
mod payments;
#[cfg(feature = "webhooks")]
mod pipeline;
#[cfg(feature = "payments")]
mod throttle;

pub use adapters::outbox;
pub use logging::init_logging;
pub use names::Names;
pub use settings::stale_after_from_env;
pub use settings::{
    check_stale_after, min_stale_in_flight, BANK_CREDENTIALS_CACHE_ENV, BANK_TIMEOUT_ENV,
    MAX_BANK_TIMEOUT_MS, MAX_PENDING_NOT_FOUND_GRACE_MS, MAX_STALE_IN_FLIGHT_MS,
    MIN_PENDING_NOT_FOUND_GRACE_MS, MIN_RETENTION_DAYS, PENDING_NOT_FOUND_GRACE_ENV,
    RECONCILE_BATCH_ENV, RECONCILE_CONCURRENCY_ENV, RETENTION_DAYS_ENV, SIGNING_SECRET_CACHE_ENV,
    STAGE_ENV, STALE_IN_FLIGHT_ENV, STALE_MARGIN, SWEEP_BATCH_ENV, SWEEP_GRACE_ENV,
};
pub use wiring::{Overrides, Wiring};

#[cfg(feature = "admin")]
pub use admin::{AdminDeliveries, AdminEndpoints, WEBHOOK_SECRET_PREFIX_ENV};
#[cfg(feature = "payments")]
pub use card::{create_local_card_key, CARD_KEY_SECRET_ENV};
#[cfg(feature = "banks")]
pub use payments::{
    bank_work, providers, Banks, MoneyOperation, PointsInquiry, Reconciler, TestCreatePayment,
    BANK_SECRET_PREFIX_ENV, RECONCILE_ALARM_AFTER_ENV,
};
#[cfg(feature = "payments")]
pub use payments::{Authorizer, GetPayment};
#[cfg(feature = "webhooks")]
pub use pipeline::{
    retry_schedule_from_env, OutboxSweeper, WebhookDeliver, WebhookFanout, RETRY_SCHEDULE_ENV,
};
#[cfg(feature = "payments")]
pub use throttle::{
    limits_from, throttle_limits_from_env, POINTS_CARD_THROTTLE_PER_HOUR_ENV,
    POINTS_CARD_THROTTLE_PER_MINUTE_ENV, POINTS_MERCHANT_THROTTLE_BURST_ENV,
    POINTS_MERCHANT_THROTTLE_PER_MINUTE_ENV, POINTS_THROTTLE_BURST_ENV,
    POINTS_THROTTLE_PER_MINUTE_ENV, THROTTLE_BURST_ENV, THROTTLE_PER_MINUTE_ENV,
};

/// A setting is missing or malformed, or a client cannot be built: the function cannot
/// start.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("environment variable {0} is not set")]
    Missing(String),
    #[error("environment variable {0} is malformed")]
    Malformed(String),
    #[error("{0}")]
    Client(String),
    /// A well-formed value outside what is safe, and why.
    #[error("environment variable {key} is {reason}")]
    OutOfRange { key: String, reason: String },
}

/// A function's dependencies, built from a [`Wiring`]: the one builder both the Lambda and
/// the dev server call.
pub trait Build: Sized {
    fn build(w: &Wiring) -> Result<Self, ConfigError>;
}

/// What a Lambda calls once at init: `T`'s dependencies from the environment.
pub async fn from_env<T: Build>() -> Result<T, ConfigError> {
    // Before any SDK client: the SDK panics on a partition file it cannot read.
    paygate_aws::partitions::check(|name| std::env::var(name).ok())
        .map_err(|e| ConfigError::Client(e.to_string()))?;
    T::build(&Wiring::from_env().await)
}
