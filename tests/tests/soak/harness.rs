//! The stack under the soak: the real handlers and the `Idempotency-Key` wrapper, the
//! reconciler, DynamoDB (moto) with its write-fault layer, the Nestpay simulator with its
//! fault plan, a manual clock, and the kill points of [`crate::kills`] around the bank, the
//! payments table and the idempotency records.

use std::{collections::HashMap, sync::Arc, time::Duration};

use lambda_http::{
    aws_lambda_events::apigw::{ApiGatewayRequestAuthorizer, ApiGatewayV2httpRequestContext},
    request::RequestContext,
    Body, Request, RequestExt, Response,
};
use paygate_aws::dynamo::{
    create_tables,
    faults::{client, FaultPlan},
    table_names, DynamoEvents, DynamoIdempotency, DynamoPayments,
};
use paygate_aws::moto::{unique_prefix, MotoServer, REGION};
use paygate_aws::retry_config;
use paygate_bank_nestpay::{
    sim::{self, SimCredentials},
    NestpayProvider, API_PATH,
};
use paygate_bankkit::{sim::SimState, AccountCredentials, BankTransport, MemoryCredentials};
use paygate_domain::testkit::{ManualClock, MemoryAccounts, MemoryPublisher};
use paygate_domain::{
    ids::ApiKeyId,
    ports::{Expectation, PaymentChange, PaymentWriter, TestOrder, TestOrderState},
    AccountId, Currency, MerchantId, Mode, OperationSet, Payment, PaymentId, PaymentStatus,
    PosAccount, Timestamp,
};
use paygate_http::handlers::PaymentOperation;
use paygate_payments::{
    run_reconciler, BankAccess, EventSink, OperationDeps, Principal, Providers, ReconcilerDeps,
    ReconcilerLimits, RunReport,
};
use serde_json::Value;

use crate::{
    kills::{
        killable, Ids, KillSwitch, KillingIdempotency, KillingPayments, KillingProvider, Trace,
    },
    plan::{KillPoint, Op},
};

pub const T0: Timestamp = Timestamp::from_unix_millis(1_795_255_200_000);
pub const CLIENT_ID: &str = "700655000200";

pub struct Soak {
    pub ops: OperationDeps,
    pub idem: paygate_http::Idempotency,
    pub reconciler: ReconcilerDeps,
    pub dynamo_faults: FaultPlan,
    pub bank: Arc<SimState>,
    pub payments: Arc<DynamoPayments>,
    pub events: DynamoEvents,
    pub clock: Arc<ManualClock>,
    pub trace: Arc<Trace>,
    account: PosAccount,
    _server: paygate_bankkit::sim::SimServer,
}

/// What a client got for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Http {
        status: u16,
        code: String,
        replayed: bool,
        /// The id and status of the transaction the answer carries (a success's, or a
        /// refusal's `details.transaction`).
        transaction: Option<(String, String)>,
        /// A reverse's `reversal`: its type and `afterSettlement`.
        reversal: Option<(String, bool)>,
    },
    /// No answer: the handler was killed at this point (the client's time-out).
    Killed(KillPoint),
}

impl Answer {
    pub fn label(&self) -> String {
        match self {
            Answer::Http {
                status,
                code,
                replayed: true,
                ..
            } => format!("{status} {code} (replayed)"),
            Answer::Http { status, code, .. } => format!("{status} {code}"),
            Answer::Killed(p) => format!("time-out (killed {})", p.name()),
        }
    }
}

fn principal() -> Principal {
    Principal {
        merchant_id: MerchantId::parse("mch_soak").unwrap(),
        mode: Mode::Test,
        key_id: ApiKeyId::parse("key_soak").unwrap(),
    }
}

