//! The write after the bank call under DynamoDB faults: lost answers, 500s, transaction
//! conflicts and throttling. The merchant gets the bank's real outcome, the bank is called
//! once, and exactly one event is written per approved operation.

use paygate_domain::{ports::PaymentWriter, EventId, Settlement};

use super::*;
use crate::commit::{record_settlement, Recorded};

async fn captured(w: &World) -> PaymentId {
    w.payment(
        "pay_1",
        "acc_all",
        PaymentStatus::Captured,
        20_000,
        InitialBankState::Approved,
    )
    .await
}

async fn bank_refunded(w: &World) -> i64 {
    let acct = account("acc_all", OperationSet::all());
    w.bank.query(&acct, "ORDpay_1").await.refunded_amount
}

/// Each fault on the commit of a partial refund (the reservation goes through).
#[tokio::test(start_paused = true)]
async fn a_faulted_commit_still_answers_the_banks_outcome_once() {
    for fault in [
        SaveFault::LostAnswer,
        SaveFault::ServerError,
        SaveFault::TransactionConflict,
        SaveFault::Throttled,
    ] {
        let w = world();
        let id = captured(&w).await;
        // reservation ok, then the first two writes of the answer meet the fault
        w.store.script_saves([None, Some(fault), Some(fault)]);
        let r = w
            .op(&id, TransactionType::Refund, Some(5_000))
            .await
            .unwrap_or_else(|e| panic!("{fault:?}: {e:?}"));
        assert_eq!(
            r.transaction.status,
            TransactionStatus::Approved,
            "{fault:?}"
        );
        assert_eq!(r.payment.status, PaymentStatus::PartiallyRefunded);
        assert_eq!(r.payment.refunded_amount, 5_000);
        let stored = w.store.payment(&id).unwrap();
        assert_eq!(stored.pending, None, "{fault:?}");
        assert_eq!(stored.refunded_amount, 5_000);
        assert_eq!(
            bank_refunded(&w).await,
            5_000,
            "{fault:?}: one refund at the bank"
        );
        assert_eq!(w.store.events().len(), 1, "{fault:?}: exactly one event");
        assert_eq!(w.publisher.ids().len(), 1, "{fault:?}: queued once");
        // A lost answer is found by reading back after the first write: no more writes.
        let expected_saves = if fault == SaveFault::LostAnswer { 2 } else { 4 };
        assert_eq!(w.store.save_count(), expected_saves, "{fault:?}");
        // The payment is free for the next operation.
        assert!(w
            .op(&id, TransactionType::Refund, Some(1_000))
            .await
            .is_ok());
        assert_eq!(bank_refunded(&w).await, 6_000);
    }
}

/// Before the fix, a lost commit answer of a partial refund was answered 409 "Retry" (or
/// 500 with retries off), and the merchant's retry refunded a second time.
#[tokio::test(start_paused = true)]
async fn a_merchant_never_sees_retry_advice_after_the_bank_moved_money() {
    let w = world();
    let id = captured(&w).await;
    w.store.script_saves([None, Some(SaveFault::LostAnswer)]);
    let first = w.op(&id, TransactionType::Refund, Some(7_000)).await;
    assert!(first.is_ok(), "{first:?}");
    assert_eq!(bank_refunded(&w).await, 7_000);
}

