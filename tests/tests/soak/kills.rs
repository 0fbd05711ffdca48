//! How the harness kills a handler (its Lambda dies) and sees what each intent did.
//!
//! Every request runs in a task-local [`RequestCtx`]: which intent it belongs to and where
//! that intent is to be killed. Wrappers around the ports the handlers use reach a kill
//! point ([`KillingProvider`]: the bank answered; [`KillingPayments`]: a final transaction
//! was recorded; [`KillingIdempotency`]: before or after the answer is stored); there, if
//! the request's intent is to die at that point (once per intent), they signal the kill and
//! never return, and [`killable`] drops the handler's future: the client sees a time-out.
//!
//! The same context tells [`Ids`] which intent an id is made for (transaction ids are
//! `txn_<opaque>`), and [`KillingProvider`] records every money request sent to the bank,
//! so the checker can map the gateway's transactions and the bank's calls to intents.

use std::{
    collections::HashMap,
    future::Future,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, Mutex,
    },
};

use async_trait::async_trait;
use paygate_domain::{
    idempotency::{
        BeginOutcome, IdempotencyRecord, IdempotencyStore, KeyClaim, ScopedKey, StoredResponse,
    },
    payment::reversal::fallback_refund_id,
    ports::{
        BankOperation, IdGenerator, PaymentChange, PaymentReader, PaymentWriter, PosProvider,
        TestOrders,
    },
    BankOutcome, BankStatus, CardDetails, Currency, OperationSet, Payment, PaymentId, PointsResult,
    PosAccount, StoreError, Transaction, TransactionId, TransactionType,
};
use tokio::sync::oneshot;

use crate::plan::KillPoint;

tokio::task_local! {
    static REQUEST: Arc<RequestCtx>;
}

/// An intent's kill: where, and whether it has happened (an intent dies at most once).
#[derive(Debug)]
pub struct KillSwitch {
    point: Option<KillPoint>,
    fired: AtomicBool,
}

impl KillSwitch {
    pub fn new(point: Option<KillPoint>) -> Self {
        Self {
            point,
            fired: AtomicBool::new(false),
        }
    }
}

/// The request being handled.
struct RequestCtx {
    intent: Option<usize>,
    switch: Option<Arc<KillSwitch>>,
    signal: Mutex<Option<oneshot::Sender<KillPoint>>>,
    /// Bank answers and final records so far in this request (a reverse has two of each
    /// when its void is refused for the cut and it refunds).
    bank_answers: AtomicUsize,
    commits: AtomicUsize,
}

impl RequestCtx {
    /// Whether the request dies at `point` (and if so, tells [`killable`]).
    fn fire(&self, point: KillPoint) -> bool {
        let Some(switch) = &self.switch else {
            return false;
        };
        if switch.point != Some(point) || switch.fired.swap(true, Ordering::SeqCst) {
            return false;
        }
        match self.signal.lock().unwrap().take() {
            Some(tx) => tx.send(point).is_ok(),
            None => false,
        }
    }
}

/// The intent of the request running on this task, if any.
fn current_intent() -> Option<usize> {
    REQUEST.try_with(|c| c.intent).ok().flatten()
}

/// A kill point: never returns if the running request dies here.
async fn kill_point(point: KillPoint) {
    if REQUEST.try_with(|c| c.fire(point)).unwrap_or(false) {
        std::future::pending::<()>().await;
    }
}

/// The kill point after a bank answer or a final record: `first`, or `later` from the
/// request's second on (a reverse's fall-back refund).
async fn counted_kill_point(commit: bool, first: KillPoint, later: KillPoint) {
    let seen = REQUEST
        .try_with(|c| {
            let n = if commit { &c.commits } else { &c.bank_answers };
            n.fetch_add(1, Ordering::SeqCst)
        })
        .unwrap_or(0);
    kill_point(if seen == 0 { first } else { later }).await;
}

/// Runs `handler` as `intent`'s request: its answer, or the point where it was killed (its
/// future dropped there).
pub async fn killable<F: Future>(
    intent: Option<usize>,
    switch: Option<Arc<KillSwitch>>,
    handler: F,
) -> Result<F::Output, KillPoint> {
    let (tx, rx) = oneshot::channel();
    let ctx = Arc::new(RequestCtx {
        intent,
        switch,
        signal: Mutex::new(Some(tx)),
        bank_answers: AtomicUsize::new(0),
        commits: AtomicUsize::new(0),
    });
    let run = REQUEST.scope(ctx.clone(), handler);
    tokio::select! {
        out = run => Ok(out),
        Ok(point) = rx => Err(point),
    }
}

