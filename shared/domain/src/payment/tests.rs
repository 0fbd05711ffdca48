use proptest::prelude::*;

use super::*;
use crate::{
    bank::{BankState, BankStatus},
    ids::IdGenerator,
    money::MAX_AMOUNT,
};

struct Seq(std::sync::atomic::AtomicU64);
impl IdGenerator for Seq {
    fn opaque(&self) -> String {
        format!(
            "{}",
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        )
    }
}

const T0: Timestamp = Timestamp::from_unix_millis(1_795_000_000_000);

fn payment(status: PaymentStatus, amount: i64) -> Payment {
    let captured = match status {
        PaymentStatus::Captured | PaymentStatus::PartiallyRefunded | PaymentStatus::Refunded => {
            amount
        }
        _ => 0,
    };
    Payment {
        id: PaymentId::parse("pay_1").unwrap(),
        merchant_id: MerchantId::parse("mch_1").unwrap(),
        mode: Mode::Test,
        account_id: AccountId::parse("acc_1").unwrap(),
        order_id: "ORD1".into(),
        currency: Currency::Try,
        amount,
        captured_amount: captured,
        refunded_amount: match status {
            PaymentStatus::PartiallyRefunded => amount / 2,
            PaymentStatus::Refunded => amount,
            _ => 0,
        },
        status,
        pending: None,
        auth_code: String::new(),
        rrn: String::new(),
        version: 1,
        created_at: T0,
        updated_at: T0,
    }
}

fn approved() -> BankOutcome {
    BankOutcome::Approved {
        code: "00".into(),
        auth_code: Some("123456".into()),
        rrn: Some("612345678901".into()),
    }
}

fn run(
    p: &Payment,
    kind: TransactionType,
    amount: Option<i64>,
    outcome: &BankOutcome,
) -> Settlement {
    let ids = Seq(0.into());
    let planned = p.plan(kind, amount, T0, StaleAfter::DEFAULT).unwrap();
    let txn_id = TransactionId::generate(&ids);
    let reserved = p.reserve(planned, txn_id.clone(), T0);
    let txn = Transaction::pending(txn_id, p.id.clone(), kind, planned.amount, p.currency, T0);
    reserved
        .settle(&txn, outcome, EventId::generate(&ids), T0)
        .unwrap()
}

#[test]
fn permission_table_is_the_specs() {
    use PaymentStatus as S;
    use TransactionType as T;
    let rows: [(S, bool, bool, bool); 8] = [
        (S::Authorized, true, true, false),
        (S::Captured, false, true, true),
        (S::PartiallyRefunded, false, false, true),
        (S::Refunded, false, false, false),
        (S::Cancelled, false, false, false),
        (S::Declined, false, false, false),
        (S::Failed, false, false, false),
        (S::Pending, false, false, false),
    ];
    for (status, capture, cancel, refund) in rows {
        let p = payment(status, 10_000);
        assert_eq!(p.allows(T::Capture), capture, "capture in {status}");
        assert_eq!(p.allows(T::Cancel), cancel, "cancel in {status}");
        assert_eq!(p.allows(T::Refund), refund, "refund in {status}");
        for (kind, allowed) in [
            (T::Capture, capture),
            (T::Cancel, cancel),
            (T::Refund, refund),
        ] {
            let planned = p.plan(kind, None, T0, StaleAfter::DEFAULT);
            if allowed {
                assert!(planned.is_ok(), "{kind:?} in {status}");
            } else {
                assert_eq!(
                    planned.unwrap_err(),
                    DomainError::InvalidState {
                        status,
                        operation: kind.as_str()
                    }
                );
            }
        }
    }
}

#[test]
fn full_capture_then_captured_event() {
    let s = run(
        &payment(PaymentStatus::Authorized, 10_000),
        TransactionType::Capture,
        None,
        &approved(),
    );
    assert_eq!(s.payment.status, PaymentStatus::Captured);
    assert_eq!(s.payment.captured_amount, 10_000);
    assert_eq!(s.payment.pending, None);
    assert_eq!(s.payment.version, 3);
    assert_eq!(s.transaction.status, TransactionStatus::Approved);
    assert_eq!(s.transaction.rrn, "612345678901");
    let ev = s.event.unwrap();
    assert_eq!(ev.event_type, EventType::PaymentCaptured);
    assert_eq!(ev.data.status, PaymentStatus::Captured);
}

