//! Who gets an event: enabled endpoints of the payment's merchant, subscribed to its type,
//! of its mode. Nobody else, not even a delivery record.

use std::collections::BTreeSet;

use paygate_domain::Mode;
use paygate_tests::{expect_ok, keys, receiver::Receiver, ANATOLIA, BOSPHORUS};
use serde_json::json;

use crate::support::{deliveries_of, endpoint, queues_drained, stack_for, SOON};

#[tokio::test]
async fn only_matching_endpoints_get_an_event() {
    let rx = Receiver::start().await;
    let stack = stack_for("wh-filters", &rx, "1s,1s,1s,1s,1s,1s,1s,1s").await;
    // GIVEN Anatolia's endpoints: everything, refunds only, live mode, and one disabled;
    // AND Bosphorus's endpoint for everything
    let (all, _) = endpoint(&stack, ANATOLIA, &rx, "/all", &["*"], Mode::Test).await;
    let (refunds, _) = endpoint(
        &stack,
        ANATOLIA,
        &rx,
        "/refunds",
        &["payment.refunded"],
        Mode::Test,
    )
    .await;
    endpoint(&stack, ANATOLIA, &rx, "/live", &["*"], Mode::Live).await;
    let (mut disabled, _) = endpoint(&stack, ANATOLIA, &rx, "/disabled", &["*"], Mode::Test).await;
    disabled.enabled = false;
    stack
        .server()
        .endpoints()
        .put_endpoint(&disabled, false)
        .await
        .unwrap();
    let (other, _) = endpoint(&stack, BOSPHORUS, &rx, "/other", &["*"], Mode::Test).await;

    // WHEN an Anatolia test payment is captured, then refunded
    let key = keys().anatolia_test;
    let id = stack.payment_in(key, "authorized", 10_000).await;
    expect_ok(stack.op(key, &id, "capture", json!({})).await);
    let captured = rx.wait_for("/all", 1, SOON).await;
    expect_ok(stack.op(key, &id, "refund", json!({})).await);
    let both = rx.wait_for("/all", 2, SOON).await;
    let refunded = rx.wait_for("/refunds", 1, SOON).await;

    // THEN "everything" got both, "refunds only" got the refund
    assert_eq!(captured[0].header("x-svc-event"), Some("payment.captured"));
    assert_eq!(both[1].header("x-svc-event"), Some("payment.refunded"));
    assert_eq!(refunded[0].header("x-svc-event"), Some("payment.refunded"));
    assert_eq!(
        refunded[0].json()["id"],
        both[1].json()["id"],
        "the same event"
    );
    assert_ne!(
        refunded[0].header("x-svc-delivery"),
        both[1].header("x-svc-delivery"),
        "one delivery per endpoint"
    );

    // AND the deliveries of each event are exactly those (fanout makes them all at once)
    let endpoints_of = |event: serde_json::Value| {
        let stack = &stack;
        async move {
            deliveries_of(stack, event.as_str().unwrap())
                .await
                .into_iter()
                .map(|d| d.endpoint_id)
                .collect::<BTreeSet<_>>()
        }
    };
    assert_eq!(
        endpoints_of(captured[0].json()["id"].clone()).await,
        BTreeSet::from([all.id.clone()])
    );
    assert_eq!(
        endpoints_of(both[1].json()["id"].clone()).await,
        BTreeSet::from([all.id.clone(), refunds.id.clone()])
    );

    // WHEN a Bosphorus payment is captured, only Bosphorus's endpoint gets it
    let b_key = keys().bosphorus_test;
    let b_id = stack.payment_in(b_key, "authorized", 4_000).await;
    expect_ok(stack.op(b_key, &b_id, "capture", json!({})).await);
    let theirs = rx.wait_for("/other", 1, SOON).await;
    assert_eq!(theirs[0].json()["data"]["id"], b_id.as_str());
    assert_eq!(
        endpoints_of(theirs[0].json()["id"].clone()).await,
        BTreeSet::from([other.id.clone()])
    );

    // AND once the queues are empty, nothing else arrived anywhere
    queues_drained(&stack).await;
    let paths: Vec<String> = rx.hooks().into_iter().map(|h| h.path).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(sorted, ["/all", "/all", "/other", "/refunds"], "{paths:?}");
    assert!(rx.hooks_to("/live").is_empty());
    assert!(rx.hooks_to("/disabled").is_empty());
}
