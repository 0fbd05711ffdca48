//! The points inquiry function over in-memory stores and the simulator bank behind a provider
//! that counts the inquiries reaching the bank: it fails closed when its limit cannot be
//! checked, and an `Idempotency-Key` is ignored (each inquiry asks the bank; nothing stored).
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
use paygate_bank_simulator::{MemoryLedger, SimBank, PROVIDER_CODE};
use paygate_domain::{
    bank::{BankOutcome, BankStatus, CardDetails, PointsResult},
    ids::ApiKeyId,
    metrics::Metric,
    ports::{BankOperation, PosProvider},
    testkit::{ManualClock, MemoryAccounts, MemoryBins, MemoryRateCounter, RecordingMetrics, T0},
    throttle::{Limits, Scope},
    AccountId, BinInfo, Currency, MerchantId, Mode, OperationSet, PosAccount,
};
use paygate_payments::{BankAccess, PointsDeps, Principal, Providers};
use serde_json::{json, Value};

use super::*;

/// The simulator, counting the points inquiries sent to it.
struct Counting {
    bank: SimBank,
    points: AtomicUsize,
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
        self.bank.capture(account, op).await
    }
    async fn cancel(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        self.bank.cancel(account, op).await
    }
    async fn refund(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        self.bank.refund(account, op).await
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
        self.points.fetch_add(1, Ordering::SeqCst);
        self.bank.points_inquiry(account, card, currency).await
    }
}

struct World {
    deps: Deps,
    clock: Arc<ManualClock>,
    bank: Arc<Counting>,
    counter: Arc<MemoryRateCounter>,
    metrics: Arc<RecordingMetrics>,
}

fn world() -> World {
    let clock = Arc::new(ManualClock::at(T0.plus_millis(12_500)));
    let accounts = Arc::new(MemoryAccounts::default());
    accounts.insert(PosAccount {
        id: AccountId::parse("acc_1").unwrap(),
        merchant_id: MerchantId::parse("mch_a").unwrap(),
        provider_code: PROVIDER_CODE.into(),
        bank_code: "0064".into(),
        bank_name: "Bank".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    });
    let bins = Arc::new(MemoryBins::default());
    bins.insert(BinInfo {
        bin: "454360".into(),
        bank_code: "0064".into(),
        bank_name: "Bank".into(),
        program: String::new(),
    });
    let bank = Arc::new(Counting {
        bank: SimBank::new(Arc::new(MemoryLedger::default()), clock.clone()),
        points: AtomicUsize::new(0),
    });
    let counter = Arc::new(MemoryRateCounter::new());
    let metrics = Arc::new(RecordingMetrics::new());
    let deps = Deps {
        points: PointsDeps {
            banks: BankAccess::new(accounts, Providers::new().register(bank.clone())),
            bins,
        },
        throttle: paygate_http::Throttle {
            counter: counter.clone(),
            // The deployed defaults: 2 a second, 20 a minute.
            limits: Limits::default(),
            clock: clock.clone(),
            metrics: metrics.clone(),
            gate: Arc::default(),
        },
    };
    World {
        deps,
        clock,
        bank,
        counter,
        metrics,
    }
}

/// A Luhn-valid card of the seeded BIN.
const PAN: &str = "4543600000000003";

fn inquiry(idempotency_key: Option<&str>) -> Request {
    let body = json!({
        "card": {"number": PAN, "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"},
        "currency": "TRY"
    });
    let mut b = lambda_http::http::Request::builder()
        .method("POST")
        .uri("/v1/payments/points/inquiry")
        .header("content-type", "application/json");
    if let Some(k) = idempotency_key {
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
    req.with_request_context(RequestContext::ApiGatewayV2(ctx))
}

fn json_body(resp: &Response<Body>) -> Value {
    match resp.body() {
        Body::Text(t) => serde_json::from_str(t).unwrap(),
        other => panic!("not a text body: {other:?}"),
    }
}

#[tokio::test]
async fn a_flood_of_inquiries_while_the_counters_fail_gets_503_or_429_and_never_reaches_the_bank() {
    let w = world();
    w.counter.fail(true);
    let answers = futures::future::join_all((0..200).map(|_| handle(&w.deps, inquiry(None)))).await;
    let mut unavailable = 0;
    for resp in &answers {
        let code = json_body(resp)["error"]["code"].clone();
        match resp.status().as_u16() {
            503 => {
                unavailable += 1;
                assert_eq!(code, "rate_limit_unavailable");
                assert_eq!(resp.headers()["retry-after"], "5");
            }
            429 => assert_eq!(code, "rate_limited"),
            other => panic!("answered {other}: {code}"),
        }
        assert!(!format!("{:?}", resp.body()).contains(PAN));
    }
    // The gate's burst (2) tried the counters; the rest was refused in memory.
    assert_eq!(unavailable, 2);
    assert_eq!(w.counter.calls(), 2);
    assert_eq!(w.bank.points.load(Ordering::SeqCst), 0, "nothing sent");
    assert!(w.metrics.all().contains(&Metric::ThrottleStoreError {
        scope: Scope::Points
    }));
    // Counters back, and a second later the gate has a token: the inquiry runs.
    w.counter.fail(false);
    w.clock.advance_millis(1_000);
    assert_eq!(handle(&w.deps, inquiry(None)).await.status(), 200);
    assert_eq!(w.bank.points.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_idempotency_key_is_ignored_and_every_inquiry_asks_the_bank() {
    let w = world();
    for key in [
        Some("same-key"),
        Some("same-key"),
        Some(" not a valid key "),
    ] {
        let resp = handle(&w.deps, inquiry(key)).await;
        assert_eq!(resp.status(), 200, "{:?}", resp.body());
        assert_eq!(json_body(&resp)["ok"], true);
        assert!(resp.headers().get("idempotent-replayed").is_none());
        // Within the points limit (2 a second): the next one a second later.
        w.clock.advance_millis(1_000);
    }
    assert_eq!(w.bank.points.load(Ordering::SeqCst), 3, "asked each time");
}
