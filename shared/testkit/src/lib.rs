//! Test doubles for the domain ports: a manual clock, sequential ids and in-memory stores
//! with the same conditional-write semantics as the DynamoDB adapters.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    collections::{BTreeMap, HashMap},
    sync::{
        atomic::{AtomicI64, AtomicU64, Ordering},
        Mutex,
    },
};

use async_trait::async_trait;
use paygate_domain::{
    ports::{
        AccountLookup, ApiKeyLookup, BinLookup, Clock, Expectation, IdGenerator, PaymentChange,
        PaymentReader, PaymentWriter,
    },
    AccountId, ApiKeyRecord, BinInfo, EventRecord, MerchantId, Payment, PaymentId, PosAccount,
    StoreError, Timestamp, Transaction, TransactionId,
};

/// A clock that only moves when told to.
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn at(t: Timestamp) -> Self {
        Self(AtomicI64::new(t.unix_millis()))
    }

    pub fn advance_millis(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }

    pub fn set(&self, t: Timestamp) {
        self.0.store(t.unix_millis(), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(self.0.load(Ordering::SeqCst))
    }
}

/// 2026-11-21T09:00:00Z, a Saturday morning in Istanbul.
pub const T0: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000);

/// Ids `…t1`, `…t2`, … in order.
#[derive(Default)]
pub struct SeqIds(AtomicU64);

impl IdGenerator for SeqIds {
    fn opaque(&self) -> String {
        format!("t{}", self.0.fetch_add(1, Ordering::SeqCst) + 1)
    }
}

/// Payments, transactions and outbox events in memory, written all-or-nothing under the
/// same conditions the DynamoDB adapter uses.
#[derive(Default)]
pub struct MemoryPayments {
    inner: Mutex<State>,
    /// Fault injection: `Some(n)` lets `n` more saves through, then fails one.
    fail_after: Mutex<Option<usize>>,
    /// Events marked as handed to the queue.
    sent: Mutex<std::collections::HashSet<EventId>>,
}

#[derive(Default)]
struct State {
    payments: HashMap<PaymentId, Payment>,
    transactions: BTreeMap<(PaymentId, TransactionId), Transaction>,
    events: Vec<EventRecord>,
}

impl MemoryPayments {
    pub fn insert(&self, p: Payment) {
        self.inner.lock().unwrap().payments.insert(p.id.clone(), p);
    }

    pub fn payment(&self, id: &PaymentId) -> Option<Payment> {
        self.inner.lock().unwrap().payments.get(id).cloned()
    }

    pub fn events(&self) -> Vec<EventRecord> {
        self.inner.lock().unwrap().events.clone()
    }

    pub fn transactions(&self) -> Vec<Transaction> {
        self.inner
            .lock()
            .unwrap()
            .transactions
            .values()
            .cloned()
            .collect()
    }

    /// Lets `n` saves through, then fails the next one with `Unavailable`.
    pub fn fail_save_after(&self, n: usize) {
        *self.fail_after.lock().unwrap() = Some(n);
    }
}

#[async_trait]
impl PaymentReader for MemoryPayments {
    async fn get_payment(&self, id: &PaymentId) -> Result<Option<Payment>, StoreError> {
        Ok(self.payment(id))
    }

    async fn list_transactions(&self, id: &PaymentId) -> Result<Vec<Transaction>, StoreError> {
        let s = self.inner.lock().unwrap();
        let mut v: Vec<_> = s
            .transactions
            .iter()
            .filter(|((p, _), _)| p == id)
            .map(|(_, t)| t.clone())
            .collect();
        v.sort_by_key(|t| t.created_at);
        Ok(v)
    }

    async fn get_transaction(
        &self,
        payment: &PaymentId,
        id: &TransactionId,
    ) -> Result<Option<Transaction>, StoreError> {
        let s = self.inner.lock().unwrap();
        Ok(s.transactions.get(&(payment.clone(), id.clone())).cloned())
    }
}

