//! The bank simulator's per-order state and the port that stores it (the DynamoDB adapter
//! implements it in `paygate_aws`, the simulator in `paygate_bank_simulator` uses it).

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::{AccountId, Currency, StoreError, Timestamp};

/// The state of an order at the simulated bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SimOrderState {
    /// A pre-authorization is open.
    Preauth,
    /// A sale (or a closed pre-authorization) exists.
    Sale,
    Cancelled,
    Declined,
}

/// One operation the bank performed on the order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SimTxn {
    /// `capture`, `cancel` or `refund`.
    pub kind: String,
    pub amount: i64,
    /// The gateway's transaction id the operation was sent with.
    pub reference: String,
    pub rrn: String,
    pub at: Timestamp,
}

/// An order at the simulated bank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SimOrder {
    pub account_id: AccountId,
    pub order_id: String,
    pub currency: Currency,
    /// Held amount (pre-auth) or sold amount (sale).
    pub amount: i64,
    pub state: SimOrderState,
    pub refunded: i64,
    pub auth_code: String,
    pub rrn: String,
    /// The bank's business day (`YYYY-MM-DD`, Istanbul) the order belongs to.
    pub business_day: String,
    /// The end-of-day cut has passed for this order regardless of the date.
    pub settled: bool,
    /// Status queries of this order fail (it was registered with a trigger amount).
    #[serde(default)]
    pub query_fails: Option<String>,
    pub history: Vec<SimTxn>,
    /// Optimistic-concurrency version of the stored order (0 = not stored yet).
    pub version: u64,
}

/// Storage for simulator orders. `store` writes conditionally: the stored version must equal
/// `order.version - 1` (or the order must be absent when `order.version == 1`), otherwise
/// `StoreError::Conflict { current: None }`.
#[async_trait]
pub trait SimLedger: Send + Sync {
    async fn load(
        &self,
        account: &AccountId,
        order_id: &str,
    ) -> Result<Option<SimOrder>, StoreError>;
    async fn store(&self, order: &SimOrder) -> Result<(), StoreError>;
}
