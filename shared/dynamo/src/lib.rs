//! DynamoDB adapters for the domain ports.
//!
//! * [`schema`]: the tables (key schemas, GSIs) as data, shared with `template.yaml`, plus
//!   [`schema::create_tables`] for local stacks.
//! * [`DynamoPayments`]: payments, their transactions and the outbox, written atomically and
//!   conditionally ([`paygate_domain::ports::PaymentReader`], [`paygate_domain::ports::PaymentWriter`]).
//! * [`DynamoEvents`]: reads the outbox and marks events sent
//!   ([`paygate_domain::ports::Outbox`]).
//! * [`DynamoEndpoints`]: merchants' webhook endpoints ([`paygate_domain::ports::EndpointReader`],
//!   plus the dashboard's writes).
//! * [`DynamoDeliveries`]: webhook deliveries and their attempts, claimed and advanced
//!   conditionally ([`paygate_domain::ports::DeliveryStore`], plus the dashboard's queries
//!   and resend).
//! * [`DynamoApiKeys`], [`DynamoAccounts`], [`DynamoBins`]: the lookup ports, plus seeding.
//! * [`DynamoSimLedger`]: the bank simulator's order store.
//! * [`DynamoIdempotency`]: `Idempotency-Key` records (locks and stored answers), written
//!   conditionally ([`paygate_domain::IdempotencyStore`]).
//! * `moto` (feature `moto`): starts a local moto server for tests and the dev server.

mod accounts;
mod deliveries;
mod endpoints;
mod error;
mod events;
mod idempotency;
mod item;
mod keys;
mod payment_item;
mod payments;
mod read;
pub mod schema;
mod simledger;
mod webhook_item;
mod write;

#[cfg(feature = "moto")]
pub mod moto;

use aws_sdk_dynamodb::config::{retry::RetryConfig, BehaviorVersion, Credentials, Region};
pub use aws_sdk_dynamodb::Client;

pub use accounts::{DynamoAccounts, DynamoBins};
pub use deliveries::DynamoDeliveries;
pub use endpoints::DynamoEndpoints;
pub use events::{unsent_shard, DynamoEvents, UNSENT_SHARDS};
pub use idempotency::DynamoIdempotency;
pub use keys::DynamoApiKeys;
pub use payments::DynamoPayments;
pub use schema::{create_tables, table_names, MissingEnvVar, TableNames};
pub use simledger::DynamoSimLedger;

/// A client configured from the environment (region, credentials, and `AWS_ENDPOINT_URL`
/// when set, e.g. to point a local run at moto).
pub async fn client_from_env() -> Client {
    let conf = aws_config::load_defaults(BehaviorVersion::latest()).await;
    Client::new(&conf)
}

/// A client for a local endpoint (moto): static `test`/`test` credentials and retries
/// disabled, so that moto's HTTP 500 answers to malformed expressions fail at once.
pub fn client_for_endpoint(endpoint: &str, region: &str) -> Client {
    let conf = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new(region.to_owned()))
        .credentials_provider(Credentials::new("test", "test", None, None, "static"))
        .retry_config(RetryConfig::disabled())
        .build();
    Client::from_conf(conf)
}
