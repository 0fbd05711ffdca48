//! Webhook operations over real HTTP: recover (every failed delivery since a time, once),
//! endpoint health, and the auto-disable after 5 failing days (the stack's clock moved, no
//! sleeping), re-enable, recover.

use std::time::Duration;

use paygate_tests::{
    receiver::{Answer, Receiver},
    Stack, ANATOLIA,
};
use serde_json::{json, Value};

use crate::support::{create_endpoint, delivery_when, expect, path, stack_for, until, SOON};

const DAY_MS: i64 = 86_400_000;

/// Sends `n` test events to `endpoint`; returns their delivery ids.
async fn test_events(stack: &Stack, endpoint: &str, n: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for _ in 0..n {
        let d = expect(
            stack
                .admin(
                    "POST",
                    &path(ANATOLIA, &format!("/webhook-endpoints/{endpoint}/test")),
                    None,
                )
                .await,
            202,
        );
        ids.push(d["id"].as_str().unwrap().to_owned());
    }
    ids
}

async fn all_failed(stack: &Stack, ids: &[String]) {
    for id in ids {
        delivery_when(stack, id, Duration::from_secs(60), |d| {
            d["status"] == json!("failed")
        })
        .await;
    }
}

async fn health(stack: &Stack, endpoint: &str) -> Value {
    expect(
        stack
            .admin(
                "GET",
                &path(ANATOLIA, &format!("/webhook-endpoints/{endpoint}/health")),
                None,
            )
            .await,
        200,
    )
}

async fn recover(stack: &Stack, endpoint: &str, since: &Value) -> Value {
    expect(
        stack
            .admin(
                "POST",
                &path(ANATOLIA, &format!("/webhook-endpoints/{endpoint}/recover")),
                Some(&json!({ "since": since })),
            )
            .await,
        202,
    )
}

#[tokio::test]
async fn failed_deliveries_are_recovered_once_and_health_follows() {
    let rx = Receiver::start().await;
    // one retry a second after the first failure: two attempts, then failed
    let stack = stack_for("adm-recover", &rx, "1s").await;
    let created = create_endpoint(&stack, ANATOLIA, &rx, "/flaky", json!(["*"])).await;
    let ep = created["id"].as_str().unwrap().to_owned();
    rx.script("/flaky", (0..6).map(|_| Answer::Status(500)));
    let ids = test_events(&stack, &ep, 3).await;
    all_failed(&stack, &ids).await;

    let h = health(&stack, &ep).await;
    assert_eq!(h["attempts24h"], json!(6), "{h}");
    assert_eq!(h["successRate"], json!(0.0));
    assert!(
        h["failingSince"].is_string() && h["lastFailureAt"].is_string(),
        "{h}"
    );
    assert_eq!(h["lastSuccessAt"], json!(null));
    assert_eq!(
        (h["backlog"].clone(), h["status"].clone()),
        (json!(0), json!("enabled"))
    );

    // Recover since the endpoint was created: the three are requested, the receiver now
    // answers 200, they succeed under their own delivery ids.
    let r = recover(&stack, &ep, &created["createdAt"]).await;
    assert_eq!(
        (r["requested"].clone(), r["more"].clone()),
        (json!(3), json!(false)),
        "{r}"
    );
    // The same call at once requests nothing more (they are pending or done).
    let again = recover(&stack, &ep, &created["createdAt"]).await;
    assert_eq!(again["requested"], json!(0), "{again}");
    for id in &ids {
        delivery_when(&stack, id, SOON, |d| d["status"] == json!("succeeded")).await;
    }
    let hooks = rx.wait_for("/flaky", 9, SOON).await;
    let mut per_delivery: Vec<String> = hooks
        .iter()
        .filter_map(|h| h.header("x-svc-delivery").map(str::to_owned))
        .collect();
    per_delivery.sort();
    per_delivery.dedup();
    assert_eq!(per_delivery.len(), 3);
    // All three succeeded on their first new attempt: nothing was sent twice.
    assert_eq!(rx.hooks_to("/flaky").len(), 9);

    // Health: a success ended the failing run.
    let h = until("health after success", SOON, || async {
        let h = health(&stack, &ep).await;
        (h["attempts24h"] == json!(9)).then_some(h)
    })
    .await;
    assert_eq!(h["successRate"], json!(1.0 / 3.0));
    assert_eq!(h["failingSince"], json!(null));
    assert!(h["lastSuccessAt"].is_string());

    // Bad ranges and unknown endpoints.
    let bad = stack
        .admin(
            "POST",
            &path(ANATOLIA, &format!("/webhook-endpoints/{ep}/recover")),
            Some(&json!({"since": "2999-01-01T00:00:00Z"})),
        )
        .await;
    assert_eq!(
        expect(bad, 400)["error"]["details"]["field"],
        json!("since")
    );
    expect(
        stack
            .admin(
                "GET",
                &path(ANATOLIA, "/webhook-endpoints/whe_nothing/health"),
                None,
            )
            .await,
        404,
    );
}

