//! Resend: a failed delivery goes back to pending, and its new attempts carry the same
//! X-Svc-Delivery with the attempt numbers going on; a pending one is 409.

use std::time::Duration;

use paygate_tests::{
    receiver::{Answer, Receiver},
    ANATOLIA,
};
use serde_json::json;

use crate::support::{capture, create_endpoint, delivery_when, expect, path, stack_for, SOON};

#[tokio::test]
async fn a_failed_delivery_is_resent_with_the_same_delivery_id() {
    let rx = Receiver::start().await;
    // one retry, 3 s after the first failure: two attempts, then failed
    let stack = stack_for("adm-resend", &rx, "3s").await;
    create_endpoint(&stack, ANATOLIA, &rx, "/down", json!(["payment.captured"])).await;
    // GIVEN a receiver that fails twice, then once more after the resend, then answers 200
    rx.script(
        "/down",
        [
            Answer::Status(500),
            Answer::Status(503),
            Answer::Status(500),
        ],
    );
    capture(&stack).await;
    let hooks = rx.wait_for("/down", 1, SOON).await;
    let dlv = hooks[0].header("x-svc-delivery").unwrap().to_owned();
    let resend = path(ANATOLIA, &format!("/deliveries/{dlv}/resend"));

    // WHEN it is resent while pending (its retry is due in 3 s) THEN 409 delivery_pending
    let pending = expect(stack.admin("POST", &resend, None).await, 409);
    assert_eq!(pending["error"]["code"], json!("delivery_pending"));
    let failed = delivery_when(&stack, &dlv, SOON, |d| d["status"] == json!("failed")).await;
    assert_eq!(failed["attemptCount"], json!(2));
    assert_eq!(failed["nextAttemptAt"], json!(null));

    // WHEN the failed delivery is resent
    let r = expect(stack.admin("POST", &resend, None).await, 202);
    assert_eq!(r["id"], json!(dlv));
    assert_eq!(r["status"], json!("pending"));
    assert_eq!(r["attemptCount"], json!(2));
    // AND again at once: it is pending now
    let again = expect(stack.admin("POST", &resend, None).await, 409);
    assert_eq!(again["error"]["code"], json!("delivery_pending"));

    // THEN new attempts (3 fails, the schedule starts over, 4 succeeds) carry the same
    // X-Svc-Delivery and body
    let hooks = rx.wait_for("/down", 4, Duration::from_secs(30)).await;
    for h in &hooks {
        assert_eq!(h.header("x-svc-delivery"), Some(dlv.as_str()));
        assert_eq!(h.json()["id"], hooks[0].json()["id"]);
    }
    let done = delivery_when(&stack, &dlv, SOON, |d| d["status"] == json!("succeeded")).await;
    let numbers: Vec<(u64, u64)> = done["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["number"].as_u64().unwrap(),
                a["statusCode"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(numbers, [(1, 500), (2, 503), (3, 500), (4, 200)]);
    assert_eq!(done["attemptCount"], json!(4));
}
