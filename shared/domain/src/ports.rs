//! Ports: the narrow, capability-scoped traits adapters implement. A function's `Deps` holds
//! only the ports it uses, and its IAM policy in `template.yaml` grants only what they need.

use async_trait::async_trait;

use crate::{
    account::{ApiKeyRecord, BinInfo, OperationSet, PosAccount},
    bank::{BankOutcome, BankStatus, CardDetails, PointsResult},
    daily::{BusinessDay, DayHistory},
    error::StoreError,
    event::EventRecord,
    ids::{MerchantId, PaymentId, TransactionId},
    money::Currency,
    payment::{Payment, PaymentStatus},
    time::TimeRange,
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

    /// [`save`](Self::save), and in the same atomic write bind `claim`'s key to the change's
    /// transaction (a keyed reservation): both are written, or neither. When the key is no
    /// longer the claim's ([`crate::idempotency::claimable`] fails): `StoreError::KeyClaimLost`.
    async fn save_bound(
        &self,
        change: PaymentChange,
        claim: &crate::idempotency::KeyClaim,
    ) -> Result<(), StoreError>;

    /// [`save`](Self::save) of an operation's commit, and in the same atomic write `answer`
    /// stored on the key bound to the change's transaction (a keyed operation's answer,
    /// with no write of its own). `Ok(true)`: both were written; `Ok(false)`: only the
    /// change (a store that cannot write both: the caller stores the answer itself, as
    /// before). When the key is not in flight and bound to `answer.transaction_id` any more:
    /// `StoreError::KeyClaimLost`, nothing written (the caller saves without the answer).
    async fn save_answered(
        &self,
        change: PaymentChange,
        answer: &crate::idempotency::KeyAnswer,
    ) -> Result<bool, StoreError> {
        let _ = answer;
        self.save(change).await.map(|()| false)
    }
}

/// Maps a hashed API key to its merchant and mode.
#[async_trait]
pub trait ApiKeyLookup: Send + Sync {
    async fn find_key(&self, key_sha256_hex: &str) -> Result<Option<ApiKeyRecord>, StoreError>;
    /// Sets the key's `lastUsedAt` to `now` unless it was set less than
    /// [`crate::apikey::TOUCH_INTERVAL_MS`] before (then nothing is written and this is
    /// `Ok`). Best effort: callers log a failure and go on.
    async fn touch_key(
        &self,
        key_sha256_hex: &str,
        now: crate::Timestamp,
    ) -> Result<(), StoreError>;
}

/// The dashboard's side of API keys: issue, list, roll, revoke. Keys are stored by the
/// SHA-256 of the key; the key itself never reaches the store.
#[async_trait]
pub trait ApiKeyAdmin: Send + Sync {
    /// Stores a new key under its hash; `StoreError::AlreadyExists` when the hash is taken.
    async fn create_key(
        &self,
        key_sha256_hex: &str,
        key: &crate::apikey::ApiKey,
    ) -> Result<(), StoreError>;
    /// A merchant's keys (revoked and expired ones included), newest first.
    async fn list_keys(
        &self,
        merchant: &MerchantId,
    ) -> Result<Vec<crate::apikey::ApiKey>, StoreError>;
    async fn get_key(
        &self,
        merchant: &MerchantId,
        id: &crate::ids::ApiKeyId,
    ) -> Result<Option<crate::apikey::ApiKey>, StoreError>;
    /// Sets the key's expiry if it is not revoked and its expiry is still `expected`;
    /// otherwise `StoreError::Conflict { current: None }` (changed meanwhile).
    async fn set_key_expiry(
        &self,
        merchant: &MerchantId,
        id: &crate::ids::ApiKeyId,
        expires_at: crate::Timestamp,
        expected: Option<crate::Timestamp>,
    ) -> Result<(), StoreError>;
    /// Revokes the key at `at` unless it is revoked already (the first revocation stands);
    /// returns it as it is now, `None` when there is no such key.
    async fn revoke_key(
        &self,
        merchant: &MerchantId,
        id: &crate::ids::ApiKeyId,
        at: crate::Timestamp,
    ) -> Result<Option<crate::apikey::ApiKey>, StoreError>;
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
    /// What this protocol can do at all (an account may enable less): everything, unless
    /// the protocol says otherwise.
    fn supported(&self) -> OperationSet {
        OperationSet::all()
    }
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

    /// Test mode only: a way to put orders at the bank so payments created by the test
    /// helper can be operated on. Simulators have one; real banks do not.
    fn test_orders(&self) -> Option<&dyn TestOrders> {
        None
    }

