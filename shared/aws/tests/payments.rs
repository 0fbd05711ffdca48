//! DynamoPayments and DynamoEvents against moto: what is written reads back.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test crate: helpers may panic

mod common;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use paygate_domain::{
    ports::{Expectation, PaymentChange, PaymentReader, PaymentWriter},
    BankOutcome, EventType, PaymentStatus, TransactionStatus, TransactionType,
};

fn refundable_attr(item: &std::collections::HashMap<String, AttributeValue>) -> String {
    match item.get("refundable") {
        Some(AttributeValue::N(v)) => v.clone(),
        other => panic!("refundable is {other:?}"),
    }
}

#[tokio::test]
async fn payment_round_trips_without_and_with_a_pending_operation() {
    // GIVEN a captured payment with no pending operation, stored
    let env = Env::new("roundtrip").await;
    let p = captured(10_000);
    env.payments.save(create(&p)).await.unwrap();

    // WHEN it is read back THEN it is identical, and its stored refundable is derived
    assert_eq!(
        env.payments.get_payment(&p.id).await.unwrap(),
        Some(p.clone())
    );
    let raw = env.raw_payment(&p.id).await.unwrap();
    assert_eq!(refundable_attr(&raw), "10000");
    assert!(
        !raw.contains_key("pendingOp"),
        "pendingOp is absent when None"
    );

    // WHEN a refund is reserved on it
    let planned = p
        .plan(
            TransactionType::Refund,
            Some(2_500),
            T0,
            paygate_domain::StaleAfter::DEFAULT,
        )
        .unwrap();
    let reserved = p.reserve(planned, txn_id(), T0.plus_millis(10));
    env.payments.save(update(&p, &reserved)).await.unwrap();

    // THEN the pending operation round-trips too
    let back = env.payments.get_payment(&p.id).await.unwrap().unwrap();
    assert_eq!(back, reserved);
    assert!(back.pending.is_some());
    assert!(env
        .raw_payment(&p.id)
        .await
        .unwrap()
        .contains_key("pendingOp"));
}

#[tokio::test]
async fn refundable_attribute_follows_every_write() {
    // GIVEN a captured payment with a refund reserved
    let env = Env::new("refundable").await;
    let p = captured(10_000);
    env.payments.save(create(&p)).await.unwrap();
    let txn = transaction(&p, TransactionType::Refund, 4_000, T0);
    let planned = p
        .plan(
            TransactionType::Refund,
            Some(4_000),
            T0,
            paygate_domain::StaleAfter::DEFAULT,
        )
        .unwrap();
    let reserved = p.reserve(planned, txn.id.clone(), T0);
    env.payments.save(update(&p, &reserved)).await.unwrap();

    // WHEN the bank approves and the settlement is saved
    let outcome = BankOutcome::Approved {
        code: "00".into(),
        auth_code: None,
        rrn: None,
    };
    let s = reserved.settle(&txn, &outcome, event_id(), T0).unwrap();
    env.payments
        .save(PaymentChange {
            payment: s.payment.clone(),
            expect: Expectation::over(&reserved),
            transaction: Some(s.transaction),
            event: s.event,
        })
        .await
        .unwrap();

    // THEN the stored refundable is the new remainder, and the pending op is gone
    let raw = env.raw_payment(&p.id).await.unwrap();
    assert_eq!(refundable_attr(&raw), "6000");
    assert!(!raw.contains_key("pendingOp"));
    let back = env.payments.get_payment(&p.id).await.unwrap().unwrap();
    assert_eq!(back.status, PaymentStatus::PartiallyRefunded);
    assert_eq!(back.refunded_amount, 4_000);
}

