//! The money-safety soak: hundreds of merchant requests, concurrent, through the real
//! handlers (half of them with an `Idempotency-Key`, clients retrying what they may retry
//! and re-sending some answered requests as if the answer had been lost), against the
//! Nestpay simulator with random bank faults (time-outs and dropped connections before and
//! after applying, technical errors, late bookings) over DynamoDB (moto) with random write
//! faults (lost answers, 500s, transaction conflicts, throttling). Then the faults stop and
//! the reconciler runs until nothing is left to settle.
//!
//! The checker compares every payment with the bank's ledger: amounts equal, no operation
//! applied twice at the bank, exactly one event per approved operation, nothing unknown.
//! It prints its figures (`cargo test -p paygate-tests --test soak -- --nocapture`, or
//! `make chaos` for a longer run: `PAYGATE_SOAK_OPS`, `PAYGATE_SOAK_SEED`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::{
    collections::{BTreeMap, HashMap},
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use futures::{stream, StreamExt};
use lambda_http::{
    aws_lambda_events::apigw::{ApiGatewayRequestAuthorizer, ApiGatewayV2httpRequestContext},
    request::RequestContext,
    Body, Request, RequestExt, Response,
};
use paygate_aws::dynamo::{
    create_tables,
    faults::{client, FaultPlan},
    table_names, DynamoEvents, DynamoPayments,
};
use paygate_aws::moto::{unique_prefix, MotoServer, REGION};
use paygate_aws::retry_config;
use paygate_bank_nestpay::{
    sim::{self, SimCredentials},
    NestpayProvider, API_PATH,
};
use paygate_bankkit::{
    sim::{FaultOdds, OrderState},
    AccountCredentials, BankTransport, MemoryCredentials,
};
use paygate_domain::testkit::{ManualClock, MemoryAccounts, MemoryPublisher};
use paygate_domain::{
    ids::ApiKeyId,
    ports::{Expectation, PaymentChange, PaymentReader, PaymentWriter, TestOrder, TestOrderState},
    AccountId, Currency, MerchantId, Mode, OperationSet, Payment, PaymentId, PaymentStatus,
    PosAccount, Timestamp, TransactionStatus, TransactionType,
};
use paygate_payments::{
    run_reconciler, BankAccess, EventSink, OperationDeps, Principal, Providers, ReconcilerDeps,
    ReconcilerLimits,
};
use serde_json::{json, Value};

const T0: Timestamp = Timestamp::from_unix_millis(1_795_255_200_000);
const CLIENT_ID: &str = "700655000200";
const SALE: i64 = 100_000;
const PREAUTH: i64 = 50_000;

/// A tiny deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Unique ids (the soak's ids need not be random, only distinct).
#[derive(Default)]
struct Ids(AtomicUsize);
impl paygate_domain::ports::IdGenerator for Ids {
    fn opaque(&self) -> String {
        format!("s{}", self.0.fetch_add(1, Ordering::Relaxed))
    }
}

#[derive(Debug, Clone)]
enum Op {
    Capture(Option<i64>),
    Cancel,
    Refund(Option<i64>),
    Query,
}

impl Op {
    fn path(&self) -> &'static str {
        match self {
            Op::Capture(_) => "capture",
            Op::Cancel => "cancel",
            Op::Refund(_) => "refund",
            Op::Query => "query",
        }
    }
    fn body(&self) -> Value {
        match self {
            Op::Capture(Some(a)) | Op::Refund(Some(a)) => json!({ "amount": a }),
            _ => json!({}),
        }
    }
}

struct Soak {
    ops: OperationDeps,
    idem: paygate_http::Idempotency,
    reconciler: ReconcilerDeps,
    dynamo_faults: FaultPlan,
    bank: Arc<paygate_bankkit::sim::SimState>,
    payments: Arc<DynamoPayments>,
    events: DynamoEvents,
    clock: Arc<ManualClock>,
    account: PosAccount,
    _server: paygate_bankkit::sim::SimServer,
}

