//! The seed's `mch_ankara` (test mode) through the merchant API: VakıfBank over PayFlex V4
//! (`acc_ankaraVakifbank`) and Denizbank over InterVPOS (`acc_ankaraDenizbank`) — capture,
//! cancel (a captured pre-authorization too), refund (partial, then the rest), the live
//! query, each simulator's end-of-day rule, points (Denizbank Bonus by BIN; none on
//! VakıfBank) and a time-out settled by a query.

use paygate_bankkit::sim::OrderState;
use paygate_tests::{card_number, expect_error, expect_ok, points_body, Stack};
use serde_json::{json, Value};

use crate::{
    bank_order, create, end_of_day, faults, no_faults, order_id, stack, Bank, DENIZBANK,
    LATENCY_MS, VAKIFBANK,
};

const POINTS: &str = "/v1/payments/points/inquiry";

async fn bank_state(stack: &Stack, bank: &Bank, id: &str) -> Value {
    expect_ok(stack.op(bank.key(), id, "query", json!({})).await)["bank"].clone()
}

#[tokio::test]
async fn capture_cancel_refund_and_query_on_vakifbank_and_denizbank() {
    let stack = stack().await;
    for bank in [VAKIFBANK, DENIZBANK] {
        let p = bank.provider;
        // GIVEN a pre-authorization of 20 000, which the query shows held
        let id = create(&stack, &bank, "authorized", 20_000).await;
        let b = bank_state(&stack, &bank, &id).await;
        assert_eq!(
            (&b["found"], &b["state"]),
            (&json!(true), &json!("preauth"))
        );
        assert_eq!(b["amount"], 20_000, "{p}: {b}");

        // WHEN 12 000 is captured THEN the bank holds a sale of 12 000
        let c = expect_ok(
            stack
                .op(bank.key(), &id, "capture", json!({ "amount": 12_000 }))
                .await,
        );
        assert_eq!(c["payment"]["status"], "captured", "{p}: {c}");
        assert_eq!(c["transaction"]["status"], "approved", "{p}: {c}");
        let b = bank_state(&stack, &bank, &id).await;
        assert_eq!(
            (&b["state"], &b["amount"]),
            (&json!("approved"), &json!(12_000))
        );

        // WHEN the captured pre-authorization is cancelled the same day
        let x = expect_ok(stack.op(bank.key(), &id, "cancel", json!({})).await);
        // THEN it is cancelled, at the bank too (nothing sold, nothing held)
        assert_eq!(x["payment"]["status"], "cancelled", "{p}: {x}");
        assert_eq!(bank_state(&stack, &bank, &id).await["state"], "cancelled");
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
        assert_eq!(order.state, OrderState::Voided, "{p}");

        // GIVEN a sale of 10 000 (past the cut where the bank refunds only then)
        let sale = create(&stack, &bank, "captured", 10_000).await;
        if bank.same_day_refund_refusal.is_some() {
            end_of_day(&stack, &bank);
        }
        // WHEN 4 000 is refunded THEN the query shows a partial refund of the sale
        let r = expect_ok(
            stack
                .op(bank.key(), &sale, "refund", json!({ "amount": 4_000 }))
                .await,
        );
        assert_eq!(r["payment"]["status"], "partially_refunded", "{p}: {r}");
        assert_eq!(r["payment"]["refundedAmount"], 4_000, "{p}: {r}");
        let b = bank_state(&stack, &bank, &sale).await;
        assert_eq!(
            (&b["state"], &b["amount"]),
            (&json!("partially_refunded"), &json!(10_000)),
            "{p}: {b}"
        );
        // WHEN the rest is refunded THEN the sale is refunded, at the bank too
        let r = expect_ok(stack.op(bank.key(), &sale, "refund", json!({})).await);
        assert_eq!(r["payment"]["status"], "refunded", "{p}: {r}");
        assert_eq!(r["transaction"]["amount"], 6_000, "{p}: {r}");
        assert_eq!(bank_state(&stack, &bank, &sale).await["state"], "refunded");
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &sale).await);
        assert_eq!((order.amount, order.refunded), (10_000, 10_000), "{p}");
    }
}

#[tokio::test]
async fn vakifbank_refunds_the_same_day_and_a_late_cancel_points_to_refund() {
    let stack = stack().await;
    let bank = VAKIFBANK;
    // GIVEN two sales captured today
    let today = create(&stack, &bank, "captured", 8_000).await;
    let late = create(&stack, &bank, "captured", 8_000).await;
    // WHEN one is refunded before the cut THEN PayFlex refunds it
    let r = expect_ok(
        stack
            .op(bank.key(), &today, "refund", json!({ "amount": 3_000 }))
            .await,
    );
    assert_eq!(r["payment"]["status"], "partially_refunded", "{r}");

    // WHEN the other is cancelled after the cut
    end_of_day(&stack, &bank);
    let err = expect_error(
        &stack.op(bank.key(), &late, "cancel", json!({})).await,
        422,
        "provider_declined",
    );
    // THEN the bank's 1082 is a decline pointing to a refund; nothing changed
    assert_eq!(err["details"]["transaction"]["bankCode"], "1082", "{err}");
    assert_eq!(err["details"]["suggestedOperation"], "refund", "{err}");
    assert_eq!(err["details"]["payment"]["status"], "captured", "{err}");
    assert!(err["details"]["payment"]["pendingOperation"].is_null());
    let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &late).await);
    assert_eq!(order.state, OrderState::Sale);
    // AND the refund goes through
    let r = expect_ok(stack.op(bank.key(), &late, "refund", json!({})).await);
    assert_eq!(r["payment"]["status"], "refunded", "{r}");
}

