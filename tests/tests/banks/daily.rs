//! The daily reconciliation of every family, end to end over the dev server: a refund made
//! only in the bank's own panel is `missing_here` in the day's report (read from the bank's
//! day history where the family has one, else by per-payment query) until a query records it
//! as an `external` transaction; then everything matches.

use paygate_domain::daily::BusinessDay;
use paygate_tests::{expect_ok, Stack};
use serde_json::{json, Value};

use crate::{
    create, end_of_day, operations::refund_in_the_banks_panel, order_id, stack, Bank, BANKS,
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
