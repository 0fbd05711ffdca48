//! [`MemoryPayments`]: payments, transactions and the outbox of their events.

use std::{
    collections::{BTreeMap, HashMap, HashSet, VecDeque},
    sync::{Arc, Mutex},
};

use crate::{
    idempotency::{KeyAnswer, KeyClaim},
    ports::{
        DuePayment, Expectation, Listing, Outbox, OutboxWriter, PaymentChange, PaymentReader,
        PaymentWriter, UnsettledPayments,
    },
    testkit::MemoryIdempotency,
    EventId, EventRecord, Payment, PaymentId, StaleAfter, StoreError, Timestamp, Transaction,
    TransactionId,
};
use async_trait::async_trait;

/// Payments, transactions and outbox events in memory, written all-or-nothing under the
/// same conditions the DynamoDB adapter uses.
#[derive(Default)]
pub struct MemoryPayments {
    inner: Mutex<State>,
    /// Fault injection: `Some(n)` lets `n` more saves through, then fails one.
    fail_after: Mutex<Option<usize>>,
    /// Events marked as handed to the queue.
    sent: Mutex<HashSet<EventId>>,
    /// Fault injection: one entry per coming save, in order (`None`: let it through).
    script: Mutex<VecDeque<Option<SaveFault>>>,
    /// Fault injection: whether every save answers `Unavailable` (nothing written).
    down: Mutex<bool>,
    /// How many saves were attempted, faulted or not.
    saves: Mutex<usize>,
    /// The reconciler's deferrals: payment → (version, tries, next due).
    deferred: Mutex<HashMap<PaymentId, (u64, u32, Timestamp)>>,
    /// When an operation in flight is due for the reconciler (as the DynamoDB adapter's
    /// `reconcileAt`).
    stale: StaleAfter,
    /// The idempotency records a keyed reservation binds its key in (as the DynamoDB
    /// adapter's transaction includes the idempotency item).
    idempotency: Mutex<Option<Arc<MemoryIdempotency>>>,
}

/// A fault a save can meet, as DynamoDB produces them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveFault {
    /// The write is applied but its answer is lost (a time-out after the commit).
    LostAnswer,
    /// A 500 before anything is applied.
    ServerError,
    /// Cancelled by another transaction touching the same item (`TransactionConflict`);
    /// nothing applied.
    TransactionConflict,
    /// Throttled; nothing applied.
    Throttled,
}

#[derive(Default)]
struct State {
    payments: HashMap<PaymentId, Payment>,
    transactions: BTreeMap<(PaymentId, TransactionId), Transaction>,
    events: Vec<EventRecord>,
}

impl MemoryPayments {
    /// With `stale` as the stale in-flight threshold (default [`StaleAfter::DEFAULT`]).
    pub fn with_stale_after(mut self, stale: StaleAfter) -> Self {
        self.stale = stale;
        self
    }

    /// Keyed reservations (`save_bound`) bind their key in `idempotency`, atomically with
    /// the payment.
    pub fn link_idempotency(&self, idempotency: Arc<MemoryIdempotency>) {
        *self.idempotency.lock().unwrap() = Some(idempotency);
    }

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

    /// Scripts the coming saves: the i-th entry decides the i-th save from now (`None` lets
    /// it through); saves after the script are let through.
    pub fn script_saves(&self, faults: impl IntoIterator<Item = Option<SaveFault>>) {
        self.script.lock().unwrap().extend(faults);
    }

    /// While `down`, every save answers `Unavailable` and writes nothing.
    pub fn set_down(&self, down: bool) {
        *self.down.lock().unwrap() = down;
    }

    /// Saves attempted so far (faulted ones included).
    pub fn save_count(&self) -> usize {
        *self.saves.lock().unwrap()
    }