/// One money request sent to the bank (capture, cancel or refund).
#[derive(Debug, Clone)]
pub struct BankCall {
    /// The soak's phase when it was sent.
    pub phase: &'static str,
    /// The intent of the request that sent it (none: the reconciler, or a client's query
    /// before its retry).
    pub sender: Option<usize>,
    pub kind: TransactionType,
    pub transaction: TransactionId,
    pub amount: i64,
    pub outcome: String,
}

/// What the harness saw: ids made per intent, the bank's money calls, the phase.
#[derive(Default)]
pub struct Trace {
    phase: Mutex<&'static str>,
    ids: Mutex<HashMap<String, usize>>,
    calls: Mutex<Vec<BankCall>>,
    /// Per intent, what became of its key's answer: stored, released, refused, failed.
    keys: Mutex<HashMap<usize, Vec<String>>>,
}

impl Trace {
    pub fn set_phase(&self, phase: &'static str) {
        *self.phase.lock().unwrap() = phase;
    }

    /// The intent a transaction was planned by: its id was made in the intent's request, or
    /// it is a reverse's fall-back refund, whose id is derived from its void's
    /// (`fallback_refund_id`).
    pub fn intent_of(&self, txn: &TransactionId) -> Option<usize> {
        let opaque = txn.as_str().strip_prefix(TransactionId::PREFIX)?;
        let ids = self.ids.lock().unwrap();
        if let Some(i) = ids.get(opaque) {
            return Some(*i);
        }
        let void = TransactionId::parse(txn.as_str().strip_suffix('R')?).ok()?;
        let intent = ids.get(opaque.strip_suffix('R')?).copied();
        intent.filter(|_| fallback_refund_id(&void).as_ref() == Some(txn))
    }

    pub fn bank_calls(&self) -> Vec<BankCall> {
        self.calls.lock().unwrap().clone()
    }

    /// What became of `intent`'s key's answers, in order.
    pub fn key_log(&self, intent: usize) -> Vec<String> {
        self.keys
            .lock()
            .unwrap()
            .get(&intent)
            .cloned()
            .unwrap_or_default()
    }

    fn key_event(&self, what: &str, result: &Result<bool, StoreError>) {
        let Some(intent) = current_intent() else {
            return;
        };
        let event = match result {
            Ok(true) => format!("{what} done"),
            Ok(false) => format!("{what} refused"),
            Err(e) => format!("{what} failed ({e})"),
        };
        self.keys
            .lock()
            .unwrap()
            .entry(intent)
            .or_default()
            .push(event);
    }

    fn record(&self, kind: TransactionType, op: &BankOperation, outcome: &BankOutcome) {
        let outcome = match outcome {
            BankOutcome::Approved { .. } => "approved".to_owned(),
            BankOutcome::Declined { code, .. } => format!("declined {code}"),
            BankOutcome::Error { code, .. } => format!("error {code}"),
            BankOutcome::Unknown { .. } => "unknown".to_owned(),
        };
        let phase = *self.phase.lock().unwrap();
        self.calls.lock().unwrap().push(BankCall {
            phase,
            sender: current_intent(),
            kind,
            transaction: op.transaction_id.clone(),
            amount: op.amount,
            outcome,
        });
    }
}

/// Distinct ids (the soak's need not be random), each remembered with the intent it was
/// made for.
pub struct Ids {
    next: AtomicUsize,
    trace: Arc<Trace>,
}

impl Ids {
    pub fn new(trace: Arc<Trace>) -> Self {
        Self {
            next: AtomicUsize::new(0),
            trace,
        }
    }
}

impl IdGenerator for Ids {
    fn opaque(&self) -> String {
        let id = format!("s{}", self.next.fetch_add(1, Ordering::Relaxed));
        if let Some(intent) = current_intent() {
            self.trace.ids.lock().unwrap().insert(id.clone(), intent);
        }
        id
    }
}

/// The bank, with a kill point once it has answered a money request.
pub struct KillingProvider {
    pub inner: Arc<dyn PosProvider>,
    pub trace: Arc<Trace>,
}

impl KillingProvider {
    async fn after(
        &self,
        kind: TransactionType,
        op: &BankOperation,
        out: BankOutcome,
    ) -> BankOutcome {
        self.trace.record(kind, op, &out);
        counted_kill_point(false, KillPoint::AfterBank, KillPoint::AfterFallbackBank).await;
        out
    }
}

