use paygate_domain::{
    ports::{DeliveryStore, EndpointHealthStore, OutboxWriter},
    testkit::T0,
    webhook::{Attempt, DisabledReason, EndpointHealth, RetrySchedule, WebhookEndpointId},
    DeliveryId, EventId, EventRecord, EventType, MerchantId,
};
use serde_json::json;

use super::*;
use crate::admin::fixture::{expect_err, obj, World, M1, M2};

const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

/// A delivery of a fresh event to `endpoint`, created now and failed for good.
async fn failed(w: &World, endpoint: &str, n: u32) -> DeliveryId {
    let e = w.endpoint(M1, endpoint).await;
    let data = crate::admin::endpoints::sample_payment(w.ids.as_ref(), e.mode, w.now());
    let event = EventRecord {
        id: EventId::parse(&format!("evt_f{n}")).unwrap(),
        event_type: EventType::PaymentCaptured,
        mode: e.mode,
        created_at: w.now(),
        merchant_id: e.merchant_id.clone(),
        payment_id: data.id.clone(),
        data,
        transaction: None,
    };
    w.outbox.put_event(&event, true).await.unwrap();
    let d = Delivery::new(&event, &e, w.now());
    w.deliveries.create_delivery(&d).await.unwrap();
    let a = Attempt {
        delivery_id: d.id.clone(),
        number: 1,
        at: w.now(),
        duration_ms: 5,
        status_code: Some(500),
        error: None,
        response_body: String::new(),
        succeeded: false,
    };
    let one = RetrySchedule::parse("1s").unwrap();
    let mut after = d.after_attempt(&a, &one).delivery;
    after.status = DeliveryStatus::Failed;
    after.next_attempt_at = None;
    assert!(w.deliveries.record_attempt(&a, &after).await.unwrap());
    w.clock.advance_millis(1_000);
    d.id
}

fn since(t: Timestamp) -> Map<String, Value> {
    obj(json!({"since": t.to_iso8601()}))
}

#[tokio::test]
async fn recover_requests_every_failed_delivery_once() {
    let w = World::new();
    let (ep, _) = w.create(M1, json!(["*"])).await;
    let ids: Vec<DeliveryId> = {
        let mut v = Vec::new();
        for n in 0..3 {
            v.push(failed(&w, &ep, n).await);
        }
        v
    };
    let d = w.deliveries_deps();
    let r = recover(&d, M1, &ep, &since(T0)).await.unwrap();
    assert_eq!((r.requested, r.skipped, r.more), (3, 0, false));
    let queued = w.queue.drain();
    assert_eq!(queued.len(), 3);
    for (id, (msg, delay)) in ids.iter().zip(&queued) {
        assert_eq!((&msg.delivery_id, msg.attempt, *delay), (id, 2, 0));
        let now = w.deliveries.get_delivery(id).await.unwrap().unwrap();
        assert_eq!(now.status, DeliveryStatus::Pending);
    }
    // The same call again sends nothing: they are pending now.
    let again = recover(&d, M1, &ep, &since(T0)).await.unwrap();
    assert_eq!((again.requested, again.skipped, again.more), (0, 0, false));
    assert!(w.queue.drain().is_empty());
    // The JSON shape.
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["requested"], 3);
    assert_eq!(v["skipped"], 0);
    assert_eq!(v["more"], false);
}

#[tokio::test]
async fn recover_is_bounded_and_tells_where_to_go_on() {
    let w = World::new();
    let (ep, _) = w.create(M1, json!(["*"])).await;
    for n in 0..(RECOVER_MAX as u32 + 2) {
        failed(&w, &ep, n).await;
    }
    let d = w.deliveries_deps();
    let first = recover(&d, M1, &ep, &since(T0)).await.unwrap();
    assert_eq!((first.requested, first.more), (RECOVER_MAX as u32, true));
    assert_eq!(w.queue.drain().len(), RECOVER_MAX);
    let next = first.last_created_at.unwrap();
    let second = recover(&d, M1, &ep, &since(next)).await.unwrap();
    assert_eq!((second.requested, second.more), (2, false));
    assert_eq!(w.queue.drain().len(), 2);
}

