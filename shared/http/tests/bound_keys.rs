//! A key that started a money movement is bound to it: every way the first request can end
//! without storing its answer (its commit failing, the bank's answer lost, its Lambda killed
//! after the bank call or after the commit) leaves the key answering from that transaction,
//! before and after its lease — never a second refund at the bank. Each test would see the
//! second refund the key used to allow (the bank's own refunded total is the oracle).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
};

use async_trait::async_trait;
use lambda_http::{
    aws_lambda_events::apigw::{ApiGatewayRequestAuthorizer, ApiGatewayV2httpRequestContext},
    request::RequestContext,
    Body, Request, RequestExt, Response,
};
use paygate_bank_simulator::{InitialBankState, MemoryLedger, SimBank, TIMEOUT_AMOUNT};
use paygate_domain::{
    bank::{BankOutcome, BankStatus, CardDetails, PointsResult},
    idempotency::LEASE_MS,
    ids::ApiKeyId,
    ports::{BankOperation, PosProvider},
    testkit::{
        IdemFault, IdemOp, ManualClock, MemoryAccounts, MemoryIdempotency, MemoryPayments,
        MemoryPublisher, SaveFault, SeqIds, T0,
    },
    AccountId, Currency, MerchantId, Mode, OperationSet, Payment, PaymentId, PaymentStatus,
    PosAccount, StaleAfter,
};
use paygate_http::{
    handlers::{payment_operation, PaymentOperation},
    Idempotency,
};
use paygate_payments::{BankAccess, EventSink, OperationDeps, Principal, Providers};
use serde_json::Value;

/// The simulator bank, with a switch that kills the request right after the bank applied
/// a refund (the call never returns, as when the Lambda dies there).
struct Killable {
    bank: SimBank,
    kill_after_refund: AtomicBool,
    refund_applied: tokio::sync::Notify,
}

#[async_trait]
impl PosProvider for Killable {
    fn code(&self) -> &'static str {
        self.bank.code()
    }
    async fn capture(&self, a: &PosAccount, op: &BankOperation) -> BankOutcome {
        self.bank.capture(a, op).await
    }
    async fn cancel(&self, a: &PosAccount, op: &BankOperation) -> BankOutcome {
        self.bank.cancel(a, op).await
    }
    async fn refund(&self, a: &PosAccount, op: &BankOperation) -> BankOutcome {
        let outcome = self.bank.refund(a, op).await;
        if self.kill_after_refund.swap(false, Ordering::SeqCst) {
            self.refund_applied.notify_one();
            std::future::pending::<()>().await;
        }
        outcome
    }
    async fn query(&self, a: &PosAccount, order_id: &str) -> BankStatus {
        self.bank.query(a, order_id).await
    }
    async fn points_inquiry(&self, a: &PosAccount, c: &CardDetails, cur: Currency) -> PointsResult {
        self.bank.points_inquiry(a, c, cur).await
    }
    fn decline_codes(&self) -> &'static [(&'static str, paygate_domain::DeclineCode)] {
        self.bank.decline_codes()
    }
}

struct World {
    ops: OperationDeps,
    idem: Idempotency,
    keys: Arc<MemoryIdempotency>,
    store: Arc<MemoryPayments>,
    clock: Arc<ManualClock>,
    bank: Arc<Killable>,
    account: PosAccount,
}

