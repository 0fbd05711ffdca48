//! paygate application layer: the merchant operations, written once over the domain ports.
//!
//! Each operation reads the payment (tenancy-checked), decides in pure domain code, reserves
//! with a conditional write, calls the bank through the `PosProvider` port and commits the
//! payment, its transaction and its outbox event together. Functions (Lambdas) and the dev
//! server call these; adapters are chosen by the caller.

pub mod auth;
pub mod bank_access;
pub mod cache;
pub mod commit;
pub mod daily;
pub mod deadline;
pub mod error;
pub mod operate;
pub mod points;
pub mod providers;
pub mod publish;
pub mod query;
pub mod reconcile;
pub mod reconciler;
pub mod reverse;

pub use auth::{authenticate, hash_api_key, AuthError, Principal};
pub use bank_access::BankAccess;
pub use daily::{reconcile_account, run_daily, DailyDeps, DailyRun, Redo};
pub use deadline::Deadline;
pub use error::OpError;
pub use operate::{
    get_payment, run_keyed_operation, run_operation, settled_answer, KeyAnswering, OperationDeps,
    OperationResult, RequestScope,
};
pub use points::{points_inquiry, PointsDeps, PointsRequest, PointsResponse};
pub use providers::Providers;
pub use publish::EventSink;
pub use query::{query_payment, query_payment_until, QueryResult};
pub use reconcile::{reconcile_payment, reconcile_payment_until, Reconciled};
pub use reconciler::{
    run_reconciler, run_reconciler_until, ReconcilerDeps, ReconcilerLimits, RunReport,
};
pub use reverse::{run_reverse, ReverseAnswering, Reversed};
