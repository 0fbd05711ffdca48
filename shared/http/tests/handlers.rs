//! Handler tests: Lambda-shaped requests in, the error envelope and bodies out, over
//! in-memory stores and the simulator bank (no AWS).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::type_complexity
)]

use std::{collections::HashMap, sync::Arc};

use lambda_http::{
    aws_lambda_events::apigw::{ApiGatewayRequestAuthorizer, ApiGatewayV2httpRequestContext},
    http::StatusCode,
    request::RequestContext,
    Body, Request, RequestExt,
};
use paygate_bank_simulator::{InitialBankState, MemoryLedger, SimBank, PROVIDER_CODE};
use paygate_domain::testkit::{
    ManualClock, MemoryAccounts, MemoryPayments, MemoryPublisher, SeqIds, T0,
};
use paygate_domain::{
    ids::ApiKeyId, AccountId, Currency, MerchantId, Mode, OperationSet, Payment, PaymentId,
    PaymentStatus, PosAccount, TransactionType,
};
use paygate_payments::{BankAccess, OperationDeps, Principal, Providers};
use serde_json::Value;

/// Refunds and cancels as records: notes, their bounds, the transactions list, a refund made
/// at the bank (issue 23 §3).
#[path = "handlers/notes.rs"]
mod notes;

struct World {
    ops: OperationDeps,
    store: Arc<MemoryPayments>,
    clock: Arc<ManualClock>,
    bank: Arc<SimBank>,
    account: PosAccount,
}

async fn world() -> World {
    let clock = Arc::new(ManualClock::at(T0));
    let store = Arc::new(MemoryPayments::default());
    let accounts = Arc::new(MemoryAccounts::default());
    let account = PosAccount {
        id: AccountId::parse("acc_1").unwrap(),
        merchant_id: MerchantId::parse("mch_1").unwrap(),
        provider_code: PROVIDER_CODE.into(),
        bank_code: "0064".into(),
        bank_name: "İşbank".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    };
    accounts.insert(account.clone());
    let bank = Arc::new(SimBank::new(
        Arc::new(MemoryLedger::default()),
        clock.clone(),
    ));
    bank.register_order(
        &account,
        "ORD1",
        10_000,
        Currency::Try,
        InitialBankState::Approved,
        false,
    )
    .await
    .unwrap();
    store.insert(Payment {
        id: PaymentId::parse("pay_1").unwrap(),
        merchant_id: account.merchant_id.clone(),
        mode: Mode::Test,
        account_id: account.id.clone(),
        order_id: "ORD1".into(),
        currency: Currency::Try,
        amount: 10_000,
        captured_amount: 10_000,
        refunded_amount: 0,
        status: PaymentStatus::Captured,
        pending: None,
        auth_code: String::new(),
        rrn: String::new(),
        version: 1,
        created_at: T0,
        updated_at: T0,
    });
    World {
        ops: OperationDeps {
            payments: store.clone(),
            banks: BankAccess::new(accounts, Providers::new().register(bank.clone())),
            clock: clock.clone(),
            ids: Arc::new(SeqIds::default()),
            events: paygate_payments::EventSink {
                publisher: Arc::new(MemoryPublisher::default()),
            },
            stale_after: paygate_domain::StaleAfter::DEFAULT,
            pending_grace: paygate_domain::PendingGrace::DEFAULT,
        },
        store,
        clock,
        bank,
        account,
    }
}

fn request(principal: Option<&Principal>, id: &str, body: &str) -> Request {
    let mut auth = ApiGatewayRequestAuthorizer::default();
    auth.fields = paygate_http::principal_fields(
        &principal
            .cloned()
            .ok_or(paygate_payments::AuthError::Missing),
    );
    let mut ctx = ApiGatewayV2httpRequestContext::default();
    ctx.authorizer = Some(auth);
    let mut req = lambda_http::http::Request::builder()
        .method("POST")
        .header("content-type", "application/json")
        .body(if body.is_empty() {
            Body::Empty
        } else {
            Body::Text(body.to_owned())
        })
        .unwrap();
    let mut params = HashMap::new();
    params.insert("id".to_owned(), id.to_owned());
    req = req.with_path_parameters(params);
    req.with_request_context(RequestContext::ApiGatewayV2(ctx))
}