#[tokio::test]
async fn transactions_round_trip_and_list_in_creation_order() {
    // GIVEN a payment and three transactions written out of creation order
    let env = Env::new("txns").await;
    let p = captured(10_000);
    env.payments.save(create(&p)).await.unwrap();
    let t_late = transaction(&p, TransactionType::Refund, 300, T0.plus_millis(3_000));
    let mut t_early = transaction(&p, TransactionType::Capture, 10_000, T0.plus_millis(1_000));
    t_early.status = TransactionStatus::Approved;
    t_early.bank_code = "00".into();
    t_early.auth_code = "AUTH01".into();
    t_early.rrn = "612300000001".into();
    t_early.bank_message = "Approved".into();
    // (a final transaction is settled when it became final)
    t_early.settled_at = Some(t_early.updated_at);
    let t_mid = transaction(&p, TransactionType::Refund, 200, T0.plus_millis(2_000));
    let mut read = p.clone();
    for t in [&t_late, &t_early, &t_mid] {
        let mut next = read.clone();
        next.version += 1;
        env.payments
            .save(PaymentChange {
                payment: next.clone(),
                expect: Expectation::over(&read),
                transaction: Some(t.clone()),
                event: None,
            })
            .await
            .unwrap();
        read = next;
    }
    // ... and a transaction of another payment
    let other = captured(500);
    env.payments
        .save(PaymentChange {
            transaction: Some(transaction(&other, TransactionType::Refund, 100, T0)),
            ..create(&other)
        })
        .await
        .unwrap();

    // WHEN they are listed THEN they come back whole, oldest first, only this payment's
    let listed = env.payments.list_transactions(&p.id).await.unwrap();
    assert_eq!(listed, vec![t_early.clone(), t_mid.clone(), t_late.clone()]);

    // AND one can be read by id; an unknown id reads as None
    assert_eq!(
        env.payments
            .get_transaction(&p.id, &t_early.id)
            .await
            .unwrap(),
        Some(t_early)
    );
    assert_eq!(
        env.payments
            .get_transaction(&p.id, &txn_id())
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        env.payments
            .get_transaction(&other.id, &t_mid.id)
            .await
            .unwrap(),
        None
    );
    assert_eq!(env.payments.get_payment(&payment_id()).await.unwrap(), None);
}

#[tokio::test]
async fn outbox_events_are_listed_until_marked_sent() {
    // GIVEN two payment changes with events, the later one written first
    let env = Env::new("outbox").await;
    let (a, b) = (captured(100), captured(200));
    let ev_late = event(&a, EventType::PaymentCaptured, T0.plus_millis(5_000));
    let ev_early = event(&b, EventType::PaymentCaptured, T0.plus_millis(1_000));
    for (p, ev) in [(&a, &ev_late), (&b, &ev_early)] {
        env.payments
            .save(PaymentChange {
                event: Some(ev.clone()),
                ..create(p)
            })
            .await
            .unwrap();
    }

    // WHEN the outbox is read THEN each event reads back whole, and unsent ones list oldest first
    assert_eq!(
        env.events.get_event(&ev_late.id).await.unwrap(),
        Some(ev_late.clone())
    );
    assert_eq!(
        env.events.list_unsent(10).await.unwrap(),
        vec![ev_early.clone(), ev_late.clone()]
    );
    assert_eq!(
        env.events.list_unsent(1).await.unwrap(),
        vec![ev_early.clone()]
    );

    // WHEN one is marked sent THEN it leaves the unsent list but stays readable
    assert!(env.events.mark_sent(&ev_early.id).await.unwrap());
    assert_eq!(
        env.events.list_unsent(10).await.unwrap(),
        vec![ev_late.clone()]
    );
    assert_eq!(
        env.events.get_event(&ev_early.id).await.unwrap(),
        Some(ev_early)
    );
    // AND marking an unknown event reports false without creating it
    let ghost = event_id();
    assert!(!env.events.mark_sent(&ghost).await.unwrap());
    assert_eq!(env.events.get_event(&ghost).await.unwrap(), None);
}

