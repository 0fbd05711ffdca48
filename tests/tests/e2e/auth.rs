//! Authentication, merchant and mode isolation, and operations a POS account lacks.

use paygate_tests::{expect_error, expect_ok, keys, Stack};
use reqwest::Method;
use serde_json::json;

/// Every merchant route with a payment id, as (method, path suffix).
const PAYMENT_ROUTES: [(&str, &str); 5] = [
    ("GET", ""),
    ("POST", "/capture"),
    ("POST", "/cancel"),
    ("POST", "/refund"),
    ("POST", "/query"),
];

#[tokio::test]
async fn requests_without_a_valid_key_are_401() {
    let stack = Stack::start().await;
    let k = keys();
    let unknown = format!("sk_test_{}", "Z".repeat(30));
    let headers: Vec<(Option<String>, &str)> = vec![
        (None, "no header"),
        (Some(String::new()), "empty header"),
        (Some("Bearer".into()), "no key"),
        (Some("Bearer ".into()), "blank key"),
        (Some(k.anatolia_test.to_owned()), "no Bearer scheme"),
        (Some(format!("Basic {}", k.anatolia_test)), "other scheme"),
        (Some("Bearer abc".into()), "malformed key"),
        (
            Some("Bearer sk_prod_anatoliaLocal000000000001".into()),
            "unknown prefix",
        ),
        (
            Some(format!("Bearer {}!", k.anatolia_test)),
            "bad characters",
        ),
        (Some(format!("Bearer {unknown}")), "unknown well-formed key"),
        // a live-looking key that was never issued
        (
            Some(format!("Bearer sk_live_{}", "Q".repeat(24))),
            "unknown live key",
        ),
    ];
    let id = "pay_anatoliaCapt1";
    for (header, why) in &headers {
        let mut requests = vec![(Method::GET, format!("/v1/payments/{id}"), None)];
        for op in ["capture", "cancel", "refund", "query"] {
            requests.push((Method::POST, format!("/v1/payments/{id}/{op}"), Some("{}")));
        }
        requests.push((
            Method::POST,
            "/v1/payments/points/inquiry".into(),
            Some(r#"{"card":{},"currency":"TRY"}"#),
        ));
        requests.push((
            Method::POST,
            "/v1/test_helpers/payments".into(),
            Some(r#"{"amount":100,"currency":"TRY","status":"captured"}"#),
        ));
        for (method, path, body) in requests {
            // WHEN a request carries `header`
            let r = stack
                .raw(
                    method.clone(),
                    &path,
                    header.as_deref(),
                    body.map(|_| "application/json"),
                    body.map(str::to_owned),
                )
                .await;
            // THEN 401 unauthorized, without echoing what was sent
            assert_eq!(
                (r.status.as_u16(), r.body["error"]["code"].as_str()),
                (401, Some("unauthorized")),
                "{why}: {method} {path}: {}",
                r.text
            );
            assert!(
                !r.text.contains(k.anatolia_test),
                "{why}: the key is echoed: {}",
                r.text
            );
        }
    }
    // AND the seeded payment was not touched
    let got = stack.payment(k.anatolia_test, id).await;
    assert_eq!(got["status"], "captured");
    assert_eq!(got["transactions"], json!([]));
}

#[tokio::test]
async fn another_merchants_payment_does_not_exist() {
    let stack = Stack::start().await;
    let k = keys();
    // GIVEN Anatolia's authorized and captured payments
    let auth = stack
        .payment_in(k.anatolia_test, "authorized", 10_000)
        .await;
    let capt = stack.payment_in(k.anatolia_test, "captured", 10_000).await;
    for id in [&auth, &capt] {
        for (method, suffix) in PAYMENT_ROUTES {
            // WHEN Bosphorus reads or operates on them
            let path = format!("/v1/payments/{id}{suffix}");
            let reply = if method == "GET" {
                stack.get(&path, k.bosphorus_test).await
            } else {
                stack.post(&path, k.bosphorus_test, json!({})).await
            };
            // THEN 404, exactly as for a payment that does not exist
            expect_error(&reply, 404, "not_found");
        }
    }
    // AND nothing moved
    let got = stack.payment(k.anatolia_test, &auth).await;
    assert_eq!(
        (&got["status"], &got["transactions"]),
        (&json!("authorized"), &json!([]))
    );
    let got = stack.payment(k.anatolia_test, &capt).await;
    assert_eq!(
        (&got["status"], &got["transactions"]),
        (&json!("captured"), &json!([]))
    );
}

#[tokio::test]
async fn test_and_live_payments_are_invisible_across_modes() {
    let stack = Stack::start().await;
    let k = keys();
    // GIVEN a test payment, and the seed's live payments
    let test_payment = stack.payment_in(k.anatolia_test, "captured", 10_000).await;
    let cases = [
        (k.anatolia_live, test_payment.as_str()),
        (k.anatolia_test, "pay_anatoliaLive1"),
        (k.anatolia_test, "pay_anatoliaLive2"),
        (k.bosphorus_test, "pay_bosphorusLive1"),
        // and the other merchant's live payments with a live key
        (k.bosphorus_live, "pay_anatoliaLive1"),
    ];
    for (key, id) in cases {
        for (method, suffix) in PAYMENT_ROUTES {
            // WHEN the key of the other mode reads or operates on it
            let path = format!("/v1/payments/{id}{suffix}");
            let reply = if method == "GET" {
                stack.get(&path, key).await
            } else {
                stack.post(&path, key, json!({})).await
            };
            // THEN 404
            expect_error(&reply, 404, "not_found");
        }
    }
    // AND with the right mode they are there, untouched
    assert_eq!(
        stack.payment(k.anatolia_test, &test_payment).await["status"],
        "captured"
    );
    let live = stack.payment(k.anatolia_live, "pay_anatoliaLive1").await;
    assert_eq!(live["status"], "authorized");
    assert_eq!(live["mode"], "live");
    let live = stack.payment(k.anatolia_live, "pay_anatoliaLive2").await;
    assert_eq!(live["status"], "captured");
}

#[tokio::test]
async fn the_test_helper_does_not_exist_for_live_keys() {
    let stack = Stack::start().await;
    let k = keys();
    for key in [k.anatolia_live, k.bosphorus_live] {
        // WHEN a live key creates a test payment
        let reply = stack
            .post(
                "/v1/test_helpers/payments",
                key,
                json!({ "amount": 10_000, "currency": "TRY", "status": "captured" }),
            )
            .await;
        // THEN 404
        expect_error(&reply, 404, "not_found");
    }
}

#[tokio::test]
async fn an_operation_the_account_lacks_is_refused_and_the_bank_untouched() {
    let stack = Stack::start().await;
    let k = keys();
    // GIVEN captured and authorized payments on Bosphorus' Yapı Kredi account, which lacks
    // cancel
    let mut ids = Vec::new();
    for status in ["captured", "authorized"] {
        ids.push((
            status,
            stack
                .create_payment(
                    k.bosphorus_test,
                    json!({ "amount": 10_000, "currency": "TRY", "status": status,
                            "accountId": "acc_bosphorusYapikredi" }),
                )
                .await,
        ));
    }
    ids.push(("captured", "pay_bosphorusCapt1".to_owned()));
    for (status, id) in &ids {
        // WHEN it is cancelled
        let reply = stack.op(k.bosphorus_test, id, "cancel", json!({})).await;

        // THEN 400 operation_not_supported
        let err = expect_error(&reply, 400, "operation_not_supported");
        assert_eq!(
            err["details"]["accountId"], "acc_bosphorusYapikredi",
            "{err}"
        );
        // AND the bank still holds the order as it was, and the payment is unchanged
        let q = expect_ok(stack.op(k.bosphorus_test, id, "query", json!({})).await);
        let bank_state = if *status == "captured" {
            "approved"
        } else {
            "preauth"
        };
        assert_eq!(q["bank"]["state"], bank_state, "{id}: {q}");
        assert_eq!(q["payment"]["status"], *status, "{id}: {q}");
        assert_eq!(
            stack.payment(k.bosphorus_test, id).await["transactions"],
            json!([])
        );
    }
    // AND the operations it does support work on the same account
    let (_, captured) = &ids[0];
    let ok = expect_ok(
        stack
            .op(k.bosphorus_test, captured, "refund", json!({}))
            .await,
    );
    assert_eq!(ok["payment"]["status"], "refunded", "{ok}");
}

#[tokio::test]
async fn a_request_addressed_to_another_host_name_is_refused() {
    // GIVEN the dev server and a valid (public, seeded) key
    let stack = Stack::start().await;
    let k = keys();
    let port = stack.url.rsplit_once(':').expect("a port").1;
    let http = reqwest::Client::new();
    let get = |host: String| {
        http.get(format!("{}/v1/payments/pay_anatoliaCapt1", stack.url))
            .header("host", host)
            .header("authorization", format!("Bearer {}", k.anatolia_test))
            .send()
    };
    // WHEN a page of another site rebinds its name to 127.0.0.1 (DNS rebinding)
    let r = get(format!("attacker.example:{port}"))
        .await
        .expect("an answer");
    // THEN 403 forbidden_host, nothing served
    assert_eq!(r.status().as_u16(), 403);
    let body: serde_json::Value = r.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], "forbidden_host");
    assert!(body.get("id").is_none());
    // AND the loopback names with the port are served
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        assert_eq!(get(host).await.expect("an answer").status().as_u16(), 200);
    }
}
