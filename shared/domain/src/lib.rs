//! paygate domain: the pure core of the gateway.
//!
//! Typed ids, money in minor units, the payment state machine of the spec (decided in pure
//! code), transaction and event records, and the ports (traits) that adapters implement.
//! No AWS, no network, no clock reads: everything with a side effect comes in through a port.

pub mod account;
pub mod apikey;
pub mod audit;
pub mod bank;
pub mod credentials;
pub mod daily;
pub mod decline;
pub mod error;
pub mod event;
pub mod idempotency;
pub mod ids;
pub mod metrics;
pub mod money;
pub mod payment;
pub mod ports;
pub mod secret;
pub mod sim_ledger;
/// Test doubles of the ports (feature `testkit`, for other crates' tests).
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
pub mod throttle;
pub mod time;
pub mod transaction;
pub mod webhook;

pub use account::{
    AccountConfigError, ApiKeyRecord, BinInfo, Mode, Operation, OperationSet, PosAccount,
    SIMULATOR_PROVIDER,
};
pub use bank::{BankOutcome, BankState, BankStatus, CardDetails, PointsBalance, PointsResult};
pub use decline::{DeclineCode, Lang};
pub use error::{DomainError, StoreError};
pub use event::{EventRecord, EventType};
pub use idempotency::{
    Fingerprint, IdempotencyKey, IdempotencyRecord, IdempotencyStore, ScopedKey, StoredResponse,
};
pub use ids::{
    AccountId, DeliveryId, EventId, IdError, MerchantId, PaymentId, TransactionId,
    WebhookEndpointId,
};
pub use money::{Currency, MAX_AMOUNT};
pub use payment::{
    ExternalVerdict, Payment, PaymentStatus, PendingGrace, PendingOperation, PendingState, Planned,
    Settlement, StaleAfter, StatusVerdict, NOT_FOUND_GRACE_MS,
};
pub use time::{TimeRange, Timestamp};
pub use transaction::{
    Metadata, Note, NoteError, Origin, Reason, Transaction, TransactionStatus, TransactionType,
};
