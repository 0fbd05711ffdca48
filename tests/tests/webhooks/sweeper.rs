//! No event lost: an event committed with its payment change but never handed to the
//! events queue (the fast path failed) is sent by the sweeper, and arrives once.

use std::time::{Duration, Instant};

use paygate_compose::system::{RandomIds, SystemClock};
use paygate_domain::{
    ports::{Clock, Expectation, PaymentChange, PaymentReader, PaymentWriter},
    webhook::DeliveryStatus,
    EventId, EventRecord, EventType, Mode, PaymentId, PaymentStatus,
};
use paygate_tests::{keys, receiver::Receiver, ANATOLIA};

use crate::support::{
    deliveries_of, endpoint, final_delivery, options, queues_drained, stack_with, SOON,
};

#[tokio::test]
async fn an_event_the_queue_never_got_is_delivered_by_the_sweeper_once() {
    let rx = Receiver::start().await;
    let grace = Duration::from_secs(1);
    let stack = stack_with(
        "wh-sweep",
        paygate_tests::WebhookOptions {
            sweep_every: Duration::from_secs(1),
            sweep_grace: grace,
            ..options(&rx, "1s,1s,1s,1s,1s,1s,1s,1s")
        },
    )
    .await;
    endpoint(&stack, ANATOLIA, &rx, "/hooks", &["*"], Mode::Test).await;
    let key = keys().anatolia_test;
    let id = PaymentId::parse(&stack.payment_in(key, "authorized", 10_000).await).unwrap();

    // GIVEN a capture committed with its outbox event, whose send to the queue was lost
    // (written as the operation writes it, and then not published)
    let payments = stack.server().payments();
    let read = payments.get_payment(&id).await.unwrap().unwrap();
    let now = SystemClock.now();
    let mut next = read.clone();
    next.status = PaymentStatus::Captured;
    next.captured_amount = next.amount;
    next.version += 1;
    next.updated_at = now;
    let event = EventRecord::for_payment(
        EventId::generate(&RandomIds),
        EventType::PaymentCaptured,
        &next,
        now,
    );
    let saved = Instant::now();
    payments
        .save(PaymentChange {
            payment: next,
            expect: Expectation::over(&read),
            transaction: None,
            event: Some(event.clone()),
        })
        .await
        .unwrap();
    let outbox = stack.server().outbox();
    let unsent: Vec<EventId> = outbox
        .list_unsent(100)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(
        unsent,
        vec![event.id.clone()],
        "the event waits in the outbox"
    );

    // WHEN the sweeper runs (every second here; events older than a second)
    // THEN the endpoint gets the event, with its id, once
    let hooks = rx.wait_for("/hooks", 1, SOON).await;
    let body = hooks[0].json();
    assert_eq!(body["id"], event.id.as_str());
    assert_eq!(body["type"], "payment.captured");
    assert_eq!(body["data"]["id"], id.as_str());
    assert!(
        hooks[0].at - saved >= grace * 9 / 10,
        "sent {:?} after the commit, before the grace period",
        hooks[0].at - saved
    );
    let deliveries = deliveries_of(&stack, event.id.as_str()).await;
    assert_eq!(deliveries.len(), 1);
    let d = final_delivery(&stack, &deliveries[0].id, SOON).await;
    assert_eq!((d.status, d.attempts_made), (DeliveryStatus::Succeeded, 1));

    // AND the fan-out marked it handed over, so later sweeps leave it alone
    assert!(outbox.list_unsent(100).await.unwrap().is_empty());
    queues_drained(&stack).await;
    assert_eq!(rx.hooks().len(), 1);
}
