//! The points inquiry function over in-memory stores and the simulator bank behind a provider
//! that counts the inquiries reaching the bank: it fails closed when a limit cannot be
//! checked (the key's, the merchant's, the card's), the merchant's limit counts all its keys,
//! the card's counts every merchant, and an `Idempotency-Key` is ignored (each inquiry asks
//! the bank; nothing stored).
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
    throttle::{
        card::{CardKey, CardKeySource},
        CardLimit, Counts, Limits, RateCounter, RateLimit, Scope, Window,
    },
    AccountId, BinInfo, Currency, MerchantId, Mode, OperationSet, PosAccount, StoreError,
};
use paygate_http::throttle::CardThrottle;
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

/// The shared counters, failing for the card's windows only when asked (the key's and the
/// merchant's still count).
struct Counters {
    inner: Arc<MemoryRateCounter>,
    card_fails: std::sync::atomic::AtomicBool,
    /// Every window id counted.
    ids: std::sync::Mutex<Vec<String>>,
}

#[async_trait]
impl RateCounter for Counters {
    async fn hit(&self, window: &Window) -> Result<Counts, StoreError> {
        self.ids.lock().unwrap().push(window.id.clone());
        if window.id.contains("#points_card#") && self.card_fails.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable(
                "injected: card counter down".into(),
            ));
        }
        self.inner.hit(window).await
    }
}

/// A card key that cannot be loaded (Secrets Manager down).
struct NoKey;

#[async_trait]
impl CardKeySource for NoKey {
    async fn card_key(&self) -> Result<Arc<CardKey>, StoreError> {
        Err(StoreError::Unavailable(
            "injected: secrets manager down".into(),
        ))
    }
}

const CARD_KEY: &[u8; 32] = b"points-tests-card-key-32-bytes!!";

struct World {
    deps: Deps,
    clock: Arc<ManualClock>,
    bank: Arc<Counting>,
    counter: Arc<MemoryRateCounter>,
    counters: Arc<Counters>,
    metrics: Arc<RecordingMetrics>,
}

fn world() -> World {
    world_with(Limits::default())
}

/// Merchants `mch_a` and `mch_b`, each with a test account at the card's bank.
fn world_with(limits: Limits) -> World {
    let clock = Arc::new(ManualClock::at(T0.plus_millis(12_500)));
    let accounts = Arc::new(MemoryAccounts::default());
    for (account, merchant) in [("acc_1", "mch_a"), ("acc_2", "mch_b")] {
        accounts.insert(PosAccount {
            id: AccountId::parse(account).unwrap(),
            merchant_id: MerchantId::parse(merchant).unwrap(),
            provider_code: PROVIDER_CODE.into(),
            bank_code: "0064".into(),
            bank_name: "Bank".into(),
            supported: OperationSet::all(),
            label: String::new(),
            mode: Mode::Test,
        });
    }
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
    let counters = Arc::new(Counters {
        inner: counter.clone(),
        card_fails: false.into(),
        ids: Default::default(),
    });
    let metrics = Arc::new(RecordingMetrics::new());
    let throttle = paygate_http::Throttle {
        counter: counters.clone(),
        limits,
        clock: clock.clone(),
        metrics: metrics.clone(),
        gate: Arc::default(),
    };
    let deps = Deps {
        points: PointsDeps {
            banks: BankAccess::new(accounts, Providers::new().register(bank.clone())),
            bins,
            card_gate: Arc::new(CardThrottle {
                throttle: throttle.clone(),
                key: Arc::new(CardKey::new(*CARD_KEY).unwrap()),
            }),
        },
        throttle,
    };
    World {
        deps,
        clock,
        bank,
        counter,
        counters,
        metrics,
    }
}

impl World {
    fn sent(&self) -> usize {
        self.bank.points.load(Ordering::SeqCst)
    }
}

/// A Luhn-valid card of the seeded BIN.
const PAN: &str = "4543600000000003";

