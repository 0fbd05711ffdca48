//! The refund function under `Idempotency-Key`, over in-memory stores and the simulator
//! bank behind a provider that counts the calls reaching the bank.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc,
};

use async_trait::async_trait;
use lambda_http::{
    aws_lambda_events::apigw::{ApiGatewayRequestAuthorizer, ApiGatewayV2httpRequestContext},
    request::RequestContext,
    RequestExt,
};
use paygate_bank_simulator::{InitialBankState, MemoryLedger, SimBank, PROVIDER_CODE};
use paygate_domain::{
    bank::{BankOutcome, BankStatus, CardDetails, PointsResult},
    ids::ApiKeyId,
    ports::{BankOperation, PosProvider},
    AccountId, Currency, MerchantId, Mode, OperationSet, Payment, PaymentId, PaymentStatus,
    PosAccount,
};
use paygate_payments::{BankAccess, EventSink, Principal, Providers};

/// The simulator declines an operation of this amount (bank code 51).
const DECLINE_AMOUNT: i64 = 5_100;
use paygate_domain::testkit::{
    ManualClock, MemoryAccounts, MemoryIdempotency, MemoryPayments, MemoryPublisher, SeqIds, T0,
};
use serde_json::{json, Value};

use paygate_payments::OperationDeps;

use super::*;

/// The simulator, counting the money operations sent to it.
struct Counting {
    bank: Arc<SimBank>,
    calls: AtomicUsize,
    /// Voids and refunds sent (a reverse's steps).
    voids: AtomicUsize,
    refunds: AtomicUsize,
    /// What the bank answers a void instead of the simulator (a lost answer).
    void_answer: std::sync::Mutex<Option<BankOutcome>>,
}

#[async_trait]
impl PosProvider for Counting {
    fn code(&self) -> &'static str {
        PROVIDER_CODE
    }
    fn supported(&self) -> OperationSet {
        self.bank.supported()
    }
    async fn capture(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.bank.capture(account, op).await
    }
    async fn cancel(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.voids.fetch_add(1, Ordering::SeqCst);
        if let Some(answer) = self.void_answer.lock().unwrap().clone() {
            return answer;
        }
        self.bank.cancel(account, op).await
    }
    async fn refund(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.refunds.fetch_add(1, Ordering::SeqCst);
        self.bank.refund(account, op).await
    }
    fn decline_code(&self, outcome: &BankOutcome) -> Option<paygate_domain::DeclineCode> {
        self.bank.decline_code(outcome)
    }
    async fn query(&self, account: &PosAccount, order_id: &str) -> BankStatus {
        self.bank.query(account, order_id).await
    }
    async fn points_inquiry(
        &self,
        account: &PosAccount,
        card: &CardDetails,
        currency: Currency,
    ) -> PointsResult {
        self.bank.points_inquiry(account, card, currency).await
    }
}

struct World {
    deps: Deps,
    payments: Arc<MemoryPayments>,
    bank: Arc<Counting>,
    clock: Arc<ManualClock>,
    keys: Arc<MemoryIdempotency>,
}

fn account() -> PosAccount {
    PosAccount {
        id: AccountId::parse("acc_1").unwrap(),
        merchant_id: MerchantId::parse("mch_a").unwrap(),
        provider_code: PROVIDER_CODE.into(),
        bank_code: "0064".into(),
        bank_name: "Bank".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    }
}