#[tokio::test]
async fn recover_honours_the_range() {
    let w = World::new();
    let (ep, _) = w.create(M1, json!(["*"])).await;
    failed(&w, &ep, 0).await;
    let middle = w.now();
    failed(&w, &ep, 1).await;
    let end = w.now();
    failed(&w, &ep, 2).await;
    let d = w.deliveries_deps();
    let body = obj(json!({"since": middle.to_iso8601(), "until": end.to_iso8601()}));
    let r = recover(&d, M1, &ep, &body).await.unwrap();
    assert_eq!(r.requested, 1);
    assert_eq!(
        w.queue.drain()[0].0.delivery_id.as_str(),
        delivery_id_of(&w, &ep, 1).as_str()
    );
}

fn delivery_id_of(w: &World, ep: &str, n: u32) -> DeliveryId {
    let _ = w;
    paygate_domain::webhook::delivery_id(
        &EventId::parse(&format!("evt_f{n}")).unwrap(),
        &WebhookEndpointId::parse(ep).unwrap(),
    )
}

#[tokio::test]
async fn a_lost_reset_answer_is_read_back_and_still_queued_once() {
    let w = World::new();
    let (ep, _) = w.create(M1, json!(["*"])).await;
    let id = failed(&w, &ep, 0).await;
    w.deliveries.lose_reset_answers(1);
    let r = recover(&w.deliveries_deps(), M1, &ep, &since(T0))
        .await
        .unwrap();
    assert_eq!((r.requested, r.skipped), (1, 0));
    let q = w.queue.drain();
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].0.delivery_id, id);
}

#[tokio::test]
async fn recover_refuses_bad_ranges_unknown_and_disabled_endpoints() {
    let w = World::new();
    let (ep, _) = w.create(M1, json!(["*"])).await;
    w.clock.advance_millis(100 * DAY);
    let d = w.deliveries_deps();
    let now = w.now();
    expect_err(
        recover(&d, M1, &ep, &obj(json!({}))).await,
        400,
        "invalid_request",
        Some("since"),
    );
    expect_err(
        recover(&d, M1, &ep, &obj(json!({"since": "yesterday"}))).await,
        400,
        "invalid_request",
        Some("since"),
    );
    expect_err(
        recover(&d, M1, &ep, &since(now.plus_millis(1_000))).await,
        400,
        "invalid_request",
        Some("since"),
    );
    expect_err(
        recover(&d, M1, &ep, &since(now.plus_millis(-91 * DAY))).await,
        400,
        "invalid_request",
        Some("since"),
    );
    expect_err(
        recover(&d, M1, &ep, &obj(json!({"since": now.plus_millis(-HOUR).to_iso8601(), "until": now.plus_millis(-2 * HOUR).to_iso8601()}))).await,
        400,
        "invalid_request",
        Some("until"),
    );
    expect_err(
        recover(
            &d,
            M1,
            &ep,
            &obj(json!({"since": now.to_iso8601(), "x": 1})),
        )
        .await,
        400,
        "invalid_request",
        Some("x"),
    );
    expect_err(
        recover(&d, M1, "whe_unknown", &since(now.plus_millis(-HOUR))).await,
        404,
        "not_found",
        None,
    );
    expect_err(
        recover(&d, M2, &ep, &since(now.plus_millis(-HOUR))).await,
        404,
        "not_found",
        None,
    );
    crate::admin::endpoints::update(
        &w.endpoints_deps(),
        M1,
        &ep,
        &obj(json!({"enabled": false})),
    )
    .await
    .unwrap();
    expect_err(
        recover(&d, M1, &ep, &since(now.plus_millis(-HOUR))).await,
        409,
        "endpoint_disabled",
        None,
    );
}

