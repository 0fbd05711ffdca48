//! Each operation sends its event: refund (partial and full) → `payment.refunded`, cancel →
//! `payment.cancelled`, a query finalizing a pending payment → `payment.authorized`,
//! `payment.captured` or `payment.failed`.

use paygate_domain::Mode;
use paygate_tests::{expect_ok, keys, receiver::Receiver, Stack, ANATOLIA};
use serde_json::{json, Value};

use crate::support::{about, endpoint, queues_drained, stack_for, SOON};

/// Waits for the hook about `payment` whose event is `event_type`; returns its body.
async fn hook_for(rx: &Receiver, payment: &str, event_type: &str) -> Value {
    let hooks = crate::support::until(&format!("{event_type} for {payment}"), SOON, || async {
        let all = rx.hooks_to("/hooks");
        let found: Vec<_> = about(&all, payment)
            .into_iter()
            .filter(|h| h.header("x-svc-event") == Some(event_type))
            .cloned()
            .collect();
        (!found.is_empty()).then_some(found)
    })
    .await;
    assert_eq!(hooks.len(), 1, "{event_type} for {payment} arrived twice");
    let body = hooks[0].json();
    assert_eq!(body["type"], event_type, "{body}");
    body
}

async fn stack_and_receiver(label: &str) -> (Stack, Receiver) {
    let rx = Receiver::start().await;
    let stack = stack_for(label, &rx, "1s,1s,1s,1s,1s,1s,1s,1s").await;
    endpoint(&stack, ANATOLIA, &rx, "/hooks", &["*"], Mode::Test).await;
    (stack, rx)
}

#[tokio::test]
async fn refunds_and_cancels_send_their_events() {
    let (stack, rx) = stack_and_receiver("wh-ops").await;
    let key = keys().anatolia_test;
    let refunded = stack.payment_in(key, "captured", 10_000).await;
    let cancelled = stack.payment_in(key, "authorized", 7_000).await;

    // A partial refund: payment.refunded, partially refunded
    expect_ok(
        stack
            .op(key, &refunded, "refund", json!({ "amount": 3000 }))
            .await,
    );
    let partial = hook_for(&rx, &refunded, "payment.refunded").await;
    assert_eq!(partial["data"]["status"], "partially_refunded");
    assert_eq!(partial["data"]["amount"], 10_000);
    assert_eq!(partial["data"]["refundedAmount"], 3_000);

    // The rest: a second payment.refunded (another event), fully refunded
    expect_ok(stack.op(key, &refunded, "refund", json!({})).await);
    let full = crate::support::until("the second payment.refunded", SOON, || async {
        let all = rx.hooks_to("/hooks");
        about(&all, &refunded)
            .into_iter()
            .map(|h| h.json())
            .find(|b| b["data"]["status"] == "refunded")
    })
    .await;
    assert_eq!(full["type"], "payment.refunded");
    assert_eq!(full["data"]["refundedAmount"], 10_000);
    assert_ne!(full["id"], partial["id"], "each change is its own event");

    // A cancel: payment.cancelled
    expect_ok(stack.op(key, &cancelled, "cancel", json!({})).await);
    let c = hook_for(&rx, &cancelled, "payment.cancelled").await;
    assert_eq!(c["data"]["status"], "cancelled");
    assert_eq!(c["data"]["amount"], 7_000);

    queues_drained(&stack).await;
    assert_eq!(rx.hooks().len(), 3, "one webhook per change");
}

#[tokio::test]
async fn a_query_finalizing_a_pending_payment_sends_its_outcome() {
    let (stack, rx) = stack_and_receiver("wh-query").await;
    let key = keys().anatolia_test;
    let pending = |bank_state: &'static str| {
        let stack = &stack;
        async move {
            stack
                .create_payment(
                    key,
                    json!({
                        "amount": 5_000, "currency": "TRY",
                        "status": "pending", "bankState": bank_state
                    }),
                )
                .await
        }
    };
    // GIVEN pending payments the bank holds as a pre-authorization, a sale, a decline
    let preauth = pending("preauth").await;
    let approved = pending("approved").await;
    let declined = pending("declined").await;

    // WHEN each is queried
    for (id, status) in [
        (&preauth, "authorized"),
        (&approved, "captured"),
        (&declined, "declined"),
    ] {
        let body = expect_ok(stack.op(key, id, "query", json!({})).await);
        assert_eq!(body["payment"]["status"], status, "{body}");
    }

    // THEN each outcome is sent as its event
    let a = hook_for(&rx, &preauth, "payment.authorized").await;
    assert_eq!(a["data"]["status"], "authorized");
    let c = hook_for(&rx, &approved, "payment.captured").await;
    assert_eq!(c["data"]["status"], "captured");
    let d = hook_for(&rx, &declined, "payment.failed").await;
    assert_eq!(d["data"]["status"], "declined");
    // ("No record at the bank" fails a pending payment only after the grace period: the
    // domain and reconciler tests cover its payment.failed.)

    // AND a second query changes nothing and sends nothing
    expect_ok(stack.op(key, &preauth, "query", json!({})).await);
    queues_drained(&stack).await;
    assert_eq!(rx.hooks().len(), 3);
}
