//! Per-API-key throttling over real HTTP: a burst over the limit is answered
//! `429 rate_limited` with `Retry-After`, each key is counted on its own, and points inquiry
//! has its own, stricter limit. Requests go out concurrently, so they land within
//! milliseconds; the assertions hold even if a clock second turns between them (a fixed
//! window then lets at most twice its burst through).

use paygate_domain::throttle::{Limits, RateLimit};
use paygate_tests::{card_number, keys, points_body, Stack};
use serde_json::Value;

/// (status, Retry-After, error code) of each answer.
type Answer = (u16, Option<String>, Option<String>);

async fn send(stack: &Stack, key: &str, path: &str, body: Option<Value>) -> Answer {
    let url = format!("{}{path}", stack.url);
    let req = match &body {
        Some(b) => stack
            .http
            .post(url)
            .header("content-type", "application/json")
            .body(b.to_string()),
        None => stack.http.get(url),
    };
    let resp = req
        .header("authorization", format!("Bearer {key}"))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let retry = resp
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    let json: Value = resp.json().await.unwrap_or(Value::Null);
    let code = json["error"]["code"].as_str().map(str::to_owned);
    (status, retry, code)
}

async fn burst(stack: &Stack, key: &str, path: &str, body: Option<Value>, n: usize) -> Vec<Answer> {
    futures::future::join_all((0..n).map(|_| send(stack, key, path, body.clone()))).await
}

fn refused(answers: &[Answer]) -> Vec<&Answer> {
    answers.iter().filter(|a| a.0 == 429).collect()
}

#[tokio::test]
async fn a_burst_over_the_limit_is_refused_with_429_and_retry_after() {
    let limits = Limits {
        api: RateLimit::new(3, 100_000).unwrap(),
        points: RateLimit::new(100_000, 100_000).unwrap(),
        ..paygate_tests::GENEROUS_LIMITS
    };
    let stack = Stack::start_with_throttle("throttle", limits).await;
    let k = keys();
    let path = "/v1/payments/pay_anatoliaCapt1";
    let answers = burst(&stack, k.anatolia_test, path, None, 10).await;
    let no = refused(&answers);
    // At most twice the burst through, even across a second's turn.
    assert!(no.len() >= 4, "{answers:?}");
    for (status, retry, code) in &no {
        assert_eq!(*status, 429);
        assert_eq!(code.as_deref(), Some("rate_limited"));
        // Over the burst: the next second.
        assert_eq!(retry.as_deref(), Some("1"), "{answers:?}");
    }
    for a in &answers {
        assert!(a.0 == 200 || a.0 == 429, "{answers:?}");
    }
    // Another merchant's key is counted on its own.
    let (status, _, _) = send(&stack, k.bosphorus_test, "/v1/payments/pay_none1", None).await;
    assert_eq!(
        status, 404,
        "not throttled: the payment is simply not there"
    );
}

#[tokio::test]
async fn points_inquiry_has_its_own_stricter_limit() {
    let limits = Limits {
        api: RateLimit::new(1_000, 100_000).unwrap(),
        points: RateLimit::new(1, 100_000).unwrap(),
        ..paygate_tests::GENEROUS_LIMITS
    };
    let stack = Stack::start_with_throttle("throttle-points", limits).await;
    let k = keys();
    let body = points_body(&card_number("45436099", 16, ""), Some("acc_anatoliaIsbank"));
    let answers = burst(
        &stack,
        k.anatolia_test,
        "/v1/payments/points/inquiry",
        Some(body),
        6,
    )
    .await;
    let no = refused(&answers);
    assert!(no.len() >= 4, "one a second: {answers:?}");
    assert!(no
        .iter()
        .all(|a| a.1.as_deref() == Some("1") && a.2.as_deref() == Some("rate_limited")));
    assert!(answers.iter().any(|a| a.0 == 200), "{answers:?}");
    // The same key's other routes are under the other limit.
    let others = burst(
        &stack,
        k.anatolia_test,
        "/v1/payments/pay_anatoliaCapt1",
        None,
        6,
    )
    .await;
    assert!(others.iter().all(|a| a.0 == 200), "{others:?}");
}
