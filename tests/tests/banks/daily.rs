//! The daily reconciliation of every family, end to end over the dev server: a refund made
//! only in the bank's own panel is `missing_here` in the day's report (read from the bank's
//! day history where the family has one, else by per-payment query) until a query records it
//! as an `external` transaction; then everything matches. And every kind of line on one day
//! of a history family.

use paygate_domain::daily::BusinessDay;
use paygate_tests::{expect_ok, Stack};
use serde_json::{json, Value};

use crate::{
    create, credential, end_of_day, faults, operations::refund_in_the_banks_panel, order_id, sim,
    stack, Bank, BANKS, GARANTI,
};

/// Families whose day is read from a history-by-date call.
const HISTORY: [&str; 5] = ["garanti", "akbankpos", "payfor", "toslapos", "vakifkatilim"];

/// The account's report of `day`, run now, as the admin API shows it.
async fn report(stack: &Stack, bank: &Bank, day: BusinessDay) -> Value {
    stack.server().reconcile_day(day).await.unwrap();
    let path = format!(
        "/admin/v1/merchants/{}/reconciliations?date={day}",
        bank.merchant
    );
    let (status, body) = stack.admin("GET", &path, None).await.pair();
    assert_eq!(status, 200, "{body}");
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["accountId"] == bank.account)
        .unwrap_or_else(|| panic!("{}: no report: {body}", bank.provider))
        .clone()
}

/// The report's lines of `order`: (kind, operation, our amount, the bank's).
fn lines(report: &Value, order: &str) -> Vec<(String, String, Value, Value)> {
    let mut v: Vec<_> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["orderId"] == order)
        .map(|f| {
            (
                f["kind"].as_str().unwrap().to_owned(),
                f["operation"].as_str().unwrap().to_owned(),
                f["amount"].clone(),
                f["bankAmount"].clone(),
            )
        })
        .collect();
    v.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    v
}

#[tokio::test]
async fn a_panel_refund_is_missing_here_until_a_query_records_it() {
    let stack = stack().await;
    for &bank in BANKS {
        let p = bank.provider;
        // GIVEN a captured payment, past the cut, 5 000 refunded through the API and 3 000 in
        // the bank's own panel
        let id = create(&stack, &bank, "captured", 20_000).await;
        end_of_day(&stack, &bank);
        let ours = expect_ok(
            stack
                .op(bank.key(), &id, "refund", json!({ "amount": 5_000 }))
                .await,
        );
        let order = order_id(&stack, &bank, &id).await;
        refund_in_the_banks_panel(&stack, &bank, &order, 3_000);
        let created = ours["transaction"]["createdAt"].as_str().unwrap();
        let day = BusinessDay::of(paygate_domain::Timestamp::parse_iso8601(created).unwrap());

        // WHEN the day is reconciled THEN the panel's refund is missing here
        let r = report(&stack, &bank, day).await;
        let source = if HISTORY.contains(&p) {
            "history"
        } else {
            "query"
        };
        assert_eq!(
            (r["source"].as_str(), r["status"].as_str()),
            (Some(source), Some("mismatches")),
            "{p}: {r}"
        );
        assert_eq!(
            lines(&r, &order),
            vec![
                (
                    "matched".into(),
                    "refund".into(),
                    json!(5_000),
                    json!(5_000)
                ),
                (
                    "missing_here".into(),
                    "refund".into(),
                    Value::Null,
                    json!(3_000)
                ),
            ],
            "{p}: {r}"
        );

        // WHEN a query records it as an external refund THEN the day matches
        let q = expect_ok(stack.op(bank.key(), &id, "query", json!({})).await);
        assert_eq!(q["payment"]["refundedAmount"], 8_000, "{p}: {q}");
        let r = report(&stack, &bank, day).await;
        assert_eq!(r["status"], "clean", "{p}: {r}");
        let matched = lines(&r, &order);
        assert!(
            matched.iter().all(|l| l.0 == "matched") && matched.iter().any(|l| l.2 == json!(3_000)),
            "{p}: {r}"
        );
    }
}

