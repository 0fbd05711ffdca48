//! Capture, refund, cancel and query on each protocol's account: the gateway's answers and
//! the bank's records agree.

use paygate_bankkit::sim::OrderState;
use paygate_tests::{expect_error, expect_ok};
use serde_json::json;

use crate::{bank_order, create, credential, end_of_day, key, order_id, sim, stack, Bank, BANKS};

#[tokio::test]
async fn seeded_and_helper_payments_are_orders_at_the_bank() {
    let stack = stack().await;
    // GIVEN the seed's payments on the protocol accounts
    for (id, status, state) in [
        ("pay_cappadociaAuth1", "authorized", "preauth"),
        ("pay_cappadociaAuth2", "authorized", "preauth"),
        ("pay_cappadociaAuth3", "authorized", "preauth"),
        ("pay_cappadociaCapt1", "captured", "approved"),
        ("pay_cappadociaCapt2", "captured", "approved"),
        ("pay_cappadociaCapt3", "captured", "approved"),
        // a pending payment the bank approved: the query finalizes it
        ("pay_cappadociaPend1", "captured", "approved"),
    ] {
        // WHEN each is queried
        let q = expect_ok(stack.op(key(), id, "query", json!({})).await);
        // THEN its bank holds the order in the matching state
        assert_eq!(q["bank"]["found"], true, "{id}: {q}");
        assert_eq!(q["bank"]["state"], state, "{id}: {q}");
        assert_eq!(q["payment"]["status"], status, "{id}: {q}");
    }
    // AND the test helper's payments on each protocol account are real orders too
    for &bank in BANKS {
        for (status, state) in [("authorized", "preauth"), ("captured", "approved")] {
            if status == "authorized" && !bank.preauth {
                continue;
            }
            let id = create(&stack, &bank, status, 30_000).await;
            let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
            assert_eq!(
                (q["bank"]["found"].clone(), q["bank"]["state"].clone()),
                (json!(true), json!(state)),
                "{}: {q}",
                bank.provider
            );
            assert_eq!(q["bank"]["amount"], 30_000, "{}: {q}", bank.provider);
            assert_eq!(q["payment"]["status"], status, "{}: {q}", bank.provider);
        }
    }
}

#[tokio::test]
async fn full_and_partial_capture() {
    let stack = stack().await;
    for &bank in BANKS {
        let p = bank.provider;
        if !bank.preauth {
            // A family without pre-authorizations (Kuveyt Türk) refuses a capture
            // explicitly, before the bank is asked; the sale is unchanged
            let sale = create(&stack, &bank, "captured", 20_000).await;
            let reply = stack.op(bank.key(), &sale, "capture", json!({})).await;
            expect_error(&reply, 400, "operation_not_supported");
            let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &sale).await);
            assert_eq!(
                (order.state, order.history.len()),
                (OrderState::Sale, 1),
                "{p}"
            );
            continue;
        }
        // GIVEN two pre-authorizations of 20 000
        let partial = create(&stack, &bank, "authorized", 20_000).await;
        let full = create(&stack, &bank, "authorized", 20_000).await;

        // WHEN one is captured for 12 000
        let c = expect_ok(
            stack
                .op(bank.key(), &partial, "capture", json!({ "amount": 12_000 }))
                .await,
        );
        // THEN it is captured for 12 000 with the bank's references
        assert_eq!(c["payment"]["status"], "captured", "{p}: {c}");
        assert_eq!(c["payment"]["capturedAmount"], 12_000, "{p}: {c}");
        assert_eq!(c["transaction"]["status"], "approved", "{p}: {c}");
        assert_eq!(c["transaction"]["amount"], 12_000, "{p}: {c}");
        assert!(
            c["transaction"]["rrn"]
                .as_str()
                .is_some_and(|r| !r.is_empty()),
            "{p}: {c}"
        );
        // AND the bank holds a sale of 12 000
        let q = expect_ok(stack.op(bank.key(), &partial, "query", json!({})).await);
        assert_eq!(q["bank"]["state"], "approved", "{p}: {q}");
        assert_eq!(q["bank"]["amount"], 12_000, "{p}: {q}");
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &partial).await);
        assert_eq!(
            (order.state, order.amount),
            (OrderState::Sale, 12_000),
            "{p}"
        );

        // WHEN the other is captured without an amount
        let c = expect_ok(stack.op(bank.key(), &full, "capture", json!({})).await);
        // THEN the whole pre-authorization is captured
        assert_eq!(c["payment"]["capturedAmount"], 20_000, "{p}: {c}");
        let q = expect_ok(stack.op(bank.key(), &full, "query", json!({})).await);
        assert_eq!(q["bank"]["state"], "approved", "{p}: {q}");
        assert_eq!(q["bank"]["amount"], 20_000, "{p}: {q}");
        // AND a second capture is refused before the bank is asked
        let again = stack.op(bank.key(), &full, "capture", json!({})).await;
        expect_error(&again, 409, "invalid_state");
    }
}