fn principal() -> Principal {
    Principal {
        merchant_id: MerchantId::parse("mch_soak").unwrap(),
        mode: Mode::Test,
        key_id: ApiKeyId::parse("key_soak").unwrap(),
    }
}

fn request(id: &PaymentId, op: &Op, key: Option<&str>) -> Request {
    let mut b = lambda_http::http::Request::builder()
        .method("POST")
        .uri(format!("/v1/payments/{id}/{}", op.path()))
        .header("content-type", "application/json");
    if let Some(k) = key {
        b = b.header("Idempotency-Key", k);
    }
    let req = b.body(Body::Text(op.body().to_string())).unwrap();
    let mut auth = ApiGatewayRequestAuthorizer::default();
    auth.fields = paygate_http::principal_fields(&Ok(principal()));
    let mut ctx = ApiGatewayV2httpRequestContext::default();
    ctx.authorizer = Some(auth);
    req.with_path_parameters(HashMap::from([("id".to_owned(), id.to_string())]))
        .with_request_context(RequestContext::ApiGatewayV2(ctx))
}

fn status_and_code(resp: &Response<Body>) -> (u16, String, bool) {
    let text = match resp.body() {
        Body::Text(t) => t.clone(),
        _ => String::new(),
    };
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    (
        resp.status().as_u16(),
        v["error"]["code"].as_str().unwrap_or("").to_owned(),
        resp.headers()
            .get("idempotent-replayed")
            .is_some_and(|h| h == "true"),
    )
}

async fn setup(seed: u64) -> Soak {
    let moto = MotoServer::shared().expect("moto server starts");
    let prefix = unique_prefix("soak");
    create_tables(&moto.client(), &prefix).await.unwrap();
    let names = table_names(&prefix);
    let dynamo_faults = FaultPlan::new();
    let faulty = client(&moto.endpoint, REGION, &dynamo_faults, retry_config());
    let clock = Arc::new(ManualClock::at(T0));
    let ids: Arc<Ids> = Arc::new(Ids::default());

    let accepted = SimCredentials::default().with(CLIENT_ID, "ISBANKAPI", "ISBANK07", true);
    let (server, state) = sim::start(accepted).await.unwrap();
    state.fault_plan().set_hang(Duration::from_millis(400));
    let creds = Arc::new(MemoryCredentials::default());
    let account = PosAccount {
        id: AccountId::parse("acc_soak").unwrap(),
        merchant_id: principal().merchant_id,
        provider_code: paygate_bank_nestpay::PROVIDER_CODE.into(),
        bank_code: "0064".into(),
        bank_name: "Türkiye İş Bankası".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    };
    creds.insert(
        account.id.clone(),
        AccountCredentials::new(
            format!("{}{API_PATH}", server.url),
            vec![
                ("clientId".to_owned(), CLIENT_ID.to_owned()),
                ("name".to_owned(), "ISBANKAPI".to_owned()),
                ("password".to_owned(), "ISBANK07".to_owned()),
            ],
        ),
    );
    let provider = Arc::new(NestpayProvider::new(
        paygate_bank_nestpay::Nestpay,
        BankTransport::new(Duration::from_millis(250)).unwrap(),
        creds,
    ));
    let accounts = Arc::new(MemoryAccounts::default());
    accounts.insert(account.clone());
    let payments = Arc::new(DynamoPayments::new(
        faulty.clone(),
        &names.payments,
        &names.events,
    ));
    let ops = || OperationDeps {
        payments: payments.clone(),
        banks: BankAccess::new(
            accounts.clone(),
            Providers::new().register(provider.clone()),
        ),
        clock: clock.clone(),
        ids: ids.clone(),
        events: EventSink {
            publisher: Arc::new(MemoryPublisher::default()),
        },
        stale_after: paygate_domain::StaleAfter::DEFAULT,
    };
    let _ = seed;
    Soak {
        idem: paygate_http::Idempotency {
            store: Arc::new(paygate_aws::dynamo::DynamoIdempotency::new(
                faulty.clone(),
                &names.idempotency,
            )),
            clock: clock.clone(),
            ids: ids.clone(),
        },
        reconciler: ReconcilerDeps {
            ops: ops(),
            unsettled: payments.clone(),
            limits: ReconcilerLimits {
                batch: 1_000,
                concurrency: 8,
                alarm_after_ms: 30 * 60 * 1000,
            },
        },
        ops: ops(),
        dynamo_faults,
        bank: state,
        payments,
        events: DynamoEvents::new(moto.client(), &names.events),
        clock,
        account,
        _server: server,
    }
}

