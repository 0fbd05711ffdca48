//! Deliveries and attempts: created once, claimed with a lease, recorded once, overdue.

use super::*;

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
                .claim_attempt(&id, n, TimeRange::new(at(now), at(lease)))
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
        .claim_attempt(&ghost.id, 1, TimeRange::new(at(0), at(30)))
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
async fn a_second_worker_recording_the_same_attempt_meets_the_condition_not_a_token_mismatch() {
    use paygate_aws::{
        dynamo::{
            faults::{client, FaultPlan},
            DynamoDeliveries,
        },
        moto::{MotoServer, REGION},
    };
    // GIVEN a pending delivery, through a client whose tokens DynamoDB keeps (10 minutes)
    let env = Env::new("tokens").await;
    let plan = FaultPlan::new();
    plan.honour_tokens();
    let moto = MotoServer::shared().unwrap();
    let faulty = client(&moto.endpoint, REGION, &plan, paygate_aws::retry_config());
    let deliveries = DynamoDeliveries::new(faulty, &env.names.deliveries);
    let d = delivery(&endpoint_id("tok"), T0);
    assert!(deliveries.create_delivery(&d).await.unwrap());
    let schedule = RetrySchedule::default();

    // WHEN two workers (a lease taken over) record attempt 1, with other outcomes
    let a = attempt(&d, 1, T0, 500);
    let b = attempt(&d, 1, T0.plus_millis(SEC), 200);
    let after_a = d.after_attempt(&a, &schedule).delivery;
    assert!(deliveries.record_attempt(&a, &after_a).await.unwrap());
    let second = deliveries
        .record_attempt(&b, &d.after_attempt(&b, &schedule).delivery)
        .await;

    // THEN the second is refused on its conditions (theirs stands), not for reusing a token
    assert!(matches!(second, Ok(false)), "{second:?}");
    assert_eq!(deliveries.get_delivery(&d.id).await.unwrap(), Some(after_a));
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
        ids(env.deliveries.list_overdue(at30, 10).await.unwrap().items),
        vec![early.id.clone()]
    );
    // AND the bound is inclusive, oldest due first, and capped
    let at60 = T0.plus_millis(60 * SEC);
    assert_eq!(
        ids(env.deliveries.list_overdue(at60, 10).await.unwrap().items),
        vec![early.id.clone(), late.id.clone()]
    );
    assert_eq!(
        ids(env.deliveries.list_overdue(at60, 1).await.unwrap().items),
        vec![early.id.clone()]
    );
    assert!(env
        .deliveries
        .list_overdue(at60, 0)
        .await
        .unwrap()
        .items
        .is_empty());
    assert!(env
        .deliveries
        .list_overdue(T0.plus_millis(-1), 10)
        .await
        .unwrap()
        .items
        .is_empty());
    // AND what is listed is the delivery as stored
    assert_eq!(
        env.deliveries.list_overdue(at30, 10).await.unwrap().items,
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
        ids(env.deliveries.list_overdue(at60, 10).await.unwrap().items),
        vec![late.id.clone()]
    );
    assert_eq!(
        env.deliveries
            .list_overdue(T0.plus_millis(3_600 * SEC), 10)
            .await
            .unwrap()
            .items,
        vec![late, early_1]
    );
}