async fn world() -> World {
    let clock = Arc::new(ManualClock::at(T0));
    let keys = Arc::new(MemoryIdempotency::default());
    let store = Arc::new(MemoryPayments::default());
    store.link_idempotency(keys.clone());
    let accounts = Arc::new(MemoryAccounts::default());
    let account = PosAccount {
        id: AccountId::parse("acc_1").unwrap(),
        merchant_id: MerchantId::parse("mch_1").unwrap(),
        provider_code: paygate_bank_simulator::PROVIDER_CODE.into(),
        bank_code: "0064".into(),
        bank_name: "İşbank".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    };
    accounts.insert(account.clone());
    let bank = Arc::new(Killable {
        bank: SimBank::new(Arc::new(MemoryLedger::default()), clock.clone()),
        kill_after_refund: AtomicBool::new(false),
        refund_applied: tokio::sync::Notify::new(),
    });
    bank.bank
        .register_order(
            &account,
            "ORD1",
            50_000,
            Currency::Try,
            InitialBankState::Approved,
            true,
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
        amount: 50_000,
        captured_amount: 50_000,
        refunded_amount: 0,
        status: PaymentStatus::Captured,
        pending: None,
        auth_code: String::new(),
        rrn: String::new(),
        version: 1,
        created_at: T0,
        updated_at: T0,
    });
    let ids = Arc::new(SeqIds::default());
    World {
        ops: OperationDeps {
            payments: store.clone(),
            banks: BankAccess::new(accounts, Providers::new().register(bank.clone())),
            clock: clock.clone(),
            ids: ids.clone(),
            events: EventSink {
                publisher: Arc::new(MemoryPublisher::default()),
            },
            stale_after: StaleAfter::DEFAULT,
            pending_grace: paygate_domain::PendingGrace::DEFAULT,
        },
        idem: Idempotency {
            store: keys.clone(),
            clock: clock.clone(),
            ids,
        },
        keys,
        store,
        clock,
        bank,
        account,
    }
}

fn request(op: &str, body: &str, key: Option<&str>) -> Request {
    let mut auth = ApiGatewayRequestAuthorizer::default();
    auth.fields = paygate_http::principal_fields(&Ok(Principal {
        merchant_id: MerchantId::parse("mch_1").unwrap(),
        mode: Mode::Test,
        key_id: ApiKeyId::parse("key_1").unwrap(),
    }));
    let mut ctx = ApiGatewayV2httpRequestContext::default();
    ctx.authorizer = Some(auth);
    let mut b = lambda_http::http::Request::builder()
        .method("POST")
        .uri(format!("/v1/payments/pay_1/{op}"))
        .header("content-type", "application/json");
    if let Some(k) = key {
        b = b.header("Idempotency-Key", k);
    }
    b.body(Body::Text(body.to_owned()))
        .unwrap()
        .with_path_parameters(HashMap::from([("id".to_owned(), "pay_1".to_owned())]))
        .with_request_context(RequestContext::ApiGatewayV2(ctx))
}

/// Status, body and whether the answer was replayed.
fn read(resp: Response<Body>) -> (u16, Value, bool) {
    let replayed = resp
        .headers()
        .get("idempotent-replayed")
        .is_some_and(|v| v == "true");
    let status = resp.status().as_u16();
    let Body::Text(t) = resp.into_body() else {
        panic!("not a text body")
    };
    (status, serde_json::from_str(&t).unwrap(), replayed)
}