fn principal() -> Principal {
    Principal {
        merchant_id: MerchantId::parse("mch_1").unwrap(),
        mode: Mode::Test,
        key_id: ApiKeyId::parse("key_1").unwrap(),
    }
}

async fn call(
    w: &World,
    p: Option<&Principal>,
    id: &str,
    kind: TransactionType,
    body: &str,
) -> (StatusCode, Value) {
    let resp = paygate_http::handlers::money_operation(&w.ops, &request(p, id, body), kind).await;
    body_of(resp)
}

fn body_of(resp: lambda_http::Response<Body>) -> (StatusCode, Value) {
    let status = resp.status();
    let Body::Text(text) = resp.into_body() else {
        panic!("expected a text body")
    };
    (status, serde_json::from_str(&text).unwrap())
}

/// `GET /v1/payments/{id}/transactions` as `p`.
async fn transactions(w: &World, p: &Principal, id: &str) -> (StatusCode, Value) {
    body_of(paygate_http::handlers::transactions(w.store.as_ref(), &request(Some(p), id, "")).await)
}

/// `POST /v1/payments/{id}/query` as the merchant.
async fn query(w: &World) -> Value {
    let resp =
        paygate_http::handlers::query(&w.ops, &request(Some(&principal()), "pay_1", "")).await;
    let (status, body) = body_of(resp);
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

#[tokio::test]
async fn refund_answers_payment_and_transaction() {
    let w = world().await;
    let (status, body) = call(
        &w,
        Some(&principal()),
        "pay_1",
        TransactionType::Refund,
        r#"{"amount":2500}"#,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["payment"]["status"], "partially_refunded");
    assert_eq!(body["payment"]["capturedAmount"], 10_000);
    assert_eq!(body["payment"]["refundedAmount"], 2_500);
    assert_eq!(body["transaction"]["type"], "refund");
    assert_eq!(body["transaction"]["status"], "approved");
    assert!(body["transaction"]["rrn"]
        .as_str()
        .unwrap()
        .chars()
        .all(|c| c.is_ascii_digit()));
}

#[tokio::test]
async fn errors_use_the_envelope_with_stable_codes() {
    let w = world().await;
    let p = principal();
    let cases: Vec<(
        Option<&Principal>,
        &str,
        TransactionType,
        &str,
        StatusCode,
        &str,
    )> = vec![
        (
            None,
            "pay_1",
            TransactionType::Refund,
            "",
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (
            Some(&p),
            "pay_nope",
            TransactionType::Refund,
            "",
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        (
            Some(&p),
            "not-an-id",
            TransactionType::Refund,
            "",
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        (
            Some(&p),
            "pay_1",
            TransactionType::Refund,
            "{",
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            Some(&p),
            "pay_1",
            TransactionType::Refund,
            r#"{"amount":"5"}"#,
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            Some(&p),
            "pay_1",
            TransactionType::Refund,
            r#"{"amount":0}"#,
            StatusCode::BAD_REQUEST,
            "invalid_amount",
        ),
        (
            Some(&p),
            "pay_1",
            TransactionType::Refund,
            r#"{"amount":10001}"#,
            StatusCode::BAD_REQUEST,
            "amount_exceeds_refundable",
        ),
        (
            Some(&p),
            "pay_1",
            TransactionType::Refund,
            r#"{"amt":1}"#,
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            Some(&p),
            "pay_1",
            TransactionType::Capture,
            "",
            StatusCode::CONFLICT,
            "invalid_state",
        ),
        (
            Some(&p),
            "pay_1",
            TransactionType::Cancel,
            r#"{"amount":1}"#,
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
    ];
    for (who, id, kind, body, status, code) in cases {
        let (got, json) = call(&w, who, id, kind, body).await;
        assert_eq!(
            (got, json["error"]["code"].as_str().unwrap()),
            (status, code),
            "{kind:?} {id} {body}"
        );
        assert!(json["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
    }
    let (_, json) = call(
        &w,
        Some(&p),
        "pay_1",
        TransactionType::Refund,
        r#"{"amount":"5"}"#,
    )
    .await;
    assert_eq!(json["error"]["details"]["field"], "amount");
}

/// `Accept-Language: tr` turns a bank outcome's message Turkish (its details unchanged);
/// other errors keep their English message.
#[tokio::test]
async fn a_decline_answers_in_turkish_when_asked() {
    let w = world().await;
    let turkish = |body: &str| {
        let mut req = request(Some(&principal()), "pay_1", body);
        req.headers_mut().insert(
            "accept-language",
            "tr-TR,tr;q=0.9,en;q=0.8".parse().unwrap(),
        );
        req
    };
    let ops = |body: &'static str| async {
        let req = turkish(body);
        body_of(
            paygate_http::handlers::money_operation(&w.ops, &req, TransactionType::Refund).await,
        )
    };
    let (status, body) = ops(r#"{"amount":9100}"#).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"]["code"], "provider_error", "{body}");
    assert_eq!(body["error"]["details"]["declineCode"], "bank_unavailable");
    assert_eq!(body["error"]["details"]["retryable"], true);
    assert_eq!(body["error"]["details"]["bankCode"], "91");
    assert_eq!(
        body["error"]["message"],
        "Bankada teknik bir hata oluştu; hiçbir şey değişmedi. Daha sonra tekrar deneyin."
    );
    let (_, body) = ops(r#"{"amount":5100}"#).await;
    assert_eq!(
        body["error"]["details"]["declineCode"],
        "insufficient_funds"
    );
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("Kartta yeterli bakiye yok"));
    // a refusal that is not a bank outcome stays as it is
    let (status, body) = ops(r#"{"amount":-1}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("Amount must be"));
}

#[tokio::test]
async fn declines_carry_payment_and_transaction_in_details() {
    let w = world().await;
    let (status, body) = call(
        &w,
        Some(&principal()),
        "pay_1",
        TransactionType::Refund,
        r#"{"amount":5100}"#,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"]["code"], "provider_declined");
    assert_eq!(body["error"]["details"]["payment"]["status"], "captured");
    assert_eq!(
        body["error"]["details"]["transaction"]["status"],
        "declined"
    );
    assert_eq!(body["error"]["details"]["transaction"]["bankCode"], "51");
    // the stable code beside the bank's own, on the error and on the recorded transaction
    assert_eq!(
        body["error"]["details"]["declineCode"],
        "insufficient_funds"
    );
    assert_eq!(body["error"]["details"]["retryable"], true);
    assert_eq!(body["error"]["details"]["bankCode"], "51");
    assert_eq!(
        body["error"]["details"]["transaction"]["declineCode"],
        "insufficient_funds"
    );
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("code 51"));
    let (status, body) = call(
        &w,
        Some(&principal()),
        "pay_1",
        TransactionType::Refund,
        r#"{"amount":9900}"#,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"]["code"], "provider_error");
    assert_eq!(body["error"]["details"]["transaction"]["status"], "unknown");
    // an unknown outcome is never retryable, and the transaction records no code
    assert_eq!(body["error"]["details"]["declineCode"], "outcome_unknown");
    assert_eq!(body["error"]["details"]["retryable"], false);
    assert!(body["error"]["details"]["transaction"]
        .get("declineCode")
        .is_none());
    let (status, body) = call(&w, Some(&principal()), "pay_1", TransactionType::Refund, "").await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"]["code"], "operation_outcome_unknown");
    assert_eq!(
        w.store
            .payment(&PaymentId::parse("pay_1").unwrap())
            .unwrap()
            .refunded_amount,
        0
    );
}
