use paygate_domain::{
    ports::{DeliveryStore, OutboxWriter},
    webhook::{Attempt, AttemptError, Delivery, DeliveryStatus, RetrySchedule},
    DeliveryId, EventType,
};
use serde_json::json;

use super::*;
use crate::admin::fixture::{expect_err, obj, World, M1, M2};

/// A test event's delivery to a new endpoint of M1; returns the endpoint and delivery ids.
async fn delivered(w: &World) -> (String, DeliveryId) {
    let (endpoint, _) = w.create(M1, json!(["*"])).await;
    let d = crate::admin::endpoints::send_test(&w.endpoints_deps(), M1, &endpoint, &obj(json!({})))
        .await
        .unwrap();
    w.queue.drain();
    (endpoint, DeliveryId::parse(&d.id).unwrap())
}

/// Records attempt `attempts_made + 1` with `status` (None: a time-out).
async fn attempt(w: &World, id: &DeliveryId, status: Option<u16>) -> Delivery {
    let d = w.deliveries.get_delivery(id).await.unwrap().unwrap();
    let a = Attempt {
        delivery_id: id.clone(),
        number: d.attempts_made + 1,
        at: w.now(),
        duration_ms: 12,
        status_code: status,
        error: status.is_none().then_some(AttemptError::Timeout),
        response_body: "x".repeat(3000),
        succeeded: Attempt::is_success(status),
    };
    let after = d
        .after_attempt(&a, &RetrySchedule::parse("1s").unwrap())
        .delivery;
    assert!(w.deliveries.record_attempt(&a, &after).await.unwrap());
    w.clock.advance_millis(1_000);
    after
}

#[tokio::test]
async fn one_delivery_shows_its_attempts_and_next_attempt() {
    let w = World::new();
    let (_, id) = delivered(&w).await;
    let deps = w.deliveries_deps();
    attempt(&w, &id, Some(500)).await;

    let shown = show(&deps, M1, id.as_str()).await.unwrap();
    assert_eq!(shown.delivery.status, DeliveryStatus::Pending);
    assert_eq!(shown.delivery.attempt_count, 1);
    assert!(shown.delivery.next_attempt_at.is_some());
    assert_eq!(shown.attempts.len(), 1);
    let a = &shown.attempts[0];
    assert_eq!(
        (a.number, a.status_code, a.error, a.succeeded),
        (1, Some(500), None, false)
    );
    assert_eq!(a.duration_ms, 12);
    assert_eq!(a.response_body.len(), 1024, "truncated");

    attempt(&w, &id, None).await;
    let shown = show(&deps, M1, id.as_str()).await.unwrap();
    assert_eq!(shown.delivery.status, DeliveryStatus::Failed);
    assert_eq!(shown.delivery.next_attempt_at, None);
    assert_eq!(shown.attempts[1].error, Some(AttemptError::Timeout));
    let v = serde_json::to_value(&shown).unwrap();
    assert_eq!(v["attempts"][1]["error"], json!("timeout"));
    assert_eq!(v["attempts"][1]["statusCode"], json!(null));
    // The attempt's JSON is the recorded attempt's, without its delivery id (shown once,
    // on the delivery) and with the body as cut.
    assert_eq!(
        v["attempts"][0]["responseBody"].as_str().map(str::len),
        Some(1024)
    );
    assert_eq!(
        v["attempts"][0].as_object().map(|o| o.len()),
        Some(7),
        "number, at, durationMs, statusCode, error, responseBody, succeeded: {v}"
    );
    assert!(v["attempts"][0].get("deliveryId").is_none());
    assert_eq!(v["nextAttemptAt"], json!(null));

    // another merchant's delivery, and ids that cannot exist, are 404
    expect_err(show(&deps, M2, id.as_str()).await, 404, "not_found", None);
    expect_err(show(&deps, M1, "dlv_nope").await, 404, "not_found", None);
    expect_err(show(&deps, M1, "x").await, 404, "not_found", None);
}

#[tokio::test]
async fn resend_keeps_the_delivery_id_and_numbering_and_refuses_pending() {
    let w = World::new();
    let (_, id) = delivered(&w).await;
    let deps = w.deliveries_deps();

    // pending: 409 delivery_pending
    expect_err(
        resend(&deps, M1, id.as_str()).await,
        409,
        "delivery_pending",
        None,
    );
    // failed after two attempts
    attempt(&w, &id, Some(500)).await;
    attempt(&w, &id, Some(503)).await;

    let r = resend(&deps, M1, id.as_str()).await.unwrap();
    assert_eq!(r.id, id.as_str());
    assert_eq!((r.status, r.attempt_count), (DeliveryStatus::Pending, 2));
    assert_eq!(r.next_attempt_at, Some(w.now()));
    let queued = w.queue.drain();
    assert_eq!(queued.len(), 1);
    assert_eq!(
        (
            &queued[0].0.delivery_id,
            queued[0].0.attempt,
            queued[0].0.due_at
        ),
        (&id, 3, w.now())
    );
    // now pending again
    expect_err(
        resend(&deps, M1, id.as_str()).await,
        409,
        "delivery_pending",
        None,
    );
    // attempt 3 fails: the schedule started over, so it is retried
    let after = attempt(&w, &id, Some(500)).await;
    assert_eq!(
        (after.status, after.attempts_made),
        (DeliveryStatus::Pending, 3)
    );
    let after = attempt(&w, &id, Some(200)).await;
    assert_eq!(after.status, DeliveryStatus::Succeeded);
    // a succeeded delivery can be resent too; another merchant's cannot
    expect_err(resend(&deps, M2, id.as_str()).await, 404, "not_found", None);
    assert_eq!(
        resend(&deps, M1, id.as_str()).await.unwrap().attempt_count,
        4
    );
}

