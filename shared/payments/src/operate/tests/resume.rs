//! Resuming a half-done two-step cancel (the capture reversed, the authorization still held):
//! one resumer at a time, and a missing step the bank refuses leaves the cancel unknown —
//! never "captured, nothing pending", which the reversed capture at the bank contradicts.

use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use paygate_domain::{
    bank::{CardDetails, PointsResult},
    ports::BankOperation,
    BankOutcome, BankStatus, PendingOperation, Transaction, TransactionId,
};
use tokio::sync::{Mutex, Notify};

use super::*;
use crate::reconcile::reconcile_payment;

/// A bank that shows the order as a pre-authorization (the capture reversed) and answers
/// the missing reversal with `answer`, optionally holding it until `release` is notified.
struct HalfDone {
    answer: Mutex<BankOutcome>,
    cancels: AtomicUsize,
    entered: Notify,
    release: Notify,
    hold: std::sync::atomic::AtomicBool,
}

#[async_trait]
impl PosProvider for HalfDone {
    fn code(&self) -> &'static str {
        PROVIDER_CODE
    }
    async fn capture(&self, _: &PosAccount, _: &BankOperation) -> BankOutcome {
        unreachable!("no capture here")
    }
    async fn cancel(&self, _: &PosAccount, _: &BankOperation) -> BankOutcome {
        self.cancels.fetch_add(1, Ordering::SeqCst);
        if self.hold.swap(false, Ordering::SeqCst) {
            self.entered.notify_one();
            self.release.notified().await;
        }
        self.answer.lock().await.clone()
    }
    async fn refund(&self, _: &PosAccount, _: &BankOperation) -> BankOutcome {
        unreachable!("no refund here")
    }
    async fn query(&self, _: &PosAccount, _: &str) -> BankStatus {
        BankStatus {
            found: true,
            state: BankState::Preauth,
            amount: 9_000,
            refunded_amount: 0,
            code: "00".into(),
            auth_code: String::new(),
            rrn: String::new(),
        }
    }
    async fn points_inquiry(&self, _: &PosAccount, _: &CardDetails, _: Currency) -> PointsResult {
        unreachable!("no points here")
    }
}

async fn half_done_world(answer: BankOutcome) -> (World, Arc<HalfDone>, PaymentId) {
    let mut w = world();
    let bank = Arc::new(HalfDone {
        answer: Mutex::new(answer),
        cancels: AtomicUsize::new(0),
        entered: Notify::new(),
        release: Notify::new(),
        hold: false.into(),
    });
    w.deps.banks = BankAccess::new(w.accounts.clone(), Providers::new().register(bank.clone()));
    let id = PaymentId::parse("pay_half").unwrap();
    let txn = TransactionId::parse("txn_cancel").unwrap();
    w.store.insert(Payment {
        id: id.clone(),
        merchant_id: w.principal.merchant_id.clone(),
        mode: Mode::Test,
        account_id: AccountId::parse("acc_all").unwrap(),
        order_id: "ORDHALF".into(),
        currency: Currency::Try,
        amount: 9_000,
        captured_amount: 6_000,
        refunded_amount: 0,
        status: PaymentStatus::Captured,
        pending: Some(PendingOperation {
            kind: TransactionType::Cancel,
            transaction_id: txn.clone(),
            amount: 6_000,
            state: PendingState::Unknown,
            started_at: T0,
            resume_until: None,
        }),
        auth_code: String::new(),
        rrn: String::new(),
        version: 3,
        created_at: T0,
        updated_at: T0,
    });
    let mut t = Transaction::pending(
        txn,
        id.clone(),
        TransactionType::Cancel,
        6_000,
        Currency::Try,
        T0,
    );
    t.status = TransactionStatus::Unknown;
    let stored = w.store.payment(&id).unwrap();
    w.store
        .save(paygate_domain::ports::PaymentChange {
            expect: paygate_domain::ports::Expectation::over(&stored),
            payment: stored,
            transaction: Some(t),
            event: None,
        })
        .await
        .unwrap();
    (w, bank, id)
}

#[tokio::test]
async fn a_refused_missing_step_keeps_the_cancel_unknown() {
    for answer in [
        BankOutcome::Declined {
            code: "12".into(),
            message: "refused".into(),
            after_cutoff: false,
        },
        BankOutcome::Error {
            code: "CONN".into(),
            message: "connection refused (maintenance window)".into(),
        },
    ] {
        let (w, bank, id) = half_done_world(answer).await;
        let payment = w.store.payment(&id).unwrap();
        let r = reconcile_payment(&w.deps, payment).await.unwrap();
        assert!(r.unsettled);
        assert_eq!(bank.cancels.load(Ordering::SeqCst), 1);
        let p = w.store.payment(&id).unwrap();
        assert_eq!(p.status, PaymentStatus::Captured);
        let op = p.pending.expect("the cancel is still pending");
        assert_eq!(op.state, PendingState::Unknown);
        let t = w
            .store
            .transactions()
            .into_iter()
            .find(|t| t.kind == TransactionType::Cancel)
            .unwrap();
        assert_eq!(t.status, TransactionStatus::Unknown);
        assert!(
            w.store.events().is_empty(),
            "no event for an unsettled cancel"
        );

        // Once the bank takes the missing step, the cancel settles.
        *bank.answer.lock().await = BankOutcome::Approved {
            code: "00".into(),
            auth_code: None,
            rrn: None,
        };
        let r = reconcile_payment(&w.deps, w.store.payment(&id).unwrap())
            .await
            .unwrap();
        assert_eq!(r.payment.status, PaymentStatus::Cancelled);
        assert_eq!(bank.cancels.load(Ordering::SeqCst), 2);
    }
}

#[tokio::test]
async fn a_query_and_the_reconciler_never_both_resume() {
    let (w, bank, id) = half_done_world(BankOutcome::Approved {
        code: "00".into(),
        auth_code: None,
        rrn: None,
    })
    .await;
    bank.hold.store(true, Ordering::SeqCst);
    let first = reconcile_payment(&w.deps, w.store.payment(&id).unwrap());
    let second = async {
        bank.entered.notified().await;
        // The first is at the bank with the missing step: the second reads the same payment.
        let r = reconcile_payment(&w.deps, w.store.payment(&id).unwrap())
            .await
            .unwrap();
        bank.release.notify_one();
        r
    };
    let (first, second) = tokio::join!(first, second);
    assert_eq!(
        bank.cancels.load(Ordering::SeqCst),
        1,
        "one missing step sent"
    );
    assert_eq!(first.unwrap().payment.status, PaymentStatus::Cancelled);
    assert!(second.unsettled);
    assert_eq!(
        w.store.payment(&id).unwrap().status,
        PaymentStatus::Cancelled
    );
}