/// A copy of the item at (`pk`, `sk`) of `table` under the partition key `new_pk`, with
/// `attr` set to `bad` (or removed when `None`): an item no adapter can decode, in the same
/// sparse indexes as the original.
async fn garbled_copy(
    env: &Env,
    table: &str,
    key: &[(&str, &str)],
    new_key: (&str, &str),
    attr: &str,
    bad: Option<AttributeValue>,
) {
    let mut get = env
        .client
        .get_item()
        .table_name(table)
        .consistent_read(true);
    for (k, v) in key {
        get = get.key(*k, AttributeValue::S((*v).to_owned()));
    }
    let mut item = get.send().await.unwrap().item.unwrap();
    item.insert(
        new_key.0.to_owned(),
        AttributeValue::S(new_key.1.to_owned()),
    );
    if new_key.0 == "pk" && item.contains_key("id") {
        item.insert("id".to_owned(), AttributeValue::S(new_key.1.to_owned()));
    }
    match bad {
        Some(v) => item.insert(attr.to_owned(), v),
        None => item.remove(attr),
    };
    env.client
        .put_item()
        .table_name(table)
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn every_work_list_skips_an_undecodable_item_and_reports_its_key() {
    use paygate_domain::{
        ports::{DeliveryStore, Outbox, UnsettledPayments},
        webhook::{Delivery, EventFilter, WebhookEndpoint},
        Mode, Payment, WebhookEndpointId,
    };
    // GIVEN a pending payment (due for the reconciler) with an unsent event, a pending
    // delivery of that event
    let env = Env::new("undecodable").await;
    let p = Payment {
        status: PaymentStatus::Pending,
        auth_code: String::new(),
        ..authorized(4_000)
    };
    let ev = event(&p, EventType::PaymentAuthorized, T0);
    env.payments
        .save(PaymentChange {
            event: Some(ev.clone()),
            ..create(&p)
        })
        .await
        .unwrap();
    let endpoint = WebhookEndpoint {
        id: WebhookEndpointId::parse("whe_undecodable").unwrap(),
        merchant_id: merchant(),
        url: "https://merchant.example/hooks".into(),
        events: vec![EventFilter::All],
        mode: Mode::Test,
        enabled: true,
        description: String::new(),
        secret_id: "secret".into(),
        secret_version: 0,
        created_at: T0,
        updated_at: T0,
        disabled_reason: None,
    };
    let d = Delivery::new(&ev, &endpoint, T0);
    assert!(env.deliveries.create_delivery(&d).await.unwrap());
    // AND beside each, an item in the same index that does not decode
    let names = &env.names;
    garbled_copy(
        &env,
        &names.payments,
        &[("pk", p.id.as_str()), ("sk", "PAYMENT")],
        ("pk", "pay_garbled1"),
        "amount",
        None,
    )
    .await;
    garbled_copy(
        &env,
        &names.events,
        &[("id", ev.id.as_str())],
        ("id", "evt_garbled1"),
        "doc",
        Some(AttributeValue::S("{".into())),
    )
    .await;
    garbled_copy(
        &env,
        &names.deliveries,
        &[("pk", d.id.as_str()), ("sk", "DELIVERY")],
        ("pk", "dlv_garbled1"),
        "status",
        Some(AttributeValue::S("bogus".into())),
    )
    .await;

    // WHEN each work list is read
    let later = T0.plus_millis(60_000);
    let due = env.payments.list_due(later, 10).await.unwrap();
    let unsent = Outbox::list_unsent(&env.events, later, 10).await.unwrap();
    let overdue = env.deliveries.list_overdue(later, 10).await.unwrap();

    // THEN each lists the good item and reports the bad one by its key and attribute,
    // instead of failing the whole listing
    assert_eq!(due.items.len(), 1, "{due:?}");
    assert_eq!(due.items[0].payment, p);
    assert_eq!(unsent.items, vec![ev.clone()]);
    assert_eq!(overdue.items, vec![d.clone()]);
    for (listed, key, attr) in [
        (&due.undecodable, "pay_garbled1", "amount"),
        (&unsent.undecodable, "evt_garbled1", "doc"),
        (&overdue.undecodable, "dlv_garbled1", "status"),
    ] {
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!(listed[0].key, key);
        assert!(listed[0].reason.contains(attr), "{listed:?}");
    }
    // AND a bad item takes no place in the limit
    assert_eq!(
        env.payments.list_due(later, 1).await.unwrap().items.len(),
        1
    );
}

/// A keyed reservation binds its `Idempotency-Key` in the same transaction: both are
/// written, or — when the key is no longer the request's — neither. A bound key is then
/// never released nor taken over, and its settled answer is stored by whoever holds it.
#[tokio::test]
async fn a_keyed_reservation_binds_its_key_atomically() {
    use paygate_aws::dynamo::{DynamoIdempotency, DynamoPayments};
    use paygate_domain::{
        idempotency::{
            BeginOutcome, Binding, Fingerprint, IdempotencyKey, IdempotencyRecord,
            IdempotencyStore, KeyClaim, RecordState, ScopedKey, StoredResponse, LEASE_MS,
        },
        Mode, StoreError,
    };
    let env = Env::new("bound").await;
    let payments = DynamoPayments::new(env.client.clone(), &env.names.payments, &env.names.events)
        .with_idempotency_table(&env.names.idempotency);
    let keys = DynamoIdempotency::new(env.client.clone(), &env.names.idempotency);
    let p = captured(10_000);
    payments.save(create(&p)).await.unwrap();
    let key = ScopedKey {
        merchant_id: p.merchant_id.clone(),
        mode: Mode::Test,
        key: IdempotencyKey::parse(b"refund-1").unwrap(),
    };
    let lock = IdempotencyRecord::lock(key.clone(), Fingerprint::new("fp"), "o1".into(), T0);
    assert_eq!(keys.begin(&lock, T0).await.unwrap(), BeginOutcome::Acquired);
    let reservation = |owner: &str| {
        let txn = transaction(&p, TransactionType::Refund, 2_500, T0);
        let planned = p
            .plan(TransactionType::Refund, Some(2_500), T0, Default::default())
            .unwrap();
        let change = PaymentChange {
            payment: p.reserve(planned, txn.id.clone(), T0),
            expect: Expectation::Version {
                version: p.version,
                status: p.status,
                no_pending: true,
                min_refundable: Some(2_500),
            },
            transaction: Some(txn),
            event: None,
        };
        let claim = KeyClaim {
            key: key.clone(),
            owner: owner.to_owned(),
        };
        (change, claim)
    };

    // Another owner's claim: refused, and nothing of the reservation is written.
    let (change, claim) = reservation("o2");
    assert!(matches!(
        payments.save_bound(change, &claim).await,
        Err(StoreError::KeyClaimLost)
    ));
    assert_eq!(payments.get_payment(&p.id).await.unwrap(), Some(p.clone()));
    assert_eq!(keys.get(&key).await.unwrap().unwrap().bound, None);

    // The holder's claim: the reservation and the binding, together.
    let (change, claim) = reservation("o1");
    let txn_id = change.transaction.as_ref().unwrap().id.clone();
    payments.save_bound(change, &claim).await.unwrap();
    assert!(payments
        .get_payment(&p.id)
        .await
        .unwrap()
        .unwrap()
        .pending
        .is_some());
    let bound = keys.get(&key).await.unwrap().unwrap();
    assert_eq!(
        bound.bound,
        Some(Binding {
            payment_id: p.id.clone(),
            transaction_id: txn_id.clone(),
        })
    );

    // Never released, never taken over after the lease; its settled answer is stored.
    assert!(!keys.release(&key, "o1").await.unwrap());
    let late = T0.plus_millis(LEASE_MS + 1);
    let retake = IdempotencyRecord::lock(key.clone(), Fingerprint::new("fp"), "o3".into(), late);
    assert_eq!(
        keys.begin(&retake, late).await.unwrap(),
        BeginOutcome::Existing(bound.clone())
    );
    let answer = StoredResponse {
        status: 200,
        body: "{}".into(),
    };
    let other = paygate_domain::TransactionId::parse("txn_other").unwrap();
    assert!(!keys.complete_bound(&key, &other, &answer).await.unwrap());
    assert!(keys.complete_bound(&key, &txn_id, &answer).await.unwrap());
    let done = keys.get(&key).await.unwrap().unwrap();
    assert!(
        matches!(done.state, RecordState::Completed { ref response, .. } if *response == answer)
    );
    assert_eq!(done.bound, bound.bound);
}

/// A keyed operation's commit stores the key's answer in its own transaction: both are
/// written, or — when the key is not in flight and bound to the transaction — neither.
#[tokio::test]
async fn a_keyed_commit_stores_the_keys_answer_atomically() {
    use paygate_aws::dynamo::{DynamoIdempotency, DynamoPayments};
    use paygate_domain::{
        idempotency::{
            BeginOutcome, Fingerprint, IdempotencyKey, IdempotencyRecord, IdempotencyStore,
            KeyAnswer, KeyClaim, RecordState, ScopedKey, StoredResponse,
        },
        Mode, StoreError, TransactionStatus,
    };
    let env = Env::new("answered").await;
    let payments = DynamoPayments::new(env.client.clone(), &env.names.payments, &env.names.events)
        .with_idempotency_table(&env.names.idempotency);
    let keys = DynamoIdempotency::new(env.client.clone(), &env.names.idempotency);
    let p = captured(10_000);
    payments.save(create(&p)).await.unwrap();
    let key = ScopedKey {
        merchant_id: p.merchant_id.clone(),
        mode: Mode::Test,
        key: IdempotencyKey::parse(b"refund-1").unwrap(),
    };
    let lock = IdempotencyRecord::lock(key.clone(), Fingerprint::new("fp"), "o1".into(), T0);
    assert_eq!(keys.begin(&lock, T0).await.unwrap(), BeginOutcome::Acquired);
    // The keyed reservation.
    let txn = transaction(&p, TransactionType::Refund, 2_500, T0);
    let planned = p
        .plan(TransactionType::Refund, Some(2_500), T0, Default::default())
        .unwrap();
    let reserved = p.reserve(planned, txn.id.clone(), T0);
    let claim = KeyClaim {
        key: key.clone(),
        owner: "o1".into(),
    };
    payments
        .save_bound(
            PaymentChange {
                payment: reserved.clone(),
                expect: Expectation::Version {
                    version: p.version,
                    status: p.status,
                    no_pending: true,
                    min_refundable: Some(2_500),
                },
                transaction: Some(txn.clone()),
                event: None,
            },
            &claim,
        )
        .await
        .unwrap();
    // Its commit.
    let settled = paygate_domain::Payment {
        version: reserved.version + 1,
        pending: None,
        refunded_amount: 2_500,
        ..reserved.clone()
    };
    let commit = PaymentChange {
        payment: settled.clone(),
        expect: Expectation::over(&reserved),
        transaction: Some(paygate_domain::Transaction {
            status: TransactionStatus::Approved,
            ..txn.clone()
        }),
        event: None,
    };
    let answer = |txn_id: &paygate_domain::TransactionId| KeyAnswer {
        key: key.clone(),
        transaction_id: txn_id.clone(),
        response: StoredResponse {
            status: 200,
            body: r#"{"payment":{}}"#.into(),
        },
    };

    // An answer for another transaction: refused, and the commit is not written either.
    let other = paygate_domain::TransactionId::parse("txn_other").unwrap();
    assert!(matches!(
        payments
            .save_answered(commit.clone(), &answer(&other))
            .await,
        Err(StoreError::KeyClaimLost)
    ));
    assert_eq!(
        payments.get_payment(&p.id).await.unwrap(),
        Some(reserved.clone())
    );
    assert!(matches!(
        keys.get(&key).await.unwrap().unwrap().state,
        RecordState::InFlight { .. }
    ));

    // Its own transaction's answer: the commit and the answer, together.
    assert!(payments
        .save_answered(commit.clone(), &answer(&txn.id))
        .await
        .unwrap());
    assert_eq!(payments.get_payment(&p.id).await.unwrap(), Some(settled));
    let done = keys.get(&key).await.unwrap().unwrap();
    assert!(
        matches!(done.state, RecordState::Completed { ref response, .. }
        if *response == answer(&txn.id).response)
    );

    // Without the idempotency table: the change alone, and the caller is told.
    let plain = DynamoPayments::new(env.client.clone(), &env.names.payments, &env.names.events);
    let q = captured(5_000);
    plain.save(create(&q)).await.unwrap();
    let touched = PaymentChange {
        payment: paygate_domain::Payment {
            version: q.version + 1,
            ..q.clone()
        },
        expect: Expectation::over(&q),
        transaction: None,
        event: None,
    };
    assert!(!plain
        .save_answered(touched, &answer(&txn.id))
        .await
        .unwrap());
}

#[tokio::test]
async fn a_deleted_payment_leaves_the_unsettled_index_and_a_deferral_never_recreates_it() {
    use paygate_domain::{ports::UnsettledPayments, Payment};
    // GIVEN a pending payment, due for the reconciler
    let env = Env::new("deleted").await;
    let p = Payment {
        status: PaymentStatus::Pending,
        ..authorized(4_000)
    };
    env.payments.save(create(&p)).await.unwrap();
    let later = T0.plus_millis(60_000);
    let listed = env.payments.list_due(later, 10).await.unwrap().items;
    assert_eq!(listed.len(), 1);
    assert!(env.payments.defer(&p, 1, later).await.unwrap());

    // WHEN its item is deleted
    env.client
        .delete_item()
        .table_name(&env.names.payments)
        .key("pk", AttributeValue::S(p.id.to_string()))
        .key("sk", AttributeValue::S("PAYMENT".into()))
        .send()
        .await
        .unwrap();

    // THEN the index no longer lists it (its entry was the item's own attributes)
    assert!(env
        .payments
        .list_due(T0.plus_millis(3_600_000), 10)
        .await
        .unwrap()
        .items
        .is_empty());
    // AND a deferral from a reconciler that listed it earlier writes nothing
    assert!(!env.payments.defer(&p, 2, later).await.unwrap());
    assert_eq!(env.raw_payment(&p.id).await, None);
}