fn request(id: &PaymentId, op: Op, key: Option<&str>) -> Request {
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

/// The client's view of an answer, and whether the payment in it still has an operation
/// pending (for a query: the outcome is still unknown).
fn answer(resp: &Response<Body>) -> (Answer, bool) {
    let text = match resp.body() {
        Body::Text(t) => t.clone(),
        _ => String::new(),
    };
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let answer = Answer::Http {
        status: resp.status().as_u16(),
        code: v["error"]["code"].as_str().unwrap_or("").to_owned(),
        replayed: resp
            .headers()
            .get("idempotent-replayed")
            .is_some_and(|h| h == "true"),
        transaction: [&v["transaction"], &v["error"]["details"]["transaction"]]
            .into_iter()
            .find_map(|t| {
                Some((
                    t["id"].as_str()?.to_owned(),
                    t["status"].as_str()?.to_owned(),
                ))
            }),
        reversal: v["reversal"]["type"].as_str().map(|t| {
            let after = v["reversal"]["afterSettlement"].as_bool();
            (t.to_owned(), after.unwrap_or(false))
        }),
    };
    let pending = !v["payment"]["pendingOperation"].is_null();
    (answer, pending)
}

pub async fn setup() -> Soak {
    let moto = MotoServer::shared().expect("moto server starts");
    let prefix = unique_prefix("soak");
    create_tables(&moto.client(), &prefix).await.unwrap();
    let names = table_names(&prefix);
    let dynamo_faults = FaultPlan::new();
    let faulty = client(&moto.endpoint, REGION, &dynamo_faults, retry_config());
    let clock = Arc::new(ManualClock::at(T0));
    let trace = Arc::new(Trace::default());
    let ids = Arc::new(Ids::new(trace.clone()));

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
    let provider = Arc::new(KillingProvider {
        inner: Arc::new(NestpayProvider::new(
            paygate_bank_nestpay::Nestpay,
            BankTransport::new(Duration::from_millis(250)),
            creds,
        )),
        trace: trace.clone(),
    });
    let accounts = Arc::new(MemoryAccounts::default());
    accounts.insert(account.clone());
    // As the composition root wires it: a keyed reservation binds its key in the same
    // transaction.
    let payments = Arc::new(
        DynamoPayments::new(faulty.clone(), &names.payments, &names.events)
            .with_idempotency_table(&names.idempotency),
    );
    let ops = || OperationDeps {
        payments: Arc::new(KillingPayments {
            inner: payments.clone(),
        }),
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
        pending_grace: paygate_domain::PendingGrace::DEFAULT,
    };
    Soak {
        idem: paygate_http::Idempotency {
            store: Arc::new(KillingIdempotency {
                inner: Arc::new(DynamoIdempotency::new(faulty.clone(), &names.idempotency)),
                trace: trace.clone(),
            }),
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
        trace,
        account,
        _server: server,
    }
}

impl Soak {
    /// A payment in `status` (captured sale or open pre-authorization) and its order at the
    /// bank, `past_cut` or not.
    pub async fn create(&self, id: &PaymentId, status: PaymentStatus, amount: i64, past_cut: bool) {
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
                    // Past the bank's end of day refunds go through and voids are declined;
                    // today's (pre-authorizations, a few sales) are voided, refunds refused.
                    settled: past_cut,
                },
            )
            .await
            .unwrap();
    }

    /// One request as the function handles it (`payment_operation`: the handler under the
    /// `Idempotency-Key` wrapper), as `intent`'s (killed where its switch says, if it has
    /// one).
    pub async fn send(
        &self,
        id: &PaymentId,
        op: Op,
        key: Option<&str>,
        intent: Option<usize>,
        switch: Option<Arc<KillSwitch>>,
    ) -> Answer {
        self.send_reading(id, op, key, intent, switch).await.0
    }

    /// A query as a client sends it before retrying: its answer, and whether the payment
    /// still has an operation pending.
    pub async fn query(&self, id: &PaymentId) -> (Answer, bool) {
        self.send_reading(id, Op::Query, None, None, None).await
    }

    async fn send_reading(
        &self,
        id: &PaymentId,
        op: Op,
        key: Option<&str>,
        intent: Option<usize>,
        switch: Option<Arc<KillSwitch>>,
    ) -> (Answer, bool) {
        let req = request(id, op, key);
        let route = match op {
            Op::Capture(_) => PaymentOperation::Capture,
            Op::Cancel => PaymentOperation::Cancel,
            Op::Refund(_) => PaymentOperation::Refund,
            Op::Reverse(_) => PaymentOperation::Reverse,
            Op::Query => PaymentOperation::Query,
        };
        let run = paygate_http::handlers::payment_operation(&self.ops, &self.idem, route, &req);
        let handled = killable(intent, switch, run);
        match handled.await {
            Ok(resp) => answer(&resp),
            Err(point) => (Answer::Killed(point), false),
        }
    }

    /// Moves the shared clock (only between phases: no request is running).
    pub fn advance(&self, ms: i64) {
        self.clock.advance_millis(ms);
    }

    /// One reconciler run; a run that fails (faults still on) is counted, not fatal.
    pub async fn reconcile(&self) -> Option<RunReport> {
        run_reconciler(&self.reconciler).await.ok()
    }

    /// Stops every fault.
    pub fn faults_off(&self) {
        self.dynamo_faults.clear();
        self.bank.fault_plan().off();
    }
}