#[async_trait]
impl PaymentWriter for MemoryPayments {
    async fn save(&self, change: PaymentChange) -> Result<(), StoreError> {
        {
            let mut fail = self.fail_after.lock().unwrap();
            match *fail {
                Some(0) => {
                    *fail = None;
                    return Err(StoreError::Unavailable("injected".into()));
                }
                Some(n) => *fail = Some(n - 1),
                None => {}
            }
        }
        let mut s = self.inner.lock().unwrap();
        let current = s.payments.get(&change.payment.id).cloned();
        match (&change.expect, &current) {
            (Expectation::Absent, Some(_)) => return Err(StoreError::AlreadyExists),
            (Expectation::Absent, None) => {}
            (Expectation::Version { .. }, None) => {
                return Err(StoreError::Conflict { current: None })
            }
            (
                Expectation::Version {
                    version,
                    status,
                    no_pending,
                    min_refundable,
                },
                Some(cur),
            ) => {
                let ok = cur.version == *version
                    && cur.status == *status
                    && (!no_pending || cur.pending.is_none())
                    && min_refundable.is_none_or(|m| cur.refundable() >= m);
                if !ok {
                    return Err(StoreError::Conflict {
                        current: Some(Box::new(cur.clone())),
                    });
                }
            }
        }
        if let Some(ev) = &change.event {
            if s.events.iter().any(|e| e.id == ev.id) {
                return Err(StoreError::Conflict {
                    current: current.map(Box::new),
                });
            }
        }
        if let Some(t) = change.transaction {
            s.transactions
                .insert((t.payment_id.clone(), t.id.clone()), t);
        }
        if let Some(ev) = change.event {
            s.events.push(ev);
        }
        s.payments.insert(change.payment.id.clone(), change.payment);
        Ok(())
    }
}

/// API keys by hash.
#[derive(Default)]
pub struct MemoryKeys(Mutex<HashMap<String, ApiKeyRecord>>);

impl MemoryKeys {
    pub fn insert(&self, hash: &str, rec: ApiKeyRecord) {
        self.0.lock().unwrap().insert(hash.to_owned(), rec);
    }
}

#[async_trait]
impl ApiKeyLookup for MemoryKeys {
    async fn find_key(&self, hash: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        Ok(self.0.lock().unwrap().get(hash).cloned())
    }
}

/// POS accounts.
#[derive(Default)]
pub struct MemoryAccounts(Mutex<Vec<PosAccount>>);

impl MemoryAccounts {
    pub fn insert(&self, a: PosAccount) {
        self.0.lock().unwrap().push(a);
    }
}

#[async_trait]
impl AccountLookup for MemoryAccounts {
    async fn get_account(
        &self,
        merchant: &MerchantId,
        id: &AccountId,
    ) -> Result<Option<PosAccount>, StoreError> {
        Ok(self
            .0
            .lock()
            .unwrap()
            .iter()
            .find(|a| &a.merchant_id == merchant && &a.id == id)
            .cloned())
    }

    async fn list_accounts(&self, merchant: &MerchantId) -> Result<Vec<PosAccount>, StoreError> {
        let mut v: Vec<_> = self
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|a| &a.merchant_id == merchant)
            .cloned()
            .collect();
        v.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(v)
    }
}

/// The BIN table.
#[derive(Default)]
pub struct MemoryBins(Mutex<HashMap<String, BinInfo>>);

impl MemoryBins {
    pub fn insert(&self, b: BinInfo) {
        self.0.lock().unwrap().insert(b.bin.clone(), b);
    }
}

#[async_trait]
impl BinLookup for MemoryBins {
    async fn find_bin(&self, bin: &str) -> Result<Option<BinInfo>, StoreError> {
        Ok(self.0.lock().unwrap().get(bin).cloned())
    }
}

// ---------------------------------------------------------------------------------------
// Webhook doubles
// ---------------------------------------------------------------------------------------

use paygate_domain::{
    ports::{
        DeliveryMessage, DeliveryQueue, DeliveryStore, EndpointReader, EventPublisher, Outbox,
        SendOutcome, SigningSecrets, WebhookSender,
    },
    webhook::{Attempt, Delivery, DeliveryStatus, WebhookEndpoint},
    DeliveryId, EventId, WebhookEndpointId,
};

#[async_trait]
impl Outbox for MemoryPayments {
    async fn get_event(&self, id: &EventId) -> Result<Option<EventRecord>, StoreError> {
        Ok(self.events().into_iter().find(|e| &e.id == id))
    }