#[tokio::test]
async fn resend_to_a_disabled_or_deleted_endpoint_is_refused() {
    let w = World::new();
    let (endpoint, id) = delivered(&w).await;
    attempt(&w, &id, Some(500)).await;
    attempt(&w, &id, Some(500)).await;
    let eps = w.endpoints_deps();
    crate::admin::endpoints::update(&eps, M1, &endpoint, &obj(json!({"enabled": false})))
        .await
        .unwrap();
    let deps = w.deliveries_deps();
    expect_err(
        resend(&deps, M1, id.as_str()).await,
        409,
        "endpoint_disabled",
        None,
    );
    crate::admin::endpoints::delete(&eps, M1, &endpoint)
        .await
        .unwrap();
    expect_err(
        resend(&deps, M1, id.as_str()).await,
        409,
        "endpoint_disabled",
        None,
    );
    assert!(w.queue.drain().is_empty());
    // the history stays readable by delivery id
    assert_eq!(
        show(&deps, M1, id.as_str()).await.unwrap().attempts.len(),
        2
    );
}

#[tokio::test]
async fn an_endpoints_history_is_paged_newest_first_and_filtered() {
    let w = World::new();
    let (endpoint, first) = delivered(&w).await;
    let eps = w.endpoints_deps();
    let mut ids = vec![first.clone()];
    for _ in 0..4 {
        w.clock.advance_millis(1_000);
        let d = crate::admin::endpoints::send_test(&eps, M1, &endpoint, &obj(json!({})))
            .await
            .unwrap();
        ids.push(DeliveryId::parse(&d.id).unwrap());
    }
    attempt(&w, &first, Some(200)).await;
    let deps = w.deliveries_deps();

    let q = |pairs: &[(&str, &str)]| {
        HistoryQuery::parse(
            &pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect::<Vec<_>>(),
        )
    };
    let p1 = list_for_endpoint(&deps, M1, &endpoint, &q(&[("limit", "2")]).unwrap())
        .await
        .unwrap();
    assert_eq!(
        p1.data.iter().map(|d| d.id.clone()).collect::<Vec<_>>(),
        [ids[4].to_string(), ids[3].to_string()]
    );
    let cursor = p1.next_cursor.clone().unwrap();
    let p2 = list_for_endpoint(
        &deps,
        M1,
        &endpoint,
        &q(&[("limit", "3"), ("cursor", &cursor)]).unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(p2.data.len(), 3);
    assert_eq!(p2.data[2].id, first.as_str());
    assert_eq!(p2.next_cursor, None);

    let ok = list_for_endpoint(
        &deps,
        M1,
        &endpoint,
        &q(&[("status", "succeeded")]).unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(ok.data.len(), 1);
    assert_eq!(ok.data[0].id, first.as_str());
    let pending = list_for_endpoint(&deps, M1, &endpoint, &q(&[("status", "pending")]).unwrap())
        .await
        .unwrap();
    assert_eq!(pending.data.len(), 4);

    for (bad, field) in [
        (vec![("status", "done")], "status"),
        (vec![("limit", "0")], "limit"),
        (vec![("limit", "101")], "limit"),
        (vec![("limit", "ten")], "limit"),
        (vec![("page", "2")], "page"),
        (vec![("limit", "1"), ("limit", "2")], "limit"),
    ] {
        expect_err(q(&bad), 400, "invalid_request", Some(field));
    }
    expect_err(
        list_for_endpoint(&deps, M1, &endpoint, &q(&[("cursor", "garbage")]).unwrap()).await,
        400,
        "invalid_request",
        Some("cursor"),
    );
    expect_err(
        list_for_endpoint(&deps, M2, &endpoint, &HistoryQuery::default()).await,
        404,
        "not_found",
        None,
    );
}

#[tokio::test]
async fn an_events_deliveries_are_the_merchants_own() {
    let w = World::new();
    let (_, id) = delivered(&w).await;
    let deps = w.deliveries_deps();
    let d = w.deliveries.get_delivery(&id).await.unwrap().unwrap();
    let listed = list_for_event(&deps, M1, d.event_id.as_str())
        .await
        .unwrap();
    assert_eq!(listed.data.len(), 1);
    assert_eq!(listed.data[0].event_type, EventType::WebhookTest);
    expect_err(
        list_for_event(&deps, M2, d.event_id.as_str()).await,
        404,
        "not_found",
        None,
    );
    expect_err(
        list_for_event(&deps, M1, "evt_nope").await,
        404,
        "not_found",
        None,
    );
    expect_err(
        list_for_event(&deps, "mch_nobody", d.event_id.as_str()).await,
        404,
        "not_found",
        None,
    );
    // an event with no deliveries (no endpoint wanted it) is an empty list
    let mut quiet = w.outbox.events()[0].clone();
    quiet.id = paygate_domain::EventId::parse("evt_quiet").unwrap();
    w.outbox.put_event(&quiet, true).await.unwrap();
    assert!(list_for_event(&deps, M1, "evt_quiet")
        .await
        .unwrap()
        .data
        .is_empty());
}