#[tokio::test(start_paused = true)]
async fn a_declined_answer_survives_a_lost_commit_answer() {
    let w = world();
    let id = captured(&w).await;
    w.store.script_saves([None, Some(SaveFault::LostAnswer)]);
    let Err(OpError::Declined { transaction, .. }) =
        w.op(&id, TransactionType::Refund, Some(5100)).await
    else {
        panic!("expected the bank's decline")
    };
    assert_eq!(transaction.status, TransactionStatus::Declined);
    assert_eq!(w.store.payment(&id).unwrap().pending, None);
    assert!(w.store.events().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_lost_reservation_answer_is_read_back_and_the_bank_called_once() {
    for fault in [
        SaveFault::LostAnswer,
        SaveFault::ServerError,
        SaveFault::Throttled,
    ] {
        let w = world();
        let id = captured(&w).await;
        w.store.script_saves([Some(fault)]);
        let r = w.op(&id, TransactionType::Refund, Some(3_000)).await;
        assert!(r.is_ok(), "{fault:?}: {r:?}");
        assert_eq!(bank_refunded(&w).await, 3_000, "{fault:?}");
        assert_eq!(
            w.store.transactions().len(),
            1,
            "{fault:?}: one transaction"
        );
    }
}

/// The commit keeps failing: the merchant is told the answer is not recorded (503, "do not
/// repeat"), the reservation stays, and the reconciler/query settles it once stale.
#[tokio::test(start_paused = true)]
async fn an_unrecordable_answer_is_never_advertised_as_retryable() {
    let w = world();
    let id = captured(&w).await;
    w.store.script_saves(
        std::iter::once(None).chain(std::iter::repeat_n(Some(SaveFault::Throttled), 8)),
    );
    assert!(matches!(
        w.op(&id, TransactionType::Refund, Some(4_000)).await,
        Err(OpError::NotRecorded { .. })
    ));
    assert!(matches!(
        w.op(&id, TransactionType::Refund, Some(4_000)).await,
        Err(OpError::Domain(DomainError::OperationInProgress { .. }))
    ));
    w.clock
        .advance_millis(paygate_domain::StaleAfter::DEFAULT.millis() + 1);
    let q = query_payment(&w.deps, &w.principal, &id).await.unwrap();
    assert_eq!(q.payment.refunded_amount, 4_000);
    assert_eq!(q.payment.pending, None);
    assert_eq!(bank_refunded(&w).await, 4_000);
    assert_eq!(w.store.events().len(), 1);
}

/// Someone else settled the reservation while our writes failed: their record is reported.
#[tokio::test(start_paused = true)]
async fn a_settlement_recorded_by_someone_else_is_reported_as_theirs() {
    let w = world();
    let id = captured(&w).await;
    let p = w.store.payment(&id).unwrap();
    let planned = p
        .plan(
            TransactionType::Refund,
            Some(2_000),
            T0,
            paygate_domain::StaleAfter::DEFAULT,
        )
        .unwrap();
    let tid = TransactionId::parse("txn_x").unwrap();
    let reserved = p.reserve(planned, tid.clone(), T0);
    let txn = Transaction::pending(
        tid,
        id.clone(),
        TransactionType::Refund,
        2_000,
        Currency::Try,
        T0,
    );
    w.store
        .save(PaymentChange {
            payment: reserved.clone(),
            expect: Expectation::over(&p),
            transaction: Some(txn.clone()),
            event: None,
        })
        .await
        .unwrap();
    let approved = BankOutcome::Approved {
        code: "00".into(),
        auth_code: None,
        rrn: Some("1".into()),
    };
    let theirs: Settlement = reserved
        .settle(&txn, &approved, EventId::parse("evt_theirs").unwrap(), T0)
        .unwrap();
    w.store
        .save(PaymentChange {
            payment: theirs.payment.clone(),
            expect: Expectation::over(&reserved),
            transaction: Some(theirs.transaction.clone()),
            event: theirs.event.clone(),
        })
        .await
        .unwrap();
    let ours = reserved
        .settle(
            &txn,
            &approved,
            EventId::parse("evt_ours").unwrap(),
            T0.plus_millis(5),
        )
        .unwrap();
    let got = record_settlement(w.store.as_ref(), &reserved, &ours)
        .await
        .unwrap();
    let Recorded::Theirs {
        payment,
        transaction,
    } = got
    else {
        panic!("expected their record, got {got:?}")
    };
    assert_eq!(*payment, theirs.payment);
    assert_eq!(*transaction, theirs.transaction);
    assert_eq!(w.store.events().len(), 1, "no second event");
}

/// An account whose bank cannot be queried would leave an unanswered operation unsettleable
/// for ever: money operations on it are refused before anything is sent.
#[tokio::test]
async fn an_account_without_query_refuses_money_operations() {
    let w = world();
    w.accounts.insert(account(
        "acc_noquery",
        OperationSet::of(&[Operation::Capture, Operation::Cancel, Operation::Refund]),
    ));
    let id = w
        .payment(
            "pay_1",
            "acc_noquery",
            PaymentStatus::Captured,
            20_000,
            InitialBankState::Approved,
        )
        .await;
    assert!(matches!(
        w.op(&id, TransactionType::Refund, Some(100)).await,
        Err(OpError::NotSettleable {
            operation: Operation::Refund,
            ..
        })
    ));
    assert_eq!(bank_refunded(&w).await, 0);
    assert!(w.store.transactions().is_empty());
}

/// A refund made at the bank without us, recorded by a query whose write meets each fault:
/// recorded once (a lost answer found by reading back), one event, and a query after a fault
/// that applied nothing records it then; never twice.
#[tokio::test(start_paused = true)]
async fn an_external_refund_is_recorded_once_whatever_its_write_meets() {
    for fault in [
        SaveFault::LostAnswer,
        SaveFault::ServerError,
        SaveFault::TransactionConflict,
        SaveFault::Throttled,
    ] {
        let mut w = world();
        let metrics = Arc::new(paygate_domain::testkit::RecordingMetrics::new());
        w.deps.banks.providers = w.deps.banks.providers.clone().with_metrics(metrics.clone());
        let id = captured(&w).await;
        // 3 000 refunded at the bank by someone else (the bank's own merchant panel)
        let acct = account("acc_all", OperationSet::all());
        let panel = paygate_domain::ports::BankOperation {
            order_id: "ORDpay_1".into(),
            transaction_id: TransactionId::parse("txn_panel").unwrap(),
            amount: 3_000,
            currency: paygate_domain::Currency::Try,
            full: false,
        };
        assert!(matches!(
            w.bank.refund(&acct, &panel).await,
            BankOutcome::Approved { .. }
        ));
        // The first two writes of the record meet the fault.
        w.store.script_saves([Some(fault), Some(fault)]);
        for _ in 0..2 {
            let q = query_payment(&w.deps, &w.principal, &id).await.unwrap();
            assert_eq!(q.payment.refunded_amount, 3_000, "{fault:?}");
        }
        let stored = w.store.payment(&id).unwrap();
        assert_eq!(
            (stored.status, stored.refunded_amount),
            (PaymentStatus::PartiallyRefunded, 3_000),
            "{fault:?}"
        );
        let external: Vec<_> = w
            .store
            .transactions()
            .into_iter()
            .filter(|t| t.origin == paygate_domain::Origin::External)
            .collect();
        assert_eq!(external.len(), 1, "{fault:?}: recorded once");
        assert_eq!(external[0].amount, 3_000);
        // Counted once too (ExternalOperations).
        let counted: Vec<_> = metrics
            .all()
            .into_iter()
            .filter(|m| matches!(m, paygate_domain::metrics::Metric::ExternalOperation { .. }))
            .collect();
        assert_eq!(
            counted,
            vec![paygate_domain::metrics::Metric::ExternalOperation {
                operation: "refund",
                recorded: true
            }],
            "{fault:?}"
        );
        assert_eq!(w.store.events().len(), 1, "{fault:?}: exactly one event");
        assert_eq!(
            bank_refunded(&w).await,
            3_000,
            "{fault:?}: nothing moved by us"
        );
    }
}
