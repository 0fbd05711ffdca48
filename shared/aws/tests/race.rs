//! Many concurrent refunds on one payment: the conditional writes keep the books right.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test crate: helpers may panic

mod common;

use std::{sync::Arc, time::Duration};

use common::*;
use paygate_aws::dynamo::DynamoPayments;
use paygate_domain::{
    ports::{Expectation, PaymentChange, PaymentReader, PaymentWriter},
    BankOutcome, DomainError, EventId, EventType, PaymentId, PaymentStatus, StoreError,
    Transaction, TransactionId, TransactionStatus, TransactionType,
};

const TASKS: usize = 50;
const CAPTURED: i64 = 10_000;
const REFUND: i64 = 300;
const MAX_ATTEMPTS: usize = 1_000;

#[derive(Debug)]
enum Outcome {
    Refunded(TransactionId, EventId),
    NothingLeft,
    GaveUp,
}

async fn backoff(task: usize, attempt: usize) {
    // Deterministic jitter so the tasks do not retry in lockstep.
    let ms = 5 + ((task * 7 + attempt * 13) % 23) as u64;
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

/// One client's refund: read, plan, reserve (conditionally), settle approved, retrying on
/// conflicts and while another refund is in progress.
async fn refund(store: &DynamoPayments, id: &PaymentId, task: usize) -> Outcome {
    for attempt in 0..MAX_ATTEMPTS {
        let now = T0.plus_millis((attempt * 10) as i64);
        let read = store.get_payment(id).await.unwrap().unwrap();
        let planned = match read.plan(
            TransactionType::Refund,
            Some(REFUND),
            now,
            paygate_domain::StaleAfter::DEFAULT,
        ) {
            Ok(p) => p,
            Err(DomainError::AmountExceedsRefundable { .. }) => return Outcome::NothingLeft,
            Err(DomainError::OperationInProgress { .. }) => {
                backoff(task, attempt).await;
                continue;
            }
            Err(e) => panic!("unexpected refusal: {e}"),
        };
        let txn = Transaction::pending(
            txn_id(),
            id.clone(),
            TransactionType::Refund,
            planned.amount,
            read.currency,
            T0.plus_millis(fresh() as i64),
        );
        let reserved = read.reserve(planned, txn.id.clone(), now);
        let reserve = store
            .save(PaymentChange {
                payment: reserved.clone(),
                expect: Expectation::Version {
                    version: read.version,
                    status: read.status,
                    no_pending: true,
                    min_refundable: Some(REFUND),
                },
                transaction: Some(txn.clone()),
                event: None,
            })
            .await;
        match reserve {
            Ok(()) => {}
            Err(StoreError::Conflict { .. }) => {
                backoff(task, attempt).await;
                continue;
            }
            Err(e) => panic!("reserve failed: {e}"),
        }
        let approved = BankOutcome::Approved {
            code: "00".into(),
            auth_code: None,
            rrn: Some(format!("{task:012}")),
        };
        let s = reserved.settle(&txn, &approved, event_id(), now).unwrap();
        let event = s.event.clone().unwrap();
        store
            .save(PaymentChange {
                payment: s.payment,
                expect: Expectation::over(&reserved),
                transaction: Some(s.transaction),
                event: s.event,
            })
            .await
            .expect("settling a reservation we hold cannot conflict");
        return Outcome::Refunded(txn.id, event.id);
    }
    Outcome::GaveUp
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_refunds_never_exceed_the_captured_amount() {
    // GIVEN a captured payment of 10_000
    let env = Env::new("race").await;
    let p = captured(CAPTURED);
    env.payments
        .save(PaymentChange {
            payment: p.clone(),
            expect: Expectation::Absent,
            transaction: None,
            event: None,
        })
        .await
        .unwrap();

    // WHEN 50 tasks each try to refund 300 at the same time
    let store = Arc::new(env.payments.clone());
    let mut handles = Vec::new();
    for task in 0..TASKS {
        let (store, id) = (store.clone(), p.id.clone());
        handles.push(tokio::spawn(async move { refund(&store, &id, task).await }));
    }
    let mut outcomes = Vec::new();
    for h in handles {
        outcomes.push(h.await.unwrap());
    }

    // THEN every task finished, and exactly as many refunds went through as fit
    assert!(
        !outcomes.iter().any(|o| matches!(o, Outcome::GaveUp)),
        "a task ran out of attempts"
    );
    let refunded: Vec<_> = outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Refunded(t, e) => Some((t.clone(), e.clone())),
            _ => None,
        })
        .collect();
    let fit = (CAPTURED / REFUND) as usize;
    assert_eq!(refunded.len(), fit);
    assert_eq!(outcomes.len() - refunded.len(), TASKS - fit);

    // AND the payment's books match the stored transactions
    let fin = env.payments.get_payment(&p.id).await.unwrap().unwrap();
    assert!(fin.refunded_amount <= fin.captured_amount);
    assert_eq!(fin.refunded_amount, REFUND * fit as i64);
    assert_eq!(fin.status, PaymentStatus::PartiallyRefunded);
    assert!(fin.pending.is_none());
    let txns = env.payments.list_transactions(&p.id).await.unwrap();
    let approved: Vec<_> = txns
        .iter()
        .filter(|t| t.status == TransactionStatus::Approved)
        .collect();
    assert_eq!(
        approved.iter().map(|t| t.amount).sum::<i64>(),
        fin.refunded_amount
    );
    assert_eq!(
        approved.len(),
        txns.len(),
        "no reservation was left unsettled"
    );

    // AND every approved refund has its transaction and its outbox event
    for (txn, ev) in &refunded {
        let t = env.payments.get_transaction(&p.id, txn).await.unwrap();
        assert_eq!(t.map(|t| t.status), Some(TransactionStatus::Approved));
        let e = env
            .events
            .get_event(ev)
            .await
            .unwrap()
            .expect("event stored");
        assert_eq!(e.event_type, EventType::PaymentRefunded);
        assert_eq!(e.payment_id, p.id);
    }
    assert_eq!(env.events.list_unsent(100).await.unwrap().len(), fit);
}