#[async_trait]
impl PosProvider for KillingProvider {
    fn code(&self) -> &'static str {
        self.inner.code()
    }
    fn supported(&self) -> OperationSet {
        self.inner.supported()
    }
    async fn capture(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let out = self.inner.capture(account, op).await;
        self.after(TransactionType::Capture, op, out).await
    }
    async fn cancel(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let out = self.inner.cancel(account, op).await;
        self.after(TransactionType::Cancel, op, out).await
    }
    async fn refund(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let out = self.inner.refund(account, op).await;
        self.after(TransactionType::Refund, op, out).await
    }
    async fn query(&self, account: &PosAccount, order_id: &str) -> BankStatus {
        self.inner.query(account, order_id).await
    }
    async fn points_inquiry(
        &self,
        account: &PosAccount,
        card: &CardDetails,
        currency: Currency,
    ) -> PointsResult {
        self.inner.points_inquiry(account, card, currency).await
    }
    fn test_orders(&self) -> Option<&dyn TestOrders> {
        self.inner.test_orders()
    }
}

/// The payments table, with a kill point once a write recording a final transaction (the
/// bank's answer, or a settlement) has applied.
pub struct KillingPayments<P> {
    pub inner: Arc<P>,
}

#[async_trait]
impl<P: PaymentReader> PaymentReader for KillingPayments<P> {
    async fn get_payment(&self, id: &PaymentId) -> Result<Option<Payment>, StoreError> {
        self.inner.get_payment(id).await
    }
    async fn list_transactions(&self, id: &PaymentId) -> Result<Vec<Transaction>, StoreError> {
        self.inner.list_transactions(id).await
    }
    async fn get_transaction(
        &self,
        payment: &PaymentId,
        id: &TransactionId,
    ) -> Result<Option<Transaction>, StoreError> {
        self.inner.get_transaction(payment, id).await
    }
}

#[async_trait]
impl<P: PaymentWriter> PaymentWriter for KillingPayments<P> {
    async fn save(&self, change: PaymentChange) -> Result<(), StoreError> {
        let records_answer = change
            .transaction
            .as_ref()
            .is_some_and(|t| t.status.is_final());
        let result = self.inner.save(change).await;
        if result.is_ok() && records_answer {
            counted_kill_point(true, KillPoint::AfterCommit, KillPoint::AfterFallbackCommit).await;
        }
        result
    }
    async fn save_bound(&self, change: PaymentChange, claim: &KeyClaim) -> Result<(), StoreError> {
        self.inner.save_bound(change, claim).await
    }
}

/// The idempotency records, with kill points just before and just after an answer is
/// stored (by the request that holds the key, or from the transaction it is bound to).
pub struct KillingIdempotency {
    pub inner: Arc<dyn IdempotencyStore>,
    pub trace: Arc<Trace>,
}

#[async_trait]
impl IdempotencyStore for KillingIdempotency {
    async fn begin(
        &self,
        lock: &IdempotencyRecord,
        now: paygate_domain::Timestamp,
    ) -> Result<BeginOutcome, StoreError> {
        self.inner.begin(lock, now).await
    }
    async fn get(&self, key: &ScopedKey) -> Result<Option<IdempotencyRecord>, StoreError> {
        self.inner.get(key).await
    }
    async fn complete(
        &self,
        key: &ScopedKey,
        owner: &str,
        response: &StoredResponse,
    ) -> Result<bool, StoreError> {
        kill_point(KillPoint::BeforeComplete).await;
        let stored = self.inner.complete(key, owner, response).await;
        self.trace.key_event("complete", &stored);
        kill_point(KillPoint::AfterComplete).await;
        stored
    }
    async fn release(&self, key: &ScopedKey, owner: &str) -> Result<bool, StoreError> {
        let released = self.inner.release(key, owner).await;
        self.trace.key_event("release", &released);
        released
    }
    async fn complete_bound(
        &self,
        key: &ScopedKey,
        transaction: &TransactionId,
        response: &StoredResponse,
    ) -> Result<bool, StoreError> {
        kill_point(KillPoint::BeforeComplete).await;
        let stored = self.inner.complete_bound(key, transaction, response).await;
        self.trace.key_event("complete_bound", &stored);
        kill_point(KillPoint::AfterComplete).await;
        stored
    }
}
