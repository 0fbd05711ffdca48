//! The function routes the deliveries routes only and parses the history's query.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use lambda_http::Body;
use paygate_domain::testkit::{
    ManualClock, MemoryAccounts, MemoryDeliveries, MemoryEndpoints, MemoryPayments, MemoryQueue, T0,
};
use paygate_domain::{AccountId, MerchantId, OperationSet, PosAccount};
use serde_json::{json, Value};

use super::*;

fn deps() -> Deps {
    deps_with(Arc::default())
}

fn deps_with(reports: Arc<paygate_domain::testkit::MemoryDayReports>) -> Deps {
    deps_over(reports, Arc::default())
}

fn deps_over(
    reports: Arc<paygate_domain::testkit::MemoryDayReports>,
    payments: Arc<MemoryPayments>,
) -> Deps {
    let accounts = MemoryAccounts::default();
    accounts.insert(PosAccount {
        id: AccountId::parse("acc_1").unwrap(),
        merchant_id: MerchantId::parse("mch_one").unwrap(),
        provider_code: "simulator".into(),
        bank_code: "0064".into(),
        bank_name: "Bank".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: paygate_domain::Mode::Test,
    });
    let endpoints = Arc::new(MemoryEndpoints::default());
    Deps {
        admin: paygate_http::admin::DeliveriesDeps {
            merchants: Arc::new(accounts),
            endpoints: endpoints.clone(),
            deliveries: Arc::new(MemoryDeliveries::default()),
            outbox: Arc::new(MemoryPayments::default()),
            queue: Arc::new(MemoryQueue::default()),
            clock: Arc::new(ManualClock::at(T0)),
            health: endpoints.clone(),
            audit: paygate_http::admin::Audit {
                log: Arc::new(paygate_domain::testkit::MemoryAudit::default()),
                ids: Arc::new(paygate_domain::testkit::SeqIds::default()),
            },
            reports,
            payments,
        },
    }
}

async fn call(method: &str, uri: &str) -> (u16, Value) {
    let req = lambda_http::http::Request::builder()
        .method(method)
        .uri(uri)
        .body(Body::Empty)
        .unwrap();
    let resp = handle(&deps(), req).await;
    let body = match resp.body() {
        Body::Text(t) => serde_json::from_str(t).unwrap(),
        _ => Value::Null,
    };
    (resp.status().as_u16(), body)
}

#[tokio::test]
async fn the_history_query_is_validated_before_anything_is_read() {
    let (status, body) = call(
        "GET",
        "/admin/v1/merchants/mch_one/webhook-endpoints/whe_1/deliveries?status=lost",
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["details"]["field"], json!("status"));
    let (status, body) = call(
        "GET",
        "/admin/v1/merchants/mch_one/webhook-endpoints/whe_1/deliveries?status=failed&limit=5",
    )
    .await;
    assert_eq!(
        (status, body["error"]["message"].clone()),
        (404, json!("No such webhook endpoint."))
    );
}

#[tokio::test]
async fn unknown_deliveries_and_endpoint_routes_are_404() {
    assert_eq!(
        call("GET", "/admin/v1/merchants/mch_one/deliveries/dlv_1")
            .await
            .0,
        404
    );
    assert_eq!(
        call(
            "POST",
            "/admin/v1/merchants/mch_one/deliveries/dlv_1/resend"
        )
        .await
        .0,
        404
    );
    assert_eq!(
        call("GET", "/admin/v1/merchants/mch_one/events/evt_1/deliveries")
            .await
            .0,
        404
    );
    let (status, body) = call("GET", "/admin/v1/merchants/mch_one/webhook-endpoints").await;
    assert_eq!(
        (status, body["error"]["message"].clone()),
        (404, json!("No such route."))
    );
}

