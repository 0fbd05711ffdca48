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
//! * [`DynamoAudit`]: the admin audit trail, append-only ([`paygate_domain::audit::AuditLog`]).
//! * [`DynamoSimLedger`]: the bank simulator's order store.
//! * [`DynamoIdempotency`]: `Idempotency-Key` records (locks and stored answers), written
//!   conditionally ([`paygate_domain::IdempotencyStore`]).
//! * [`DynamoRateCounter`]: the shared per-key throttling counters
//!   ([`paygate_domain::throttle::RateCounter`]).

mod accounts;
mod audit;
mod daily;
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
mod throttle;
mod unsettled;
mod webhook_item;
mod write;

#[cfg(feature = "faults")]
pub mod faults;

pub use aws_sdk_dynamodb::Client;

pub use accounts::{DynamoAccounts, DynamoBins};
pub use audit::DynamoAudit;
pub use deliveries::DynamoDeliveries;
pub use endpoints::DynamoEndpoints;
pub use events::{unsent_shard, DynamoEvents, UNSENT_SHARDS};
pub use idempotency::DynamoIdempotency;
pub use keys::DynamoApiKeys;
pub use payments::DynamoPayments;
pub use schema::{create_tables, table_names, MissingEnvVar, TableNames};
pub use simledger::DynamoSimLedger;
pub use throttle::DynamoRateCounter;