fn inquiry(idempotency_key: Option<&str>) -> Request {
    inquiry_as("mch_a", "key_a", PAN, idempotency_key)
}

/// An inquiry on `pan` with `merchant`'s test key `key`.
fn inquiry_as(merchant: &str, key: &str, pan: &str, idempotency_key: Option<&str>) -> Request {
    let body = json!({
        "card": {"number": pan, "expMonth": "12", "expYear": "2030", "cvv": "123", "holder": "Ayşe Yılmaz"},
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
        merchant_id: MerchantId::parse(merchant).unwrap(),
        mode: Mode::Test,
        key_id: ApiKeyId::parse(key).unwrap(),
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

/// The status and error code of an answer (`None` for a success).
fn answer(resp: &Response<Body>) -> (u16, Option<String>) {
    let code = json_body(resp)["error"]["code"].as_str().map(str::to_owned);
    (resp.status().as_u16(), code)
}

#[tokio::test]
async fn the_merchant_limit_counts_every_key_of_the_merchant() {
    // Per key the defaults (2 a second, 20 a minute); per merchant 3 a minute.
    let w = world_with(Limits {
        points_merchant: RateLimit::new(3, 3).unwrap(),
        ..Limits::default()
    });
    // Two inquiries with key_a, one with key_b: each key within its own limit.
    for key in ["key_a", "key_a", "key_b"] {
        let resp = handle(&w.deps, inquiry_as("mch_a", key, PAN, None)).await;
        assert_eq!(answer(&resp), (200, None), "{key}");
        w.clock.advance_millis(1_000);
    }
    // A third key of the same merchant is refused: the merchant's minute is spent.
    let resp = handle(&w.deps, inquiry_as("mch_a", "key_c", PAN, None)).await;
    assert_eq!(answer(&resp), (429, Some("rate_limited".into())));
    // Refused by the instance's gate, before the counters: 3 a minute is a token every 20 s,
    // 3 s of which have passed.
    assert_eq!(resp.headers()["retry-after"], "17");
    assert_eq!(w.sent(), 3, "the refused inquiry never reached the bank");
    assert!(w.metrics.all().contains(&Metric::Throttled {
        scope: Scope::PointsMerchant
    }));
    // Another merchant is counted on its own (another card: the card limit is not the point).
    let other = handle(
        &w.deps,
        inquiry_as("mch_b", "key_x", "4543600000000011", None),
    )
    .await;
    assert_eq!(answer(&other), (200, None));
}

#[tokio::test]
async fn the_card_limit_counts_every_merchant_and_reads_like_any_limit() {
    // Per card 3 a minute (and the defaults elsewhere).
    let w = world_with(Limits {
        points_card: CardLimit::new(3, 20).unwrap(),
        ..Limits::default()
    });
    // Two inquiries on the card at mch_a, one at mch_b.
    for (merchant, key) in [("mch_a", "key_a"), ("mch_a", "key_a"), ("mch_b", "key_x")] {
        let resp = handle(&w.deps, inquiry_as(merchant, key, PAN, None)).await;
        assert_eq!(answer(&resp), (200, None), "{merchant}");
        w.clock.advance_millis(1_000);
    }
    // mch_b's second inquiry on it is refused, though mch_b used none of its own limits.
    let resp = handle(&w.deps, inquiry_as("mch_b", "key_x", PAN, None)).await;
    assert_eq!(answer(&resp), (429, Some("rate_limited".into())));
    // The gate's minute bucket: 3 a minute is a token every 20 s, 3 s of which have passed.
    assert_eq!(resp.headers()["retry-after"], "17");
    // The same text as any other refusal: nothing says a card limit (or another merchant's
    // use) refused it.
    let text = json_body(&resp)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    let by_key = paygate_http::throttle::rate_limited(17);
    assert_eq!(text, json_body(&by_key)["error"]["message"]);
    assert!(!text.to_lowercase().contains("card"), "{text}");
    assert_eq!(w.sent(), 3);
    // Another card is not held by it.
    let other = handle(
        &w.deps,
        inquiry_as("mch_b", "key_x", "4543600000000011", None),
    )
    .await;
    assert_eq!(answer(&other), (200, None));
    // The card's counter is under the keyed HMAC, never the number.
    let ids = w.counters.ids.lock().unwrap().clone();
    let card_ids: Vec<&String> = ids.iter().filter(|i| i.contains("#points_card#")).collect();
    // Four counted: three on the card (one item for both merchants), one on the other card;
    // the refused one never reached the counters (the instance's gate refused it).
    assert_eq!(card_ids.len(), 4, "{ids:?}");
    assert_eq!(card_ids[0], card_ids[2], "one counter across merchants");
    let key = CardKey::new(*CARD_KEY).unwrap();
    let subject = paygate_domain::throttle::card::card_subject(&key, Mode::Test, PAN);
    assert!(card_ids[0].starts_with(&format!("{subject}#")), "{ids:?}");
    assert!(ids.iter().all(|i| !i.contains(PAN)), "{ids:?}");
}

#[tokio::test]
async fn a_card_over_its_hour_waits_at_most_a_minute_like_any_refusal() {
    // Per card 5 a minute, 2 an hour.
    let w = world_with(Limits {
        points_card: CardLimit::new(5, 2).unwrap(),
        ..Limits::default()
    });
    for _ in 0..2 {
        assert_eq!(answer(&handle(&w.deps, inquiry(None)).await), (200, None));
        w.clock.advance_millis(1_000);
    }
    let resp = handle(&w.deps, inquiry(None)).await;
    assert_eq!(answer(&resp), (429, Some("rate_limited".into())));
    // Half an hour to the next token, said as a minute: a longer wait would single out the
    // card's hour (and so its use elsewhere).
    assert_eq!(resp.headers()["retry-after"], "60");
    assert_eq!(w.sent(), 2);
    // A minute later it is still refused (the card's hour is spent), in memory.
    w.clock.advance_millis(60_000);
    let calls = w.counter.calls();
    let resp = handle(&w.deps, inquiry(None)).await;
    assert_eq!(answer(&resp).0, 429);
    assert_eq!(w.sent(), 2);
    assert_eq!(
        w.counter.calls(),
        calls + 2,
        "the key's and merchant's counters only"
    );
}

#[tokio::test]
async fn the_card_limit_fails_closed_before_the_bank() {
    let w = world();
    // The card's counter fails (the key's and the merchant's count): 503, nothing sent.
    w.counters.card_fails.store(true, Ordering::SeqCst);
    let resp = handle(&w.deps, inquiry(None)).await;
    assert_eq!(answer(&resp), (503, Some("rate_limit_unavailable".into())));
    assert_eq!(resp.headers()["retry-after"], "5");
    assert_eq!(w.sent(), 0);
    assert!(w.metrics.all().contains(&Metric::ThrottleStoreError {
        scope: Scope::PointsCard
    }));
    // The card key cannot be loaded: the same.
    let mut deps = world().deps;
    deps.points.card_gate = Arc::new(CardThrottle {
        throttle: deps.throttle.clone(),
        key: Arc::new(NoKey),
    });
    let resp = handle(&deps, inquiry(None)).await;
    assert_eq!(answer(&resp), (503, Some("rate_limit_unavailable".into())));
    // An invalid card is answered 400 without being counted.
    let w = world();
    let resp = handle(
        &w.deps,
        inquiry_as("mch_a", "key_a", "4543600000000004", None),
    )
    .await;
    assert_eq!(answer(&resp), (400, Some("invalid_request".into())));
    let ids = w.counters.ids.lock().unwrap().clone();
    assert!(ids.iter().all(|i| !i.contains("#points_card#")), "{ids:?}");
}
