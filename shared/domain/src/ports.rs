//! Ports: the narrow, capability-scoped traits adapters implement. A function's `Deps` holds
//! only the ports it uses, and its IAM policy in `template.yaml` grants only what they need.

use async_trait::async_trait;

use crate::{
    account::{ApiKeyRecord, BinInfo, OperationSet, PosAccount},
    bank::{BankOutcome, BankStatus, CardDetails, PointsResult},
    error::StoreError,
    event::EventRecord,
    ids::{MerchantId, PaymentId, TransactionId},
    money::Currency,
    payment::{Payment, PaymentStatus},
    transaction::Transaction,
    AccountId,
};
pub use crate::{ids::IdGenerator, time::Clock};

/// Reads payments and their transactions.
#[async_trait]
pub trait PaymentReader: Send + Sync {
    async fn get_payment(&self, id: &PaymentId) -> Result<Option<Payment>, StoreError>;
    async fn list_transactions(&self, id: &PaymentId) -> Result<Vec<Transaction>, StoreError>;
    async fn get_transaction(
        &self,
        payment: &PaymentId,
        id: &TransactionId,
    ) -> Result<Option<Transaction>, StoreError>;
}

/// What the stored payment must look like for a write to go through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expectation {
    /// The payment must not exist yet.
    Absent,
    /// The payment must still be at this version and status. With `no_pending`, no operation
    /// may be reserved on it; with `min_refundable`, its refundable amount must cover it.
    Version {
        version: u64,
        status: PaymentStatus,
        no_pending: bool,
        min_refundable: Option<i64>,
    },
}

impl Expectation {
    /// The condition for writing `next` over `read`.
    pub fn over(read: &Payment) -> Self {
        Self::Version {
            version: read.version,
            status: read.status,
            no_pending: false,
            min_refundable: None,
        }
    }
}

/// One atomic change: the payment, and with it the transaction and the outbox event.
#[derive(Debug, Clone)]
pub struct PaymentChange {
    pub payment: Payment,
    pub expect: Expectation,
    pub transaction: Option<Transaction>,
    pub event: Option<EventRecord>,
}

/// Writes payments, all-or-nothing with their transaction and outbox event.
#[async_trait]
pub trait PaymentWriter: Send + Sync {
    /// Writes the change atomically if `expect` holds; otherwise `StoreError::Conflict` with
    /// the payment as it is now.
    async fn save(&self, change: PaymentChange) -> Result<(), StoreError>;
}

/// Maps a hashed API key to its merchant and mode.
#[async_trait]
pub trait ApiKeyLookup: Send + Sync {
    async fn find_key(&self, key_sha256_hex: &str) -> Result<Option<ApiKeyRecord>, StoreError>;
}

/// A merchant's POS accounts.
#[async_trait]
pub trait AccountLookup: Send + Sync {
    async fn get_account(
        &self,
        merchant: &MerchantId,
        id: &AccountId,
    ) -> Result<Option<PosAccount>, StoreError>;
    async fn list_accounts(&self, merchant: &MerchantId) -> Result<Vec<PosAccount>, StoreError>;
}

/// The BIN → issuing bank table.
#[async_trait]
pub trait BinLookup: Send + Sync {
    async fn find_bin(&self, bin: &str) -> Result<Option<BinInfo>, StoreError>;
}

/// A money-moving request as the bank sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankOperation {
    pub order_id: String,
    pub transaction_id: TransactionId,
    pub amount: i64,
    pub currency: Currency,
    /// Whether the operation covers the whole order (full capture/refund, any cancel).
    pub full: bool,
}

/// A bank or payment provider, speaking its protocol. One implementation per protocol.
#[async_trait]
pub trait PosProvider: Send + Sync {
    /// The provider code accounts refer to (`PosAccount::provider_code`).
    fn code(&self) -> &'static str;
    /// What this protocol can do at all (an account may enable less).
    fn supported(&self) -> OperationSet;
    async fn capture(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome;
    async fn cancel(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome;
    async fn refund(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome;
    async fn query(&self, account: &PosAccount, order_id: &str) -> BankStatus;
    async fn points_inquiry(
        &self,
        account: &PosAccount,
        card: &CardDetails,
        currency: Currency,
    ) -> PointsResult;
}
