//! The outbox side of the events table.

use super::*;

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
        ids(Outbox::list_unsent(&env.events, at5, 100)
            .await
            .unwrap()
            .items),
        want(0..6)
    );
    // AND the limit keeps the oldest
    assert_eq!(
        ids(Outbox::list_unsent(&env.events, at5, 3)
            .await
            .unwrap()
            .items),
        want(0..3)
    );
    assert!(Outbox::list_unsent(&env.events, at5, 0)
        .await
        .unwrap()
        .items
        .is_empty());
    assert!(Outbox::list_unsent(&env.events, T0.plus_millis(-1), 10)
        .await
        .unwrap()
        .items
        .is_empty());
    // AND the records come back whole
    assert_eq!(
        Outbox::list_unsent(&env.events, T0, 10)
            .await
            .unwrap()
            .items,
        vec![events[0].clone()]
    );

    // WHEN event 0 is marked sent THEN true once, then false, and it is no longer listed
    assert!(Outbox::mark_sent(&env.events, &events[0].id).await.unwrap());
    assert!(!Outbox::mark_sent(&env.events, &events[0].id).await.unwrap());
    assert_eq!(
        ids(Outbox::list_unsent(&env.events, at5, 100)
            .await
            .unwrap()
            .items),
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

/// The raw event item.
async fn raw_event(env: &Env, id: &EventId) -> Item {
    env.client
        .get_item()
        .table_name(&env.names.events)
        .key("id", AttributeValue::S(id.as_str().to_owned()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap()
}

#[tokio::test]
async fn an_event_expires_only_once_handed_over_and_deliveries_keep_the_same_retention() {
    let env = Env::new("retention").await;
    let events = paygate_aws::dynamo::DynamoEvents::new(env.client.clone(), &env.names.events)
        .with_retention_days(30);
    let thirty_days = 30 * 86_400;
    // GIVEN an event written with its payment's change: not handed over, no expiry at all
    let e = event(&authorized(1_000), EventType::PaymentCaptured, T0);
    store_event(&env, &e).await;
    let item = raw_event(&env, &e.id).await;
    assert_eq!(
        num(&item, "expiresAt"),
        None,
        "an unsent event never expires"
    );
    assert_eq!(num(&item, "createdAtSecs"), Some(T0.unix_seconds()));
    // WHEN it is handed over THEN it expires the retention after its creation
    assert!(events.mark_sent(&e.id).await.unwrap());
    let item = raw_event(&env, &e.id).await;
    assert_eq!(
        num(&item, "expiresAt"),
        Some(T0.unix_seconds() + thirty_days)
    );
    assert!(!item.contains_key("unsentShard"));
    // AND an event written already handed over (the dashboard's test event) expires too,
    // one written unsent does not
    let test_event = event(&authorized(1_000), EventType::PaymentCaptured, T0);
    paygate_domain::ports::OutboxWriter::put_event(&events, &test_event, true)
        .await
        .unwrap();
    let item = raw_event(&env, &test_event.id).await;
    assert_eq!(
        num(&item, "expiresAt"),
        Some(T0.unix_seconds() + thirty_days)
    );
    let unsent = event(&authorized(1_000), EventType::PaymentCaptured, T0);
    paygate_domain::ports::OutboxWriter::put_event(&events, &unsent, false)
        .await
        .unwrap();
    assert_eq!(num(&raw_event(&env, &unsent.id).await, "expiresAt"), None);
    // AND an event stored before `createdAtSecs` existed gets no early expiry
    let legacy = event(&authorized(1_000), EventType::PaymentCaptured, T0);
    store_event(&env, &legacy).await;
    env.client
        .update_item()
        .table_name(&env.names.events)
        .key("id", AttributeValue::S(legacy.id.as_str().to_owned()))
        .update_expression("REMOVE createdAtSecs")
        .send()
        .await
        .unwrap();
    assert!(events.mark_sent(&legacy.id).await.unwrap());
    let far = num(&raw_event(&env, &legacy.id).await, "expiresAt").unwrap();
    assert!(far > T0.unix_seconds() + 365 * 86_400, "{far}");
    // AND deliveries under the same setting keep their history as long
    let deliveries =
        paygate_aws::dynamo::DynamoDeliveries::new(env.client.clone(), &env.names.deliveries)
            .with_retention_days(30);
    let d = delivery(&endpoint_id("ret"), T0);
    assert!(deliveries.create_delivery(&d).await.unwrap());
    let items = raw_partition(&env, d.id.as_str()).await;
    assert_eq!(
        num(&items[0], "expiresAt"),
        Some(T0.unix_seconds() + thirty_days)
    );
}
