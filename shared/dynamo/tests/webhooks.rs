//! Webhook endpoints, deliveries, attempts and the outbox port against moto.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test crate: helpers may panic

mod common;

use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use paygate_domain::{
    ports::{DeliveryStore, EndpointReader, Expectation, Outbox, PaymentChange, PaymentWriter},
    webhook::{
        delivery_id, Attempt, AttemptError, Delivery, DeliveryStatus, EventFilter, RetrySchedule,
        WebhookEndpoint, WebhookEndpointId,
    },
    EventId, EventRecord, EventType, MerchantId, Mode, StoreError, Timestamp,
};
use paygate_dynamo::unsent_shard;

type Item = HashMap<String, AttributeValue>;

const SEC: i64 = 1_000;
const RETENTION_SECS: i64 = 90 * 86_400;

fn endpoint_id(label: &str) -> WebhookEndpointId {
    WebhookEndpointId::parse(&format!("whe_{label}{}", fresh())).unwrap()
}

fn endpoint(merchant: &MerchantId, id: &WebhookEndpointId) -> WebhookEndpoint {
    WebhookEndpoint {
        id: id.clone(),
        merchant_id: merchant.clone(),
        url: "https://merchant.example/hooks".into(),
        events: vec![
            EventFilter::Only(EventType::PaymentCaptured),
            EventFilter::Only(EventType::PaymentRefunded),
        ],
        mode: Mode::Test,
        enabled: true,
        description: "main shop".into(),
        secret_id: format!("paygate/webhooks/{id}"),
        created_at: T0,
        updated_at: T0,
    }
}

/// A new pending delivery of a fresh event to `endpoint`, created (and due) at `at`.
fn delivery(endpoint: &WebhookEndpointId, at: Timestamp) -> Delivery {
    delivery_of(&event_id(), endpoint, at)
}

fn delivery_of(event: &EventId, endpoint: &WebhookEndpointId, at: Timestamp) -> Delivery {
    Delivery {
        id: delivery_id(event, endpoint),
        merchant_id: merchant(),
        endpoint_id: endpoint.clone(),
        event_id: event.clone(),
        event_type: EventType::PaymentCaptured,
        mode: Mode::Test,
        status: DeliveryStatus::Pending,
        attempts_made: 0,
        next_attempt_at: Some(at),
        created_at: at,
        updated_at: at,
    }
}

fn attempt(d: &Delivery, number: u32, at: Timestamp, status_code: u16) -> Attempt {
    Attempt {
        delivery_id: d.id.clone(),
        number,
        at,
        duration_ms: 120,
        status_code: Some(status_code),
        error: None,
        response_body: format!("answer {number}"),
        succeeded: Attempt::is_success(Some(status_code)),
    }
}

/// Records attempt `attempts_made + 1` of `d` with `status_code`; returns the delivery after.
async fn record(
    env: &Env,
    d: &Delivery,
    at: Timestamp,
    status_code: u16,
    schedule: &RetrySchedule,
) -> Delivery {
    let a = attempt(d, d.attempts_made + 1, at, status_code);
    let after = d.after_attempt(&a, schedule).delivery;
    assert!(env.deliveries.record_attempt(&a, &after).await.unwrap());
    after
}