    /// The stable code of a money operation's `outcome` (`crate::decline`): by default
    /// from [`PosProvider::decline_codes`] alone.
    fn decline_code(&self, outcome: &BankOutcome) -> Option<crate::decline::DeclineCode> {
        crate::decline::DeclineCode::of_outcome(outcome, self.decline_codes(), |_| None)
    }

    /// The provider's own table: bank code → stable code (the family's `src/decline.rs`).
    fn decline_codes(&self) -> &'static [(&'static str, crate::decline::DeclineCode)] {
        &[]
    }

    /// Every approved capture, cancel and refund the bank booked on `day` for the account
    /// (all pages, within the bank's range limits), for the daily reconciliation
    /// (`crate::daily`). Families without a history-by-date call keep the default,
    /// [`DayHistory::Unsupported`], and are reconciled by per-payment query. A failed call or
    /// an unreadable page is [`DayHistory::Unavailable`], never an empty day.
    async fn day_history(&self, _account: &PosAccount, _day: BusinessDay) -> DayHistory {
        DayHistory::Unsupported
    }
}

/// What the bank holds for an order the test helper registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestOrderState {
    /// An approved sale.
    Approved,
    /// An open pre-authorization.
    Preauth,
    /// A declined attempt.
    Declined,
    /// No record at all.
    None,
}

impl TestOrderState {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "approved" => Some(Self::Approved),
            "preauth" => Some(Self::Preauth),
            "declined" => Some(Self::Declined),
            "none" => Some(Self::None),
            _ => None,
        }
    }
}

/// An order to put at a (simulated) bank.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestOrder {
    pub order_id: String,
    pub amount: i64,
    pub currency: Currency,
    pub state: TestOrderState,
    /// The bank's end-of-day cut has passed for the order (a cancel is then declined).
    pub settled: bool,
}

/// Registers orders at a simulated bank.
#[async_trait]
pub trait TestOrders: Send + Sync {
    async fn register(&self, account: &PosAccount, order: &TestOrder) -> Result<(), StoreError>;
}

// ---------------------------------------------------------------------------------------
// Webhooks
// ---------------------------------------------------------------------------------------

use crate::{
    ids::EventId,
    webhook::{Attempt, Delivery, DeliveryId, WebhookEndpoint, WebhookEndpointId},
    Timestamp,
};

/// What a scheduled run's work list read: the items, and those the store holds but could
/// not decode. An undecodable item is skipped (its key reported here), never allowed to
/// stop the run for every other item; the run logs and counts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing<T> {
    pub items: Vec<T>,
    pub undecodable: Vec<Undecodable>,
}

impl<T> Listing<T> {
    /// A listing in which every item decoded.
    pub fn of(items: Vec<T>) -> Self {
        Self {
            items,
            undecodable: Vec::new(),
        }
    }
}

/// An item a listing skipped: its key (an id, nothing sensitive) and why it could not be
/// read (the attribute at fault).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecodable {
    pub key: String,
    pub reason: String,
}

/// Hands committed outbox events to the events queue (the fast path; the sweeper is the
/// guarantee).
#[async_trait]
pub trait EventPublisher: Send + Sync {
    async fn publish(&self, event: &EventRecord) -> Result<(), StoreError>;
}

