//! Test doubles for the domain ports: a manual clock, sequential ids and in-memory stores
//! with the same conditional-write semantics as the DynamoDB adapters.
//!
//! - `audit.rs`: [`MemoryAudit`] (the admin audit trail, append-only, with a failure switch).
//! - `clock.rs`: [`ManualClock`], [`T0`], [`SeqIds`].
//! - `payments.rs`: [`MemoryPayments`] (payments, transactions, the outbox).
//! - `idempotency.rs`: [`MemoryIdempotency`] (idempotency records, with fault injection).
//! - `lookups.rs`: [`MemoryKeys`], [`MemoryAccounts`] (also the merchant directory),
//!   [`MemoryBins`].
//! - `throttle.rs`: [`MemoryRateCounter`] (the throttling counters, with a failure switch),
//!   [`RecordingMetrics`] (every metric emitted, in order).
//! - `webhooks.rs`: [`MemoryPublisher`], [`MemoryEndpoints`], [`MemoryDeliveries`],
//!   [`MemoryQueue`], [`StaticSecrets`], [`ScriptedSender`].
//!
//! Each double carries all its port implementations, the admin (dashboard) ports included.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod audit;
mod clock;
mod idempotency;
mod logs;
mod lookups;
mod payments;
mod throttle;
mod webhooks;

pub use audit::MemoryAudit;
pub use clock::{ManualClock, SeqIds, T0};
pub use idempotency::{IdemFault, IdemOp, MemoryIdempotency};
pub use logs::LogBuffer;
pub use lookups::{MemoryAccounts, MemoryBins, MemoryKeys};
pub use payments::{MemoryDayReports, MemoryPayments, SaveFault};
pub use throttle::{MemoryRateCounter, RecordingMetrics};
pub use webhooks::{
    MemoryDeliveries, MemoryEndpoints, MemoryPublisher, MemoryQueue, ScriptedSender, SentRequest,
    StaticSecrets,
};