#[tokio::test]
async fn five_failing_days_disable_the_endpoint_and_re_enabling_resumes() {
    let rx = Receiver::start().await;
    let stack = stack_for("adm-disable", &rx, "1s").await;
    let created = create_endpoint(&stack, ANATOLIA, &rx, "/dead", json!(["*"])).await;
    let ep = created["id"].as_str().unwrap().to_owned();
    // 20 deliveries of two failing attempts each, then one more after 5 days: 41 failures.
    rx.script("/dead", (0..41).map(|_| Answer::Status(503)));
    let mut ids = test_events(&stack, &ep, 20).await;
    all_failed(&stack, &ids).await;
    let h = health(&stack, &ep).await;
    assert_eq!(h["status"], json!("enabled"), "{h}");
    let since = h["failingSince"].clone();
    assert!(since.is_string(), "{h}");

    // Five days later (the stack's clock moved), the next failure disables it.
    stack.clock.advance_millis(5 * DAY_MS + 60_000);
    ids.extend(test_events(&stack, &ep, 1).await);
    let one = path(ANATOLIA, &format!("/webhook-endpoints/{ep}"));
    let disabled = until("auto-disable", SOON, || async {
        let e = expect(stack.admin("GET", &one, None).await, 200);
        (e["enabled"] == json!(false)).then_some(e)
    })
    .await;
    assert_eq!(disabled["disabledReason"], json!("failing"));
    assert_eq!(disabled["failingSince"], since);
    let h = health(&stack, &ep).await;
    assert_eq!(
        (h["status"].clone(), h["disabledReason"].clone()),
        (json!("disabled"), json!("failing"))
    );
    // Disabled: no test event, no recover.
    let err = expect(stack.admin("POST", &format!("{one}/test"), None).await, 409);
    assert_eq!(err["error"]["code"], json!("endpoint_disabled"));
    let err = expect(
        stack
            .admin(
                "POST",
                &format!("{one}/recover"),
                Some(&json!({"since": created["createdAt"]})),
            )
            .await,
        409,
    );
    assert_eq!(err["error"]["code"], json!("endpoint_disabled"));
    all_failed(&stack, &ids).await;

    // Re-enabled: reason and failingSince cleared; recover resends all 21, now answered 200.
    let on = expect(
        stack
            .admin("PATCH", &one, Some(&json!({"enabled": true})))
            .await,
        200,
    );
    assert_eq!(
        (on["disabledReason"].clone(), on["failingSince"].clone()),
        (json!(null), json!(null))
    );
    let r = recover(&stack, &ep, &created["createdAt"]).await;
    assert_eq!(r["requested"], json!(21), "{r}");
    for id in &ids {
        delivery_when(&stack, id, Duration::from_secs(60), |d| {
            d["status"] == json!("succeeded")
        })
        .await;
    }
    let h = health(&stack, &ep).await;
    assert_eq!(h["failingSince"], json!(null));
    assert_eq!(h["status"], json!("enabled"));
}