/// Every item of one delivery's partition, raw.
async fn raw_partition(env: &Env, pk: &str) -> Vec<Item> {
    env.client
        .query()
        .table_name(&env.names.deliveries)
        .key_condition_expression("pk = :pk")
        .expression_attribute_values(":pk", AttributeValue::S(pk.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .items
        .unwrap_or_default()
}

fn sk(item: &Item) -> &str {
    match item.get("sk") {
        Some(AttributeValue::S(v)) => v,
        other => panic!("sk is {other:?}"),
    }
}

fn num(item: &Item, name: &str) -> Option<i64> {
    match item.get(name) {
        Some(AttributeValue::N(v)) => Some(v.parse().unwrap()),
        None => None,
        other => panic!("{name} is {other:?}"),
    }
}

// --- endpoints -----------------------------------------------------------------------------

#[tokio::test]
async fn endpoints_round_trip_list_per_merchant_and_write_conditionally() {
    // GIVEN two endpoints of one merchant (stored out of order) and one of another
    let env = Env::new("endpoints").await;
    let m = merchant();
    let other = MerchantId::parse("mch_other").unwrap();
    let b = endpoint(&m, &WebhookEndpointId::parse("whe_b").unwrap());
    let a = WebhookEndpoint {
        events: vec![EventFilter::All],
        mode: Mode::Live,
        enabled: false,
        description: String::new(),
        ..endpoint(&m, &WebhookEndpointId::parse("whe_a").unwrap())
    };
    let x = endpoint(&other, &WebhookEndpointId::parse("whe_a").unwrap());
    for e in [&b, &a, &x] {
        env.endpoints.put_endpoint(e, true).await.unwrap();
    }

    // THEN each reads back whole, and a merchant lists only its own, by id
    assert_eq!(
        env.endpoints.get_endpoint(&m, &a.id).await.unwrap(),
        Some(a.clone())
    );
    assert_eq!(
        env.endpoints.get_endpoint(&other, &x.id).await.unwrap(),
        Some(x.clone())
    );
    assert_eq!(
        env.endpoints.list_endpoints(&m).await.unwrap(),
        vec![a.clone(), b.clone()]
    );
    assert_eq!(
        env.endpoints.get_endpoint(&other, &b.id).await.unwrap(),
        None,
        "another merchant's endpoint is not found"
    );
    // AND events are stored as a list of strings
    let raw = env
        .client
        .get_item()
        .table_name(&env.names.webhook_endpoints)
        .key("merchantId", AttributeValue::S(m.to_string()))
        .key("endpointId", AttributeValue::S(b.id.to_string()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(
        raw.get("events"),
        Some(&AttributeValue::L(vec![
            AttributeValue::S("payment.captured".into()),
            AttributeValue::S("payment.refunded".into()),
        ]))
    );
    assert_eq!(
        raw.get("secretId"),
        Some(&AttributeValue::S(b.secret_id.clone()))
    );

    // WHEN an endpoint is created again THEN it already exists and is unchanged
    let changed = WebhookEndpoint {
        url: "https://elsewhere.example/".into(),
        ..b.clone()
    };
    assert!(matches!(
        env.endpoints.put_endpoint(&changed, true).await,
        Err(StoreError::AlreadyExists)
    ));
    assert_eq!(
        env.endpoints.get_endpoint(&m, &b.id).await.unwrap(),
        Some(b.clone())
    );
    // AND without expect_absent it replaces it
    env.endpoints.put_endpoint(&changed, false).await.unwrap();
    assert_eq!(
        env.endpoints.get_endpoint(&m, &b.id).await.unwrap(),
        Some(changed.clone())
    );

    // WHEN updated over the version read THEN it goes through
    let v2 = WebhookEndpoint {
        enabled: false,
        updated_at: T0.plus_millis(SEC),
        ..changed.clone()
    };
    env.endpoints
        .update_endpoint(&v2, changed.updated_at)
        .await
        .unwrap();
    assert_eq!(
        env.endpoints.get_endpoint(&m, &b.id).await.unwrap(),
        Some(v2.clone())
    );
    // AND an update over a stale version conflicts and changes nothing
    let stale = WebhookEndpoint {
        url: "https://stale.example/".into(),
        updated_at: T0.plus_millis(2 * SEC),
        ..changed.clone()
    };
    assert!(matches!(
        env.endpoints
            .update_endpoint(&stale, changed.updated_at)
            .await,
        Err(StoreError::Conflict { current: None })
    ));
    assert_eq!(
        env.endpoints.get_endpoint(&m, &b.id).await.unwrap(),
        Some(v2.clone())
    );
    // AND an update of an endpoint that does not exist conflicts without creating it
    let ghost = endpoint(&m, &WebhookEndpointId::parse("whe_ghost").unwrap());
    assert!(matches!(
        env.endpoints
            .update_endpoint(&ghost, ghost.updated_at)
            .await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(
        env.endpoints.get_endpoint(&m, &ghost.id).await.unwrap(),
        None
    );

    // WHEN deleted THEN true once, then false; the other merchant's namesake stays
    assert!(env.endpoints.delete_endpoint(&m, &a.id).await.unwrap());
    assert!(!env.endpoints.delete_endpoint(&m, &a.id).await.unwrap());
    assert_eq!(env.endpoints.list_endpoints(&m).await.unwrap(), vec![v2]);
    assert_eq!(
        env.endpoints.get_endpoint(&other, &x.id).await.unwrap(),
        Some(x)
    );
}

// --- deliveries ----------------------------------------------------------------------------

#[tokio::test]
async fn a_delivery_is_created_once_and_reads_back_with_its_retention() {
    // GIVEN a new delivery
    let env = Env::new("create").await;
    let d = delivery(&endpoint_id("c"), T0);

    // WHEN created twice THEN only the first creates it, and the second changes nothing
    assert!(env.deliveries.create_delivery(&d).await.unwrap());
    let other_version = Delivery {
        event_type: EventType::PaymentRefunded,
        ..d.clone()
    };
    assert!(!env
        .deliveries
        .create_delivery(&other_version)
        .await
        .unwrap());
    assert_eq!(
        env.deliveries.get_delivery(&d.id).await.unwrap(),
        Some(d.clone())
    );
    assert_eq!(
        env.deliveries
            .get_delivery(&delivery(&endpoint_id("none"), T0).id)
            .await
            .unwrap(),
        None
    );

    // AND the stored item expires 90 days after creation and is in the `due` index
    let items = raw_partition(&env, d.id.as_str()).await;
    assert_eq!(items.len(), 1);
    assert_eq!(
        num(&items[0], "expiresAt"),
        Some(T0.unix_seconds() + RETENTION_SECS)
    );
    assert_eq!(
        items[0].get("dueShard"),
        Some(&AttributeValue::S("0".into()))
    );

    // WHEN an attempt is recorded THEN its item expires with the delivery
    record(
        &env,
        &d,
        T0.plus_millis(5 * SEC),
        500,
        &RetrySchedule::default(),
    )
    .await;
    let items = raw_partition(&env, d.id.as_str()).await;
    let att = items.iter().find(|i| sk(i) == "ATTEMPT#0001").unwrap();
    assert_eq!(
        num(att, "expiresAt"),
        Some(T0.unix_seconds() + RETENTION_SECS)
    );
}

#[tokio::test]
async fn claim_attempt_needs_pending_the_previous_count_and_no_running_lease() {
    // GIVEN a new pending delivery
    let env = Env::new("claim").await;
    let d = delivery(&endpoint_id("cl"), T0);
    env.deliveries.create_delivery(&d).await.unwrap();
    let at = |s: i64| T0.plus_millis(s * SEC);
    let claim = |n: u32, lease: i64, now: i64| {
        let id = d.id.clone();
        let deliveries = env.deliveries.clone();
        async move {
            deliveries
                .claim_attempt(&id, n, at(lease), at(now))
                .await
                .unwrap()
        }
    };

    // THEN only attempt 1 can be claimed
    assert!(!claim(2, 30, 0).await, "attempt 2 before attempt 1");
    assert!(!claim(0, 30, 0).await, "there is no attempt 0");
    // WHEN attempt 1 is claimed until +30 s THEN that works once
    assert!(claim(1, 30, 0).await);
    let raw = raw_partition(&env, d.id.as_str()).await;
    assert_eq!(num(&raw[0], "leaseUntil"), Some(at(30).unix_millis()));
    // AND a second claim while the lease runs fails (also at its last millisecond)
    assert!(!claim(1, 60, 10).await);
    assert!(!claim(1, 60, 30).await, "a lease runs until its end");
    // AND after it expired someone else may claim it
    assert!(claim(1, 90, 31).await);
    assert!(!claim(1, 120, 40).await, "the new lease holds");

    // WHEN attempt 1 is recorded (failed)
    let after = record(&env, &d, at(32), 503, &RetrySchedule::default()).await;
    assert_eq!(after.status, DeliveryStatus::Pending);

    // THEN attempt 1 can never be claimed again, even with the lease long over
    assert!(!claim(1, 400, 300).await);
    // AND attempt 2 can be claimed at once: recording dropped the lease (which ran to +90 s)
    assert!(!raw_partition(&env, d.id.as_str())
        .await
        .iter()
        .any(|i| i.contains_key("leaseUntil")));
    assert!(claim(2, 100, 33).await);

    // WHEN attempt 2 succeeds THEN nothing can be claimed any more
    record(&env, &after, at(34), 200, &RetrySchedule::default()).await;
    assert!(
        !claim(3, 500, 400).await,
        "a succeeded delivery is not claimable"
    );
    assert!(!claim(2, 500, 400).await);

    // AND a delivery that does not exist cannot be claimed (nor is it created)
    let ghost = delivery(&endpoint_id("ghost"), T0);
    assert!(!env
        .deliveries
        .claim_attempt(&ghost.id, 1, at(30), at(0))
        .await
        .unwrap());
    assert!(raw_partition(&env, ghost.id.as_str()).await.is_empty());
}

#[tokio::test]
async fn record_attempt_writes_each_attempt_once_and_advances_the_delivery() {
    // GIVEN a new pending delivery
    let env = Env::new("record").await;
    let schedule = RetrySchedule::default();
    let d = delivery(&endpoint_id("rec"), T0);
    env.deliveries.create_delivery(&d).await.unwrap();

    // WHEN attempt 2 is recorded before attempt 1 THEN nothing is written
    let a2 = attempt(&d, 2, T0, 500);
    let after2 = Delivery {
        attempts_made: 2,
        ..d.clone()
    };
    assert!(!env.deliveries.record_attempt(&a2, &after2).await.unwrap());
    assert_eq!(raw_partition(&env, d.id.as_str()).await.len(), 1);

    // WHEN attempt 1 (a time-out) is recorded
    let a1 = Attempt {
        status_code: None,
        error: Some(AttemptError::Timeout),
        response_body: String::new(),
        duration_ms: 10_000,
        succeeded: false,
        ..attempt(&d, 1, T0.plus_millis(SEC), 0)
    };
    let after1 = d.after_attempt(&a1, &schedule).delivery;
    assert!(env.deliveries.record_attempt(&a1, &after1).await.unwrap());

    // THEN the delivery is as decided: pending, 1 attempt, next due 30 s later
    let back = env.deliveries.get_delivery(&d.id).await.unwrap().unwrap();
    assert_eq!(back, after1);
    assert_eq!(back.attempts_made, 1);
    assert_eq!(back.next_attempt_at, Some(a1.at.plus_millis(30 * SEC)));
    assert_eq!(
        env.deliveries.list_attempts(&d.id).await.unwrap(),
        vec![a1.clone()]
    );

    // WHEN the same attempt is recorded again (another worker, other outcome)
    let dup = attempt(&d, 1, T0.plus_millis(2 * SEC), 200);
    let dup_after = d.after_attempt(&dup, &schedule).delivery;
    // THEN it is refused and nothing changes: still one attempt item, the first one
    assert!(!env
        .deliveries
        .record_attempt(&dup, &dup_after)
        .await
        .unwrap());
    assert_eq!(
        env.deliveries.list_attempts(&d.id).await.unwrap(),
        vec![a1.clone()]
    );
    let attempt_items: Vec<_> = raw_partition(&env, d.id.as_str())
        .await
        .into_iter()
        .filter(|i| sk(i).starts_with("ATTEMPT#"))
        .collect();
    assert_eq!(attempt_items.len(), 1);
    assert_eq!(
        env.deliveries.get_delivery(&d.id).await.unwrap(),
        Some(after1.clone())
    );

    // WHEN attempt 2 succeeds THEN the delivery is final and out of the `due` index
    let final_ = record(&env, &after1, T0.plus_millis(40 * SEC), 204, &schedule).await;
    let back = env.deliveries.get_delivery(&d.id).await.unwrap().unwrap();
    assert_eq!(back, final_);
    assert_eq!(back.status, DeliveryStatus::Succeeded);
    assert_eq!(back.next_attempt_at, None);
    let raw = raw_partition(&env, d.id.as_str()).await;
    let item = raw.iter().find(|i| sk(i) == "DELIVERY").unwrap();
    assert!(!item.contains_key("dueShard"));
    assert!(!item.contains_key("nextAttemptAt"));

    // AND a further attempt on the succeeded delivery is refused
    let a3 = attempt(&final_, 3, T0.plus_millis(50 * SEC), 200);
    let after3 = final_.after_attempt(&a3, &schedule).delivery;
    assert!(!env.deliveries.record_attempt(&a3, &after3).await.unwrap());
    assert_eq!(env.deliveries.list_attempts(&d.id).await.unwrap().len(), 2);
}

#[tokio::test]
async fn an_existing_attempt_item_blocks_the_whole_record() {
    // GIVEN a pending delivery whose attempt-1 item exists already (a stray write)
    let env = Env::new("stray").await;
    let d = delivery(&endpoint_id("st"), T0);
    env.deliveries.create_delivery(&d).await.unwrap();
    env.client
        .put_item()
        .table_name(&env.names.deliveries)
        .item("pk", AttributeValue::S(d.id.to_string()))
        .item("sk", AttributeValue::S("ATTEMPT#0001".into()))
        .send()
        .await
        .unwrap();

    // WHEN attempt 1 is recorded THEN it is refused and the delivery is untouched
    let a1 = attempt(&d, 1, T0, 200);
    let after = d.after_attempt(&a1, &RetrySchedule::default()).delivery;
    assert!(!env.deliveries.record_attempt(&a1, &after).await.unwrap());
    assert_eq!(
        env.deliveries.get_delivery(&d.id).await.unwrap(),
        Some(d.clone())
    );
}

#[tokio::test]
async fn attempts_list_by_number_past_nine() {
    // GIVEN a delivery that failed 11 times under a long schedule, and another delivery
    let env = Env::new("attempts").await;
    let schedule = RetrySchedule::parse(&["1s"; 12].join(",")).unwrap();
    let ep = endpoint_id("att");
    let mut d = delivery(&ep, T0);
    env.deliveries.create_delivery(&d).await.unwrap();
    let mut expected = Vec::new();
    for i in 1..=11 {
        let at = T0.plus_millis(i * SEC);
        expected.push(attempt(&d, d.attempts_made + 1, at, 500));
        d = record(&env, &d, at, 500, &schedule).await;
    }
    let other = delivery(&ep, T0);
    env.deliveries.create_delivery(&other).await.unwrap();
    record(&env, &other, T0, 200, &schedule).await;

    // WHEN its attempts are listed THEN they come 1..=11 in order, and only its own
    let listed = env.deliveries.list_attempts(&d.id).await.unwrap();
    assert_eq!(
        listed.iter().map(|a| a.number).collect::<Vec<_>>(),
        (1..=11).collect::<Vec<_>>()
    );
    assert_eq!(listed, expected);
    assert_eq!(d.attempts_made, 11);
    assert_eq!(
        env.deliveries.list_attempts(&other.id).await.unwrap().len(),
        1
    );
    assert!(env
        .deliveries
        .list_attempts(&delivery(&ep, T0).id)
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn only_pending_deliveries_are_overdue() {
    // GIVEN deliveries: one due at T0, one due at T0+60 s, one succeeded, one failed for good
    let env = Env::new("overdue").await;
    let ep = endpoint_id("due");
    let one_retry = RetrySchedule::parse("1s").unwrap();
    let early = delivery(&ep, T0);
    let late = delivery(&ep, T0.plus_millis(60 * SEC));
    let ok = delivery(&ep, T0.plus_millis(-10 * SEC));
    let bad = delivery(&ep, T0.plus_millis(-20 * SEC));
    for d in [&early, &late, &ok, &bad] {
        assert!(env.deliveries.create_delivery(d).await.unwrap());
    }
    let ok_after = record(&env, &ok, T0.plus_millis(-9 * SEC), 200, &one_retry).await;
    let bad_1 = record(&env, &bad, T0.plus_millis(-19 * SEC), 500, &one_retry).await;
    assert_eq!(bad_1.status, DeliveryStatus::Pending);
    let bad_2 = record(&env, &bad_1, T0.plus_millis(-17 * SEC), 500, &one_retry).await;
    assert_eq!(bad_2.status, DeliveryStatus::Failed);
    assert_eq!(ok_after.status, DeliveryStatus::Succeeded);

    // WHEN overdue deliveries are listed at T0+30 s THEN only the early one is
    let ids = |v: Vec<Delivery>| v.into_iter().map(|d| d.id).collect::<Vec<_>>();
    let at30 = T0.plus_millis(30 * SEC);
    assert_eq!(
        ids(env.deliveries.list_overdue(at30, 10).await.unwrap()),
        vec![early.id.clone()]
    );
    // AND the bound is inclusive, oldest due first, and capped
    let at60 = T0.plus_millis(60 * SEC);
    assert_eq!(
        ids(env.deliveries.list_overdue(at60, 10).await.unwrap()),
        vec![early.id.clone(), late.id.clone()]
    );
    assert_eq!(
        ids(env.deliveries.list_overdue(at60, 1).await.unwrap()),
        vec![early.id.clone()]
    );
    assert!(env
        .deliveries
        .list_overdue(at60, 0)
        .await
        .unwrap()
        .is_empty());
    assert!(env
        .deliveries
        .list_overdue(T0.plus_millis(-1), 10)
        .await
        .unwrap()
        .is_empty());
    // AND what is listed is the delivery as stored
    assert_eq!(
        env.deliveries.list_overdue(at30, 10).await.unwrap(),
        vec![early.clone()]
    );

    // WHEN the early one's attempt fails at +31 s THEN it is due again 30 s after that
    let early_1 = record(
        &env,
        &early,
        T0.plus_millis(31 * SEC),
        500,
        &RetrySchedule::default(),
    )
    .await;
    assert_eq!(early_1.next_attempt_at, Some(T0.plus_millis(61 * SEC)));
    assert_eq!(
        ids(env.deliveries.list_overdue(at60, 10).await.unwrap()),
        vec![late.id.clone()]
    );
    assert_eq!(
        env.deliveries
            .list_overdue(T0.plus_millis(3_600 * SEC), 10)
            .await
            .unwrap(),
        vec![late, early_1]
    );
}

#[tokio::test]
async fn endpoint_history_is_newest_first_filtered_and_paged() {
    // GIVEN five deliveries to one endpoint a second apart, of which #1 and #3 succeeded,
    // and one delivery to another endpoint
    let env = Env::new("history").await;
    let ep = endpoint_id("hist");
    let other_ep = endpoint_id("other");
    let mut all = Vec::new();
    for i in 0..5 {
        let d = delivery(&ep, T0.plus_millis(i * SEC));
        env.deliveries.create_delivery(&d).await.unwrap();
        all.push(d);
    }
    for i in [1, 3] {
        all[i] = record(
            &env,
            &all[i],
            T0.plus_millis(10 * SEC),
            200,
            &RetrySchedule::default(),
        )
        .await;
    }
    env.deliveries
        .create_delivery(&delivery(&other_ep, T0.plus_millis(100 * SEC)))
        .await
        .unwrap();
    let newest_first: Vec<Delivery> = all.iter().rev().cloned().collect();

    // WHEN listed two at a time THEN the pages are [4,3], [2,1], [0] and then no cursor
    let (p1, c1) = env
        .deliveries
        .list_by_endpoint(&ep, None, 2, None)
        .await
        .unwrap();
    assert_eq!(p1, newest_first[0..2].to_vec());
    let c1 = c1.expect("a second page");
    let (p2, c2) = env
        .deliveries
        .list_by_endpoint(&ep, None, 2, Some(c1.clone()))
        .await
        .unwrap();
    assert_eq!(p2, newest_first[2..4].to_vec());
    let (p3, c3) = env
        .deliveries
        .list_by_endpoint(&ep, None, 2, c2)
        .await
        .unwrap();
    assert_eq!(p3, newest_first[4..5].to_vec());
    assert_eq!(c3, None);
    // AND one big page is the whole history
    let (whole, end) = env
        .deliveries
        .list_by_endpoint(&ep, None, 50, None)
        .await
        .unwrap();
    assert_eq!(whole, newest_first);
    assert_eq!(end, None);

    // WHEN filtered by status THEN only those come, newest first, across pages
    let collect = |status: DeliveryStatus, limit: usize| {
        let deliveries = env.deliveries.clone();
        let ep = ep.clone();
        async move {
            let mut pages = Vec::new();
            let mut cursor = None;
            loop {
                let (page, next) = deliveries
                    .list_by_endpoint(&ep, Some(status), limit, cursor)
                    .await
                    .unwrap();
                assert!(page.len() <= limit);
                pages.push(page);
                match next {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
                assert!(pages.len() < 10, "paging does not end");
            }
            pages
        }
    };
    let succeeded = collect(DeliveryStatus::Succeeded, 2).await;
    assert_eq!(succeeded[0], vec![all[3].clone(), all[1].clone()]);
    assert_eq!(succeeded.concat(), vec![all[3].clone(), all[1].clone()]);
    let pending = collect(DeliveryStatus::Pending, 2).await;
    assert_eq!(pending[0], vec![all[4].clone(), all[2].clone()]);
    assert_eq!(
        pending.concat(),
        vec![all[4].clone(), all[2].clone(), all[0].clone()]
    );
    assert!(collect(DeliveryStatus::Failed, 2).await.concat().is_empty());

    // AND a cursor is only good for its own endpoint; garbage is refused
    assert!(matches!(
        env.deliveries
            .list_by_endpoint(&other_ep, None, 2, Some(c1))
            .await,
        Err(StoreError::Corrupt(_))
    ));
    assert!(matches!(
        env.deliveries
            .list_by_endpoint(&ep, None, 2, Some("zz".into()))
            .await,
        Err(StoreError::Corrupt(_))
    ));
    // AND the other endpoint sees only its own delivery
    let (others, _) = env
        .deliveries
        .list_by_endpoint(&other_ep, None, 10, None)
        .await
        .unwrap();
    assert_eq!(others.len(), 1);
}

#[tokio::test]
async fn an_events_deliveries_are_listed_by_event() {
    // GIVEN one event delivered to two endpoints, and another event
    let env = Env::new("byevent").await;
    let ev = event_id();
    let a = delivery_of(&ev, &endpoint_id("a"), T0.plus_millis(SEC));
    let b = delivery_of(&ev, &endpoint_id("b"), T0);
    let c = delivery(&endpoint_id("a"), T0);
    for d in [&a, &b, &c] {
        env.deliveries.create_delivery(d).await.unwrap();
    }
    let a = record(
        &env,
        &a,
        T0.plus_millis(2 * SEC),
        500,
        &RetrySchedule::default(),
    )
    .await;

    // WHEN listed by the event THEN both of its deliveries come (as stored), oldest first
    assert_eq!(env.deliveries.list_by_event(&ev).await.unwrap(), vec![b, a]);
    assert!(env
        .deliveries
        .list_by_event(&event_id())
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn resend_puts_a_final_delivery_back_to_pending_with_numbering_going_on() {
    // GIVEN a pending delivery
    let env = Env::new("resend").await;
    let one_retry = RetrySchedule::parse("1s").unwrap();
    let d = delivery(&endpoint_id("rs"), T0);
    env.deliveries.create_delivery(&d).await.unwrap();
    let later = T0.plus_millis(3_600 * SEC);

    // WHEN it is resent while pending THEN that conflicts and changes nothing
    assert!(matches!(
        env.deliveries.reset_for_resend(&d.id, later).await,
        Err(StoreError::Conflict { current: None })
    ));
    assert_eq!(
        env.deliveries.get_delivery(&d.id).await.unwrap(),
        Some(d.clone())
    );

    // GIVEN it failed for good after 2 attempts
    let d1 = record(&env, &d, T0.plus_millis(SEC), 500, &one_retry).await;
    let failed = record(&env, &d1, T0.plus_millis(3 * SEC), 500, &one_retry).await;
    assert_eq!(failed.status, DeliveryStatus::Failed);
    assert!(env
        .deliveries
        .list_overdue(later, 10)
        .await
        .unwrap()
        .is_empty());

    // WHEN it is resent
    let reset = env
        .deliveries
        .reset_for_resend(&d.id, later)
        .await
        .unwrap()
        .expect("the delivery exists");

    // THEN it is pending, due now, with its attempts kept
    let expected = Delivery {
        status: DeliveryStatus::Pending,
        next_attempt_at: Some(later),
        updated_at: later,
        ..failed.clone()
    };
    assert_eq!(reset, expected);
    assert_eq!(
        env.deliveries.get_delivery(&d.id).await.unwrap(),
        Some(expected.clone())
    );
    assert_eq!(
        env.deliveries.list_overdue(later, 10).await.unwrap(),
        vec![expected.clone()]
    );
    // AND the next attempt is number 3
    assert!(!env
        .deliveries
        .claim_attempt(&d.id, 2, later.plus_millis(SEC), later)
        .await
        .unwrap());
    assert!(env
        .deliveries
        .claim_attempt(&d.id, 3, later.plus_millis(30 * SEC), later)
        .await
        .unwrap());
    // AND resending again while pending conflicts
    assert!(matches!(
        env.deliveries.reset_for_resend(&d.id, later).await,
        Err(StoreError::Conflict { .. })
    ));

    // WHEN attempt 3 succeeds THEN it is recorded after the others, and the delivery can be
    // resent again (a succeeded delivery too), dropping no attempts
    let done = record(&env, &expected, later.plus_millis(SEC), 200, &one_retry).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded);
    assert_eq!(
        env.deliveries
            .list_attempts(&d.id)
            .await
            .unwrap()
            .iter()
            .map(|a| a.number)
            .collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    let again = env
        .deliveries
        .reset_for_resend(&d.id, later.plus_millis(5 * SEC))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.status, DeliveryStatus::Pending);
    assert_eq!(again.attempts_made, 3);

    // AND resending a delivery that does not exist finds nothing and creates nothing
    let ghost = delivery(&endpoint_id("ghost"), T0);
    assert!(env
        .deliveries
        .reset_for_resend(&ghost.id, later)
        .await
        .unwrap()
        .is_none());
    assert!(raw_partition(&env, ghost.id.as_str()).await.is_empty());
}

// --- outbox --------------------------------------------------------------------------------

/// Stores `event` in the outbox the way payments do: with a new payment, atomically.
async fn store_event(env: &Env, event: &EventRecord) {
    let p = authorized(1_000);
    env.payments
        .save(PaymentChange {
            payment: p.clone(),
            expect: Expectation::Absent,
            transaction: None,
            event: Some(EventRecord {
                merchant_id: p.merchant_id.clone(),
                payment_id: p.id.clone(),
                ..event.clone()
            }),
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn outbox_lists_unsent_events_up_to_a_time_across_shards_and_forgets_sent_ones() {
    // GIVEN eight events a second apart, two in each shard of the `unsent` index
    let env = Env::new("outbox").await;
    let mut ids = Vec::new();
    let mut per_shard: HashMap<String, usize> = HashMap::new();
    for i in 0.. {
        let id = EventId::parse(&format!("evt_ob{i}")).unwrap();
        let count = per_shard.entry(unsent_shard(&id)).or_default();
        if *count < 2 {
            *count += 1;
            ids.push(id);
        }
        if ids.len() == 8 {
            break;
        }
    }
    let p = authorized(1_000);
    let mut events = Vec::new();
    for (i, id) in ids.into_iter().enumerate() {
        let at = T0.plus_millis(i64::try_from(i).unwrap() * SEC);
        let mut e = EventRecord::for_payment(id, EventType::PaymentCaptured, &p, at);
        store_event(&env, &e).await;
        // read back what was stored (its payment is the one saved with it)
        e = Outbox::get_event(&env.events, &e.id)
            .await
            .unwrap()
            .unwrap();
        events.push(e);
    }
    let shards: HashSet<String> = events.iter().map(|e| unsent_shard(&e.id)).collect();
    assert_eq!(shards.len(), 4);

    // WHEN unsent events up to T0+5 s are listed THEN events 0..=5 come, oldest first
    let ids = |v: Vec<EventRecord>| v.into_iter().map(|e| e.id).collect::<Vec<_>>();
    let want =
        |r: std::ops::Range<usize>| events[r].iter().map(|e| e.id.clone()).collect::<Vec<_>>();
    let at5 = T0.plus_millis(5 * SEC);
    assert_eq!(
        ids(Outbox::list_unsent(&env.events, at5, 100).await.unwrap()),
        want(0..6)
    );
    // AND the limit keeps the oldest
    assert_eq!(
        ids(Outbox::list_unsent(&env.events, at5, 3).await.unwrap()),
        want(0..3)
    );
    assert!(Outbox::list_unsent(&env.events, at5, 0)
        .await
        .unwrap()
        .is_empty());
    assert!(Outbox::list_unsent(&env.events, T0.plus_millis(-1), 10)
        .await
        .unwrap()
        .is_empty());
    // AND the records come back whole
    assert_eq!(
        Outbox::list_unsent(&env.events, T0, 10).await.unwrap(),
        vec![events[0].clone()]
    );

    // WHEN event 0 is marked sent THEN true once, then false, and it is no longer listed
    assert!(Outbox::mark_sent(&env.events, &events[0].id).await.unwrap());
    assert!(!Outbox::mark_sent(&env.events, &events[0].id).await.unwrap());
    assert_eq!(
        ids(Outbox::list_unsent(&env.events, at5, 100).await.unwrap()),
        want(1..6)
    );
    // AND the event itself is still there
    assert_eq!(
        Outbox::get_event(&env.events, &events[0].id).await.unwrap(),
        Some(events[0].clone())
    );
    // AND an unknown event cannot be marked, and is not created by trying
    let ghost = event_id();
    assert!(!Outbox::mark_sent(&env.events, &ghost).await.unwrap());
    assert_eq!(Outbox::get_event(&env.events, &ghost).await.unwrap(), None);
    // AND the inherent reader (no time bound) sees every unsent event
    assert_eq!(ids(env.events.list_unsent(100).await.unwrap()), want(1..8));
}
