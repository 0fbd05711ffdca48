//! A test event: 202 with its delivery; the receiver gets a signed `webhook.test` that
//! went through the normal path; no other endpoint gets it.

use paygate_tests::{receiver::Receiver, ANATOLIA};
use serde_json::json;

use crate::support::{create_endpoint, delivery_when, expect, path, stack_for, verifies, SOON};

#[tokio::test]
async fn a_test_event_reaches_that_endpoint_signed() {
    let rx = Receiver::start().await;
    let stack = stack_for("adm-test-event", &rx, "1s").await;
    let created =
        create_endpoint(&stack, ANATOLIA, &rx, "/hooks", json!(["payment.captured"])).await;
    let other = create_endpoint(&stack, ANATOLIA, &rx, "/other", json!(["*"])).await;
    let id = created["id"].as_str().unwrap();
    let secret = created["secret"].as_str().unwrap();

    // WHEN a test event is sent to the first endpoint
    let d = expect(
        stack
            .admin(
                "POST",
                &path(ANATOLIA, &format!("/webhook-endpoints/{id}/test")),
                None,
            )
            .await,
        202,
    );
    assert_eq!(d["endpointId"], json!(id));
    assert_eq!(d["eventType"], json!("webhook.test"));
    assert_eq!(d["status"], json!("pending"));
    assert_eq!(d["attemptCount"], json!(0));

    // THEN the receiver gets a signed webhook.test with a sample payment
    let hooks = rx.wait_for("/hooks", 1, SOON).await;
    let hook = &hooks[0];
    assert_eq!(hook.header("x-svc-event"), Some("webhook.test"));
    assert_eq!(hook.header("x-svc-delivery"), d["id"].as_str());
    assert!(verifies(hook, secret));
    let body = hook.json();
    assert_eq!(body["type"], json!("webhook.test"));
    assert_eq!(body["id"], d["eventId"]);
    assert_eq!(body["mode"], json!("test"));
    assert_eq!(body["data"]["object"], json!("payment"));
    assert!(body["data"]["id"]
        .as_str()
        .unwrap()
        .starts_with("pay_sample"));
    // AND the delivery is recorded as succeeded
    let done = delivery_when(&stack, d["id"].as_str().unwrap(), SOON, |d| {
        d["status"] == json!("succeeded")
    })
    .await;
    assert_eq!(done["attempts"][0]["statusCode"], json!(200));
    // AND the endpoint subscribed to everything got nothing: it is not fanned out
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    assert!(rx.hooks_to("/other").is_empty(), "{:?}", other["id"]);
    let theirs = expect(
        stack
            .admin(
                "GET",
                &path(
                    ANATOLIA,
                    &format!("/events/{}/deliveries", d["eventId"].as_str().unwrap()),
                ),
                None,
            )
            .await,
        200,
    );
    assert_eq!(theirs["data"].as_array().unwrap().len(), 1);

    // a disabled endpoint gets no test event
    let one = path(ANATOLIA, &format!("/webhook-endpoints/{id}"));
    expect(
        stack
            .admin("PATCH", &one, Some(&json!({"enabled": false})))
            .await,
        200,
    );
    let err = expect(stack.admin("POST", &format!("{one}/test"), None).await, 409);
    assert_eq!(err["error"]["code"], json!("endpoint_disabled"));
}
