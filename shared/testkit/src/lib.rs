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