impl Soak {
    async fn create(&self, id: &PaymentId, status: PaymentStatus, amount: i64) {
        let order = format!("SOAK{}", id.as_str().trim_start_matches("pay_"));
        self.payments
            .save(PaymentChange {
                payment: Payment {
                    id: id.clone(),
                    merchant_id: self.account.merchant_id.clone(),
                    mode: Mode::Test,
                    account_id: self.account.id.clone(),
                    order_id: order.clone(),
                    currency: Currency::Try,
                    amount,
                    captured_amount: if status == PaymentStatus::Captured {
                        amount
                    } else {
                        0
                    },
                    refunded_amount: 0,
                    status,
                    pending: None,
                    auth_code: String::new(),
                    rrn: String::new(),
                    version: 1,
                    created_at: T0,
                    updated_at: T0,
                },
                expect: Expectation::Absent,
                transaction: None,
                event: None,
            })
            .await
            .unwrap();
        let provider = self.ops.banks.provider(&self.account).unwrap();
        provider
            .test_orders()
            .unwrap()
            .register(
                &self.account,
                &TestOrder {
                    order_id: order,
                    amount,
                    currency: Currency::Try,
                    state: if status == PaymentStatus::Captured {
                        TestOrderState::Approved
                    } else {
                        TestOrderState::Preauth
                    },
                    // Sales are past the bank's end of day, so refunds go through (and cancels
                    // are declined); pre-authorizations are today's (capture, cancel).
                    settled: status == PaymentStatus::Captured,
                },
            )
            .await
            .unwrap();
    }

    async fn send(&self, id: &PaymentId, op: &Op, key: Option<&str>) -> (u16, String, bool) {
        let req = request(id, op, key);
        let run = async {
            match op {
                Op::Query => paygate_http::handlers::query(&self.ops, &req).await,
                Op::Capture(_) => {
                    paygate_http::handlers::money_operation(
                        &self.ops,
                        &req,
                        TransactionType::Capture,
                    )
                    .await
                }
                Op::Cancel => {
                    paygate_http::handlers::money_operation(
                        &self.ops,
                        &req,
                        TransactionType::Cancel,
                    )
                    .await
                }
                Op::Refund(_) => {
                    paygate_http::handlers::money_operation(
                        &self.ops,
                        &req,
                        TransactionType::Refund,
                    )
                    .await
                }
            }
        };
        status_and_code(&paygate_http::idempotent(&self.idem, &req, run).await)
    }
}

#[derive(Default, Debug)]
struct Figures {
    requests: AtomicUsize,
    retries: AtomicUsize,
    resent_answered: AtomicUsize,
    answers: Mutex<BTreeMap<String, usize>>,
}

