//! Conditional writes of DynamoPayments against moto: every expectation, and atomicity.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test crate: helpers may panic

mod common;

use common::*;
use paygate_domain::{
    ports::{Expectation, PaymentChange, PaymentReader, PaymentWriter},
    EventType, PaymentStatus, StoreError, TransactionType,
};

#[tokio::test]
async fn creating_twice_is_already_exists() {
    // GIVEN a stored payment
    let env = Env::new("absent").await;
    let p = authorized(5_000);
    env.payments.save(create(&p)).await.unwrap();

    // WHEN it is created again, alone or with a transaction and an event
    let again = env.payments.save(create(&p)).await;
    let with_txn = env
        .payments
        .save(PaymentChange {
            transaction: Some(transaction(&p, TransactionType::Capture, 5_000, T0)),
            event: Some(event(&p, EventType::PaymentAuthorized, T0)),
            ..create(&p)
        })
        .await;

    // THEN both are AlreadyExists
    assert!(matches!(again, Err(StoreError::AlreadyExists)), "{again:?}");
    assert!(
        matches!(with_txn, Err(StoreError::AlreadyExists)),
        "{with_txn:?}"
    );
}

#[tokio::test]
async fn stale_version_is_a_conflict_carrying_the_current_payment() {
    // GIVEN a payment that was updated to version 2 after we read version 1
    let env = Env::new("stale").await;
    let v1 = authorized(5_000);
    env.payments.save(create(&v1)).await.unwrap();
    let mut v2 = v1.clone();
    v2.version = 2;
    v2.rrn = "999".into();
    env.payments.save(update(&v1, &v2)).await.unwrap();

    // WHEN a writer that read version 1 saves, alone and with a transaction
    let mut mine = v1.clone();
    mine.version = 2;
    let alone = env.payments.save(update(&v1, &mine)).await;
    let with_txn = env
        .payments
        .save(PaymentChange {
            transaction: Some(transaction(&v1, TransactionType::Capture, 5_000, T0)),
            ..update(&v1, &mine)
        })
        .await;

    // THEN both conflict and carry the payment as it is now (version 2)
    for res in [alone, with_txn] {
        match res {
            Err(StoreError::Conflict { current: Some(cur) }) => {
                assert_eq!(cur.version, 2);
                assert_eq!(*cur, v2);
            }
            other => panic!("expected a conflict with the current payment, got {other:?}"),
        }
    }
    // AND the stored payment is unchanged
    assert_eq!(env.payments.get_payment(&v1.id).await.unwrap(), Some(v2));
}

#[tokio::test]
async fn wrong_status_is_a_conflict() {
    // GIVEN a stored authorised payment
    let env = Env::new("status").await;
    let p = authorized(5_000);
    env.payments.save(create(&p)).await.unwrap();

    // WHEN a writer expects it captured at the same version
    let mut next = p.clone();
    next.version += 1;
    let res = env
        .payments
        .save(PaymentChange {
            payment: next,
            expect: Expectation::Version {
                version: p.version,
                status: PaymentStatus::Captured,
                no_pending: false,
                min_refundable: None,
            },
            transaction: None,
            event: None,
        })
        .await;

    // THEN it conflicts
    assert!(
        matches!(res, Err(StoreError::Conflict { current: Some(_) })),
        "{res:?}"
    );
}

