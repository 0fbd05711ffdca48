//! A request near its deadline: no bank call starts without the time to make it and record
//! its answer, and the write of an answer stops retrying in time to answer.

use std::time::Duration;

use crate::{
    bank_access::DEFAULT_BANK_BUDGET, deadline::COMMIT_RESERVE, operate::RequestScope, Deadline,
};

use super::*;

#[tokio::test(start_paused = true)]
async fn no_bank_call_starts_without_time_for_it_and_its_commit() {
    let w = world();
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Captured,
            20_000,
            InitialBankState::Approved,
        )
        .await;
    let short = Deadline::after(DEFAULT_BANK_BUDGET + COMMIT_RESERVE - Duration::from_millis(1));
    let r = run_keyed_operation(
        &w.deps,
        &w.principal,
        &id,
        TransactionType::Refund,
        Some(1_000),
        RequestScope {
            deadline: Some(short),
            ..RequestScope::default()
        },
    )
    .await;
    assert!(matches!(r, Err(OpError::NoTimeLeft)), "{r:?}");
    let p = w.store.payment(&id).unwrap();
    assert_eq!((p.version, p.pending), (1, None), "nothing reserved");
    assert!(w.store.transactions().is_empty());
    let bank = w
        .bank
        .query(&account("acc_all", OperationSet::all()), &p.order_id)
        .await;
    assert_eq!(bank.refunded_amount, 0, "nothing sent");
}

#[tokio::test(start_paused = true)]
async fn the_commit_stops_retrying_in_time_to_answer() {
    let w = world();
    let id = w
        .payment(
            "pay_1",
            "acc_all",
            PaymentStatus::Captured,
            20_000,
            InitialBankState::Approved,
        )
        .await;
    let p = w.store.payment(&id).unwrap();
    let planned = p
        .plan(
            TransactionType::Refund,
            Some(1_000),
            T0,
            StaleAfter::DEFAULT,
        )
        .unwrap();
    let txn_id = TransactionId::parse("txn_d").unwrap();
    let reserved = p.reserve(planned, txn_id.clone(), T0);
    let txn = Transaction::pending(
        txn_id,
        p.id.clone(),
        TransactionType::Refund,
        1_000,
        p.currency,
        T0,
    );
    let settlement = reserved
        .settle(
            &txn,
            &BankOutcome::Approved {
                code: "00".into(),
                auth_code: None,
                rrn: None,
            },
            EventId::parse("evt_d").unwrap(),
            T0,
        )
        .unwrap();
    w.store.set_down(true);
    let started = tokio::time::Instant::now();
    let until = started + Duration::from_millis(300);
    let r = crate::commit::record_settlement_until(
        w.store.as_ref(),
        &reserved,
        &settlement,
        Some(until),
    )
    .await;
    assert!(r.is_err(), "{r:?}");
    assert!(
        started.elapsed() <= Duration::from_millis(300),
        "no attempt started after the limit ({:?}; without it the attempts take seconds)",
        started.elapsed()
    );
    assert!(
        w.store.save_count() >= 2,
        "it did retry while there was time"
    );
}
