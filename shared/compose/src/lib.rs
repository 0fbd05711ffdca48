//! Composition root: builds each function's dependencies from the real adapters. Lambdas
//! call the `*_from_env` functions once at init; the dev server calls the same builders with
//! its own table names, so local and deployed wiring cannot differ.
//!
//! By function: `payments` (money-moving, query and points functions, the bank providers,
//! the authorizer's key lookup), `pipeline` (webhook fan-out, delivery, sweeper), `admin`
//! (the dashboard's admin API) and `idempotency` (the `Idempotency-Key` records every merchant
//! POST function uses); everything is re-exported here. Each adapter is built in one
//! place, `adapters`, whichever function it serves.

mod adapters;
mod admin;
mod idempotency;
mod payments;
mod pipeline;

use std::sync::Arc;

use paygate_aws::dynamo::schema::TableDef;
use paygate_domain::ports::{Clock, IdGenerator};
use paygate_payments::system::{RandomIds, SystemClock};

pub use adapters::outbox;
pub use admin::{
    admin_deliveries_deps, admin_endpoints_deps, egress_policy_from_env,
    webhook_secret_prefix_from_env, AdminParts, AdminTables,
};
pub use idempotency::{idempotency, idempotency_table_from_env};
pub use payments::{
    api_keys, api_keys_table_from_env, operation_deps, points_deps, providers, reconciler_deps,
    reconciler_limits_from_env, Banks, OperationTables, PointsTables, BANK_SECRET_PREFIX_ENV,
    RECONCILE_ALARM_AFTER_ENV,
};
pub use pipeline::{
    deliver_deps, fanout_deps, retry_schedule_from_env, sweep_deps, PipelineTables,
    RETRY_SCHEDULE_ENV,
};

/// A required setting is missing.
#[derive(Debug, thiserror::Error)]
#[error("environment variable {0} is not set")]
pub struct ConfigError(pub &'static str);

/// A required environment variable: set and not empty.
fn required_env(name: &'static str) -> Result<String, ConfigError> {
    std::env::var(name)
        .ok()
        .filter(|v| !v.is_empty())
        .ok_or(ConfigError(name))
}

/// The name of one table, from its environment variable.
pub fn table(def: &TableDef) -> Result<String, ConfigError> {
    required_env(def.env_var)
}

/// A queue URL from its environment variable.
pub fn queue_url(def: &paygate_aws::sqs::QueueDef) -> Result<String, ConfigError> {
    required_env(def.env_var)
}

/// Clock and ids of the running system.
pub fn system() -> (Arc<dyn Clock>, Arc<dyn IdGenerator>) {
    (Arc::new(SystemClock), Arc::new(RandomIds))
}