#[test]
fn partial_capture_releases_the_remainder() {
    let s = run(
        &payment(PaymentStatus::Authorized, 10_000),
        TransactionType::Capture,
        Some(4_000),
        &approved(),
    );
    assert_eq!(s.payment.status, PaymentStatus::Captured);
    assert_eq!(s.payment.captured_amount, 4_000);
    assert_eq!(s.payment.refundable(), 4_000);
}

#[test]
fn capture_above_authorized_is_refused() {
    let p = payment(PaymentStatus::Authorized, 10_000);
    assert_eq!(
        p.plan(
            TransactionType::Capture,
            Some(10_001),
            T0,
            StaleAfter::DEFAULT
        ),
        Err(DomainError::AmountExceedsAuthorized { max: 10_000 })
    );
    assert_eq!(
        p.plan(TransactionType::Capture, Some(0), T0, StaleAfter::DEFAULT),
        Err(DomainError::InvalidAmount)
    );
    assert_eq!(
        p.plan(
            TransactionType::Capture,
            Some(MAX_AMOUNT + 1),
            T0,
            StaleAfter::DEFAULT
        ),
        Err(DomainError::InvalidAmount)
    );
}

#[test]
fn refunds_partial_then_full() {
    let p = payment(PaymentStatus::Captured, 10_000);
    let s1 = run(&p, TransactionType::Refund, Some(3_000), &approved());
    assert_eq!(s1.payment.status, PaymentStatus::PartiallyRefunded);
    assert_eq!(s1.payment.refundable(), 7_000);
    assert_eq!(
        s1.event.as_ref().unwrap().event_type,
        EventType::PaymentRefunded
    );
    assert_eq!(
        s1.payment.plan(
            TransactionType::Refund,
            Some(7_001),
            T0,
            StaleAfter::DEFAULT
        ),
        Err(DomainError::AmountExceedsRefundable { refundable: 7_000 })
    );
    // Cancel is not allowed after any refund.
    assert!(matches!(
        s1.payment
            .plan(TransactionType::Cancel, None, T0, StaleAfter::DEFAULT),
        Err(DomainError::InvalidState { .. })
    ));
    let s2 = run(&s1.payment, TransactionType::Refund, None, &approved());
    assert_eq!(s2.transaction.amount, 7_000);
    assert_eq!(s2.payment.status, PaymentStatus::Refunded);
    assert_eq!(s2.payment.refunded_amount, 10_000);
}

#[test]
fn declined_refund_leaves_status_unchanged() {
    let p = payment(PaymentStatus::Captured, 10_000);
    let s = run(
        &p,
        TransactionType::Refund,
        Some(5_100),
        &BankOutcome::Declined {
            code: "51".into(),
            message: "insufficient".into(),
            after_cutoff: false,
        },
    );
    assert_eq!(s.payment.status, PaymentStatus::Captured);
    assert_eq!(s.payment.refunded_amount, 0);
    assert_eq!(s.payment.pending, None);
    assert_eq!(s.transaction.status, TransactionStatus::Declined);
    assert_eq!(s.transaction.bank_code, "51");
    assert!(s.event.is_none());
}