/// One merchant's request, retried as a careful client would: the same request again (with
/// the same key, if it has one) after answers that say nothing happened or that it is
/// still running; and, now and then, re-sent after an answer as if that answer was lost.
async fn merchant(
    soak: &Soak,
    figures: &Figures,
    id: PaymentId,
    op: Op,
    key: Option<String>,
    resend: bool,
) {
    let mut tries = 0;
    loop {
        tries += 1;
        figures.requests.fetch_add(1, Ordering::Relaxed);
        let (status, code, replayed) = soak.send(&id, &op, key.as_deref()).await;
        let label = if replayed {
            format!("{status} {code} (replayed)")
        } else {
            format!("{status} {code}")
        };
        *figures.answers.lock().unwrap().entry(label).or_default() += 1;
        if code == "operation_outcome_unknown" && tries < 4 {
            // As the answer says: query the payment (which settles what the bank can tell),
            // then send the request again (same key: this answer freed it).
            figures.retries.fetch_add(1, Ordering::Relaxed);
            let (qs, qc, _) = soak.send(&id, &Op::Query, None).await;
            *figures
                .answers
                .lock()
                .unwrap()
                .entry(format!("{qs} {qc} (query before retry)"))
                .or_default() += 1;
            continue;
        }
        let retry = matches!(
            code.as_str(),
            "internal_error" | "concurrent_modification" | "idempotency_key_in_use"
        );
        if retry && tries < 4 {
            figures.retries.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        }
        if resend && tries == 1 {
            figures.resent_answered.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        return;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn money_is_never_moved_twice_lost_or_left_unknown_under_faults() {
    let seed: u64 = std::env::var("PAYGATE_SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_261_123);
    let n_ops: usize = std::env::var("PAYGATE_SOAK_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(500);
    let soak = setup(seed).await;
    let mut rng = Rng(seed | 1);

    // 40 sales and 20 pre-authorizations.
    let mut ids = Vec::new();
    for i in 0..60 {
        let id = PaymentId::parse(&format!("pay_soak{i}")).unwrap();
        let (status, amount) = if i < 40 {
            (PaymentStatus::Captured, SALE)
        } else {
            (PaymentStatus::Authorized, PREAUTH)
        };
        soak.create(&id, status, amount).await;
        ids.push((id, status));
    }

    // Faults on from here: DynamoDB writes 4 %, bank money requests 2 % per kind (12 %).
    soak.dynamo_faults.random(seed, 40);
    soak.bank.fault_plan().random(seed, FaultOdds::uniform(20));

    let mut plan = Vec::new();
    for n in 0..n_ops {
        let (id, status) = ids[usize::try_from(rng.below(ids.len() as u64)).unwrap()].clone();
        let roll = rng.below(100);
        let op = match (status, roll) {
            (_, 0..=9) => Op::Query,
            (PaymentStatus::Authorized, 10..=59) => Op::Capture(
                (rng.below(2) == 0).then(|| 1 + i64::try_from(rng.below(PREAUTH as u64)).unwrap()),
            ),
            (_, 10..=14) => Op::Cancel,
            _ => Op::Refund(
                (rng.below(20) != 0).then(|| 1 + i64::try_from(rng.below(6_000)).unwrap()),
            ),
        };
        let key = (rng.below(2) == 0).then(|| format!("idem-{seed}-{n}"));
        let resend = rng.below(10) == 0;
        plan.push((id, op, key, resend));
    }
    let figures = Figures::default();
    stream::iter(plan)
        .map(|(id, op, key, resend)| merchant(&soak, &figures, id, op, key, resend))
        .buffer_unordered(16)
        .collect::<Vec<()>>()
        .await;

    // Faults off; reservations go stale; late bookings show up to a first query within the
    // grace period; then the grace passes and the reconciler settles the rest.
    soak.dynamo_faults.clear();
    soak.bank.fault_plan().off();
    let dynamo_injected = soak.dynamo_faults.injected();
    let bank_counts = soak.bank.fault_plan().counts();
    soak.clock
        .advance_millis(paygate_domain::StaleAfter::DEFAULT.millis() + 1);
    run_reconciler(&soak.reconciler).await.unwrap();
    let mut rounds = 0;
    loop {
        soak.clock
            .advance_millis(paygate_domain::NOT_FOUND_GRACE_MS);
        let r = run_reconciler(&soak.reconciler).await.unwrap();
        rounds += 1;
        if r.due == 0 || rounds > 20 {
            break;
        }
    }

    // The checker.
    // No fan-out runs here, so every event is still in the outbox's unsent index.
    let events = soak.events.list_unsent(100_000).await.unwrap();
    let mut events_by_payment: HashMap<PaymentId, usize> = HashMap::new();
    for e in &events {
        *events_by_payment.entry(e.payment_id.clone()).or_default() += 1;
    }
    let mut mismatches = Vec::new();
    let mut approved_total = 0;
    for (id, _) in &ids {
        let p = soak.payments.get_payment(id).await.unwrap().unwrap();
        let txns = soak.payments.list_transactions(id).await.unwrap();
        let ledger = soak.bank.ledger_of(CLIENT_ID, &p.order_id).unwrap();
        if p.pending.is_some() {
            mismatches.push(format!("{id}: still pending {:?}", p.pending));
        }
        for t in &txns {
            if !t.status.is_final() {
                mismatches.push(format!(
                    "{id}: transaction {} is {}",
                    t.id,
                    t.status.as_str()
                ));
            }
        }
        let approved: Vec<_> = txns
            .iter()
            .filter(|t| t.status == TransactionStatus::Approved)
            .collect();
        approved_total += approved.len();
        // Money operations the bank applied (not the initial sale / pre-authorization).
        let bank_ops = ledger
            .operations
            .iter()
            .filter(|o| matches!(o.kind, "postauth" | "void" | "refund"))
            .count();
        if bank_ops != approved.len() {
            mismatches.push(format!(
                "{id}: the bank applied {bank_ops} operations, the gateway approved {} ({:?})",
                approved.len(),
                ledger
                    .operations
                    .iter()
                    .map(|o| (o.kind, o.amount, o.voided))
                    .collect::<Vec<_>>()
            ));
        }
        if ledger.refunded != p.refunded_amount {
            mismatches.push(format!(
                "{id}: refunded at the bank {}, recorded {}",
                ledger.refunded, p.refunded_amount
            ));
        }
        let expected_state = match p.status {
            PaymentStatus::Authorized => OrderState::Preauth,
            PaymentStatus::Cancelled => OrderState::Voided,
            _ => OrderState::Sale,
        };
        if ledger.state != expected_state {
            mismatches.push(format!(
                "{id}: bank {:?}, recorded {}",
                ledger.state, p.status
            ));
        }
        if matches!(
            p.status,
            PaymentStatus::Captured | PaymentStatus::PartiallyRefunded | PaymentStatus::Refunded
        ) && ledger.amount != p.captured_amount
        {
            mismatches.push(format!(
                "{id}: captured at the bank {}, recorded {}",
                ledger.amount, p.captured_amount
            ));
        }
        let evs = events_by_payment.get(id).copied().unwrap_or(0);
        if evs != approved.len() {
            mismatches.push(format!(
                "{id}: {evs} events for {} approved operations",
                approved.len()
            ));
        }
    }
    println!("soak (seed {seed}):");
    println!("  operations planned {n_ops}, requests sent {}, client retries {}, answered requests re-sent {}",
        figures.requests.load(Ordering::Relaxed),
        figures.retries.load(Ordering::Relaxed),
        figures.resent_answered.load(Ordering::Relaxed));
    println!("  answers: {:?}", figures.answers.lock().unwrap());
    println!("  DynamoDB faults injected: {dynamo_injected:?}");
    println!("  bank faults injected: {bank_counts:?}");
    println!("  reconciler rounds after the grace: {rounds}");
    println!(
        "  approved operations {approved_total}, events {}",
        events.len()
    );
    println!("  mismatches: {}", mismatches.len());
    for m in &mismatches {
        println!("    {m}");
    }
    assert!(mismatches.is_empty(), "{} mismatches", mismatches.len());
    assert!(
        approved_total > n_ops / 5,
        "the soak did real work: {approved_total}"
    );
    let faults: usize = dynamo_injected.values().sum();
    assert!(
        faults > 10 && bank_counts.total() > 10,
        "faults were injected"
    );
}
