//! Output formatting, on fixed answers.

use serde_json::json;

use super::*;
use crate::model::{decode, DeliveryDetail, Endpoint, EndpointList, Rotated};

fn endpoint() -> Endpoint {
    decode(
        "endpoint",
        &json!({
            "id": "whe_1", "url": "https://shop.example/hooks", "events": ["payment.captured", "payment.refunded"],
            "mode": "test", "enabled": true, "description": "", "createdAt": "2026-11-21T09:00:00.000Z",
            "updatedAt": "2026-11-21T09:00:00.000Z", "secret": "whsec_abc"
        }),
    )
    .unwrap()
}

#[test]
fn tables_align_columns() {
    let t = table(
        &["ID", "STATUS"],
        &[
            vec!["dlv_1".into(), "failed".into()],
            vec!["dlv_long".into(), "ok".into()],
        ],
    );
    assert_eq!(t, "ID        STATUS\ndlv_1     failed\ndlv_long  ok\n");
}

#[test]
fn snippets_are_one_short_line() {
    assert_eq!(snippet("a\n  b\tc", 10), "a b c");
    assert_eq!(snippet("abcdefghij", 5), "abcd…");
    assert_eq!(snippet("", 5), "");
}

#[test]
fn money_in_minor_units() {
    assert_eq!(money(10_000, "TRY"), "100.00 TRY");
    assert_eq!(money(5, "EUR"), "0.05 EUR");
    assert_eq!(money(-150, "USD"), "-1.50 USD");
}

#[test]
fn a_created_endpoint_shows_the_secret_once_with_a_warning() {
    let out = endpoint_created(&endpoint());
    assert!(out.contains("secret       whsec_abc\n"), "{out}");
    assert!(
        out.contains("events       payment.captured,payment.refunded\n"),
        "{out}"
    );
    assert!(out.contains("description  -\n"), "{out}");
    assert!(out.contains("will not be shown again"), "{out}");
}

#[test]
fn endpoint_lists_never_show_secrets() {
    let list: EndpointList = decode("list", &json!({"data": [
        {"id": "whe_1", "url": "https://a.example/", "events": ["*"], "mode": "live", "enabled": false,
         "description": "main", "createdAt": "t", "updatedAt": "t"}
    ]}))
    .unwrap();
    let out = endpoints_table(&list.data);
    assert_eq!(
        out,
        "ID     MODE  STATE     EVENTS  URL                 DESCRIPTION\n\
         whe_1  live  disabled  *       https://a.example/  main\n"
    );
    assert_eq!(endpoints_table(&[]), "no webhook endpoints\n");
    let mut with_secret = endpoint();
    with_secret.secret = Some("whsec_hidden".into());
    assert!(!endpoints_table(&[with_secret]).contains("whsec_hidden"));
}

#[test]
fn rotation_says_how_long_the_old_secret_signs() {
    let r: Rotated = decode("r", &json!({"id": "whe_1", "secret": "whsec_new", "previousSecretExpiresAt": "2026-11-22T09:00:00.000Z"})).unwrap();
    let out = rotated(&r);
    assert!(out.contains("new secret  whsec_new"), "{out}");
    assert!(out.contains("until 2026-11-22T09:00:00.000Z"), "{out}");
    let r: Rotated = decode(
        "r",
        &json!({"id": "whe_1", "secret": "whsec_new", "previousSecretExpiresAt": null}),
    )
    .unwrap();
    assert!(rotated(&r).contains("stopped signing now"));
}

fn detail() -> DeliveryDetail {
    decode(
        "delivery",
        &json!({
            "id": "dlv_1", "endpointId": "whe_1", "eventId": "evt_1", "eventType": "payment.captured",
            "mode": "test", "status": "failed", "attemptCount": 2, "nextAttemptAt": null,
            "createdAt": "2026-11-21T09:00:00.000Z", "updatedAt": "2026-11-21T09:00:31.000Z",
            "attempts": [
                {"number": 1, "at": "2026-11-21T09:00:00.100Z", "durationMs": 12, "statusCode": 500,
                 "error": null, "responseBody": "internal\nerror", "succeeded": false},
                {"number": 2, "at": "2026-11-21T09:00:30.100Z", "durationMs": 10000, "statusCode": null,
                 "error": "timeout", "responseBody": "", "succeeded": false}
            ]
        }),
    )
    .unwrap()
}

#[test]
fn a_delivery_shows_each_attempt_and_the_next() {
    let out = delivery_detail(&detail());
    assert!(
        out.starts_with("delivery  dlv_1\nevent     payment.captured evt_1\n"),
        "{out}"
    );
    assert!(out.contains("status    failed\n"), "{out}");
    assert!(
        out.contains("#  AT                        RESULT          OUTCOME  DURATION  RESPONSE\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "1  2026-11-21T09:00:00.100Z  HTTP 500        failed   12 ms     internal error\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("2  2026-11-21T09:00:30.100Z  error: timeout  failed   10000 ms  -\n"),
        "{out}"
    );
    assert!(
        out.contains("next attempt: none (failed: `paygate deliveries resend`"),
        "{out}"
    );

    let mut pending = detail();
    pending.delivery.status = "pending".into();
    pending.delivery.next_attempt_at = Some("2026-11-21T09:02:30.000Z".into());
    pending.attempts.clear();
    let out = delivery_detail(&pending);
    assert!(out.contains("no attempts yet\n"), "{out}");
    assert!(
        out.contains("next attempt: 2026-11-21T09:02:30.000Z\n"),
        "{out}"
    );
}

#[test]
fn delivery_lists_page_on() {
    let d = detail().delivery;
    let out = deliveries_table(std::slice::from_ref(&d), Some("cur123"));
    assert!(out.starts_with("ID     EVENT             STATUS  ATTEMPTS  NEXT ATTEMPT  CREATED                   EVENT ID\n"), "{out}");
    assert!(out.contains("dlv_1  payment.captured  failed  2         -             2026-11-21T09:00:00.000Z  evt_1\n"), "{out}");
    assert!(out.ends_with("\nmore: --cursor cur123\n"), "{out}");
    assert_eq!(deliveries_table(&[], None), "no deliveries\n");
    let queued = delivery_queued("resent", &d);
    assert!(
        queued.contains("resent: delivery dlv_1 (payment.captured evt_1) is failed"),
        "{queued}"
    );
    assert!(queued.contains("paygate deliveries show dlv_1"), "{queued}");
}