#[test]
fn unknown_outcome_blocks_other_operations_until_settled() {
    let p = payment(PaymentStatus::Captured, 10_000);
    let s = run(
        &p,
        TransactionType::Refund,
        Some(4_000),
        &BankOutcome::Unknown {
            reason: "timeout".into(),
        },
    );
    assert_eq!(s.transaction.status, TransactionStatus::Unknown);
    assert_eq!(
        s.payment.pending.as_ref().unwrap().state,
        PendingState::Unknown
    );
    assert!(matches!(
        s.payment
            .plan(TransactionType::Refund, Some(1), T0, StaleAfter::DEFAULT),
        Err(DomainError::OperationOutcomeUnknown { .. })
    ));
    // The bank shows the refund went through: query settles it as approved.
    let status = BankStatus {
        found: true,
        state: BankState::PartiallyRefunded,
        amount: 10_000,
        refunded_amount: 4_000,
        code: "00".into(),
        auth_code: "A1".into(),
        rrn: "1".into(),
    };
    let ids = Seq(100.into());
    let StatusVerdict::Settled(settled) = s
        .payment
        .settle_from_status(&s.transaction, &status, EventId::generate(&ids), T0)
        .unwrap()
    else {
        panic!("a positive answer settles at once")
    };
    assert_eq!(settled.payment.status, PaymentStatus::PartiallyRefunded);
    assert_eq!(settled.payment.refunded_amount, 4_000);
    assert_eq!(settled.transaction.status, TransactionStatus::Approved);
    // The bank shows it did not: failed, reservation released, nothing refunded.
    let not = BankStatus {
        refunded_amount: 0,
        state: BankState::Approved,
        ..status.clone()
    };
    // Inside the grace period a negative answer settles nothing (banks book late)...
    for at in [T0, T0.plus_millis(NOT_FOUND_GRACE_MS - 1)] {
        assert_eq!(
            s.payment
                .settle_from_status(&s.transaction, &not, EventId::generate(&ids), at)
                .unwrap(),
            StatusVerdict::Wait
        );
    }
    // ... after it, it does.
    let StatusVerdict::Settled(failed) = s
        .payment
        .settle_from_status(
            &s.transaction,
            &not,
            EventId::generate(&ids),
            T0.plus_millis(NOT_FOUND_GRACE_MS),
        )
        .unwrap()
    else {
        panic!("a negative answer after the grace settles")
    };
    assert_eq!(failed.payment.status, PaymentStatus::Captured);
    assert_eq!(failed.payment.pending, None);
    assert_eq!(failed.transaction.status, TransactionStatus::Failed);
    assert!(failed.event.is_none());
    // A failed query settles nothing.
    assert_eq!(
        s.payment
            .settle_from_status(
                &s.transaction,
                &BankStatus::unavailable("91"),
                EventId::generate(&ids),
                T0.plus_millis(10 * NOT_FOUND_GRACE_MS)
            )
            .unwrap(),
        StatusVerdict::Wait
    );
}

#[test]
fn half_done_cancel_of_a_captured_preauth_is_resumed_never_failed() {
    let p = payment(PaymentStatus::Captured, 10_000);
    let planned = p
        .plan(TransactionType::Cancel, None, T0, StaleAfter::DEFAULT)
        .unwrap();
    let r = p.reserve(planned, TransactionId::parse("txn_c").unwrap(), T0);
    let txn = Transaction::pending(
        TransactionId::parse("txn_c").unwrap(),
        r.id.clone(),
        TransactionType::Cancel,
        planned.amount,
        r.currency,
        T0,
    );
    let ids = Seq(0.into());
    // Capture reversed, authorization still held: the bank shows a pre-authorization.
    let half = BankStatus {
        found: true,
        state: BankState::Preauth,
        amount: 10_000,
        refunded_amount: 0,
        code: "00".into(),
        auth_code: String::new(),
        rrn: String::new(),
    };
    for at in [T0, T0.plus_millis(100 * NOT_FOUND_GRACE_MS)] {
        assert_eq!(
            r.settle_from_status(&txn, &half, EventId::generate(&ids), at)
                .unwrap(),
            StatusVerdict::ResumeCancel
        );
    }
    let done = BankStatus {
        state: BankState::Cancelled,
        ..half
    };
    let StatusVerdict::Settled(s) = r
        .settle_from_status(&txn, &done, EventId::generate(&ids), T0)
        .unwrap()
    else {
        panic!("a fully reversed order settles the cancel")
    };
    assert_eq!(s.payment.status, PaymentStatus::Cancelled);

    // Resuming it: one claim at a time, until its lease runs out.
    let claimed = r.claim_resume(T0).unwrap();
    assert_eq!(claimed.version, r.version + 1);
    assert!(claimed
        .claim_resume(T0.plus_millis(RESUME_LEASE_MS - 1))
        .is_none());
    assert!(claimed
        .claim_resume(T0.plus_millis(RESUME_LEASE_MS))
        .is_some());
    // Only an approval of the missing step settles it; anything else keeps it unknown.
    for refused in [
        BankOutcome::Declined {
            code: "0220".into(),
            message: "m".into(),
            after_cutoff: false,
        },
        BankOutcome::Error {
            code: "0091".into(),
            message: "m".into(),
        },
        BankOutcome::Unknown { reason: "t".into() },
    ] {
        let outcome = resumed_cancel_outcome(refused);
        assert!(
            matches!(outcome, BankOutcome::Unknown { .. }),
            "{outcome:?}"
        );
        let s = claimed
            .settle(&txn, &outcome, EventId::generate(&ids), T0)
            .unwrap();
        assert_eq!(s.payment.status, PaymentStatus::Captured);
        let op = s.payment.pending.as_ref().unwrap();
        assert_eq!((op.state, op.resume_until), (PendingState::Unknown, None));
        assert_eq!(s.transaction.status, TransactionStatus::Unknown);
        assert!(s.event.is_none());
    }
    assert_eq!(resumed_cancel_outcome(approved()), approved());
}