/// The outbox side of the events table.
#[async_trait]
pub trait Outbox: Send + Sync {
    async fn get_event(&self, id: &EventId) -> Result<Option<EventRecord>, StoreError>;
    /// Events not yet handed to the queue, oldest first, created at or before `before`
    /// (undecodable ones skipped and reported).
    async fn list_unsent(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<Listing<EventRecord>, StoreError>;
    /// Marks an event as handed to the queue; `false` if it was already marked.
    async fn mark_sent(&self, id: &EventId) -> Result<bool, StoreError>;
}

/// Webhook endpoints (read side; the dashboard writes them).
#[async_trait]
pub trait EndpointReader: Send + Sync {
    async fn list_endpoints(
        &self,
        merchant: &MerchantId,
    ) -> Result<Vec<WebhookEndpoint>, StoreError>;
    async fn get_endpoint(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;
}

/// Deliveries and their attempts.
#[async_trait]
pub trait DeliveryStore: Send + Sync {
    /// Creates the delivery unless one with its id exists; `true` when created.
    async fn create_delivery(&self, delivery: &Delivery) -> Result<bool, StoreError>;
    async fn get_delivery(&self, id: &DeliveryId) -> Result<Option<Delivery>, StoreError>;
    /// Claims attempt `number` for the caller for `lease` (taken at `lease.since`, the
    /// caller's now, and held until `lease.until`): succeeds only while the delivery is
    /// pending, has `number - 1` attempts recorded, and carries no other lease still running
    /// at `lease.since` (a lease runs up to and including its `until`). `false` when someone
    /// else has it or it is done already.
    async fn claim_attempt(
        &self,
        id: &DeliveryId,
        number: u32,
        lease: TimeRange,
    ) -> Result<bool, StoreError>;
    /// Writes the attempt (unless attempt `attempt.number` exists already) and the delivery
    /// as it is after it, atomically, on condition that `attempt.number - 1` attempts were
    /// recorded before. `false` when that condition failed (nothing written).
    async fn record_attempt(&self, attempt: &Attempt, after: &Delivery)
        -> Result<bool, StoreError>;
    async fn list_attempts(&self, id: &DeliveryId) -> Result<Vec<Attempt>, StoreError>;
    /// Pending deliveries whose next attempt was due at or before `before` (the sweeper
    /// re-enqueues them if their queue message was lost; undecodable ones are skipped and
    /// reported).
    async fn list_overdue(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<Listing<Delivery>, StoreError>;
}

/// A queued instruction: make attempt `attempt` of `delivery_id` once `due_at` has come.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryMessage {
    pub delivery_id: DeliveryId,
    pub attempt: u32,
    pub due_at: Timestamp,
}

/// The deliveries queue.
#[async_trait]
pub trait DeliveryQueue: Send + Sync {
    /// Enqueues `msg`, visible after `delay_secs` (0..=900).
    async fn enqueue(&self, msg: &DeliveryMessage, delay_secs: i64) -> Result<(), StoreError>;
}

/// An endpoint's signing secrets: the current one first, then any still inside their
/// rotation grace period. Values are never logged.
///
/// `version` is the endpoint's `secret_version`: a cached copy of an older version is never
/// used (read the secret again), so a rotation reaches the very next delivery.
#[async_trait]
pub trait SigningSecrets: Send + Sync {
    async fn signing_secrets(
        &self,
        secret_id: &str,
        version: u64,
        now: Timestamp,
    ) -> Result<Vec<String>, StoreError>;
}

/// What came back from one HTTP attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendOutcome {
    pub status_code: Option<u16>,
    pub error: Option<crate::webhook::AttemptError>,
    /// The start of the response body (capped by the sender).
    pub response_body: String,
    pub duration_ms: u64,
}

/// Posts a signed webhook (HTTPS only, private networks refused, 10 s for everything, no
/// redirects, response body capped).
#[async_trait]
pub trait WebhookSender: Send + Sync {
    async fn send(&self, url: &str, headers: &[(String, String)], body: Vec<u8>) -> SendOutcome;
}

// ---------------------------------------------------------------------------------------
// The dashboard's admin API
// ---------------------------------------------------------------------------------------

use crate::webhook::{DeliveryStatus, EndpointHealth};

/// Which merchants exist (the admin API answers 404 for any other).
#[async_trait]
pub trait MerchantDirectory: Send + Sync {
    async fn merchant_exists(&self, merchant: &MerchantId) -> Result<bool, StoreError>;
}

/// The dashboard's writes on webhook endpoints (the reads are [`EndpointReader`]'s).
#[async_trait]
pub trait EndpointAdmin: EndpointReader {
    /// Stores a new endpoint; `StoreError::AlreadyExists` when its id is taken.
    async fn create_endpoint(&self, endpoint: &WebhookEndpoint) -> Result<(), StoreError>;
    /// Replaces the endpoint if it still exists with `updatedAt == expected_updated_at`
    /// (optimistic locking); otherwise `StoreError::Conflict { current: None }`.
    async fn update_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        expected_updated_at: Timestamp,
    ) -> Result<(), StoreError>;
    /// Deletes the endpoint; `true` if it existed. Its deliveries stay (history).
    async fn delete_endpoint(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<bool, StoreError>;
}

/// Endpoint health counters, kept on the endpoint (see `crate::webhook::health`).
#[async_trait]
pub trait EndpointHealthStore: Send + Sync {
    /// The endpoint and its health; `None` when there is no such endpoint.
    async fn get_health(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<(WebhookEndpoint, EndpointHealth)>, StoreError>;
    /// Every endpoint of a merchant with its health, ordered by endpoint id.
    async fn list_health(
        &self,
        merchant: &MerchantId,
    ) -> Result<Vec<(WebhookEndpoint, EndpointHealth)>, StoreError>;
    /// Writes `health` if the endpoint exists and its stored health is still at version
    /// `health.version - 1`. With `disable_at`, the same write disables the endpoint
    /// (`enabled` false, reason `failing`, `updatedAt` = that time), on condition that it is
    /// enabled. `false` when a condition failed (nothing written): read again and decide
    /// again.
    async fn put_health(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
        health: &EndpointHealth,
        disable_at: Option<Timestamp>,
    ) -> Result<bool, StoreError>;
}

/// One page of a listing and the opaque cursor of the next page (`None`: nothing after it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

/// Which page of an endpoint's delivery history to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryQuery {
    /// Only deliveries in this status (`None`: every status).
    pub status: Option<DeliveryStatus>,
    /// At most this many deliveries on the page.
    pub limit: usize,
    /// The previous page's `next_cursor` (opaque); `None` for the first page.
    pub cursor: Option<String>,
}

/// The dashboard's queries on deliveries, and the resend.
#[async_trait]
pub trait DeliveryAdmin: DeliveryStore {
    /// A page of an endpoint's deliveries, newest first, optionally only those with
    /// `query.status`; at most `query.limit` of them. A cursor not handed out for this
    /// endpoint is `StoreError::Corrupt("invalid cursor")`.
    async fn list_by_endpoint(
        &self,
        endpoint: &WebhookEndpointId,
        query: DeliveryQuery,
    ) -> Result<Page<Delivery>, StoreError>;
    /// Every delivery of an event, oldest first.
    async fn list_by_event(&self, event: &EventId) -> Result<Vec<Delivery>, StoreError>;
    /// Puts a final delivery back to pending for a resend at `now` (see
    /// [`Delivery::resent`]); returns it as it is now. `Ok(None)`: no such delivery;
    /// `StoreError::Conflict { current: None }`: it is pending already.
    async fn reset_for_resend(
        &self,
        id: &DeliveryId,
        now: Timestamp,
    ) -> Result<Option<Delivery>, StoreError>;
    /// An endpoint's `failed` deliveries created in `range`, oldest first (by `createdAt`,
    /// then id), at most `limit`; `true` beside them when more may follow.
    async fn list_failed(
        &self,
        endpoint: &WebhookEndpointId,
        range: TimeRange,
        limit: usize,
    ) -> Result<(Vec<Delivery>, bool), StoreError>;
    /// How many of the endpoint's deliveries are pending (first attempt or retrying).
    async fn count_pending(&self, endpoint: &WebhookEndpointId) -> Result<u64, StoreError>;
}

/// Writes events to the outbox outside a payment change (the dashboard's test event).
#[async_trait]
pub trait OutboxWriter: Send + Sync {
    /// Stores a new event (its id must be new: `StoreError::AlreadyExists` otherwise). With
    /// `sent`, it is stored as already handed to the queue, so neither the sweeper nor the
    /// fan-out ever sends it to other endpoints.
    async fn put_event(&self, event: &EventRecord, sent: bool) -> Result<(), StoreError>;
}

// ---------------------------------------------------------------------------------------
// The reconciler
// ---------------------------------------------------------------------------------------

/// A payment the reconciler has to settle, with the tries made so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuePayment {
    pub payment: Payment,
    /// Reconciler tries that did not settle it, since it last changed.
    pub tries: u32,
}

/// The payments that need settling from the bank's records: operations with an unknown
/// outcome, stale reservations, `pending` payments.
#[async_trait]
pub trait UnsettledPayments: Send + Sync {
    /// Those due for a try at `now` (see [`Payment::reconcile_due`] and
    /// [`UnsettledPayments::defer`]), longest due first, at most `limit` (undecodable ones
    /// skipped and reported).
    async fn list_due(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Listing<DuePayment>, StoreError>;
    /// Records a try that did not settle `payment`: next due at `next_at`. Only while the
    /// payment is still at `payment.version` (`false`: it changed meanwhile, nothing
    /// written); the payment itself is not changed.
    async fn defer(
        &self,
        payment: &Payment,
        tries: u32,
        next_at: Timestamp,
    ) -> Result<bool, StoreError>;
}

// Ports whose values live in their own modules.
pub use crate::{
    credentials::CredentialStore,
    daily::{DayLedger, DayReports},
    idempotency::IdempotencyStore,
    secret::SecretVault,
    sim_ledger::SimLedger,
};