#[tokio::test]
async fn no_pending_rejects_a_payment_with_a_reserved_operation() {
    // GIVEN a stored payment with a refund reserved (version 2)
    let env = Env::new("nopending").await;
    let p = captured(10_000);
    env.payments.save(create(&p)).await.unwrap();
    let planned = p
        .plan(
            TransactionType::Refund,
            Some(100),
            T0,
            paygate_domain::StaleAfter::DEFAULT,
        )
        .unwrap();
    let reserved = p.reserve(planned, txn_id(), T0);
    env.payments.save(update(&p, &reserved)).await.unwrap();

    // WHEN a writer at the right version and status requires no pending operation
    let mut next = reserved.clone();
    next.version += 1;
    next.pending = None;
    let expect = |no_pending| Expectation::Version {
        version: reserved.version,
        status: reserved.status,
        no_pending,
        min_refundable: None,
    };
    let res = env
        .payments
        .save(PaymentChange {
            payment: next.clone(),
            expect: expect(true),
            transaction: None,
            event: None,
        })
        .await;

    // THEN it conflicts (and the pending operation is still there)
    match res {
        Err(StoreError::Conflict { current: Some(cur) }) => assert!(cur.pending.is_some()),
        other => panic!("expected a conflict, got {other:?}"),
    }
    // AND without the requirement the same write goes through
    env.payments
        .save(PaymentChange {
            payment: next,
            expect: expect(false),
            transaction: None,
            event: None,
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn min_refundable_rejects_when_less_is_left() {
    // GIVEN a stored payment with 1_000 captured and 700 refunded (300 refundable)
    let env = Env::new("minref").await;
    let mut p = captured(1_000);
    p.refunded_amount = 700;
    p.status = PaymentStatus::PartiallyRefunded;
    env.payments.save(create(&p)).await.unwrap();
    let mut next = p.clone();
    next.version += 1;
    let save = |min: i64| {
        env.payments.save(PaymentChange {
            payment: next.clone(),
            expect: Expectation::Version {
                version: p.version,
                status: p.status,
                no_pending: true,
                min_refundable: Some(min),
            },
            transaction: None,
            event: None,
        })
    };

    // WHEN a write requires 301 refundable THEN it conflicts
    let res = save(301).await;
    assert!(
        matches!(res, Err(StoreError::Conflict { current: Some(_) })),
        "{res:?}"
    );
    // WHEN a write requires exactly 300 THEN it goes through
    save(300).await.unwrap();
}

#[tokio::test]
async fn a_failed_payment_condition_writes_neither_transaction_nor_event() {
    // GIVEN a stored payment at version 1
    let env = Env::new("atomic").await;
    let p = captured(10_000);
    env.payments.save(create(&p)).await.unwrap();

    // WHEN a change expecting version 7 carries a transaction and an event
    let txn = transaction(&p, TransactionType::Refund, 300, T0);
    let ev = event(&p, EventType::PaymentRefunded, T0);
    let mut next = p.clone();
    next.version = 8;
    let res = env
        .payments
        .save(PaymentChange {
            payment: next,
            expect: Expectation::Version {
                version: 7,
                status: p.status,
                no_pending: false,
                min_refundable: None,
            },
            transaction: Some(txn.clone()),
            event: Some(ev.clone()),
        })
        .await;

    // THEN it conflicts and nothing of it was written
    assert!(
        matches!(res, Err(StoreError::Conflict { current: Some(_) })),
        "{res:?}"
    );
    assert_eq!(
        env.payments.get_transaction(&p.id, &txn.id).await.unwrap(),
        None
    );
    assert_eq!(env.events.get_event(&ev.id).await.unwrap(), None);
    assert_eq!(env.payments.get_payment(&p.id).await.unwrap(), Some(p));
}

#[tokio::test]
async fn a_reused_event_id_cancels_the_whole_change() {
    // GIVEN an event already in the outbox
    let env = Env::new("evtdup").await;
    let p = captured(10_000);
    let ev = event(&p, EventType::PaymentCaptured, T0);
    env.payments
        .save(PaymentChange {
            event: Some(ev.clone()),
            ..create(&p)
        })
        .await
        .unwrap();

    // WHEN another change reuses its id
    let mut next = p.clone();
    next.version += 1;
    let txn = transaction(&p, TransactionType::Refund, 300, T0);
    let res = env
        .payments
        .save(PaymentChange {
            transaction: Some(txn.clone()),
            event: Some(ev),
            ..update(&p, &next)
        })
        .await;

    // THEN it conflicts without a current payment, and neither payment nor transaction moved
    assert!(
        matches!(res, Err(StoreError::Conflict { current: None })),
        "{res:?}"
    );
    assert_eq!(
        env.payments.get_payment(&p.id).await.unwrap(),
        Some(p.clone())
    );
    assert_eq!(
        env.payments.get_transaction(&p.id, &txn.id).await.unwrap(),
        None
    );
}

#[tokio::test]
async fn a_transaction_of_another_payment_is_refused() {
    // GIVEN two payments
    let env = Env::new("mismatch").await;
    let (a, b) = (captured(100), captured(200));

    // WHEN a change of one carries a transaction of the other
    let res = env
        .payments
        .save(PaymentChange {
            transaction: Some(transaction(&b, TransactionType::Refund, 50, T0)),
            ..create(&a)
        })
        .await;

    // THEN nothing is written
    assert!(matches!(res, Err(StoreError::Corrupt(_))), "{res:?}");
    assert_eq!(env.payments.get_payment(&a.id).await.unwrap(), None);
}

/// Two settlers (a query and the reconciler) record the same outcome of one operation — a
/// declined refund, which carries no event — over the same version, a moment apart. Through
/// a client whose tokens DynamoDB keeps (10 minutes), the second must meet the first one's
/// write through its condition, not be refused for reusing the first one's token; our own
/// resend of a write is still applied once; and a token mismatch is never taken as success
/// or as a refusal: it is "unknown", which the caller resolves by reading back.
#[tokio::test]
async fn a_second_settler_of_the_same_outcome_meets_the_condition_not_a_token_mismatch() {
    use paygate_aws::{
        dynamo::{
            faults::{client, DynamoFault, FaultPlan},
            DynamoPayments,
        },
        moto::{MotoServer, REGION},
    };
    use paygate_domain::{BankOutcome, EventId};
    let env = Env::new("tokens").await;
    let plan = FaultPlan::new();
    plan.honour_tokens();
    let moto = MotoServer::shared().unwrap();
    let faulty = client(&moto.endpoint, REGION, &plan, paygate_aws::retry_config());
    let payments = DynamoPayments::new(faulty, &env.names.payments, &env.names.events);
    // GIVEN a refund reserved on a captured payment
    let p = captured(10_000);
    payments.save(create(&p)).await.unwrap();
    let txn = transaction(&p, TransactionType::Refund, 2_500, T0);
    let planned = p
        .plan(TransactionType::Refund, Some(2_500), T0, Default::default())
        .unwrap();
    let reserved = p.reserve(planned, txn.id.clone(), T0);
    payments
        .save(PaymentChange {
            payment: reserved.clone(),
            expect: Expectation::Version {
                version: p.version,
                status: p.status,
                no_pending: true,
                min_refundable: Some(2_500),
            },
            transaction: Some(txn.clone()),
            event: None,
        })
        .await
        .unwrap();
    let declined = BankOutcome::Declined {
        code: "05".into(),
        message: "do not honour".into(),
        after_cutoff: false,
    };
    let settle = |at_ms: i64| {
        let s = reserved
            .settle(
                &txn,
                &declined,
                EventId::parse(&format!("evt_s{at_ms}")).unwrap(),
                T0.plus_millis(at_ms),
            )
            .unwrap();
        assert_eq!(s.event, None);
        PaymentChange {
            payment: s.payment,
            expect: Expectation::over(&reserved),
            transaction: Some(s.transaction),
            event: s.event,
        }
    };
    let (first, second) = (settle(1_000), settle(1_001));

    // WHEN the first settler writes, then the second
    payments.save(first.clone()).await.unwrap();
    let late = payments.save(second).await;

    // THEN the second is refused on its condition, with the payment as the first wrote it
    match late {
        Err(StoreError::Conflict { current: Some(now) }) => assert_eq!(*now, first.payment),
        other => panic!("expected a conflict with the stored payment, got {other:?}"),
    }
    // AND the first settler's resend of its own write is applied once and answers success
    payments.save(first.clone()).await.unwrap();
    assert_eq!(
        payments.get_payment(&p.id).await.unwrap(),
        Some(first.payment.clone())
    );
    // AND a token mismatch is neither a success nor a refusal: unknown, to be read back
    plan.script("TransactWriteItems", [Some(DynamoFault::TokenMismatch)]);
    let mismatch = payments.save(first).await;
    assert!(
        matches!(&mismatch, Err(StoreError::Unavailable(m)) if m.contains("IdempotentParameterMismatch")),
        "{mismatch:?}"
    );
}
