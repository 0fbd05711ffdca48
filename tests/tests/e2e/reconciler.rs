//! The reconciler under the dev server, as `make dev` runs it (here every 200 ms instead of
//! 10 s): what the bank left unanswered, and pending payments, are settled with no merchant
//! call, and the usual events are written.

use std::time::{Duration, Instant};

use paygate_tests::{expect_error, keys, Stack};
use serde_json::{json, Value};

fn key() -> &'static str {
    keys().anatolia_test
}

async fn wait_for(stack: &Stack, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let p = stack.payment(key(), id).await;
        if done(&p) {
            return p;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "not settled: {p}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_refund_the_bank_timed_out_on_is_settled_with_no_merchant_call() {
    let stack = Stack::start_with_reconciler(
        "reconciler",
        Duration::from_millis(200),
        paygate_devserver::DEFAULT_BANK_TIMEOUT,
    )
    .await;
    let id = stack.payment_in(key(), "captured", 20_000).await;
    // The simulator applies a 9900 refund and never answers.
    let r = stack
        .op(key(), &id, "refund", json!({ "amount": 9900 }))
        .await;
    let err = expect_error(&r, 422, "provider_error");
    assert_eq!(err["details"]["transaction"]["status"], "unknown", "{err}");
    // No query: the reconciler settles it from the bank's records.
    let p = wait_for(&stack, &id, |p| p["pendingOperation"].is_null()).await;
    assert_eq!(p["status"], "partially_refunded", "{p}");
    assert_eq!(p["refundedAmount"], 9900, "{p}");
    let txns = p["transactions"].as_array().unwrap();
    assert_eq!(txns.len(), 1, "{p}");
    assert_eq!(txns[0]["status"], "approved", "{p}");
    // The payment is free again.
    let r = stack
        .op(key(), &id, "refund", json!({ "amount": 100 }))
        .await;
    assert_eq!(r.0, 200, "{r:?}");
}

#[tokio::test]
async fn pending_payments_are_finalized_with_no_merchant_call() {
    let stack = Stack::start_with_reconciler(
        "reconcilerpending",
        Duration::from_millis(200),
        paygate_devserver::DEFAULT_BANK_TIMEOUT,
    )
    .await;
    let mut ids = Vec::new();
    for (held, expected) in [
        ("approved", "captured"),
        ("preauth", "authorized"),
        ("declined", "declined"),
    ] {
        let id = stack
            .create_payment(
                key(),
                json!({ "amount": 12_000, "currency": "TRY", "status": "pending", "bankState": held }),
            )
            .await;
        ids.push((id, expected));
    }
    let none = stack
        .create_payment(
            key(),
            json!({ "amount": 12_000, "currency": "TRY", "status": "pending", "bankState": "none" }),
        )
        .await;
    for (id, expected) in &ids {
        let p = wait_for(&stack, id, |p| p["status"] != "pending").await;
        assert_eq!(p["status"], *expected, "{p}");
    }
    // "No record" counts only after the grace period: it is still pending.
    assert_eq!(stack.payment(key(), &none).await["status"], "pending");
}

/// The daily reconciliation of a day, through the admin API as the dashboard reads it: the
/// built-in simulator has no day history, so the account is reconciled by per-payment
/// query. A refund made only at the bank is `missing_here`; a refund whose answer the bank
/// never gave, settled by the reconciler, matches and is marked as settled from the bank's
/// records; the rest matches.
#[tokio::test]
async fn a_days_reconciliation_shows_a_bank_only_refund_and_a_recovered_one() {
    use paygate_domain::{
        daily::BusinessDay, ports::BankOperation, AccountId, Currency, MerchantId, Mode,
        OperationSet, PosAccount, TransactionId,
    };
    let stack = Stack::start_with_reconciler(
        "daily",
        Duration::from_secs(2),
        paygate_devserver::DEFAULT_BANK_TIMEOUT,
    )
    .await;
    // Matched: a refund through the API.
    let plain = stack.payment_in(key(), "captured", 20_000).await;
    let r = stack
        .op(key(), &plain, "refund", json!({ "amount": 1_000 }))
        .await;
    assert_eq!(r.0, 200, "{r:?}");
    // Recovered: the bank applies a 9900 refund and never answers; the stack's clock moves
    // past a request's life before the reconciler settles it.
    let lost = stack.payment_in(key(), "captured", 20_000).await;
    let r = stack
        .op(key(), &lost, "refund", json!({ "amount": 9900 }))
        .await;
    expect_error(&r, 422, "provider_error");
    stack.clock.advance_millis(40_000);
    wait_for(&stack, &lost, |p| p["pendingOperation"].is_null()).await;
    // Bank only: 700 more refunded in the bank's own panel.
    let p = stack.payment(key(), &plain).await;
    let account = PosAccount {
        id: AccountId::parse(p["accountId"].as_str().unwrap()).unwrap(),
        // The merchant of the key.
        merchant_id: MerchantId::parse("mch_anatolia").unwrap(),
        provider_code: "simulator".into(),
        bank_code: String::new(),
        bank_name: String::new(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    };
    let providers = stack.server().providers().unwrap();
    let panel = providers
        .get("simulator")
        .unwrap()
        .refund(
            &account,
            &BankOperation {
                order_id: p["orderId"].as_str().unwrap().to_owned(),
                transaction_id: TransactionId::parse("txn_bankpanel").unwrap(),
                amount: 700,
                currency: Currency::Try,
                full: false,
            },
        )
        .await;
    assert!(
        matches!(panel, paygate_domain::BankOutcome::Approved { .. }),
        "{panel:?}"
    );

    let created = p["transactions"][0]["createdAt"].as_str().unwrap();
    let day = BusinessDay::of(paygate_domain::Timestamp::parse_iso8601(created).unwrap());
    let run = stack.server().reconcile_day(day).await.unwrap();
    assert!(run.mismatched >= 1 && run.mismatches == 1, "{run:?}");
    let path = format!(
        "/admin/v1/merchants/{}/reconciliations?date={day}",
        account.merchant_id
    );
    let (status, body) = stack.admin("GET", &path, None).await.pair();
    assert_eq!(status, 200, "{body}");
    let report = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["accountId"] == account.id.as_str())
        .unwrap_or_else(|| panic!("a report of the account: {body}"));
    assert_eq!(report["source"], "query", "{report}");
    assert_eq!(report["status"], "mismatches", "{report}");
    assert_eq!(report["counts"]["missingHere"], 1, "{report}");
    assert_eq!(report["counts"]["matched"], 2, "{report}");
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings[0]["kind"], "missing_here");
    assert_eq!(findings[0]["bankAmount"], 700);
    let recovered = findings
        .iter()
        .find(|f| f["paymentId"] == lost.as_str())
        .unwrap();
    assert_eq!(recovered["kind"], "matched", "{recovered}");
    assert_eq!(recovered["settledFromBankRecords"], true, "{recovered}");
    let other = findings
        .iter()
        .find(|f| f["paymentId"] == plain.as_str() && f["kind"] == "matched")
        .unwrap();
    assert_eq!(other["settledFromBankRecords"], false, "{other}");
}
