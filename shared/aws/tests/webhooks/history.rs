//! Delivery history for the dashboard: by endpoint (newest first, filtered, paged), by
//! event, and resend.

use super::*;

/// One page of `endpoint`'s history, as (deliveries, the next page's cursor).
async fn history(
    deliveries: &dyn DeliveryAdmin,
    endpoint: &WebhookEndpointId,
    status: Option<DeliveryStatus>,
    limit: usize,
    cursor: Option<String>,
) -> Result<(Vec<Delivery>, Option<String>), StoreError> {
    let query = DeliveryQuery {
        status,
        limit,
        cursor,
    };
    let page = deliveries.list_by_endpoint(endpoint, query).await?;
    Ok((page.items, page.next_cursor))
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
    let (p1, c1) = history(&env.deliveries, &ep, None, 2, None).await.unwrap();
    assert_eq!(p1, newest_first[0..2].to_vec());
    let c1 = c1.expect("a second page");
    let (p2, c2) = history(&env.deliveries, &ep, None, 2, Some(c1.clone()))
        .await
        .unwrap();
    assert_eq!(p2, newest_first[2..4].to_vec());
    let (p3, c3) = history(&env.deliveries, &ep, None, 2, c2).await.unwrap();
    assert_eq!(p3, newest_first[4..5].to_vec());
    assert_eq!(c3, None);
    // AND one big page is the whole history
    let (whole, end) = history(&env.deliveries, &ep, None, 50, None).await.unwrap();
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
                let (page, next) = history(&deliveries, &ep, Some(status), limit, cursor)
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
        history(&env.deliveries, &other_ep, None, 2, Some(c1)).await,
        Err(StoreError::Corrupt(_))
    ));
    assert!(matches!(
        history(&env.deliveries, &ep, None, 2, Some("zz".into())).await,
        Err(StoreError::Corrupt(_))
    ));
    // AND the other endpoint sees only its own delivery
    let (others, _) = history(&env.deliveries, &other_ep, None, 10, None)
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
        .items
        .is_empty());

    // WHEN it is resent
    let reset = env
        .deliveries
        .reset_for_resend(&d.id, later)
        .await
        .unwrap()
        .expect("the delivery exists");

    // THEN it is pending, due now, with its attempts kept and the schedule restarted
    let expected = Delivery {
        status: DeliveryStatus::Pending,
        next_attempt_at: Some(later),
        updated_at: later,
        retry_base: failed.attempts_made,
        ..failed.clone()
    };
    assert_eq!(failed.resent(later).as_ref(), Some(&expected));
    assert_eq!(reset, expected);
    assert_eq!(
        env.deliveries.get_delivery(&d.id).await.unwrap(),
        Some(expected.clone())
    );
    assert_eq!(
        env.deliveries.list_overdue(later, 10).await.unwrap().items,
        vec![expected.clone()]
    );
    // AND the next attempt is number 3
    assert!(!env
        .deliveries
        .claim_attempt(&d.id, 2, TimeRange::new(later, later.plus_millis(SEC)))
        .await
        .unwrap());
    assert!(env
        .deliveries
        .claim_attempt(&d.id, 3, TimeRange::new(later, later.plus_millis(30 * SEC)))
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
    assert_eq!(
        again.retry_base, 3,
        "the schedule starts over after a resend"
    );
    // AND a failure of the resent attempt (4) is retried again on the schedule
    let retried = record(&env, &again, later.plus_millis(6 * SEC), 500, &one_retry).await;
    assert_eq!(
        (retried.status, retried.attempts_made),
        (DeliveryStatus::Pending, 4)
    );

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