    fn apply(
        &self,
        change: PaymentChange,
        claim: Option<&KeyClaim>,
        answer: Option<&KeyAnswer>,
    ) -> Result<(), StoreError> {
        let idempotency = self.idempotency.lock().unwrap().clone();
        let mut s = self.inner.lock().unwrap();
        let current = s.payments.get(&change.payment.id).cloned();
        match (&change.expect, &current) {
            (Expectation::Absent, Some(_)) => return Err(StoreError::AlreadyExists),
            (Expectation::Absent, None) => {}
            (Expectation::Version { .. }, None) => {
                return Err(StoreError::Conflict { current: None });
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
        if let Some(claim) = claim {
            let (Some(idem), Some(t)) = (idempotency.clone(), change.transaction.as_ref()) else {
                return Err(StoreError::Unavailable(
                    "a keyed reservation needs a linked idempotency store and a transaction".into(),
                ));
            };
            if !idem.bind(claim, &change.payment.id, &t.id) {
                return Err(StoreError::KeyClaimLost);
            }
        }
        if let Some(a) = answer {
            // Checked with the payment's condition, written with it (one transaction).
            let idem = idempotency.as_ref().ok_or_else(|| {
                StoreError::Unavailable(
                    "an answered commit needs a linked idempotency store".into(),
                )
            })?;
            if !idem.answerable(a) {
                return Err(StoreError::KeyClaimLost);
            }
            idem.answer_bound(a);
        }
        if let Some(t) = change.transaction {
            s.transactions
                .insert((t.payment_id.clone(), t.id.clone()), t);
        }
        if let Some(ev) = change.event {
            s.events.push(ev);
        }
        self.deferred.lock().unwrap().remove(&change.payment.id);
        s.payments.insert(change.payment.id.clone(), change.payment);
        Ok(())
    }
}

/// The reconciler's work list, like the DynamoDB `unsettled` index: due by
/// `Payment::reconcile_due`, or by the last deferral while the payment is unchanged.
#[async_trait]
impl UnsettledPayments for MemoryPayments {
    async fn list_due(
        &self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Listing<DuePayment>, StoreError> {
        let deferred = self.deferred.lock().unwrap().clone();
        let s = self.inner.lock().unwrap();
        let mut due: Vec<(Timestamp, DuePayment)> = s
            .payments
            .values()
            .filter_map(|p| {
                let first = p.reconcile_due(self.stale)?;
                let (at, tries) = match deferred.get(&p.id) {
                    Some((v, tries, at)) if *v == p.version => (*at, *tries),
                    _ => (first, 0),
                };
                (at <= now).then(|| {
                    (
                        at,
                        DuePayment {
                            payment: p.clone(),
                            tries,
                        },
                    )
                })
            })
            .collect();
        due.sort_by(|a, b| (a.0, &a.1.payment.id).cmp(&(b.0, &b.1.payment.id)));
        due.truncate(limit);
        Ok(Listing::of(due.into_iter().map(|(_, d)| d).collect()))
    }

    async fn defer(
        &self,
        payment: &Payment,
        tries: u32,
        next_at: Timestamp,
    ) -> Result<bool, StoreError> {
        let s = self.inner.lock().unwrap();
        match s.payments.get(&payment.id) {
            Some(p) if p.version == payment.version && p.reconcile_due(self.stale).is_some() => {
                self.deferred
                    .lock()
                    .unwrap()
                    .insert(payment.id.clone(), (payment.version, tries, next_at));
                Ok(true)
            }
            _ => Ok(false),
        }
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
        self.write(change, None, None)
    }

    async fn save_bound(&self, change: PaymentChange, claim: &KeyClaim) -> Result<(), StoreError> {
        self.write(change, Some(claim), None)
    }

    /// Like the DynamoDB adapter with its idempotency table: the answer goes in the same
    /// write when an idempotency store is linked ([`Self::link_idempotency`]); without one,
    /// the change alone (`Ok(false)`).
    async fn save_answered(
        &self,
        change: PaymentChange,
        answer: &KeyAnswer,
    ) -> Result<bool, StoreError> {
        if self.idempotency.lock().unwrap().is_none() {
            return self.write(change, None, None).map(|()| false);
        }
        self.write(change, None, Some(answer)).map(|()| true)
    }
}

impl MemoryPayments {
    fn write(
        &self,
        change: PaymentChange,
        claim: Option<&KeyClaim>,
        answer: Option<&KeyAnswer>,
    ) -> Result<(), StoreError> {
        *self.saves.lock().unwrap() += 1;
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
        if *self.down.lock().unwrap() {
            return Err(StoreError::Unavailable("injected: store down".into()));
        }
        let fault = self.script.lock().unwrap().pop_front().flatten();
        match fault {
            None => self.apply(change, claim, answer),
            Some(SaveFault::LostAnswer) => {
                // Whatever the write did (applied, or refused on its condition), the caller
                // only sees a time-out.
                let _ = self.apply(change, claim, answer);
                Err(StoreError::Unavailable("injected: answer lost".into()))
            }
            Some(SaveFault::ServerError) => Err(StoreError::Unavailable(
                "injected: InternalServerError".into(),
            )),
            Some(SaveFault::TransactionConflict) => Err(StoreError::Conflict { current: None }),
            Some(SaveFault::Throttled) => Err(StoreError::Unavailable(
                "injected: ThrottlingException".into(),
            )),
        }
    }
}

#[async_trait]
impl Outbox for MemoryPayments {
    async fn get_event(&self, id: &EventId) -> Result<Option<EventRecord>, StoreError> {
        Ok(self.events().into_iter().find(|e| &e.id == id))
    }

    async fn list_unsent(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<Listing<EventRecord>, StoreError> {
        let sent = self.sent.lock().unwrap().clone();
        Ok(Listing::of(
            self.events()
                .into_iter()
                .filter(|e| e.created_at <= before && !sent.contains(&e.id))
                .take(limit)
                .collect(),
        ))
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

/// Our side of the daily reconciliation: transactions by their payment's account and the
/// business day of their creation, as the DynamoDB adapter's `byAccountDay` index.
#[async_trait]
impl crate::daily::DayLedger for MemoryPayments {
    async fn day_transactions(
        &self,
        account: &crate::AccountId,
        day: crate::daily::BusinessDay,
    ) -> Result<Listing<crate::daily::DayTransaction>, StoreError> {
        let s = self.inner.lock().unwrap();
        let items = s
            .transactions
            .values()
            .filter(|t| day.contains(t.created_at))
            .filter_map(|t| {
                let p = s.payments.get(&t.payment_id)?;
                (&p.account_id == account).then(|| crate::daily::DayTransaction {
                    order_id: p.order_id.clone(),
                    transaction: t.clone(),
                })
            })
            .collect();
        Ok(Listing::of(items))
    }
}

/// Stored daily reconciliation reports.
#[derive(Default)]
pub struct MemoryDayReports(Mutex<Vec<crate::daily::DayReport>>);

impl MemoryDayReports {
    pub fn all(&self) -> Vec<crate::daily::DayReport> {
        self.0.lock().unwrap().clone()
    }
}

#[async_trait]
impl crate::daily::DayReports for MemoryDayReports {
    async fn put_report(&self, report: &crate::daily::DayReport) -> Result<(), StoreError> {
        let mut v = self.0.lock().unwrap();
        v.retain(|r| {
            (&r.merchant_id, &r.account_id, r.date)
                != (&report.merchant_id, &report.account_id, report.date)
        });
        v.push(report.clone());
        Ok(())
    }

    async fn list_reports(
        &self,
        merchant: &crate::MerchantId,
        day: crate::daily::BusinessDay,
    ) -> Result<Vec<crate::daily::DayReport>, StoreError> {
        let mut v: Vec<_> = self
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|r| &r.merchant_id == merchant && r.date == day)
            .cloned()
            .collect();
        v.sort_by(|a, b| a.account_id.cmp(&b.account_id));
        Ok(v)
    }
}