#[tokio::test]
async fn refunds_partial_then_full_and_the_query_shows_them() {
    let stack = stack().await;
    for &bank in BANKS {
        let p = bank.provider;
        // GIVEN a captured payment of 20 000 (captured today)
        let id = create(&stack, &bank, "captured", 20_000).await;

        if let Some(code) = bank.same_day_refund_refusal {
            // WHEN it is refunded before the bank's end-of-day cut
            let reply = stack
                .op(bank.key(), &id, "refund", json!({ "amount": 5_000 }))
                .await;
            // THEN the bank refuses: 422 provider_declined carrying its code, nothing changes
            let err = expect_error(&reply, 422, "provider_declined");
            assert_eq!(
                err["details"]["transaction"]["bankCode"], code,
                "{p}: {err}"
            );
            assert_eq!(err["details"]["transaction"]["status"], "declined", "{p}");
            // AND a stable code beside the bank's: refund after the cut (retryable then)
            assert_eq!(
                err["details"]["declineCode"], "refund_before_end_of_day",
                "{p}: {err}"
            );
            assert_eq!(err["details"]["retryable"], true, "{p}: {err}");
            assert_eq!(err["details"]["bankCode"], code, "{p}: {err}");
            assert_eq!(
                err["details"]["payment"]["status"], "captured",
                "{p}: {err}"
            );
            assert_eq!(err["details"]["payment"]["refundedAmount"], 0, "{p}: {err}");
            assert!(
                err["details"]["payment"]["pendingOperation"].is_null(),
                "{p}"
            );
            assert!(err
                .get("details")
                .and_then(|d| d.get("suggestedOperation"))
                .is_none());
            let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
            assert_eq!(q["bank"]["state"], "approved", "{p}: {q}");
            // AND after the cut the refunds go through
            end_of_day(&stack, &bank);
        }

        // WHEN 5 000 is refunded
        let r = expect_ok(
            stack
                .op(bank.key(), &id, "refund", json!({ "amount": 5_000 }))
                .await,
        );
        // THEN the payment is partially refunded
        assert_eq!(r["payment"]["status"], "partially_refunded", "{p}: {r}");
        assert_eq!(r["payment"]["refundedAmount"], 5_000, "{p}: {r}");
        assert_eq!(r["transaction"]["type"], "refund", "{p}: {r}");
        assert_eq!(r["transaction"]["status"], "approved", "{p}: {r}");
        // AND the query shows the bank's partial refund and the refunded amount
        let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
        assert_eq!(q["bank"]["found"], true, "{p}: {q}");
        assert_eq!(q["bank"]["state"], "partially_refunded", "{p}: {q}");
        assert_eq!(q["payment"]["status"], "partially_refunded", "{p}: {q}");
        assert_eq!(q["payment"]["refundedAmount"], 5_000, "{p}: {q}");
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
        assert_eq!(order.refunded, 5_000, "{p}");

        // WHEN the rest is refunded
        let r = expect_ok(stack.op(bank.key(), &id, "refund", json!({})).await);
        // THEN the payment is refunded, at the bank too
        assert_eq!(r["payment"]["status"], "refunded", "{p}: {r}");
        assert_eq!(r["payment"]["refundedAmount"], 20_000, "{p}: {r}");
        assert_eq!(r["transaction"]["amount"], 15_000, "{p}: {r}");
        let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
        assert_eq!(q["bank"]["state"], "refunded", "{p}: {q}");
        assert_eq!(q["payment"]["status"], "refunded", "{p}: {q}");
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &id).await);
        assert_eq!(order.refunded, 20_000, "{p}");
    }
}