#[test]
fn in_flight_operation_is_in_progress_then_stale() {
    let p = payment(PaymentStatus::Captured, 10_000);
    let planned = p
        .plan(TransactionType::Refund, Some(100), T0, StaleAfter::DEFAULT)
        .unwrap();
    let r = p.reserve(planned, TransactionId::parse("txn_a").unwrap(), T0);
    assert!(matches!(
        r.plan(
            TransactionType::Refund,
            Some(100),
            T0.plus_millis(1_000),
            StaleAfter::DEFAULT
        ),
        Err(DomainError::OperationInProgress { .. })
    ));
    assert!(matches!(
        r.plan(
            TransactionType::Refund,
            Some(100),
            T0.plus_millis(StaleAfter::DEFAULT.millis() + 1),
            StaleAfter::DEFAULT,
        ),
        Err(DomainError::OperationOutcomeUnknown { .. })
    ));
}

#[test]
fn the_configured_threshold_decides_when_in_flight_turns_unknown() {
    let p = payment(PaymentStatus::Captured, 10_000);
    let planned = p
        .plan(TransactionType::Refund, Some(100), T0, StaleAfter::DEFAULT)
        .unwrap();
    let r = p.reserve(planned, TransactionId::parse("txn_a").unwrap(), T0);
    let longer = StaleAfter::from_millis(90_000).unwrap();
    let shorter = StaleAfter::from_millis(40_000).unwrap();
    // Past the default's 60 s: still in progress under 90 s, unknown under 40 s.
    let at = T0.plus_millis(61_000);
    assert!(r.unsettled(at, longer).is_none());
    assert!(r.unsettled(at, shorter).is_some());
    assert!(matches!(
        r.plan(TransactionType::Refund, Some(100), at, longer),
        Err(DomainError::OperationInProgress { .. })
    ));
    assert!(matches!(
        r.plan(
            TransactionType::Refund,
            Some(100),
            T0.plus_millis(90_001),
            longer
        ),
        Err(DomainError::OperationOutcomeUnknown { .. })
    ));
    // The reconciler's first look: when it goes stale under the threshold given.
    assert_eq!(r.reconcile_due(longer), Some(T0.plus_millis(90_001)));
    assert_eq!(r.reconcile_due(shorter), Some(T0.plus_millis(40_001)));
    assert_eq!(
        r.reconcile_due(StaleAfter::DEFAULT),
        Some(T0.plus_millis(60_001))
    );
    // Nothing in flight: not due; a pending payment: at once, whatever the threshold.
    assert_eq!(p.reconcile_due(longer), None);
    let pending = payment(PaymentStatus::Pending, 10_000);
    assert_eq!(pending.reconcile_due(longer), Some(pending.created_at));
}

