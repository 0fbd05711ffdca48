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
mod unsettled;
mod webhook_item;
mod write;

#[cfg(feature = "moto")]
pub mod moto;

#[cfg(feature = "faults")]
pub mod faults;

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

/// The SDK's retries for every deployed function and for `make dev` alike: standard mode
/// (throttling, 5xx and transient transport errors, exponential backoff with jitter), three
/// attempts. A retried `TransactWriteItems` carries the same `ClientRequestToken`, so it
/// applies at most once; what is still ambiguous after it is resolved by reading back
/// (`paygate_payments::commit`).
pub fn retry_config() -> RetryConfig {
    RetryConfig::standard().with_max_attempts(3)
}

/// A client configured from the environment (region, credentials, and `AWS_ENDPOINT_URL`
/// when set, e.g. to point a local run at moto), with [`retry_config`].
pub async fn client_from_env() -> Client {
    let conf = aws_config::load_defaults(BehaviorVersion::latest()).await;
    let conf = aws_sdk_dynamodb::config::Builder::from(&conf)
        .retry_config(retry_config())
        .build();
    Client::from_conf(conf)
}

/// A client for a local endpoint (moto, the dev server): static `test`/`test` credentials
/// and the deployed functions' [`retry_config`].
pub fn client_for_endpoint(endpoint: &str, region: &str) -> Client {
    local_client(endpoint, region, retry_config())
}

/// A client for tests against moto, with retries off, so that moto's HTTP 500 answers to
/// malformed expressions fail at once instead of being retried.
pub fn client_for_tests(endpoint: &str, region: &str) -> Client {
    local_client(endpoint, region, RetryConfig::disabled())
}

fn local_client(endpoint: &str, region: &str, retry: RetryConfig) -> Client {
    let conf = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new(region.to_owned()))
        .credentials_provider(Credentials::new("test", "test", None, None, "static"))
        .retry_config(retry)
        .build();
    Client::from_conf(conf)
}