#[tokio::test]
async fn health_shows_the_counters_the_backlog_and_the_state() {
    let w = World::new();
    let (ep, _) = w.create(M1, json!(["*"])).await;
    let d = w.deliveries_deps();
    let fresh = health(&d, M1, &ep).await.unwrap();
    let v = serde_json::to_value(&fresh).unwrap();
    assert_eq!(
        v,
        json!({
            "endpointId": ep, "successRate": null, "attempts24h": 0, "lastSuccessAt": null,
            "lastFailureAt": null, "failingSince": null, "backlog": 0, "status": "enabled",
            "disabledReason": null
        })
    );
    // Three attempts recorded: two failed, one succeeded; one delivery pending.
    let m = MerchantId::parse(M1).unwrap();
    let id = WebhookEndpointId::parse(&ep).unwrap();
    let h = EndpointHealth::default()
        .recorded(T0, false)
        .recorded(T0.plus_millis(1_000), true)
        .recorded(T0.plus_millis(2_000), false);
    for v in 1..=3 {
        let mut step = h.clone();
        step.version = v;
        assert!(w.endpoints.put_health(&m, &id, &step, None).await.unwrap());
    }
    crate::admin::endpoints::send_test(&w.endpoints_deps(), M1, &ep, &obj(json!({})))
        .await
        .unwrap();
    w.clock.set(T0.plus_millis(HOUR));
    let shown = health(&d, M1, &ep).await.unwrap();
    assert_eq!(shown.attempts_24h, 3);
    assert_eq!(shown.success_rate, Some(1.0 / 3.0));
    assert_eq!(shown.last_success_at, Some(T0.plus_millis(1_000)));
    assert_eq!(shown.last_failure_at, Some(T0.plus_millis(2_000)));
    assert_eq!(shown.failing_since, Some(T0.plus_millis(2_000)));
    assert_eq!(shown.backlog, 1);
    // A day later the window is empty; the rest stays.
    w.clock.set(T0.plus_millis(25 * HOUR));
    let later = health(&d, M1, &ep).await.unwrap();
    assert_eq!((later.attempts_24h, later.success_rate), (0, None));
    assert_eq!(later.last_success_at, Some(T0.plus_millis(1_000)));
    // Unknown or another merchant's endpoint: 404.
    expect_err(health(&d, M2, &ep).await, 404, "not_found", None);
    expect_err(health(&d, M1, "whe_nope").await, 404, "not_found", None);
}

#[tokio::test]
async fn an_auto_disabled_endpoint_shows_why_and_re_enabling_starts_over() {
    let w = World::new();
    let (ep, _) = w.create(M1, json!(["*"])).await;
    let m = MerchantId::parse(M1).unwrap();
    let id = WebhookEndpointId::parse(&ep).unwrap();
    // Failing since T0 with the warning written; then disabled by the rule.
    let h = EndpointHealth::default().recorded(T0, false).warned(T0);
    assert!(w.endpoints.put_health(&m, &id, &h, None).await.unwrap());
    let h2 = h.recorded(T0.plus_millis(5 * DAY), false);
    assert!(w
        .endpoints
        .put_health(&m, &id, &h2, Some(T0.plus_millis(5 * DAY)))
        .await
        .unwrap());
    w.clock.set(T0.plus_millis(5 * DAY + 1));

    let ed = w.endpoints_deps();
    let view = crate::admin::endpoints::get(&ed, M1, &ep).await.unwrap();
    assert!(!view.enabled);
    assert_eq!(view.disabled_reason, Some(DisabledReason::Failing));
    assert_eq!(view.failing_since, Some(T0));
    let listed = crate::admin::endpoints::list(&ed, M1).await.unwrap();
    assert_eq!(
        listed.data[0].disabled_reason,
        Some(DisabledReason::Failing)
    );
    let hv = health(&w.deliveries_deps(), M1, &ep).await.unwrap();
    assert_eq!(
        (hv.status, hv.disabled_reason),
        ("disabled", Some(DisabledReason::Failing))
    );

    // Re-enabled: reason and failingSince cleared, the run starts over.
    w.endpoints.lose_health_races(1);
    let on = crate::admin::endpoints::update(&ed, M1, &ep, &obj(json!({"enabled": true})))
        .await
        .unwrap();
    assert!(on.enabled);
    assert_eq!((on.disabled_reason, on.failing_since), (None, None));
    let stored = w.endpoints.health(&id);
    assert_eq!(
        (
            stored.failing_since,
            stored.warned_at,
            stored.failed_attempts
        ),
        (None, None, 0)
    );
    assert_eq!(stored.last_failure_at, h2.last_failure_at, "counters kept");
    // Disabled by hand: manual.
    let off = crate::admin::endpoints::update(&ed, M1, &ep, &obj(json!({"enabled": false})))
        .await
        .unwrap();
    assert_eq!(off.disabled_reason, Some(DisabledReason::Manual));
    let v = serde_json::to_value(&off).unwrap();
    assert_eq!(v["disabledReason"], "manual");
    assert_eq!(v["failingSince"], Value::Null);
}