#[test]
fn pending_payment_is_finalized_by_bank_state() {
    let ids = Seq(0.into());
    let p = payment(PaymentStatus::Pending, 10_000);
    let status = |found, state| BankStatus {
        found,
        state,
        amount: 10_000,
        refunded_amount: 0,
        code: "00".into(),
        auth_code: String::new(),
        rrn: String::new(),
    };
    let cases = [
        (
            true,
            BankState::Approved,
            PaymentStatus::Captured,
            EventType::PaymentCaptured,
        ),
        (
            true,
            BankState::Preauth,
            PaymentStatus::Authorized,
            EventType::PaymentAuthorized,
        ),
        (
            true,
            BankState::Declined,
            PaymentStatus::Declined,
            EventType::PaymentFailed,
        ),
        (
            false,
            BankState::Unknown,
            PaymentStatus::Failed,
            EventType::PaymentFailed,
        ),
    ];
    let grace = PendingGrace::DEFAULT;
    let after_grace = T0.plus_millis(grace.millis());
    for (found, state, next, ev) in cases {
        let (np, event) = p
            .finalize_pending(
                &status(found, state),
                EventId::generate(&ids),
                after_grace,
                grace,
            )
            .unwrap();
        assert_eq!(np.status, next);
        assert_eq!(event.event_type, ev);
    }
    assert!(p
        .finalize_pending(
            &BankStatus::unavailable("91"),
            EventId::generate(&ids),
            T0,
            grace
        )
        .is_none());
    // "No record" inside the pending grace never fails a pending payment — not even past
    // the operations' three minutes (a 3-D session can last longer); a record does
    // finalize it at once.
    let no_record = status(false, BankState::Unknown);
    for at in [NOT_FOUND_GRACE_MS, grace.millis() - 1] {
        assert!(
            p.finalize_pending(
                &no_record,
                EventId::generate(&ids),
                T0.plus_millis(at),
                grace
            )
            .is_none(),
            "at {at} ms"
        );
    }
    for found in [
        BankState::Approved,
        BankState::Declined,
        BankState::Preauth,
        BankState::Cancelled,
    ] {
        assert!(p
            .finalize_pending(&status(true, found), EventId::generate(&ids), T0, grace)
            .is_some());
    }
    // The configured grace decides.
    let five = PendingGrace::from_millis(300_000).unwrap();
    assert!(p
        .finalize_pending(
            &no_record,
            EventId::generate(&ids),
            T0.plus_millis(299_999),
            five
        )
        .is_none());
    let (failed, _) = p
        .finalize_pending(
            &no_record,
            EventId::generate(&ids),
            T0.plus_millis(300_000),
            five,
        )
        .unwrap();
    assert_eq!(failed.status, PaymentStatus::Failed);
    assert!(payment(PaymentStatus::Captured, 1)
        .finalize_pending(
            &status(true, BankState::Approved),
            EventId::generate(&ids),
            T0,
            grace
        )
        .is_none());
}

#[derive(Debug, Clone)]
enum Cmd {
    Capture(Option<i64>),
    Cancel,
    Refund(Option<i64>),
    Query,
}

fn cmd() -> impl Strategy<Value = Cmd> {
    let amt = prop_oneof![Just(None), (1i64..15_000).prop_map(Some)];
    prop_oneof![
        amt.clone().prop_map(Cmd::Capture),
        Just(Cmd::Cancel),
        amt.prop_map(Cmd::Refund),
        Just(Cmd::Query),
    ]
}

fn outcome() -> impl Strategy<Value = u8> {
    0u8..4
}