    async fn list_unsent(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<Vec<EventRecord>, StoreError> {
        let sent = self.sent.lock().unwrap().clone();
        Ok(self
            .events()
            .into_iter()
            .filter(|e| e.created_at <= before && !sent.contains(&e.id))
            .take(limit)
            .collect())
    }

    async fn mark_sent(&self, id: &EventId) -> Result<bool, StoreError> {
        Ok(self.sent.lock().unwrap().insert(id.clone()))
    }
}

impl MemoryPayments {
    /// Events not yet marked sent.
    pub fn unsent(&self) -> Vec<EventId> {
        let sent = self.sent.lock().unwrap().clone();
        self.events()
            .into_iter()
            .map(|e| e.id)
            .filter(|id| !sent.contains(id))
            .collect()
    }
}

/// Records published events; can be told to fail.
#[derive(Default)]
pub struct MemoryPublisher {
    pub published: Mutex<Vec<EventRecord>>,
    failing: std::sync::atomic::AtomicBool,
}

impl MemoryPublisher {
    pub fn set_failing(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    pub fn ids(&self) -> Vec<EventId> {
        self.published
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.id.clone())
            .collect()
    }
}

#[async_trait]
impl EventPublisher for MemoryPublisher {
    async fn publish(&self, event: &EventRecord) -> Result<(), StoreError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable("injected publish failure".into()));
        }
        self.published.lock().unwrap().push(event.clone());
        Ok(())
    }
}

/// Webhook endpoints.
#[derive(Default)]
pub struct MemoryEndpoints(pub Mutex<Vec<WebhookEndpoint>>);

impl MemoryEndpoints {
    pub fn insert(&self, e: WebhookEndpoint) {
        self.0.lock().unwrap().push(e);
    }
}

#[async_trait]
impl EndpointReader for MemoryEndpoints {
    async fn list_endpoints(
        &self,
        merchant: &MerchantId,
    ) -> Result<Vec<WebhookEndpoint>, StoreError> {
        Ok(self
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|e| &e.merchant_id == merchant)
            .cloned()
            .collect())
    }

    async fn get_endpoint(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        Ok(self
            .0
            .lock()
            .unwrap()
            .iter()
            .find(|e| &e.merchant_id == merchant && &e.id == id)
            .cloned())
    }
}

/// Deliveries, attempts and leases with the adapter's conditions.
#[derive(Default)]
pub struct MemoryDeliveries {
    inner: Mutex<DeliveryState>,
}

#[derive(Default)]
struct DeliveryState {
    deliveries: HashMap<DeliveryId, (Delivery, Option<Timestamp>)>,
    attempts: BTreeMap<(DeliveryId, u32), Attempt>,
}

impl MemoryDeliveries {
    pub fn all(&self) -> Vec<Delivery> {
        self.inner
            .lock()
            .unwrap()
            .deliveries
            .values()
            .map(|(d, _)| d.clone())
            .collect()
    }

    pub fn attempts(&self) -> Vec<Attempt> {
        self.inner
            .lock()
            .unwrap()
            .attempts
            .values()
            .cloned()
            .collect()
    }
}

#[async_trait]
impl DeliveryStore for MemoryDeliveries {
    async fn create_delivery(&self, delivery: &Delivery) -> Result<bool, StoreError> {
        let mut s = self.inner.lock().unwrap();
        if s.deliveries.contains_key(&delivery.id) {
            return Ok(false);
        }
        s.deliveries
            .insert(delivery.id.clone(), (delivery.clone(), None));
        Ok(true)
    }

    async fn get_delivery(&self, id: &DeliveryId) -> Result<Option<Delivery>, StoreError> {
        Ok(self
            .inner
            .lock()
            .unwrap()
            .deliveries
            .get(id)
            .map(|(d, _)| d.clone()))
    }

    async fn claim_attempt(
        &self,
        id: &DeliveryId,
        number: u32,
        lease_until: Timestamp,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let mut s = self.inner.lock().unwrap();
        let Some((d, lease)) = s.deliveries.get_mut(id) else {
            return Ok(false);
        };
        let free = lease.is_none_or(|l| l < now);
        if d.status != DeliveryStatus::Pending || d.attempts_made + 1 != number || !free {
            return Ok(false);
        }
        *lease = Some(lease_until);
        Ok(true)
    }