#[tokio::test]
async fn denizbank_refuses_a_same_day_refund_and_a_late_cancel_points_to_refund() {
    let stack = stack().await;
    let bank = DENIZBANK;
    // GIVEN a sale captured today
    let id = create(&stack, &bank, "captured", 9_000).await;
    // WHEN it is refunded before the cut THEN the bank refuses with E42, no suggestion
    let err = expect_error(
        &stack.op(bank.key(), &id, "refund", json!({})).await,
        422,
        "provider_declined",
    );
    assert_eq!(err["details"]["transaction"]["bankCode"], "E42", "{err}");
    assert!(err["details"].get("suggestedOperation").is_none(), "{err}");
    assert_eq!(err["details"]["payment"]["refundedAmount"], 0, "{err}");

    // WHEN it is cancelled after the cut
    end_of_day(&stack, &bank);
    let err = expect_error(
        &stack.op(bank.key(), &id, "cancel", json!({})).await,
        422,
        "provider_declined",
    );
    // THEN E41 is a decline pointing to a refund; nothing changed
    assert_eq!(err["details"]["transaction"]["bankCode"], "E41", "{err}");
    assert_eq!(err["details"]["suggestedOperation"], "refund", "{err}");
    assert_eq!(err["details"]["payment"]["status"], "captured", "{err}");
    // AND the refund goes through now
    let r = expect_ok(stack.op(bank.key(), &id, "refund", json!({})).await);
    assert_eq!(r["payment"]["status"], "refunded", "{r}");
    let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
    assert_eq!(order.refunded, 9_000);
}

#[tokio::test]
async fn bonus_points_on_denizbank_by_bin_none_on_vakifbank() {
    let stack = stack().await;
    let key = DENIZBANK.key();
    // GIVEN a Denizbank Bonus card (BIN 402277): its balance is its last six digits in kuruş
    let bonus = card_number("402277", 16, "12345");
    let expected: i64 = bonus[10..].parse().unwrap();
    // WHEN its points are asked without an account THEN the BIN picks Denizbank
    let r = stack
        .post_reply(POINTS, key, &points_body(&bonus, None))
        .await;
    assert!(!r.text.contains(&bonus), "card number echoed: {}", r.text);
    assert_eq!(r.body["accountId"], DENIZBANK.account, "{}", r.text);
    assert_eq!(r.body["providerCode"], "interpos", "{}", r.text);
    assert_eq!(r.body["ok"], true, "{}", r.text);
    assert_eq!(r.body["balances"][0]["name"], "Bonus", "{}", r.text);
    assert_eq!(r.body["balances"][0]["amountMinor"], expected, "{}", r.text);
    assert_eq!(r.body["totalAmount"], expected, "{}", r.text);

    // WHEN VakıfBank's points are asked (named, or by its BIN 540046)
    let named = stack
        .post(POINTS, key, points_body(&bonus, Some(VAKIFBANK.account)))
        .await;
    let by_bin = stack
        .post(
            POINTS,
            key,
            points_body(&card_number("540046", 16, ""), None),
        )
        .await;
    // THEN PayFlex has no points inquiry: operation_not_supported, no bank call
    for reply in [named, by_bin] {
        let err = expect_error(&reply, 400, "operation_not_supported");
        assert_eq!(err["details"]["operation"], "points_inquiry", "{err}");
        assert_eq!(err["details"]["accountId"], VAKIFBANK.account, "{err}");
    }
}

#[tokio::test]
async fn a_refund_that_timed_out_is_unknown_until_a_query_settles_it() {
    let stack = stack().await;
    for bank in [VAKIFBANK, DENIZBANK] {
        let p = bank.provider;
        // GIVEN a sale of 20 000 that the bank refunds now
        let id = create(&stack, &bank, "captured", 20_000).await;
        end_of_day(&stack, &bank);
        // WHEN 5 000 is refunded and the bank answers after the gateway's time-out
        faults(&stack, &bank, json!({ "latencyMs": LATENCY_MS }), "return").await;
        let reply = stack
            .op(bank.key(), &id, "refund", json!({ "amount": 5_000 }))
            .await;
        no_faults(&stack, &bank).await;
        // THEN the refund is unknown, not failed
        let err = expect_error(&reply, 422, "provider_error");
        assert_eq!(err["details"]["transaction"]["status"], "unknown", "{p}");
        assert_eq!(err["details"]["payment"]["refundedAmount"], 0, "{p}: {err}");
        // AND the bank did refund it
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
        assert_eq!(order.refunded, 5_000, "{p}");
        // WHEN queried THEN the payment takes the bank's partial refund, once
        let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
        assert_eq!(q["bank"]["state"], "partially_refunded", "{p}: {q}");
        assert_eq!(q["payment"]["status"], "partially_refunded", "{p}: {q}");
        assert_eq!(q["payment"]["refundedAmount"], 5_000, "{p}: {q}");
        assert!(q["payment"]["pendingOperation"].is_null(), "{p}: {q}");
        // AND the rest refunds as usual
        let r = expect_ok(stack.op(bank.key(), &id, "refund", json!({})).await);
        assert_eq!(r["transaction"]["amount"], 15_000, "{p}: {r}");
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
        assert_eq!(order.refunded, 20_000, "{p}");
    }
}
