//! Delivery history over the admin API: a capture's delivery is listed for its endpoint
//! and its event, with its attempts; filters and pages work.

use paygate_tests::{
    receiver::{Answer, Receiver},
    ANATOLIA, BOSPHORUS,
};
use serde_json::json;

use crate::support::{
    capture, create_endpoint, delivery_when, expect, path, stack_for, until, SOON,
};

#[tokio::test]
async fn a_captures_delivery_is_listed_with_its_attempts() {
    let rx = Receiver::start().await;
    let stack = stack_for("adm-history", &rx, "1s,1s,1s").await;
    let created = create_endpoint(&stack, ANATOLIA, &rx, "/hooks", json!(["*"])).await;
    let endpoint = created["id"].as_str().unwrap();
    // GIVEN the receiver fails once, then takes it
    rx.script("/hooks", [Answer::Status(500)]);

    // WHEN a payment is captured
    let payment = capture(&stack).await;
    let hooks = rx.wait_for("/hooks", 2, SOON).await;
    let dlv = hooks[0].header("x-svc-delivery").unwrap().to_owned();
    let event = hooks[0].json()["id"].as_str().unwrap().to_owned();
    assert_eq!(hooks[0].json()["data"]["id"], json!(payment));

    // THEN the delivery shows both attempts, a 500 and a 200, and no next attempt
    let d = delivery_when(&stack, &dlv, SOON, |d| d["status"] == json!("succeeded")).await;
    assert_eq!(d["id"], json!(dlv));
    assert_eq!(d["endpointId"], json!(endpoint));
    assert_eq!(d["eventId"], json!(event));
    assert_eq!(d["eventType"], json!("payment.captured"));
    assert_eq!(d["attemptCount"], json!(2));
    assert_eq!(d["nextAttemptAt"], json!(null));
    let attempts = d["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2);
    assert_eq!(
        attempts
            .iter()
            .map(|a| (
                a["number"].clone(),
                a["statusCode"].clone(),
                a["succeeded"].clone()
            ))
            .collect::<Vec<_>>(),
        [
            (json!(1), json!(500), json!(false)),
            (json!(2), json!(200), json!(true))
        ]
    );
    for a in attempts {
        assert!(a["at"].is_string() && a["durationMs"].is_u64() && a["responseBody"].is_string());
        assert_eq!(a["error"], json!(null));
    }

    // AND it is in the endpoint's history (eventually consistent index) and the event's
    let history = path(
        ANATOLIA,
        &format!("/webhook-endpoints/{endpoint}/deliveries"),
    );
    let listed = until("the delivery in the endpoint's history", SOON, || async {
        let page = expect(stack.admin("GET", &history, None).await, 200);
        (page["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["id"] == json!(dlv))
            && page["data"][0]["status"] == json!("succeeded"))
        .then_some(page)
    })
    .await;
    assert_eq!(listed["nextCursor"], json!(null));
    let succeeded = expect(
        stack
            .admin("GET", &format!("{history}?status=succeeded&limit=5"), None)
            .await,
        200,
    );
    assert_eq!(succeeded["data"].as_array().unwrap().len(), 1);
    let failed = expect(
        stack
            .admin("GET", &format!("{history}?status=failed"), None)
            .await,
        200,
    );
    assert_eq!(failed["data"], json!([]));
    let bad = expect(
        stack
            .admin("GET", &format!("{history}?status=lost"), None)
            .await,
        400,
    );
    assert_eq!(bad["error"]["details"]["field"], json!("status"));
    let bad = expect(
        stack
            .admin("GET", &format!("{history}?cursor=nothex"), None)
            .await,
        400,
    );
    assert_eq!(bad["error"]["details"]["field"], json!("cursor"));

    let by_event = expect(
        stack
            .admin(
                "GET",
                &path(ANATOLIA, &format!("/events/{event}/deliveries")),
                None,
            )
            .await,
        200,
    );
    assert_eq!(by_event["data"].as_array().unwrap().len(), 1);
    assert_eq!(by_event["data"][0]["id"], json!(dlv));

    // AND another merchant cannot read any of it
    expect(
        stack
            .admin("GET", &path(BOSPHORUS, &format!("/deliveries/{dlv}")), None)
            .await,
        404,
    );
    expect(
        stack
            .admin(
                "GET",
                &path(BOSPHORUS, &format!("/events/{event}/deliveries")),
                None,
            )
            .await,
        404,
    );
    expect(
        stack
            .admin("GET", &path(ANATOLIA, "/deliveries/dlv_nothing"), None)
            .await,
        404,
    );
}

#[tokio::test]
async fn the_history_is_paged_newest_first() {
    let rx = Receiver::start().await;
    let stack = stack_for("adm-pages", &rx, "1s").await;
    let created = create_endpoint(&stack, ANATOLIA, &rx, "/hooks", json!(["*"])).await;
    let endpoint = created["id"].as_str().unwrap();
    let test = path(ANATOLIA, &format!("/webhook-endpoints/{endpoint}/test"));
    let mut ids = Vec::new();
    for _ in 0..3 {
        let d = expect(stack.admin("POST", &test, None).await, 202);
        ids.push(d["id"].as_str().unwrap().to_owned());
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let history = path(
        ANATOLIA,
        &format!("/webhook-endpoints/{endpoint}/deliveries"),
    );
    let first = until("three deliveries listed", SOON, || async {
        let p = expect(
            stack
                .admin("GET", &format!("{history}?limit=2"), None)
                .await,
            200,
        );
        p["nextCursor"].is_string().then_some(p)
    })
    .await;
    let got: Vec<&str> = first["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(got, [ids[2].as_str(), ids[1].as_str()]);
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = expect(
        stack
            .admin("GET", &format!("{history}?limit=2&cursor={cursor}"), None)
            .await,
        200,
    );
    assert_eq!(second["data"][0]["id"], json!(ids[0]));
    assert_eq!(second["data"].as_array().unwrap().len(), 1);
}