proptest! {
    /// No sequence of operations and bank answers refunds more than was captured, captures
    /// more than was authorized, or leaves a status outside the spec's set.
    #[test]
    fn money_invariants_hold(
        start in prop_oneof![Just(PaymentStatus::Authorized), Just(PaymentStatus::Captured)],
        amount in 1i64..12_000,
        steps in proptest::collection::vec((cmd(), outcome(), any::<bool>()), 1..40),
    ) {
        let ids = Seq(0.into());
        let mut p = payment(start, amount);
        let mut open: Option<Transaction> = None;
        let mut bank_refunded = 0i64;
        for (c, o, effect) in steps {
            match c {
                Cmd::Query => {
                    if let Some(txn) = open.clone() {
                        let op = p.pending.clone().unwrap();
                        let applied = effect;
                        let state = match (op.kind, applied) {
                            (TransactionType::Capture, true) => BankState::Approved,
                            (TransactionType::Cancel, true) => BankState::Cancelled,
                            _ => BankState::Approved,
                        };
                        let refunded = if op.kind == TransactionType::Refund && applied { bank_refunded + op.amount } else { bank_refunded };
                        let st = BankStatus { found: true, state: if op.kind == TransactionType::Capture && !applied { BankState::Preauth } else { state }, amount: p.amount, refunded_amount: refunded, code: "00".into(), auth_code: String::new(), rrn: String::new() };
                        let StatusVerdict::Settled(s) = p.settle_from_status(&txn, &st, EventId::generate(&ids), T0.plus_millis(NOT_FOUND_GRACE_MS)).unwrap() else { panic!("a conclusive answer after the grace settles") };
                        if s.transaction.status == TransactionStatus::Approved && op.kind == TransactionType::Refund { bank_refunded += op.amount; }
                        p = s.payment;
                        open = None;
                    }
                }
                Cmd::Capture(a) | Cmd::Refund(a) => {
                    let kind = if matches!(c, Cmd::Capture(_)) { TransactionType::Capture } else { TransactionType::Refund };
                    if let Ok(planned) = p.plan(kind, a, T0, StaleAfter::DEFAULT) {
                        prop_assert!(planned.amount > 0);
                        let tid = TransactionId::generate(&ids);
                        let r = p.reserve(planned, tid.clone(), T0);
                        let txn = Transaction::pending(tid, p.id.clone(), kind, planned.amount, p.currency, T0);
                        let bo = match o { 0 => approved(), 1 => BankOutcome::Declined { code: "51".into(), message: String::new(), after_cutoff: false }, 2 => BankOutcome::Error { code: "91".into(), message: String::new() }, _ => BankOutcome::Unknown { reason: "timeout".into() } };
                        let s = r.settle(&txn, &bo, EventId::generate(&ids), T0).unwrap();
                        if s.transaction.status == TransactionStatus::Approved && kind == TransactionType::Refund { bank_refunded += planned.amount; }
                        if s.transaction.status == TransactionStatus::Unknown { open = Some(s.transaction.clone()); }
                        p = s.payment;
                    }
                }
                Cmd::Cancel => {
                    if let Ok(planned) = p.plan(TransactionType::Cancel, None, T0, StaleAfter::DEFAULT) {
                        let tid = TransactionId::generate(&ids);
                        let r = p.reserve(planned, tid.clone(), T0);
                        let txn = Transaction::pending(tid, p.id.clone(), TransactionType::Cancel, planned.amount, p.currency, T0);
                        let bo = if o == 3 { BankOutcome::Unknown { reason: "t".into() } } else if o == 0 { approved() } else { BankOutcome::Declined { code: "05".into(), message: String::new(), after_cutoff: false } };
                        let s = r.settle(&txn, &bo, EventId::generate(&ids), T0).unwrap();
                        if s.transaction.status == TransactionStatus::Unknown { open = Some(s.transaction.clone()); }
                        p = s.payment;
                    }
                }
            }
            prop_assert!(PaymentStatus::ALL.contains(&p.status));
            prop_assert!(p.captured_amount <= p.amount, "captured {} > authorized {}", p.captured_amount, p.amount);
            prop_assert!(p.refunded_amount <= p.captured_amount, "refunded {} > captured {}", p.refunded_amount, p.captured_amount);
            prop_assert_eq!(p.refunded_amount, bank_refunded);
            prop_assert!(p.refundable() >= 0);
            if p.status == PaymentStatus::Refunded { prop_assert_eq!(p.refunded_amount, p.captured_amount); }
        }
    }
}
