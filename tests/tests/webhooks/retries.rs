//! Retries: a failing receiver is tried again on the schedule with the same delivery id,
//! until it answers 2xx or the schedule is used up; failures without a response are
//! recorded with why.

use std::time::Duration;

use paygate_domain::{
    webhook::{AttemptError, DeliveryStatus},
    Mode,
};
use paygate_tests::{
    expect_ok, keys,
    receiver::{Answer, Receiver},
    Stack, ANATOLIA,
};
use serde_json::json;

use crate::support::{
    attempts, delivery_id, endpoint, final_delivery, queues_drained, stack_for, SOON,
};

/// A captured payment's webhook goes to `path`; returns the stack's key and payment id.
async fn capture(stack: &Stack) -> String {
    let key = keys().anatolia_test;
    let id = stack.payment_in(key, "authorized", 10_000).await;
    expect_ok(stack.op(key, &id, "capture", json!({})).await);
    id
}

/// At least 90 % of `secs`: the lower bound a retry's spacing must keep.
fn at_least(secs: u64) -> Duration {
    Duration::from_millis(secs * 900)
}

#[tokio::test]
async fn three_failures_then_success_is_four_attempts_on_the_schedule() {
    let rx = Receiver::start().await;
    let schedule = [1u64, 2, 2, 1, 1, 1, 1, 1];
    let stack = stack_for("wh-retry", &rx, "1s,2s,2s,1s,1s,1s,1s,1s").await;
    endpoint(&stack, ANATOLIA, &rx, "/flaky", &["*"], Mode::Test).await;
    // GIVEN a receiver that answers 500 three times, then 200
    rx.script("/flaky", [Answer::Status(500); 3]);

    // WHEN a payment is captured
    capture(&stack).await;

    // THEN it gets four requests of the same delivery, spaced by the schedule
    let hooks = rx.wait_for("/flaky", 4, Duration::from_secs(40)).await;
    let dlv = delivery_id(&hooks[0]);
    for h in &hooks {
        assert_eq!(
            delivery_id(h),
            dlv,
            "the same X-Svc-Delivery on every retry"
        );
        assert_eq!(h.body, hooks[0].body, "the same body on every retry");
    }
    let gaps: Vec<Duration> = hooks.windows(2).map(|w| w[1].at - w[0].at).collect();
    for (i, gap) in gaps.iter().enumerate() {
        assert!(
            *gap >= at_least(schedule[i]),
            "retry {} came {gap:?} after the previous attempt; the schedule says {}s (gaps {gaps:?})",
            i + 1,
            schedule[i]
        );
    }

    // AND the delivery succeeded with four recorded attempts
    let d = final_delivery(&stack, &dlv, SOON).await;
    assert_eq!(d.status, DeliveryStatus::Succeeded);
    assert_eq!(d.attempts_made, 4);
    assert_eq!(d.next_attempt_at, None);
    let made = attempts(&stack, &dlv).await;
    assert_eq!(
        made.iter()
            .map(|a| (a.number, a.status_code, a.succeeded, a.error))
            .collect::<Vec<_>>(),
        [
            (1, Some(500), false, None),
            (2, Some(500), false, None),
            (3, Some(500), false, None),
            (4, Some(200), true, None),
        ]
    );
    assert_eq!(made[0].response_body, "answered 500");
    queues_drained(&stack).await;
    assert_eq!(rx.hooks().len(), 4);
}

#[tokio::test]
async fn a_receiver_that_always_fails_gets_one_attempt_and_eight_retries() {
    let rx = Receiver::start().await;
    let stack = stack_for("wh-fail", &rx, "1s,1s,1s,1s,1s,1s,1s,1s").await;
    endpoint(&stack, ANATOLIA, &rx, "/down", &["*"], Mode::Test).await;
    // GIVEN a receiver that answers 500 (more often than there are attempts)
    rx.script("/down", [Answer::Status(500); 20]);

    // WHEN a payment is captured
    capture(&stack).await;

    // THEN it gets 1 + 8 requests, and the delivery ends failed
    let hooks = rx.wait_for("/down", 9, Duration::from_secs(45)).await;
    let dlv = delivery_id(&hooks[0]);
    let d = final_delivery(&stack, &dlv, SOON).await;
    assert_eq!(d.status, DeliveryStatus::Failed);
    assert_eq!(d.attempts_made, 9);
    assert_eq!(d.next_attempt_at, None);
    let made = attempts(&stack, &dlv).await;
    assert_eq!(
        made.iter().map(|a| a.number).collect::<Vec<_>>(),
        (1..=9).collect::<Vec<u32>>()
    );
    assert!(made
        .iter()
        .all(|a| a.status_code == Some(500) && !a.succeeded));
    for w in hooks.windows(2) {
        assert!(w[1].at - w[0].at >= at_least(1));
    }

    // AND nothing more comes once it failed
    queues_drained(&stack).await;
    assert_eq!(rx.hooks().len(), 9);
}

#[tokio::test]
async fn a_closed_connection_and_a_hang_are_recorded_as_such() {
    let rx = Receiver::start().await;
    let stack = stack_for("wh-broken", &rx, "1s,1s,1s,1s,1s,1s,1s,1s").await;
    endpoint(&stack, ANATOLIA, &rx, "/broken", &["*"], Mode::Test).await;
    // GIVEN a receiver that closes the connection, then never answers, then answers 200
    rx.script("/broken", [Answer::Close, Answer::Hang]);

    // WHEN a payment is captured
    capture(&stack).await;

    // THEN three attempts: a connection error, a time-out, a success
    let hooks = rx.wait_for("/broken", 3, Duration::from_secs(40)).await;
    let dlv = delivery_id(&hooks[0]);
    let d = final_delivery(&stack, &dlv, SOON).await;
    assert_eq!(d.status, DeliveryStatus::Succeeded);
    let made = attempts(&stack, &dlv).await;
    assert_eq!(
        made.iter()
            .map(|a| (a.number, a.status_code, a.error, a.succeeded))
            .collect::<Vec<_>>(),
        [
            (1, None, Some(AttemptError::Connection), false),
            (2, None, Some(AttemptError::Timeout), false),
            (3, Some(200), None, true),
        ]
    );
    // The hang lasted the sender's deadline, not the receiver's minute.
    let timeout_ms = u64::try_from(crate::support::ATTEMPT_TIMEOUT.as_millis()).unwrap();
    assert!(
        made[1].duration_ms >= timeout_ms && made[1].duration_ms < timeout_ms + 3_000,
        "{}",
        made[1].duration_ms
    );
    assert!(hooks[1].at - hooks[0].at >= at_least(1));
    assert!(hooks[2].at - hooks[1].at >= at_least(1));
    queues_drained(&stack).await;
    assert_eq!(rx.hooks().len(), 3);
}
