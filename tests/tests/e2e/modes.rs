//! Test keys never reach live bank credentials: every POS account has a mode, and a key
//! only ever uses accounts of its own (the seed gives each merchant test and live accounts).

use paygate_tests::{card_number, expect_error, keys, points_body, Stack, StatusCode};
use serde_json::json;

const POINTS: &str = "/v1/payments/points/inquiry";

#[tokio::test]
async fn a_test_keys_points_inquiry_never_picks_a_live_account() {
    let stack = Stack::start().await;
    let k = keys();
    // GIVEN Anatolia's Garanti accounts: the test one lacks points inquiry, the live one
    // (acc_anatoliaGarantiLive) has it, so choosing by BIN across modes would pick it
    for bin in ["540669", "55496012"] {
        // WHEN a test key asks by a Garanti BIN
        let r = stack
            .post(
                POINTS,
                k.anatolia_test,
                points_body(&card_number(bin, 16, ""), None),
            )
            .await;
        // THEN only the test account is considered (which refuses: nothing sent)
        let err = expect_error(&r, 400, "operation_not_supported");
        assert_eq!(err["details"]["accountId"], "acc_anatoliaGaranti", "{err}");
    }
    // AND naming a live account with a test key is 404, like another merchant's account
    for account in ["acc_anatoliaGarantiLive", "acc_anatoliaIsbankLive"] {
        let r = stack
            .post(
                POINTS,
                k.anatolia_test,
                points_body(&card_number("540669", 16, ""), Some(account)),
            )
            .await;
        expect_error(&r, 404, "not_found");
    }
    // AND a live key gets the live accounts, by BIN and by id, and never the test ones
    for (bin, account) in [
        ("540669", "acc_anatoliaGarantiLive"),
        ("454360", "acc_anatoliaIsbankLive"),
    ] {
        let (status, body) = stack
            .post(
                POINTS,
                k.anatolia_live,
                points_body(&card_number(bin, 16, ""), None),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["accountId"], account, "{body}");
    }
    let r = stack
        .post(
            POINTS,
            k.anatolia_live,
            points_body(&card_number("454360", 16, ""), Some("acc_anatoliaIsbank")),
        )
        .await;
    expect_error(&r, 404, "not_found");
}

#[tokio::test]
async fn the_test_helper_never_writes_to_a_live_account() {
    let stack = Stack::start().await;
    let k = keys();
    // WHEN a test key asks the test helper for a payment on a live account
    for account in ["acc_anatoliaIsbankLive", "acc_anatoliaGarantiLive"] {
        let r = stack
            .post(
                "/v1/test_helpers/payments",
                k.anatolia_test,
                json!({ "amount": 10_000, "currency": "TRY", "status": "captured",
                        "accountId": account }),
            )
            .await;
        // THEN 404: no order is registered at that bank
        expect_error(&r, 404, "not_found");
    }
    // AND without accountId it picks a test account
    let id = stack
        .create_payment(
            k.anatolia_test,
            json!({ "amount": 10_000, "currency": "TRY", "status": "captured" }),
        )
        .await;
    let p = stack.payment(k.anatolia_test, &id).await;
    assert_eq!(p["mode"], "test");
    let account = p["accountId"].as_str().unwrap_or_default().to_owned();
    assert!(
        ["acc_anatoliaIsbank", "acc_anatoliaGaranti"].contains(&account.as_str()),
        "{p}"
    );
}

#[tokio::test]
async fn live_keys_operate_seeded_live_payments_on_live_accounts() {
    let stack = Stack::start().await;
    let k = keys();
    // The seed's live payments sit on live accounts of real protocols (never the simulator)
    let live = stack.payment(k.anatolia_live, "pay_anatoliaLive1").await;
    assert_eq!(live["accountId"], "acc_anatoliaIsbankLive", "{live}");
    let (status, body) = stack
        .op(k.anatolia_live, "pay_anatoliaLive1", "capture", json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["payment"]["status"], "captured", "{body}");
    let (status, body) = stack
        .op(k.anatolia_live, "pay_anatoliaLive2", "query", json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["bank"]["found"], true, "{body}");
}
