//! Request encoding and the `hash`, checked against the public vectors: MEWS
//! `tests/Unit/Crypt/ToslaPosCryptTest::testCreateHash` (Tosla's public test client, `rnd`
//! `rand`, `timeSpan` `20231209201121`) and the construction of Tosla's developer centre
//! ("Hash Üretimi": ApiPass, ClientId, ApiUser, RandomString, TimeSpan joined, SHA-512,
//! base64). The simulator accepts what the adapter writes and refuses a wrong, reused or
//! malformed request before processing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, API_PASS, API_USER, CLIENT_ID};
use paygate_bank_toslapos::{
    hash::request_hash,
    request::{to_json, Request, Stamp},
    ApiCredentials,
};
use paygate_bankkit::{BankReply, Order};
use paygate_domain::{BankOutcome, Currency};
use serde_json::Value;

#[test]
fn the_reference_hash_vector() {
    assert_eq!(
        request_hash(API_PASS, CLIENT_ID, API_USER, "rand", "20231209201121"),
        "BwZ05tt0aNgIgtrrqmlTwSIaeetpQyyGLH6xTsQbHae7ANCIVKmLHPxYWk5XP3Li5fr4La1bZS9/43OihP0dig=="
    );
}

fn creds() -> ApiCredentials {
    ApiCredentials {
        endpoint_url: "https://entegrasyon.tosla.com/api/Payment".into(),
        client_id: CLIENT_ID.into(),
        api_user: API_USER.into(),
        api_pass: API_PASS.into(),
    }
}

/// The bodies: MEWS `ToslaPosRequestDataMapper` keys, `clientId` a number (the API's
/// `long`), amounts integers in kuruş, the hash over the body's own `rnd` and `timeSpan`.
#[test]
fn bodies() {
    let stamp = Stamp {
        rnd: "rand".into(),
        time_span: "20231209201121".into(),
    };
    let order = Order {
        order_id: "id-12",
        amount: 102,
        currency: Currency::Try,
    };
    let body = |req: &Request<'_>| -> Value {
        serde_json::from_str(&to_json(&creds(), req, &stamp)).unwrap()
    };
    let post = body(&Request::PostAuth(order));
    assert_eq!(post["clientId"], 1_000_000_494_u64);
    assert_eq!(post["apiUser"], API_USER);
    assert_eq!(post["orderId"], "id-12");
    assert_eq!(post["amount"], 102);
    assert_eq!(post["rnd"], "rand");
    assert_eq!(post["timeSpan"], "20231209201121");
    assert_eq!(
        post["hash"],
        "BwZ05tt0aNgIgtrrqmlTwSIaeetpQyyGLH6xTsQbHae7ANCIVKmLHPxYWk5XP3Li5fr4La1bZS9/43OihP0dig=="
    );
    assert_eq!(post.as_object().unwrap().len(), 7);
    assert_eq!(body(&Request::Refund(order)).as_object().unwrap().len(), 7);
    for req in [
        Request::Void { order_id: "id-12" },
        Request::Inquiry { order_id: "id-12" },
    ] {
        let b = body(&req);
        assert_eq!(b.as_object().unwrap().len(), 6, "{b}");
        assert!(b.get("amount").is_none() && !b.to_string().contains(API_PASS));
    }
    assert_eq!(
        [
            Request::PostAuth(Order {
                order_id: "o",
                amount: 1,
                currency: Currency::Try
            })
            .path(),
            Request::Void { order_id: "o" }.path(),
            Request::Inquiry { order_id: "o" }.path()
        ],
        ["postAuth", "void", "inquiry"]
    );
}

fn code(body: &[u8]) -> Value {
    serde_json::from_slice::<Value>(body).unwrap()["Code"].clone()
}

#[tokio::test]
async fn the_simulator_checks_the_hash_once_and_the_fields() {
    let b = bank().await;
    let stamp = Stamp::new(1_702_141_881_000, &[7; 12]);
    let inquiry = to_json(&creds(), &Request::Inquiry { order_id: "NOPE" }, &stamp);
    // Accepted once: "not found" is Code 0 with an empty order.
    let first = b.raw("inquiry", &inquiry).await;
    assert_eq!(code(&first), 0, "{}", String::from_utf8_lossy(&first));
    // The same hash again, a wrong password, another user: Code 997.
    assert_eq!(code(&b.raw("inquiry", &inquiry).await), 997);
    let mut wrong = creds();
    wrong.api_pass = "wrong".into();
    let fresh = Stamp::new(1_702_141_881_000, &[8; 12]);
    assert_eq!(
        code(
            &b.raw(
                "inquiry",
                &to_json(&wrong, &Request::Inquiry { order_id: "X" }, &fresh)
            )
            .await
        ),
        997
    );
    // Malformed: Code 998, read as an error (nothing moved).
    let bad = b.raw("refund", r#"{"clientId":1000000494,"apiUser":"POS_ENT_Test_001","orderId":"X","amount":1.5,"rnd":"r","timeSpan":"20231209201121","hash":"h"}"#).await;
    assert_eq!(code(&bad), 998);
    let reply = paygate_bank_toslapos::response::Reply::decode(&bad).unwrap();
    assert!(matches!(reply.outcome(), BankOutcome::Error { code, .. } if code == "998"));
    assert_eq!(code(&b.raw("void", r#"{"clientId":"x"}"#).await), 998);
    assert_eq!(code(&b.raw("void", "not json").await), 998);
}