    async fn record_attempt(
        &self,
        attempt: &Attempt,
        after: &Delivery,
    ) -> Result<bool, StoreError> {
        let mut s = self.inner.lock().unwrap();
        let key = (attempt.delivery_id.clone(), attempt.number);
        let ok = s
            .deliveries
            .get(&attempt.delivery_id)
            .is_some_and(|(d, _)| d.attempts_made + 1 == attempt.number)
            && !s.attempts.contains_key(&key);
        if !ok {
            return Ok(false);
        }
        s.attempts.insert(key, attempt.clone());
        s.deliveries.insert(after.id.clone(), (after.clone(), None));
        Ok(true)
    }

    async fn list_attempts(&self, id: &DeliveryId) -> Result<Vec<Attempt>, StoreError> {
        Ok(self
            .inner
            .lock()
            .unwrap()
            .attempts
            .iter()
            .filter(|((d, _), _)| d == id)
            .map(|(_, a)| a.clone())
            .collect())
    }

    async fn list_overdue(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<Vec<Delivery>, StoreError> {
        Ok(self
            .inner
            .lock()
            .unwrap()
            .deliveries
            .values()
            .map(|(d, _)| d)
            .filter(|d| {
                d.status == DeliveryStatus::Pending
                    && d.next_attempt_at.is_some_and(|t| t <= before)
            })
            .take(limit)
            .cloned()
            .collect())
    }
}

/// A queue that records what was enqueued, with its delay.
#[derive(Default)]
pub struct MemoryQueue(pub Mutex<Vec<(DeliveryMessage, i64)>>);

impl MemoryQueue {
    /// Takes everything enqueued so far.
    pub fn drain(&self) -> Vec<(DeliveryMessage, i64)> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

#[async_trait]
impl DeliveryQueue for MemoryQueue {
    async fn enqueue(&self, msg: &DeliveryMessage, delay_secs: i64) -> Result<(), StoreError> {
        self.0.lock().unwrap().push((msg.clone(), delay_secs));
        Ok(())
    }
}

/// Fixed signing secrets per secret id.
#[derive(Default)]
pub struct StaticSecrets(pub Mutex<HashMap<String, Vec<String>>>);

impl StaticSecrets {
    pub fn set(&self, id: &str, secrets: &[&str]) {
        self.0.lock().unwrap().insert(
            id.to_owned(),
            secrets.iter().map(|s| (*s).to_owned()).collect(),
        );
    }
}

#[async_trait]
impl SigningSecrets for StaticSecrets {
    async fn signing_secrets(&self, id: &str, _now: Timestamp) -> Result<Vec<String>, StoreError> {
        self.0
            .lock()
            .unwrap()
            .get(id)
            .cloned()
            .ok_or_else(|| StoreError::Unavailable("no such secret".into()))
    }
}

/// One request a [`ScriptedSender`] saw: URL, headers, body.
pub type SentRequest = (String, Vec<(String, String)>, Vec<u8>);

/// A sender that answers from a script (default 200) and records every request.
#[derive(Default)]
pub struct ScriptedSender {
    pub script: Mutex<std::collections::VecDeque<SendOutcome>>,
    pub requests: Mutex<Vec<SentRequest>>,
}

impl ScriptedSender {
    pub fn push_status(&self, code: u16) {
        self.script.lock().unwrap().push_back(SendOutcome {
            status_code: Some(code),
            error: None,
            response_body: format!("status {code}"),
            duration_ms: 3,
        });
    }
}

#[async_trait]
impl WebhookSender for ScriptedSender {
    async fn send(&self, url: &str, headers: &[(String, String)], body: Vec<u8>) -> SendOutcome {
        self.requests
            .lock()
            .unwrap()
            .push((url.to_owned(), headers.to_vec(), body));
        self.script
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(SendOutcome {
                status_code: Some(200),
                error: None,
                response_body: "ok".into(),
                duration_ms: 1,
            })
    }
}

// ---------------------------------------------------------------------------------------
// Admin (dashboard) doubles
// ---------------------------------------------------------------------------------------

use paygate_domain::ports::{DeliveryAdmin, EndpointAdmin, MerchantDirectory, OutboxWriter, Page};

/// A merchant exists when it has a POS account, as with the DynamoDB adapter.
#[async_trait]
impl MerchantDirectory for MemoryAccounts {
    async fn merchant_exists(&self, merchant: &MerchantId) -> Result<bool, StoreError> {
        Ok(self
            .0
            .lock()
            .unwrap()
            .iter()
            .any(|a| &a.merchant_id == merchant))
    }
}

#[async_trait]
impl EndpointAdmin for MemoryEndpoints {
    async fn create_endpoint(&self, endpoint: &WebhookEndpoint) -> Result<(), StoreError> {
        let mut v = self.0.lock().unwrap();
        if v.iter()
            .any(|e| e.merchant_id == endpoint.merchant_id && e.id == endpoint.id)
        {
            return Err(StoreError::AlreadyExists);
        }
        v.push(endpoint.clone());
        Ok(())
    }