/// Refunds `amount` of `order_id` straight in `bank`'s simulator book, as a refund made in the
/// bank's own merchant panel would be: the gateway is not asked.
pub(crate) fn refund_in_the_banks_panel(
    stack: &paygate_tests::Stack,
    bank: &Bank,
    order_id: &str,
    amount: i64,
) {
    let client = credential(bank.account, bank.book_key);
    let order = match bank.provider {
        "posnet" => format!("{order_id:0>24}"),
        _ => order_id.to_owned(),
    };
    sim(stack, bank.provider)
        .book()
        .refund(&client, &order, amount)
        .unwrap_or_else(|e| panic!("{}: the panel refund was refused: {e:?}", bank.provider));
}

#[tokio::test]
async fn a_cancel_made_in_the_banks_panel_is_recorded_once_by_the_query() {
    let stack = stack().await;
    for &bank in BANKS {
        let p = bank.provider;
        // GIVEN a captured sale voided in the bank's own merchant panel, the same day
        let id = create(&stack, &bank, "captured", 20_000).await;
        let client = credential(bank.account, bank.book_key);
        let order = match p {
            "posnet" => format!("{:0>24}", order_id(&stack, &bank, &id).await),
            _ => order_id(&stack, &bank, &id).await,
        };
        sim(&stack, p)
            .book()
            .void(&client, &order)
            .unwrap_or_else(|e| panic!("{p}: the panel void was refused: {e:?}"));
        // WHEN the payment is queried, twice
        let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
        expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
        // THEN it is cancelled by one external cancel
        assert_eq!(q["payment"]["status"], "cancelled", "{p}: {q}");
        let (status, list) = stack
            .get(&format!("/v1/payments/{id}/transactions"), bank.key())
            .await;
        assert_eq!(status, 200, "{p}: {list}");
        let data = list["data"].as_array().unwrap();
        assert_eq!(data.len(), 1, "{p}: {list}");
        assert_eq!(
            (&data[0]["type"], &data[0]["status"], &data[0]["origin"]),
            (&json!("cancel"), &json!("approved"), &json!("external")),
            "{p}: {list}"
        );
    }
}

#[tokio::test]
async fn a_refund_made_in_the_banks_panel_is_recorded_once_by_the_query() {
    let stack = stack().await;
    for &bank in BANKS {
        let p = bank.provider;
        // GIVEN a captured payment of 20 000, past the cut, 5 000 of it refunded through the API
        let id = create(&stack, &bank, "captured", 20_000).await;
        end_of_day(&stack, &bank);
        let body = json!({ "amount": 5_000, "reason": "requested_by_customer" });
        let ours = expect_ok(stack.op(bank.key(), &id, "refund", body).await);
        // AND 3 000 refunded in the bank's own merchant panel
        refund_in_the_banks_panel(&stack, &bank, &order_id(&stack, &bank, &id).await, 3_000);

        // WHEN the payment is queried
        let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
        // THEN the bank's refund is recorded: amounts and status moved, an external refund
        assert_eq!(q["payment"]["refundedAmount"], 8_000, "{p}: {q}");
        assert_eq!(q["payment"]["status"], "partially_refunded", "{p}: {q}");
        let path = format!("/v1/payments/{id}/transactions");
        let (status, list) = stack.get(&path, bank.key()).await;
        assert_eq!(status, 200, "{p}: {list}");
        let data = list["data"].as_array().unwrap();
        assert_eq!(data.len(), 2, "{p}: {list}");
        assert_eq!(
            data[0]["id"], ours["transaction"]["id"],
            "{p}: oldest first"
        );
        assert_eq!(data[0]["reason"], "requested_by_customer", "{p}");
        let external = &data[1];
        assert_eq!(
            (
                &external["type"],
                &external["amount"],
                &external["status"],
                &external["origin"]
            ),
            (
                &json!("refund"),
                &json!(3_000),
                &json!("approved"),
                &json!("external")
            ),
            "{p}: {external}"
        );
        assert!(external["settledAt"].is_string(), "{p}: {external}");

        // WHEN it is queried again THEN nothing more is recorded
        let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
        assert_eq!(q["payment"]["refundedAmount"], 8_000, "{p}: {q}");
        let (_, again) = stack.get(&path, bank.key()).await;
        assert_eq!(again, list, "{p}");
        // AND another merchant sees no such payment
        let other = match bank.merchant {
            crate::CAPPADOCIA => crate::ANKARA,
            _ => crate::CAPPADOCIA,
        };
        let other = paygate_tests::api_key(other, paygate_domain::Mode::Test);
        let (status, _) = stack.get(&path, other).await;
        assert_eq!(status, 404, "{p}");
    }
}

