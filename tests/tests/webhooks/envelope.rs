//! One capture, one signed webhook: headers, signature and envelope as the spec has them.

use paygate_domain::{
    webhook::{delivery_id, DeliveryStatus, Envelope},
    EventId, Mode, Timestamp,
};
use paygate_tests::{expect_ok, keys, receiver::Receiver, ANATOLIA};
use serde_json::json;

use crate::support::{
    attempts, deliveries_of, endpoint, final_delivery, queues_drained, stack_for, SOON,
};

#[tokio::test]
async fn a_capture_sends_exactly_one_signed_webhook() {
    let rx = Receiver::start().await;
    let stack = stack_for("wh-envelope", &rx, "1s,1s,1s,1s,1s,1s,1s,1s").await;
    // GIVEN an endpoint subscribed to everything and an authorized payment of 10 000
    let (ep, secret) = endpoint(&stack, ANATOLIA, &rx, "/hooks", &["*"], Mode::Test).await;
    let key = keys().anatolia_test;
    let id = stack.payment_in(key, "authorized", 10_000).await;

    // WHEN it is captured
    expect_ok(stack.op(key, &id, "capture", json!({})).await);

    // THEN the endpoint gets one POST with the spec's headers
    let hooks = rx.wait_for("/hooks", 1, SOON).await;
    let hook = &hooks[0];
    assert_eq!(hook.header("x-svc-event"), Some("payment.captured"));
    assert_eq!(hook.header("content-type"), Some("application/json"));
    assert_eq!(hook.header_count("user-agent"), 1);
    assert!(
        hook.header("user-agent")
            .is_some_and(|ua| ua.starts_with("paygate-webhooks/")),
        "{:?}",
        hook.header("user-agent")
    );
    let dlv = hook.header("x-svc-delivery").unwrap();
    assert!(dlv.starts_with("dlv_"), "{dlv}");

    // AND its signature verifies against the raw body with the endpoint's secret, timed now
    let sig = hook.header("x-svc-signature").unwrap();
    assert!(sig.starts_with("t=") && sig.contains(",v1="), "{sig}");
    paygate_webhooks::signature::verify(sig, &hook.body, &[&secret], hook.unix_secs, 300)
        .unwrap_or_else(|e| panic!("signature {sig} does not verify: {e:?}"));
    assert!(paygate_webhooks::signature::verify(
        sig,
        &hook.body,
        &["whsec_someone_else"],
        hook.unix_secs,
        300
    )
    .is_err());
    let t: i64 = sig[2..sig.find(',').unwrap()].parse().unwrap();
    assert!(
        (hook.unix_secs - t).abs() <= 5,
        "t={t}, arrived {}",
        hook.unix_secs
    );

    // AND the body is the envelope of the payment as captured
    let body = hook.json();
    let event_id = body["id"].as_str().unwrap();
    assert!(event_id.starts_with("evt_"), "{body}");
    assert_eq!(body["type"], "payment.captured");
    assert_eq!(body["mode"], "test");
    let created = body["createdAt"].as_str().unwrap();
    assert!(
        created.ends_with('Z') && Timestamp::parse_iso8601(created).is_some(),
        "{created}"
    );
    assert_eq!(body["data"]["id"], id.as_str());
    assert_eq!(body["data"]["object"], "payment");
    assert_eq!(body["data"]["status"], "captured");
    assert_eq!(body["data"]["amount"], 10_000);
    assert_eq!(body["data"]["capturedAmount"], 10_000);
    let keys_of = |v: &serde_json::Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys_of(&body),
        ["createdAt", "data", "id", "mode", "type"],
        "{body}"
    );

    // AND the body is, byte for byte, the envelope of the outbox event
    let event = stack
        .server()
        .outbox()
        .get_event(&EventId::parse(event_id).unwrap())
        .await
        .unwrap()
        .expect("the event is in the outbox");
    assert_eq!(hook.body, Envelope::of(&event).to_bytes());
    assert_eq!(dlv, delivery_id(&event.id, &ep.id).as_str());

    // AND the delivery succeeded at the first attempt, and nothing else is on its way
    let deliveries = deliveries_of(&stack, event_id).await;
    assert_eq!(deliveries.len(), 1, "{deliveries:?}");
    let d = final_delivery(&stack, &deliveries[0].id, SOON).await;
    assert_eq!(d.status, DeliveryStatus::Succeeded);
    assert_eq!(d.attempts_made, 1);
    let made = attempts(&stack, &d.id).await;
    assert_eq!(made.len(), 1);
    assert_eq!((made[0].number, made[0].status_code), (1, Some(200)));
    assert!(made[0].succeeded);
    assert_eq!(made[0].response_body, "answered 200");
    queues_drained(&stack).await;
    assert_eq!(rx.hooks().len(), 1, "exactly one webhook");
}