impl World {
    async fn refund(&self, amount: i64, key: &str) -> (u16, Value, bool) {
        let req = request("refund", &format!(r#"{{"amount":{amount}}}"#), Some(key));
        read(payment_operation(&self.ops, &self.idem, PaymentOperation::Refund, &req).await)
    }

    async fn query(&self) -> (u16, Value, bool) {
        let req = request("query", "{}", None);
        read(payment_operation(&self.ops, &self.idem, PaymentOperation::Query, &req).await)
    }

    /// What the bank itself has refunded on the order.
    async fn bank_refunded(&self) -> i64 {
        self.bank.query(&self.account, "ORD1").await.refunded_amount
    }

    fn pass_the_lease(&self) {
        self.clock
            .advance_millis(LEASE_MS.max(StaleAfter::DEFAULT.millis()) + 1);
    }
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("")
}

#[tokio::test(start_paused = true)]
async fn a_refund_whose_answer_was_not_recorded_is_never_sent_again_with_its_key() {
    let w = world().await;
    // The reservation goes through; every write of the bank's answer fails.
    w.store
        .script_saves([None].into_iter().chain([Some(SaveFault::ServerError); 8]));
    let (status, body, _) = w.refund(3_000, "k1").await;
    assert_eq!((status, code(&body)), (503, "operation_not_recorded"));
    let txn = body["error"]["details"]["transactionId"].clone();
    assert_eq!(w.bank_refunded().await, 3_000);

    // An SDK retries a 5xx with the same key: at once, and after the lease.
    let (status, body, _) = w.refund(3_000, "k1").await;
    assert_eq!((status, code(&body)), (409, "operation_in_progress"));
    w.pass_the_lease();
    let (status, body, _) = w.refund(3_000, "k1").await;
    assert_eq!((status, code(&body)), (409, "operation_outcome_unknown"));
    assert_eq!(body["error"]["details"]["transactionId"], txn);
    assert_eq!(w.bank_refunded().await, 3_000, "nothing sent again");

    // Settled from the bank's records; the key now answers with that very transaction.
    assert_eq!(w.query().await.0, 200);
    for _ in 0..2 {
        let (status, body, replayed) = w.refund(3_000, "k1").await;
        assert_eq!(status, 200, "{body}");
        assert!(replayed);
        assert_eq!(body["transaction"]["id"], txn);
        assert_eq!(body["transaction"]["status"], "approved");
        assert_eq!(body["payment"]["refundedAmount"], 3_000);
    }
    assert_eq!(w.bank_refunded().await, 3_000);
}

#[tokio::test(start_paused = true)]
async fn a_request_killed_after_the_bank_call_leaves_its_key_bound() {
    let w = world().await;
    w.bank.kill_after_refund.store(true, Ordering::SeqCst);
    tokio::select! {
        _ = w.refund(3_000, "k1") => panic!("the request was to be killed"),
        () = w.bank.refund_applied.notified() => {}
    }
    assert_eq!(w.bank_refunded().await, 3_000);

    w.pass_the_lease();
    let (status, body, _) = w.refund(3_000, "k1").await;
    assert_eq!((status, code(&body)), (409, "operation_outcome_unknown"));
    // As docs/api.md advises: query, then retry with the same key.
    assert_eq!(w.query().await.0, 200);
    let (status, body, replayed) = w.refund(3_000, "k1").await;
    assert_eq!((status, replayed), (200, true), "{body}");
    assert_eq!(body["payment"]["refundedAmount"], 3_000);
    assert_eq!(w.bank_refunded().await, 3_000, "one refund at the bank");
}

#[tokio::test(start_paused = true)]
async fn a_request_killed_after_its_commit_is_replayed_from_its_transaction() {
    let w = world().await;
    // The commit applies; storing the answer on the key fails (as if killed there).
    w.keys.inject(IdemOp::Complete, IdemFault::Unavailable);
    let (status, first, _) = w.refund(3_000, "k1").await;
    assert_eq!(status, 200);

    let (status, again, replayed) = w.refund(3_000, "k1").await;
    assert_eq!((status, replayed), (200, true), "{again}");
    assert_eq!(again["transaction"]["id"], first["transaction"]["id"]);
    w.pass_the_lease();
    let (status, again, replayed) = w.refund(3_000, "k1").await;
    assert_eq!((status, replayed), (200, true), "{again}");
    assert_eq!(again["transaction"]["id"], first["transaction"]["id"]);
    assert_eq!(again["payment"]["refundedAmount"], 3_000);
    assert_eq!(w.bank_refunded().await, 3_000, "one refund at the bank");
}

#[tokio::test(start_paused = true)]
async fn an_unknown_outcome_is_not_the_keys_answer_its_settlement_is() {
    let w = world().await;
    // The bank applies the refund and its answer is lost.
    let (status, body, _) = w.refund(TIMEOUT_AMOUNT, "k1").await;
    assert_eq!((status, code(&body)), (422, "provider_error"));
    assert_eq!(body["error"]["details"]["transaction"]["status"], "unknown");
    let (status, body, _) = w.refund(TIMEOUT_AMOUNT, "k1").await;
    assert_eq!((status, code(&body)), (409, "operation_outcome_unknown"));

    assert_eq!(w.query().await.0, 200);
    let (status, body, replayed) = w.refund(TIMEOUT_AMOUNT, "k1").await;
    assert_eq!((status, replayed), (200, true), "{body}");
    assert_eq!(body["transaction"]["status"], "approved");
    assert_eq!(w.bank_refunded().await, TIMEOUT_AMOUNT);

    // Another key is another intent: a second refund, as asked.
    let (status, _, replayed) = w.refund(2_000, "k2").await;
    assert_eq!((status, replayed), (200, false));
    assert_eq!(w.bank_refunded().await, TIMEOUT_AMOUNT + 2_000);
}

/// The key's record as stored: its answer's status and body, if completed.
fn stored_answer(w: &World, key: &str) -> Option<(u16, Value)> {
    w.keys.records().into_iter().find_map(|r| {
        if r.key.key.as_str() != key {
            return None;
        }
        match r.state {
            paygate_domain::idempotency::RecordState::Completed { response, .. } => Some((
                response.status,
                serde_json::from_str(&response.body).unwrap(),
            )),
            paygate_domain::idempotency::RecordState::InFlight { .. } => None,
        }
    })
}

#[tokio::test(start_paused = true)]
async fn a_keyed_refund_stores_its_answer_in_its_commit_approved_or_declined() {
    let w = world().await;
    for (key, amount, want) in [
        ("k1", 3_000, 200),
        ("k2", paygate_bank_simulator::DECLINE_AMOUNT, 422),
    ] {
        let (status, first, replayed) = w.refund(amount, key).await;
        assert_eq!((status, replayed), (want, false), "{first}");
        // The answer went with the commit's write: no write of the key's own.
        assert_eq!(w.keys.calls(IdemOp::Complete), 0, "{key}");
        assert_eq!(stored_answer(&w, key), Some((want, first.clone())));
        let (status, again, replayed) = w.refund(amount, key).await;
        assert_eq!((status, replayed), (want, true));
        assert_eq!(again, first, "the very answer, replayed");
    }
    assert_eq!(w.bank_refunded().await, 3_000);
}

/// A keyed decline asked in Turkish is stored in its commit as it was answered: the
/// replay is the same Turkish answer, the stable code beside the bank's.
#[tokio::test(start_paused = true)]
async fn a_keyed_decline_in_turkish_is_stored_and_replayed_as_answered() {
    let w = world().await;
    let turkish = || {
        let body = format!(r#"{{"amount":{}}}"#, paygate_bank_simulator::DECLINE_AMOUNT);
        let mut req = request("refund", &body, Some("k1"));
        req.headers_mut()
            .insert("accept-language", "tr".parse().unwrap());
        req
    };
    let (ops, idem) = (&w.ops, &w.idem);
    let refund = |req: Request| async move {
        read(payment_operation(ops, idem, PaymentOperation::Refund, &req).await)
    };
    let (status, first, replayed) = refund(turkish()).await;
    assert_eq!((status, replayed), (422, false), "{first}");
    assert_eq!(
        first["error"]["details"]["declineCode"],
        "insufficient_funds"
    );
    assert_eq!(first["error"]["details"]["bankCode"], "51");
    assert!(first["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("Kartta yeterli bakiye yok"));
    assert_eq!(stored_answer(&w, "k1"), Some((422, first.clone())));
    let (_, again, replayed) = refund(turkish()).await;
    assert!(replayed);
    assert_eq!(again, first);
}

#[tokio::test(start_paused = true)]
async fn a_commit_whose_answer_was_lost_leaves_the_key_answered_once() {
    let w = world().await;
    // The reservation goes through; the commit (with the key's answer) applies but its
    // answer is lost; the key's own write after it fails too.
    w.store.script_saves([None, Some(SaveFault::LostAnswer)]);
    w.keys.inject(IdemOp::Complete, IdemFault::Unavailable);
    let (status, first, _) = w.refund(3_000, "k1").await;
    assert_eq!(status, 200, "{first}");
    // Read back as applied: the answer rode with it all the same.
    assert_eq!(stored_answer(&w, "k1"), Some((200, first.clone())));
    w.pass_the_lease();
    let (status, again, replayed) = w.refund(3_000, "k1").await;
    assert_eq!((status, replayed), (200, true));
    assert_eq!(again, first);
    assert_eq!(w.bank_refunded().await, 3_000, "one refund at the bank");
}

#[tokio::test(start_paused = true)]
async fn an_unknown_outcome_rides_with_no_commit_as_the_keys_answer() {
    let w = world().await;
    let (status, body, _) = w.refund(TIMEOUT_AMOUNT, "k1").await;
    assert_eq!((status, code(&body)), (422, "provider_error"));
    assert_eq!(
        stored_answer(&w, "k1"),
        None,
        "the key stays bound, unanswered"
    );
}