/// Every kind of line on one day of a history family (Garanti), each made for real: the
/// bank's book changed behind the gateway's back, a technical error, a lost answer.
#[tokio::test]
async fn every_mismatch_kind_on_one_day() {
    let stack = stack().await;
    let bank = GARANTI;
    let client = credential(bank.account, bank.book_key);
    let refund = |amount: i64| json!({ "amount": amount });
    let mut orders = Vec::new();
    for _ in 0..5 {
        let id = create(&stack, &bank, "captured", 20_000).await;
        orders.push((id.clone(), order_id(&stack, &bank, &id).await));
    }
    end_of_day(&stack, &bank);
    let [(matched, o_matched), (lost, o_lost), (amount, o_amount), (failed, o_failed), (unknown, o_unknown)] =
        <[(String, String); 5]>::try_from(orders).unwrap();
    // matched: a refund as both sides have it.
    let ours = expect_ok(
        stack
            .op(bank.key(), &matched, "refund", refund(1_000))
            .await,
    );
    // missing_at_bank: approved here, then gone from the bank's book.
    expect_ok(stack.op(bank.key(), &lost, "refund", refund(1_100)).await);
    // amount_mismatch: approved here for 1 200, booked for 1 250.
    expect_ok(stack.op(bank.key(), &amount, "refund", refund(1_200)).await);
    {
        let s = sim(&stack, bank.provider);
        let mut book = s.book();
        let o = book.get_mut(&client, &o_lost).unwrap();
        o.history.pop();
        o.refunded -= 1_100;
        let o = book.get_mut(&client, &o_amount).unwrap();
        o.history.last_mut().unwrap().amount = 1_250;
    }
    // state_mismatch: failed here (a technical error), done at the bank in its panel.
    faults(&stack, &bank, json!({ "technicalErrors": 1 }), "").await;
    let r = stack.op(bank.key(), &failed, "refund", refund(1_300)).await;
    assert_eq!(r.0, 422, "{r:?}");
    refund_in_the_banks_panel(&stack, &bank, &o_failed, 1_300);
    // unsettled_here: the bank applied it and the answer was lost (no reconciler here).
    faults(&stack, &bank, json!({ "dropAfterProcessing": 1 }), "").await;
    let r = stack
        .op(bank.key(), &unknown, "refund", refund(1_400))
        .await;
    assert_eq!(r.0, 422, "{r:?}");
    assert_eq!(
        r.1["error"]["details"]["transaction"]["status"], "unknown",
        "{r:?}"
    );
    // missing_here: a refund made only in the bank's panel (on the matched order).
    refund_in_the_banks_panel(&stack, &bank, &o_matched, 500);

    let created = ours["transaction"]["createdAt"].as_str().unwrap();
    let day = BusinessDay::of(paygate_domain::Timestamp::parse_iso8601(created).unwrap());
    let r = report(&stack, &bank, day).await;
    assert_eq!(
        (r["source"].as_str(), r["status"].as_str()),
        (Some("history"), Some("mismatches")),
        "{r}"
    );
    let one = |kind: &str, amount: Value, bank_amount: Value| {
        vec![(kind.to_owned(), "refund".to_owned(), amount, bank_amount)]
    };
    assert_eq!(
        lines(&r, &o_matched),
        vec![
            (
                "matched".into(),
                "refund".into(),
                json!(1_000),
                json!(1_000)
            ),
            (
                "missing_here".into(),
                "refund".into(),
                Value::Null,
                json!(500)
            ),
        ],
        "{r}"
    );
    assert_eq!(
        lines(&r, &o_lost),
        one("missing_at_bank", json!(1_100), Value::Null),
        "{r}"
    );
    assert_eq!(
        lines(&r, &o_amount),
        one("amount_mismatch", json!(1_200), json!(1_250)),
        "{r}"
    );
    assert_eq!(
        lines(&r, &o_failed),
        one("state_mismatch", json!(1_300), json!(1_300)),
        "{r}"
    );
    assert_eq!(
        lines(&r, &o_unknown),
        one("unsettled_here", json!(1_400), json!(1_400)),
        "{r}"
    );
    for kind in [
        "missingAtBank",
        "missingHere",
        "amountMismatch",
        "stateMismatch",
        "unsettledHere",
    ] {
        assert!(r["counts"][kind].as_u64() >= Some(1), "{kind}: {r}");
    }
}