async fn world() -> World {
    let clock = Arc::new(ManualClock::at(T0));
    let payments = Arc::new(MemoryPayments::default());
    // A keyed refund binds its key in the idempotency records with its reservation.
    let keys = Arc::new(MemoryIdempotency::default());
    payments.link_idempotency(keys.clone());
    let accounts = Arc::new(MemoryAccounts::default());
    accounts.insert(account());
    let sim = Arc::new(SimBank::new(
        Arc::new(MemoryLedger::default()),
        clock.clone(),
    ));
    let bank = Arc::new(Counting {
        bank: sim.clone(),
        calls: AtomicUsize::new(0),
        voids: AtomicUsize::new(0),
        refunds: AtomicUsize::new(0),
        void_answer: std::sync::Mutex::new(None),
    });
    let ids = Arc::new(SeqIds::default());
    // a captured sale of 10 000 at the bank and in the store
    sim.register_order(
        &account(),
        "ORD1",
        10_000,
        Currency::Try,
        InitialBankState::Approved,
        false,
    )
    .await
    .unwrap();
    payments.insert(Payment {
        id: PaymentId::parse("pay_1").unwrap(),
        merchant_id: MerchantId::parse("mch_a").unwrap(),
        mode: Mode::Test,
        account_id: account().id,
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
    let deps = Deps {
        ops: OperationDeps {
            payments: payments.clone(),
            banks: BankAccess::new(accounts, Providers::new().register(bank.clone())),
            clock: clock.clone(),
            ids: ids.clone(),
            events: EventSink {
                publisher: Arc::new(MemoryPublisher::default()),
            },
            stale_after: paygate_domain::StaleAfter::DEFAULT,
            pending_grace: paygate_domain::PendingGrace::DEFAULT,
        },
        idempotency: paygate_http::Idempotency {
            store: keys.clone(),
            clock: clock.clone(),
            ids,
        },
        throttle: paygate_http::Throttle {
            counter: Arc::new(paygate_domain::testkit::MemoryRateCounter::new()),
            limits: paygate_domain::throttle::Limits::default(),
            clock: clock.clone(),
            metrics: Arc::new(paygate_domain::metrics::NoMetrics),
            gate: Arc::default(),
        },
    };
    World {
        deps,
        payments,
        bank,
        clock,
        keys,
    }
}

fn refund(body: Value, key: Option<&str>) -> Request {
    post("refund", body, key)
}

/// `POST /v1/payments/pay_1/<op>`, as the merchant `mch_a`.
fn post(op: &str, body: Value, key: Option<&str>) -> Request {
    let mut b = lambda_http::http::Request::builder()
        .method("POST")
        .uri(format!("/v1/payments/pay_1/{op}"))
        .header("content-type", "application/json");
    if let Some(k) = key {
        b = b.header("Idempotency-Key", k);
    }
    let req = b.body(Body::Text(body.to_string())).unwrap();
    let mut auth = ApiGatewayRequestAuthorizer::default();
    auth.fields = paygate_http::principal_fields(&Ok(Principal {
        merchant_id: MerchantId::parse("mch_a").unwrap(),
        mode: Mode::Test,
        key_id: ApiKeyId::parse("key_a").unwrap(),
    }));
    let mut ctx = ApiGatewayV2httpRequestContext::default();
    ctx.authorizer = Some(auth);
    let params = std::collections::HashMap::from([("id".to_owned(), "pay_1".to_owned())]);
    req.with_path_parameters(params)
        .with_request_context(RequestContext::ApiGatewayV2(ctx))
}

fn answer(resp: &Response<Body>) -> (u16, String, bool) {
    let text = match resp.body() {
        Body::Text(t) => t.clone(),
        other => panic!("not a text body: {other:?}"),
    };
    let replayed = resp
        .headers()
        .get("idempotent-replayed")
        .is_some_and(|v| v == "true");
    (resp.status().as_u16(), text, replayed)
}

impl World {
    fn bank_calls(&self) -> usize {
        self.bank.calls.load(Ordering::SeqCst)
    }

    fn refunded(&self) -> i64 {
        self.payments
            .payment(&PaymentId::parse("pay_1").unwrap())
            .unwrap()
            .refunded_amount
    }
}

#[tokio::test]
async fn a_retried_partial_refund_is_replayed_and_reaches_the_bank_once() {
    let w = world().await;
    let first = handle(&w.deps, refund(json!({"amount": 2_500}), Some("r-1"))).await;
    let (status, body, replayed) = answer(&first);
    assert_eq!((status, replayed), (200, false));
    // the client did not get the answer and retries the very same request
    let again = handle(&w.deps, refund(json!({"amount": 2_500}), Some("r-1"))).await;
    assert_eq!(answer(&again), (200, body, true));
    assert_eq!(w.bank_calls(), 1);
    assert_eq!(w.refunded(), 2_500);
    assert_eq!(w.payments.transactions().len(), 1);
    // without a key, the same request is a second refund
    let (status, _, _) = answer(&handle(&w.deps, refund(json!({"amount": 2_500}), None)).await);
    assert_eq!(status, 200);
    assert_eq!((w.bank_calls(), w.refunded()), (2, 5_000));
}

#[tokio::test]
async fn a_declined_refund_is_replayed_without_asking_the_bank_again() {
    let w = world().await;
    let first = handle(
        &w.deps,
        refund(json!({"amount": DECLINE_AMOUNT}), Some("r-1")),
    )
    .await;
    let (status, body, _) = answer(&first);
    assert_eq!(status, 422);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["code"],
        "provider_declined"
    );
    let again = handle(
        &w.deps,
        refund(json!({"amount": DECLINE_AMOUNT}), Some("r-1")),
    )
    .await;
    assert_eq!(answer(&again), (422, body, true));
    assert_eq!(w.bank_calls(), 1);
}

#[tokio::test]
async fn the_key_with_another_amount_is_refused_and_moves_nothing() {
    let w = world().await;
    handle(&w.deps, refund(json!({"amount": 2_500}), Some("r-1"))).await;
    let other = handle(&w.deps, refund(json!({"amount": 3_000}), Some("r-1"))).await;
    let (status, body, replayed) = answer(&other);
    assert_eq!((status, replayed), (422, false));
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["code"],
        "idempotency_key_reused"
    );
    assert_eq!((w.bank_calls(), w.refunded()), (1, 2_500));
}

#[tokio::test]
async fn an_invalid_refund_releases_the_key_for_the_corrected_request() {
    let w = world().await;
    let bad = handle(&w.deps, refund(json!({"amount": "2500"}), Some("r-1"))).await;
    assert_eq!(answer(&bad).0, 400);
    // like Stripe: a request refused by validation stores nothing, the key is free
    let fixed = handle(&w.deps, refund(json!({"amount": 2_500}), Some("r-1"))).await;
    assert_eq!(answer(&fixed).0, 200);
    assert_eq!((w.bank_calls(), w.refunded()), (1, 2_500));
}

#[tokio::test]
async fn a_null_amount_is_an_invalid_request_and_moves_nothing() {
    let w = world().await;
    let bad = handle(&w.deps, refund(json!({"amount": null}), Some("r-1"))).await;
    let (status, body, _) = answer(&bad);
    assert_eq!(status, 400);
    assert!(
        body.contains("invalid_request") && body.contains("amount"),
        "{body}"
    );
    assert_eq!((w.bank_calls(), w.refunded()), (0, 0));
}

#[tokio::test]
async fn an_integral_float_amount_refunds_that_integer() {
    let w = world().await;
    let ok = handle(&w.deps, refund(json!({"amount": 2_500.0}), Some("r-1"))).await;
    assert_eq!(answer(&ok).0, 200);
    assert_eq!((w.bank_calls(), w.refunded()), (1, 2_500));
    let half = handle(&w.deps, refund(json!({"amount": 2_500.5}), Some("r-2"))).await;
    assert_eq!(answer(&half).0, 400);
}

mod reverse;
