//! Kuveyt Türk through the merchant API, beyond the shared suites: on the sale's own day a
//! refund of the whole sale (`DrawBack`) is refused by the bank, while part of it
//! (`PartialDrawback`) goes through; after the cut the rest is refunded.

use paygate_tests::{expect_error, expect_ok};
use serde_json::json;

use crate::{bank_order, create, end_of_day, order_id, stack, KUVEYT};

#[tokio::test]
async fn kuveyt_refunds_part_of_a_sale_on_its_day_and_the_whole_only_after_the_cut() {
    let stack = stack().await;
    let bank = KUVEYT;
    // GIVEN a sale of 20 000 captured today
    let id = create(&stack, &bank, "captured", 20_000).await;
    // WHEN all of it is refunded the same day
    let reply = stack.op(bank.key(), &id, "refund", json!({})).await;
    // THEN the bank refuses (its business rule, `DbLayerError`): declined, nothing pending
    let err = expect_error(&reply, 422, "provider_declined");
    assert_eq!(
        err["details"]["transaction"]["bankCode"], "DbLayerError",
        "{err}"
    );
    assert_eq!(err["details"]["payment"]["status"], "captured", "{err}");
    assert!(
        err["details"]["payment"]["pendingOperation"].is_null(),
        "{err}"
    );
    // WHEN part of it is refunded the same day THEN it goes through
    let r = expect_ok(
        stack
            .op(bank.key(), &id, "refund", json!({ "amount": 5_000 }))
            .await,
    );
    assert_eq!(r["payment"]["status"], "partially_refunded", "{r}");
    // AND after the cut the rest is refunded, at the bank too
    end_of_day(&stack, &bank);
    let r = expect_ok(stack.op(bank.key(), &id, "refund", json!({})).await);
    assert_eq!(r["payment"]["status"], "refunded", "{r}");
    let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
    assert_eq!(order.refunded, 20_000);
}