#[tokio::test]
async fn a_days_reconciliation_reports_come_as_json_or_csv() {
    use paygate_domain::daily::{BankLine, BusinessDay, DayReport, DayReports, Source};
    let reports = Arc::new(paygate_domain::testkit::MemoryDayReports::default());
    let day = BusinessDay::parse("2026-11-26").unwrap();
    let ours = paygate_domain::daily::match_history(
        &[],
        &[BankLine {
            order_id: "ORD-PANEL".into(),
            kind: paygate_domain::TransactionType::Refund,
            amount: 2_500,
            rrn: "612".into(),
        }],
    );
    let report = DayReport::new(
        MerchantId::parse("mch_one").unwrap(),
        AccountId::parse("acc_1").unwrap(),
        paygate_domain::Mode::Test,
        day,
        Source::History,
        None,
        ours,
        T0,
    );
    reports.put_report(&report).await.unwrap();
    let deps = deps_with(reports);
    let get = |uri: &str| {
        lambda_http::http::Request::builder()
            .method("GET")
            .uri(uri)
            .body(Body::Empty)
            .unwrap()
    };
    let base = "/admin/v1/merchants/mch_one/reconciliations";
    let resp = handle(&deps, get(&format!("{base}?date=2026-11-26"))).await;
    assert_eq!(resp.status().as_u16(), 200);
    let Body::Text(t) = resp.body() else {
        panic!("a text body")
    };
    let v: Value = serde_json::from_str(t).unwrap();
    assert_eq!(v["date"], "2026-11-26");
    assert_eq!(v["data"][0]["status"], "mismatches");
    assert_eq!(v["data"][0]["counts"]["missingHere"], 1);
    assert_eq!(v["data"][0]["findings"][0]["bankAmount"], 2_500);
    let resp = handle(&deps, get(&format!("{base}?date=2026-11-26&format=csv"))).await;
    assert_eq!(resp.status().as_u16(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let Body::Text(csv) = resp.body() else {
        panic!("a text body")
    };
    assert!(csv.starts_with(paygate_domain::daily::CSV_HEADER), "{csv}");
    assert!(csv.contains(",missing_here,ORD-PANEL,refund,"), "{csv}");
    // Another day: no report yet.
    let resp = handle(&deps, get(&format!("{base}?date=2026-11-25"))).await;
    let Body::Text(t) = resp.body() else {
        panic!("a text body")
    };
    assert_eq!(serde_json::from_str::<Value>(t).unwrap()["data"], json!([]));
    for (uri, status) in [
        (base.to_owned(), 400),
        (format!("{base}?date=2026-13-01"), 400),
        (
            "/admin/v1/merchants/mch_nobody/reconciliations?date=2026-11-26".to_owned(),
            404,
        ),
    ] {
        assert_eq!(
            handle(&deps, get(&uri)).await.status().as_u16(),
            status,
            "{uri}"
        );
    }
}

/// A live payment of `merchant` captured in full, then a refund the bank declined.
async fn captured_then_refund_declined(payments: &MemoryPayments, id: &str, merchant: &str) {
    use paygate_domain::{
        decline::DeclineCode,
        ports::{Expectation, PaymentChange, PaymentWriter},
        Currency, Payment, PaymentId, PaymentStatus, Transaction, TransactionId, TransactionStatus,
        TransactionType,
    };
    let pid = PaymentId::parse(id).unwrap();
    let mut p = Payment::created(
        paygate_domain::payment::CreatedPayment {
            id: pid.clone(),
            merchant_id: MerchantId::parse(merchant).unwrap(),
            mode: paygate_domain::Mode::Live,
            account_id: AccountId::parse("acc_1").unwrap(),
            order_id: "ORD-7".into(),
            currency: Currency::Try,
            amount: 12_345,
            status: PaymentStatus::Captured,
        },
        T0,
    );
    p.captured_amount = 12_345;
    let tx = |n: &str, kind, status, code: &str| Transaction {
        status,
        bank_code: code.into(),
        rrn: "612345678901".into(),
        settled_at: Some(T0),
        ..Transaction::pending(
            TransactionId::parse(n).unwrap(),
            pid.clone(),
            kind,
            12_345,
            Currency::Try,
            T0,
        )
    };
    let capture = tx(
        "txn_1",
        TransactionType::Capture,
        TransactionStatus::Approved,
        "00",
    );
    payments
        .save(PaymentChange {
            payment: p.clone(),
            expect: Expectation::Absent,
            transaction: Some(capture),
            event: None,
        })
        .await
        .unwrap();
    let refund = tx(
        "txn_2",
        TransactionType::Refund,
        TransactionStatus::Declined,
        "51",
    )
    .with_decline_code(Some(DeclineCode::InsufficientFunds));
    let expect = Expectation::over(&p);
    p.version += 1;
    payments
        .save(PaymentChange {
            payment: p,
            expect,
            transaction: Some(refund),
            event: None,
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn a_payment_of_the_merchant_comes_with_its_transactions_and_decline_codes() {
    let payments = Arc::new(MemoryPayments::default());
    captured_then_refund_declined(&payments, "pay_mine", "mch_one").await;
    captured_then_refund_declined(&payments, "pay_theirs", "mch_two").await;
    let deps = deps_over(Arc::default(), payments);
    let get = |uri: &str| {
        lambda_http::http::Request::builder()
            .method("GET")
            .uri(uri)
            .body(Body::Empty)
            .unwrap()
    };
    let read = |resp: &lambda_http::Response<Body>| -> Value {
        let Body::Text(t) = resp.body() else {
            panic!("a text body")
        };
        serde_json::from_str(t).unwrap()
    };
    let base = "/admin/v1/merchants/mch_one/payments";
    let resp = handle(&deps, get(&format!("{base}/pay_mine"))).await;
    assert_eq!(resp.status().as_u16(), 200);
    let v = read(&resp);
    // The merchant API's GET /v1/payments/{id} shape: the payment, flattened, with its
    // transactions oldest first; a live payment is shown too.
    assert_eq!(
        (v["id"].clone(), v["mode"].clone()),
        (json!("pay_mine"), json!("live"))
    );
    assert_eq!(v["status"], "captured");
    assert_eq!(v["capturedAmount"], 12_345);
    let txs = v["transactions"].as_array().unwrap();
    assert_eq!(txs.len(), 2);
    assert_eq!(
        (txs[0]["type"].clone(), txs[0]["status"].clone()),
        (json!("capture"), json!("approved"))
    );
    assert!(txs[0].get("declineCode").is_none(), "{v}");
    assert_eq!(
        (
            txs[1]["type"].clone(),
            txs[1]["status"].clone(),
            txs[1]["declineCode"].clone(),
            txs[1]["bankCode"].clone(),
        ),
        (
            json!("refund"),
            json!("declined"),
            json!("insufficient_funds"),
            json!("51")
        )
    );
    // Another merchant's payment, an id that cannot be one, an unknown one: the same 404.
    for id in ["pay_theirs", "not%20an%20id", "pay_nobody"] {
        let resp = handle(&deps, get(&format!("{base}/{id}"))).await;
        assert_eq!(resp.status().as_u16(), 404, "{id}");
        assert_eq!(read(&resp)["error"]["message"], "No such payment.", "{id}");
    }
    // An unknown merchant is the merchant's 404.
    let resp = handle(
        &deps,
        get("/admin/v1/merchants/mch_two/payments/pay_theirs"),
    )
    .await;
    assert_eq!(read(&resp)["error"]["message"], "No such merchant.");
}