/// Before: the fan-out skipped a disabled endpoint, so the events of the days it stayed
/// disabled were never recorded and `recover`, once it was enabled again, found nothing.
#[tokio::test]
async fn events_for_an_endpoint_disabled_as_failing_are_recovered_once_it_is_enabled_again() {
    use paygate_domain::webhook::{delivery_id, AttemptError};
    use paygate_webhooks::{fanout, FanoutDeps};
    let w = World::new();
    let (ep, _) = w.create(M1, json!(["*"])).await;
    let (by_hand, _) = w.create(M1, json!(["*"])).await;
    let m = MerchantId::parse(M1).unwrap();
    // GIVEN one endpoint disabled by the failing rule, another disabled by hand
    let id = WebhookEndpointId::parse(&ep).unwrap();
    let h = EndpointHealth::default().recorded(T0, false).warned(T0);
    assert!(w.endpoints.put_health(&m, &id, &h, None).await.unwrap());
    let h2 = h.recorded(T0.plus_millis(5 * DAY), false);
    assert!(w
        .endpoints
        .put_health(&m, &id, &h2, Some(T0.plus_millis(5 * DAY)))
        .await
        .unwrap());
    let ed = w.endpoints_deps();
    crate::admin::endpoints::update(&ed, M1, &by_hand, &obj(json!({"enabled": false})))
        .await
        .unwrap();
    assert_eq!(
        w.endpoint(M1, &ep).await.disabled_reason,
        Some(DisabledReason::Failing)
    );
    w.clock.set(T0.plus_millis(6 * DAY));

    // WHEN an event is fanned out while they are disabled
    let e = w.endpoint(M1, &ep).await;
    let data = crate::admin::endpoints::sample_payment(w.ids.as_ref(), e.mode, w.now());
    let event = EventRecord {
        id: EventId::parse("evt_whiledisabled").unwrap(),
        event_type: EventType::PaymentCaptured,
        mode: e.mode,
        created_at: w.now(),
        merchant_id: m.clone(),
        payment_id: data.id.clone(),
        data,
        transaction: None,
    };
    w.outbox.put_event(&event, false).await.unwrap();
    let fan = FanoutDeps {
        endpoints: w.endpoints.clone(),
        deliveries: w.deliveries.clone(),
        queue: w.queue.clone(),
        outbox: w.outbox.clone(),
        clock: w.clock.clone(),
    };
    assert_eq!(fanout(&fan, &event).await.unwrap(), 0, "nothing is sent");
    assert!(w.queue.drain().is_empty());

    // THEN the failing endpoint's delivery is recorded as failed (nothing was sent), the
    // hand-disabled endpoint gets none
    let held = delivery_id(&event.id, &id);
    let d = w.deliveries.get_delivery(&held).await.unwrap().unwrap();
    assert_eq!((d.status, d.attempts_made), (DeliveryStatus::Failed, 1));
    let attempts = w.deliveries.list_attempts(&held).await.unwrap();
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0].error, Some(AttemptError::EndpointUnavailable));
    let other = delivery_id(&event.id, &WebhookEndpointId::parse(&by_hand).unwrap());
    assert_eq!(w.deliveries.get_delivery(&other).await.unwrap(), None);
    // AND the same event fanned out again records nothing more
    assert_eq!(fanout(&fan, &event).await.unwrap(), 0);
    assert_eq!(w.deliveries.list_attempts(&held).await.unwrap().len(), 1);

    // WHEN the endpoint is enabled again (an hour later) and its deliveries recovered
    w.clock.advance_millis(HOUR);
    crate::admin::endpoints::update(&ed, M1, &ep, &obj(json!({"enabled": true})))
        .await
        .unwrap();
    let r = recover(&w.deliveries_deps(), M1, &ep, &since(T0))
        .await
        .unwrap();

    // THEN the held event goes out: its attempt 2, due now
    assert_eq!((r.requested, r.skipped), (1, 0));
    let queued = w.queue.drain();
    assert_eq!(queued.len(), 1);
    assert_eq!((&queued[0].0.delivery_id, queued[0].0.attempt), (&held, 2));
    assert_eq!(
        w.deliveries
            .get_delivery(&held)
            .await
            .unwrap()
            .unwrap()
            .status,
        DeliveryStatus::Pending
    );
}
