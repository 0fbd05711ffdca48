//! The support matrix: an operation the account lacks is refused before the bank is asked.

use paygate_bankkit::sim::OrderState;
use paygate_tests::{card_number, expect_error, expect_ok, points_body};
use serde_json::json;

use crate::{bank_order, create, key, order_id, sim, stack, AKBANK};

#[tokio::test]
async fn an_operation_the_account_lacks_never_reaches_the_bank() {
    let stack = stack().await;
    // GIVEN a pre-authorization on the Akbank account (Nestpay; capture, refund, query only)
    let id = create(&stack, &AKBANK, "authorized", 20_000).await;
    let order = order_id(&stack, &AKBANK, &id).await;
    let before = bank_order(&stack, &AKBANK, &order);
    // AND the Nestpay simulator would fail the next request it gets
    let nestpay = sim(&stack, "nestpay");
    nestpay.faults().technical_errors = 1;

    // WHEN it is cancelled
    let reply = stack.op(key(), &id, "cancel", json!({})).await;
    // THEN 400 operation_not_supported naming the operation and the account
    let err = expect_error(&reply, 400, "operation_not_supported");
    assert_eq!(err["details"]["operation"], "cancel", "{err}");
    assert_eq!(err["details"]["accountId"], AKBANK.account, "{err}");
    // AND its points are refused the same way
    let r = stack
        .post_reply(
            "/v1/payments/points/inquiry",
            key(),
            &points_body(&card_number("435508", 16, ""), Some(AKBANK.account)),
        )
        .await;
    let err = expect_error(&(r.status, r.body.clone()), 400, "operation_not_supported");
    assert_eq!(err["details"]["operation"], "points_inquiry", "{err}");

    // AND nothing reached the bank: the fault is still armed, the order untouched
    assert_eq!(nestpay.faults().technical_errors, 1);
    nestpay.faults().technical_errors = 0;
    let after = bank_order(&stack, &AKBANK, &order);
    assert_eq!(after, before);
    assert_eq!(after.state, OrderState::Preauth);
    // AND the payment is unchanged, without a transaction
    let got = stack.payment(key(), &id).await;
    assert_eq!(got["status"], "authorized", "{got}");
    assert_eq!(got["transactions"], json!([]), "{got}");

    // AND what the account supports works: capture, query, refund after the cut
    let c = expect_ok(stack.op(key(), &id, "capture", json!({})).await);
    assert_eq!(c["payment"]["status"], "captured", "{c}");
    let q = expect_ok(stack.op(key(), &id, "query", json!({})).await);
    assert_eq!(q["bank"]["state"], "approved", "{q}");
    nestpay.book().end_of_day();
    let r = expect_ok(
        stack
            .op(key(), &id, "refund", json!({ "amount": 2_000 }))
            .await,
    );
    assert_eq!(r["payment"]["status"], "partially_refunded", "{r}");
}
