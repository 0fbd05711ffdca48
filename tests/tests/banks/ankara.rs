//! The seed's `mch_ankara` (test mode) through the merchant API: QNB over PayFor
//! (`acc_ankaraQnb`) and Akbank over its new JSON API (`acc_ankaraAkbank`) — capture, cancel
//! (a captured pre-authorization too), refund, the live query (Akbank's from the order
//! history, partial refunds included), points (ParaPuan; none on Akbank), and a lost answer
//! settled by a query.

use paygate_bankkit::sim::OrderState;
use paygate_domain::Mode;
use paygate_tests::{api_key, expect_error, expect_ok, points_body, Stack};
use serde_json::json;

use crate::{sim, stack};

const QNB: &str = "acc_ankaraQnb";
const AKBANK: &str = "acc_ankaraAkbank";
/// The QNB test card of the PayFor simulator (BIN 415565, seeded as QNB CardFinans).
const CARDFINANS: &str = "4155650100416111";

fn key() -> &'static str {
    api_key("mch_ankara", Mode::Test)
}

async fn create(stack: &Stack, account: &str, status: &str, amount: i64) -> String {
    stack
        .create_payment(
            key(),
            json!({ "amount": amount, "currency": "TRY", "status": status, "accountId": account }),
        )
        .await
}

async fn state(stack: &Stack, id: &str) -> serde_json::Value {
    expect_ok(stack.op(key(), id, "query", json!({})).await)["bank"].clone()
}

#[tokio::test]
async fn capture_cancel_refund_and_query_on_both_banks() {
    let stack = stack().await;
    for (account, provider) in [(QNB, "payfor"), (AKBANK, "akbankpos")] {
        // GIVEN a pre-authorization, WHEN 12 000 of 20 000 is captured
        let id = create(&stack, account, "authorized", 20_000).await;
        assert_eq!(state(&stack, &id).await["state"], "preauth", "{provider}");
        let c = expect_ok(
            stack
                .op(key(), &id, "capture", json!({ "amount": 12_000 }))
                .await,
        );
        assert_eq!(c["payment"]["status"], "captured", "{provider}: {c}");
        let b = state(&stack, &id).await;
        assert_eq!(
            (b["state"].clone(), b["amount"].clone()),
            (json!("approved"), json!(12_000)),
            "{provider}: {b}"
        );

        // WHEN the captured pre-authorization is cancelled THEN the bank holds nothing
        let x = expect_ok(stack.op(key(), &id, "cancel", json!({})).await);
        assert_eq!(x["payment"]["status"], "cancelled", "{provider}: {x}");
        assert_eq!(state(&stack, &id).await["state"], "cancelled", "{provider}");

        // GIVEN a sale past the bank's cut, WHEN 4 000 then the rest is refunded
        let sale = create(&stack, account, "captured", 10_000).await;
        sim(&stack, provider).book().end_of_day();
        let r = expect_ok(
            stack
                .op(key(), &sale, "refund", json!({ "amount": 4_000 }))
                .await,
        );
        assert_eq!(r["payment"]["refundedAmount"], 4_000, "{provider}: {r}");
        let b = state(&stack, &sale).await;
        assert_eq!(
            (b["state"].clone(), b["amount"].clone()),
            (json!("partially_refunded"), json!(10_000)),
            "{provider}: {b}"
        );
        expect_ok(stack.op(key(), &sale, "refund", json!({})).await);
        assert_eq!(
            state(&stack, &sale).await["state"],
            "refunded",
            "{provider}"
        );
    }
}

#[tokio::test]
async fn payfor_refuses_a_same_day_refund_and_a_late_cancel_points_to_refund() {
    let stack = stack().await;
    let id = create(&stack, QNB, "captured", 5_000).await;
    let err = expect_error(
        &stack.op(key(), &id, "refund", json!({})).await,
        422,
        "provider_declined",
    );
    assert_eq!(err["details"]["transaction"]["bankCode"], "V014", "{err}");
    sim(&stack, "payfor").book().end_of_day();
    let err = expect_error(
        &stack.op(key(), &id, "cancel", json!({})).await,
        422,
        "provider_declined",
    );
    assert_eq!(err["details"]["suggestedOperation"], "refund", "{err}");
}

#[tokio::test]
async fn points_on_qnb_none_on_akbank() {
    let stack = stack().await;
    // BIN 415565 picks the QNB account.
    let r = stack
        .post_reply(
            "/v1/payments/points/inquiry",
            key(),
            &points_body(CARDFINANS, None),
        )
        .await;
    assert_eq!(r.body["accountId"], QNB, "{}", r.text);
    assert_eq!(r.body["ok"], true, "{}", r.text);
    assert_eq!(r.body["balances"][0]["name"], "ParaPuan", "{}", r.text);
    assert_eq!(r.body["balances"][0]["amountMinor"], 416_111, "{}", r.text);
    let r = stack
        .post(
            "/v1/payments/points/inquiry",
            key(),
            points_body(CARDFINANS, Some(AKBANK)),
        )
        .await;
    expect_error(&r, 400, "operation_not_supported");
}

#[tokio::test]
async fn a_lost_answer_is_unknown_until_a_query_settles_it() {
    let stack = stack().await;
    for (account, provider) in [(QNB, "payfor"), (AKBANK, "akbankpos")] {
        let id = create(&stack, account, "authorized", 20_000).await;
        let url = format!(
            "{}/_sim/faults",
            stack.server().bank_sim_url(provider).unwrap()
        );
        let resp = stack
            .http
            .post(&url)
            .json(&json!({ "dropAfterProcessing": 1 }))
            .send()
            .await
            .unwrap();
        assert!(resp.status().is_success());
        let err = expect_error(
            &stack.op(key(), &id, "capture", json!({})).await,
            422,
            "provider_error",
        );
        assert_eq!(
            err["details"]["transaction"]["status"], "unknown",
            "{provider}: {err}"
        );
        let q = expect_ok(stack.op(key(), &id, "query", json!({})).await);
        assert_eq!(q["bank"]["state"], "approved", "{provider}: {q}");
        assert_eq!(q["payment"]["status"], "captured", "{provider}: {q}");
        assert!(
            q["payment"]["pendingOperation"].is_null(),
            "{provider}: {q}"
        );
        let book = sim(&stack, provider);
        assert!(
            book.ledger()
                .iter()
                .any(|e| e.state == OrderState::Sale && e.amount == 20_000),
            "{provider}"
        );
    }
}
