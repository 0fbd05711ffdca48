//! The `auth-hash` vector and the exact request bodies, against MEWS: the body of
//! `AkbankPosCryptTest::hashStringDataProvider` (an order-history request) is what this
//! crate writes for the same terminal, time and random number, and its HMAC-SHA512 under the
//! test secret key is the library's expected `D07V9wUX…YAHA==`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paygate_bank_akbankpos::{
    hash,
    request::{self, Request, Stamp},
    response, status, ApiCredentials,
};
use paygate_bankkit::{BankReply, Order};
use paygate_domain::{BankState, Currency};

const SECRET: &str = "3230323330393034313735303032363031353172675f357637355f3273387373745f7233725f73323333383737335f323272383774767276327672323531355f";
const RANDOM: &str = "59EED19EC4FA761B8D147F5175C915EFD69D193ED96114F9690505EDB02FF5FD3CB161A15FD5EFFB294177291DC27B2A9F58FB1DA6F2F4617762AF180A023A33";
const MEWS_BODY: &str = r#"{"terminal":{"merchantSafeId":"2023090417500272654BD9A49CF07574","terminalSafeId":"2023090417500284633D137A249DBBEB"},"version":"1.00","txnCode":"1010","requestDateTime":"2024-04-20T13:48:02.000","randomNumber":"59EED19EC4FA761B8D147F5175C915EFD69D193ED96114F9690505EDB02FF5FD3CB161A15FD5EFFB294177291DC27B2A9F58FB1DA6F2F4617762AF180A023A33","order":{"orderId":"2024042053E2"}}"#;
const MEWS_HASH: &str =
    "D07V9wUXfyPbn+L8jqd9plMfJKT3gSy22Z+yruzWsvuJBkQ63fz+wcWjTF2XurVjYtnR7wLGYTJYg0xjDCYAHA==";

fn creds() -> ApiCredentials {
    ApiCredentials {
        endpoint_url: "https://apipre.akbank.com/api/v1/payment/virtualpos".into(),
        merchant_safe_id: "2023090417500272654BD9A49CF07574".into(),
        terminal_safe_id: "2023090417500284633D137A249DBBEB".into(),
        secret_key: SECRET.into(),
        customer_ip: None,
    }
}

fn stamp() -> Stamp {
    let bytes: [u8; 64] = hex::decode(RANDOM).unwrap().try_into().unwrap();
    // 2024-04-20T13:48:02 Istanbul = 10:48:02 UTC.
    Stamp::new(1_713_610_082_000, &bytes)
}

#[test]
fn hash_vector_of_the_library() {
    assert_eq!(hash::auth_hash(SECRET, MEWS_BODY.as_bytes()), MEWS_HASH);
    assert!(hash::verify(SECRET, MEWS_BODY.as_bytes(), MEWS_HASH));
    assert!(!hash::verify(
        "another key",
        MEWS_BODY.as_bytes(),
        MEWS_HASH
    ));
    assert!(!hash::verify(
        SECRET,
        MEWS_BODY.replace("53E2", "53E3").as_bytes(),
        MEWS_HASH
    ));
}

#[test]
fn order_history_body_is_the_library_body() {
    let body = request::to_json(
        &creds(),
        &Request::OrderHistory {
            order_id: "2024042053E2",
        },
        &stamp(),
    );
    assert_eq!(body, MEWS_BODY);
}

/// MEWS request-mapper key order for post-auth, void (`txnCode` before `version`) and refund
/// (`transaction` before `order`); amounts as `"1.02"` strings, `currencyCode` a number.
#[test]
fn money_bodies() {
    let head = |first: &str| {
        format!(
            r#"{{"terminal":{{"merchantSafeId":"2023090417500272654BD9A49CF07574","terminalSafeId":"2023090417500284633D137A249DBBEB"}},{first},"requestDateTime":"2024-04-20T13:48:02.000","randomNumber":"{RANDOM}""#
        )
    };
    let mut with_ip = creds();
    with_ip.customer_ip = Some("127.0.0.1".into());
    let post = request::to_json(
        &with_ip,
        &Request::PostAuth(Order {
            order_id: "O1",
            amount: 102,
            currency: Currency::Try,
        }),
        &stamp(),
    );
    assert_eq!(
        post,
        format!(
            r#"{},"order":{{"orderId":"O1"}},"transaction":{{"amount":"1.02","currencyCode":949}},"customer":{{"ipAddress":"127.0.0.1"}}}}"#,
            head(r#""version":"1.00","txnCode":"1005""#)
        )
    );
    let void = request::to_json(&creds(), &Request::Void { order_id: "O1" }, &stamp());
    assert_eq!(
        void,
        format!(
            r#"{},"order":{{"orderId":"O1"}}}}"#,
            head(r#""txnCode":"1003","version":"1.00""#)
        )
    );
    let refund = request::to_json(
        &creds(),
        &Request::Refund(Order {
            order_id: "O1",
            amount: 10_000,
            currency: Currency::Eur,
        }),
        &stamp(),
    );
    assert_eq!(
        refund,
        format!(
            r#"{},"transaction":{{"amount":"100.00","currencyCode":978}},"order":{{"orderId":"O1"}}}}"#,
            head(r#""version":"1.00","txnCode":"1002""#)
        )
    );
}

/// MEWS `orderHistoryDataProvider` `success_pre_pay_post_pay` (trimmed to the fields read).
#[test]
fn reads_the_library_history_sample() {
    let doc = r#"{"txnCode":"1010","terminal":{"terminalSafeId":"2023090417500284633D137A249DBBEB","merchantSafeId":"2023090417500272654BD9A49CF07574"},"txnDetailList":[{"preAuthCloseDate":"2024-04-15T20:17:20.158","amount":30,"authCode":"305955","hostResponseCode":"00","orderId":"20240415CE8F","preAuthStatus":"C","txnDateTime":"2024-04-15T20:17:19.205","responseCode":"VPS-0000","rrn":"410724359538","installCount":3,"txnCode":"1004","txnStatus":"N","orgOrderId":"20240415CE8F","preAuthCloseAmount":30,"responseMessage":"BAŞARILI","currencyCode":949,"batchNumber":39},{"amount":30,"authCode":"305955","hostResponseCode":"00","orderId":"d2f58999-5143-4f5c-b503-deaa789441d5","txnDateTime":"2024-04-15T20:17:20.158","responseCode":"VPS-0000","rrn":"410724359538","txnCode":"1005","txnStatus":"N","orgOrderId":"20240415CE8F","responseMessage":"BAŞARILI","currencyCode":949}],"responseMessage":"BAŞARILI","txnDateTime":"2024-04-15T20:17:26.024","responseCode":"VPS-0000"}"#;
    let view = status::from_history(&response::Reply::decode(doc.as_bytes()).unwrap());
    assert_eq!(
        (view.status.state, view.status.amount, view.captured_preauth),
        (BankState::Approved, 3_000, true)
    );
    assert_eq!(view.status.auth_code, "305955");
}