#[tokio::test]
async fn cancel_on_the_same_day_and_after_the_cut() {
    let stack = stack().await;
    for &bank in BANKS {
        let p = bank.provider;
        // GIVEN a pre-authorization (where the family has them), a captured sale and a sale to
        // be cancelled tomorrow
        let mut today = vec![create(&stack, &bank, "captured", 20_000).await];
        if bank.preauth {
            today.push(create(&stack, &bank, "authorized", 20_000).await);
        }
        let late = create(&stack, &bank, "captured", 20_000).await;
        // AND two sales to reverse (`POST …/reverse`), one today and one after the cut
        let (rev_today, rev_late) = (
            create(&stack, &bank, "captured", 20_000).await,
            create(&stack, &bank, "captured", 20_000).await,
        );
        let r = expect_ok(stack.op(bank.key(), &rev_today, "reverse", json!({})).await);
        assert_eq!(
            r["reversal"],
            json!({"type": "cancel", "afterSettlement": false}),
            "{p}: {r}"
        );
        assert_eq!(r["payment"]["status"], "cancelled", "{p}: {r}");

        // WHEN those are cancelled the same day
        for id in &today {
            let c = expect_ok(stack.op(bank.key(), id, "cancel", json!({})).await);
            // THEN they are cancelled, at the bank too
            assert_eq!(c["payment"]["status"], "cancelled", "{p}: {c}");
            assert_eq!(c["transaction"]["type"], "cancel", "{p}: {c}");
            assert_eq!(c["transaction"]["status"], "approved", "{p}: {c}");
            let q = expect_ok(stack.op(bank.key(), id, "query", json!({})).await);
            assert_eq!(q["bank"]["state"], "cancelled", "{p}: {q}");
            let order = bank_order(&stack, &bank, &order_id(&stack, &bank, id).await);
            assert_eq!(order.state, OrderState::Voided, "{p}");
        }

        // WHEN the third is cancelled after the bank's end-of-day cut
        end_of_day(&stack, &bank);
        let reply = stack.op(bank.key(), &late, "cancel", json!({})).await;
        // THEN 422 provider_declined suggesting a refund; the payment is unchanged
        let err = expect_error(&reply, 422, "provider_declined");
        assert_eq!(err["details"]["suggestedOperation"], "refund", "{p}: {err}");
        assert_eq!(
            err["details"]["declineCode"], "after_end_of_day",
            "{p}: {err}"
        );
        assert_eq!(err["details"]["retryable"], false, "{p}: {err}");
        assert_eq!(
            err["details"]["transaction"]["declineCode"], "after_end_of_day",
            "{p}: {err}"
        );
        assert_eq!(
            err["details"]["payment"]["status"], "captured",
            "{p}: {err}"
        );
        assert_eq!(
            err["details"]["transaction"]["status"], "declined",
            "{p}: {err}"
        );
        assert!(
            err["details"]["payment"]["pendingOperation"].is_null(),
            "{p}"
        );
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &late).await);
        assert_eq!(order.state, OrderState::Sale, "{p}");
        // AND the recorded transaction keeps its stable code
        let (status, list) = stack
            .get(&format!("/v1/payments/{late}/transactions"), bank.key())
            .await;
        assert_eq!(status, 200, "{p}: {list}");
        assert_eq!(
            list["data"][0]["declineCode"], "after_end_of_day",
            "{p}: {list}"
        );
        // AND the refund it suggests goes through
        let r = expect_ok(stack.op(bank.key(), &late, "refund", json!({})).await);
        assert_eq!(r["payment"]["status"], "refunded", "{p}: {r}");
        // AND a reverse after the cut is a refund in one request (its void refused once)
        let r = expect_ok(stack.op(bank.key(), &rev_late, "reverse", json!({})).await);
        assert_eq!(
            r["reversal"],
            json!({"type": "refund", "afterSettlement": true}),
            "{p}: {r}"
        );
        assert_eq!(r["payment"]["status"], "refunded", "{p}: {r}");
        let order = bank_order(&stack, &bank, &order_id(&stack, &bank, &rev_late).await);
        assert_eq!(order.refunded, 20_000, "{p}");
    }
}
