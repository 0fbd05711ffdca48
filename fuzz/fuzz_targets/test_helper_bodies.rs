//! The test helpers' bodies: `POST /v1/test_helpers/payments` (`paygate_http::test_helpers`)
//! and the bank simulators' admin routes (`/_sim/orders` for every client field the
//! simulators use, `/_sim/faults`, Garanti's orders and `/_sim/rewards`, Posnet's orders
//! and faults). Besides no panic: a refusal is a 4xx, never a 5xx; an accepted test
//! payment has a positive amount within the limit and a bank state only a pending payment
//! may choose; an accepted simulator order reads back the same from its own JSON; Posnet's
//! order ids come out in the bank's 24-character form. Each parser gets the raw bytes and
//! the same bytes shaped into a JSON object (`common/shape.rs`: a valid body, then fields
//! set or removed), which raw bytes rarely form.
#![no_main]
#[path = "common/shape.rs"]
mod shape;

use lambda_http::{Body, Request};
use libfuzzer_sys::fuzz_target;
use paygate_bankkit::sim::bodies;
use paygate_domain::{ports::TestOrderState, PaymentStatus};
use paygate_http::{parse_object, test_helpers::test_payment};

/// The client fields of the simulators built on the kit's admin routes (Nestpay, PayFor and
/// PayFlex, InterVPOS, Akbank POS).
const CLIENT_FIELDS: [&str; 4] = ["clientId", "merchantId", "shopCode", "terminalSafeId"];

/// The fields of the bodies.
const KEYS: &[&str] = &[
    "amount",
    "currency",
    "status",
    "accountId",
    "bankState",
    "settled",
    "orderId",
    "state",
    "clientId",
    "merchantId",
    "shopCode",
    "terminalSafeId",
    "terminalId",
    "mid",
    "orderIdPrefix",
    "latencyMs",
    "technicalErrors",
    "dropAfterProcessing",
    "dropBeforeProcessing",
    "only",
    "number",
    "rewards",
    "type",
    "totalAmount",
];

/// Words the bodies accept (or nearly).
const WORDS: &[&str] = &[
    "TRY",
    "USD",
    "EUR",
    "GBP",
    "authorized",
    "captured",
    "pending",
    "failed",
    "approved",
    "preauth",
    "declined",
    "none",
    "acc_1",
    "acc_",
    "capt",
    "sale",
    "reverse",
    "PG",
    "ABCDEFGHIJKLMNOPQRSTUVWX",
    "_",
    "4546711234567894",
    "BNS",
    "",
];

/// A valid body of each: the test payment, an order for the kit's simulators (every client
/// field at once), Garanti's and Posnet's orders, the faults, Garanti's rewards.
const BASES: &[&str] = &[
    r#"{"amount": 1250, "currency": "TRY", "status": "pending", "bankState": "approved", "accountId": "acc_1", "settled": false}"#,
    r#"{"clientId": "c", "merchantId": "m", "shopCode": "s", "terminalSafeId": "t", "orderId": "o1", "amount": 1250, "currency": "TRY", "state": "approved", "settled": false}"#,
    r#"{"terminalId": "t", "merchantId": "m", "orderId": "o1", "amount": 1250, "currency": "EUR", "state": "preauth", "settled": true}"#,
    r#"{"mid": "6706598320", "orderIdPrefix": "PG", "orderId": "ABC1", "amount": 1250, "currency": "TRY", "state": "none", "settled": false}"#,
    r#"{"latencyMs": 5, "technicalErrors": 1, "dropAfterProcessing": 0, "dropBeforeProcessing": 0, "only": "capt"}"#,
    r#"{"number": "4546711234567894", "rewards": [{"type": "BNS", "totalAmount": 100}]}"#,
];

fuzz_target!(|data: &[u8]| {
    bodies(data);
    let shaped = shape::object(&mut shape::Reader::new(data), BASES, KEYS, WORDS);
    bodies(&serde_json::to_vec(&shaped).unwrap());
});

/// Every test-helper body parser on `data`.
fn bodies(data: &[u8]) {
    let mut req = Request::new(Body::Binary(data.to_vec()));
    req.headers_mut().insert(
        "content-type",
        lambda_http::http::HeaderValue::from_static("application/json"),
    );
    match parse_object(&req).and_then(|b| test_payment(&b)) {
        Ok(p) => {
            assert!(p.amount > 0 && p.amount <= paygate_domain::MAX_AMOUNT);
            let implied = match p.status {
                PaymentStatus::Authorized => Some(TestOrderState::Preauth),
                PaymentStatus::Captured => Some(TestOrderState::Approved),
                PaymentStatus::Failed => Some(TestOrderState::None),
                _ => None,
            };
            assert!(implied.is_none_or(|s| s == p.bank_state));
        }
        Err(e) => assert!(e.status.is_client_error(), "{e:?}"),
    }

    for field in CLIENT_FIELDS {
        match bodies::order_body(field, data) {
            Ok((client, order)) => {
                let mut again = serde_json::to_value(&order).unwrap();
                again[field] = serde_json::Value::String(client.clone());
                let bytes = serde_json::to_vec(&again).unwrap();
                assert_eq!(bodies::order_body(field, &bytes), Ok((client, order)));
            }
            Err(r) => assert!(r.status.is_client_error(), "{r:?}"),
        }
    }
    if let Err(r) = bodies::faults_body(data) {
        assert!(r.status.is_client_error(), "{r:?}");
    }
    if let Err(r) = bodies::json::<paygate_bank_garanti::sim::RegisterOrder>(data) {
        assert!(r.status.is_client_error(), "{r:?}");
    }
    if let Err(r) = bodies::json::<paygate_bank_garanti::sim::RewardCard>(data) {
        assert!(r.status.is_client_error(), "{r:?}");
    }
    match paygate_bank_posnet::sim::admin::order_body(data) {
        Ok(b) => {
            if b.order_id_prefix.is_some() {
                assert_eq!(
                    b.order.order_id.len(),
                    paygate_bank_posnet::wire::ORDER_ID_LEN
                );
            }
            let _ = paygate_bank_posnet::sim::admin::order_fits(&b.order);
        }
        Err(r) => assert!(r.status().is_client_error(), "{r:?}"),
    }
    if let Err(r) = paygate_bank_posnet::sim::admin::faults_body(data) {
        assert!(r.status().is_client_error(), "{r:?}");
    }
}