    async fn update_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        expected_updated_at: Timestamp,
    ) -> Result<(), StoreError> {
        let mut v = self.0.lock().unwrap();
        match v.iter_mut().find(|e| {
            e.merchant_id == endpoint.merchant_id
                && e.id == endpoint.id
                && e.updated_at == expected_updated_at
        }) {
            Some(e) => {
                *e = endpoint.clone();
                Ok(())
            }
            None => Err(StoreError::Conflict { current: None }),
        }
    }

    async fn delete_endpoint(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<bool, StoreError> {
        let mut v = self.0.lock().unwrap();
        let before = v.len();
        v.retain(|e| !(&e.merchant_id == merchant && &e.id == id));
        Ok(v.len() != before)
    }
}

/// Cursors are `<endpoint id>:<offset>`; anything else is refused like the adapter does.
#[async_trait]
impl DeliveryAdmin for MemoryDeliveries {
    async fn list_by_endpoint(
        &self,
        endpoint: &WebhookEndpointId,
        status: Option<DeliveryStatus>,
        limit: usize,
        cursor: Option<String>,
    ) -> Result<Page<Delivery>, StoreError> {
        let offset = match cursor {
            None => 0,
            Some(c) => c
                .strip_prefix(&format!("{endpoint}:"))
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or_else(|| StoreError::Corrupt("invalid cursor".into()))?,
        };
        let mut all: Vec<Delivery> = self
            .all()
            .into_iter()
            .filter(|d| &d.endpoint_id == endpoint && status.is_none_or(|s| d.status == s))
            .collect();
        all.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        let items: Vec<Delivery> = all.iter().skip(offset).take(limit).cloned().collect();
        let end = offset + items.len();
        let next_cursor = (end < all.len()).then(|| format!("{endpoint}:{end}"));
        Ok(Page { items, next_cursor })
    }

    async fn list_by_event(&self, event: &EventId) -> Result<Vec<Delivery>, StoreError> {
        let mut v: Vec<Delivery> = self
            .all()
            .into_iter()
            .filter(|d| &d.event_id == event)
            .collect();
        v.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(v)
    }

    async fn reset_for_resend(
        &self,
        id: &DeliveryId,
        now: Timestamp,
    ) -> Result<Option<Delivery>, StoreError> {
        let mut s = self.inner.lock().unwrap();
        let Some((d, lease)) = s.deliveries.get_mut(id) else {
            return Ok(None);
        };
        let Some(r) = d.resent(now) else {
            return Err(StoreError::Conflict { current: None });
        };
        *d = r.clone();
        *lease = None;
        Ok(Some(r))
    }
}

/// Events written on their own go to the same list as payment events; `sent` ones are
/// marked sent at once.
#[async_trait]
impl OutboxWriter for MemoryPayments {
    async fn put_event(&self, event: &EventRecord, sent: bool) -> Result<(), StoreError> {
        let mut s = self.inner.lock().unwrap();
        if s.events.iter().any(|e| e.id == event.id) {
            return Err(StoreError::AlreadyExists);
        }
        s.events.push(event.clone());
        if sent {
            self.sent.lock().unwrap().insert(event.id.clone());
        }
        Ok(())
    }
}
