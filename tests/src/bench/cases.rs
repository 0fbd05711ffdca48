//! One real invocation per function against a local stack: the state it needs is made
//! through the stack first (a fresh payment for capture, cancel, refund and query, a
//! registered endpoint and a delivery for the pipeline), then the event, then the check of
//! the function's answer. Each call makes fresh state, so a case can run many times (the
//! bench sends a first and a warm event to every process).

use std::sync::atomic::{AtomicU64, Ordering};

use paygate_devserver::DevServer;
use paygate_domain::{
    ports::{DeliveryStore, OutboxWriter},
    webhook::{Delivery, EventFilter, WebhookEndpoint},
    EventRecord, MerchantId, Mode,
};
use serde_json::{json, Value};

use crate::bench::{
    events::{self, Caller},
    functions::LOCAL_SMOKE_TARGETS,
    hook_stub::HookStub,
};

/// The merchant the cases act for (test mode) and its seeded key.
pub const MERCHANT: &str = "mch_anatolia";
pub const KEY_ID: &str = "key_anatoliaTest";
pub const KEY: &str = "sk_test_anatoliaLocal000000000001";
/// A seeded captured payment of [`MERCHANT`].
pub const SEEDED_PAYMENT: &str = "pay_anatoliaCapt1";
/// The merchant whose webhook pipeline the pipeline cases use (an endpoint is registered
/// for it by [`Ctx::new`]; the seed gives it none).
pub const PIPELINE_MERCHANT: &str = "mch_bosphorus";
/// A Maximum card of the seed's İşbank BINs (454360, Luhn-valid): the first points inquiry's
/// card ([`points_card`]).
pub const POINTS_CARD: &str = "4543600000000003";

/// The `n`-th points inquiry's card: [`POINTS_CARD`] for 0, then other Luhn-valid cards of the
/// same BIN, so a bench that sends more than the per-card limit's inquiries a minute
/// (`PAYGATE_POINTS_CARD_THROTTLE_PER_MINUTE`, 5) is not refused for it.
pub fn points_card(n: u64) -> String {
    crate::card_number(&format!("454360{:09}", n % 1_000_000_000), 16, "")
}

const CALLER: Caller<'static> = Caller {
    merchant_id: MERCHANT,
    mode: "test",
    key_id: KEY_ID,
};

/// The merchant of the money operations under [`Ctx::real_bank`], its seeded test key and its
/// Nestpay test account (İşbank; a real bank protocol, HTTP to the stack's simulator).
pub const REAL_BANK_MERCHANT: &str = "mch_cappadocia";
pub const REAL_BANK_KEY_ID: &str = "key_cappadociaTest";
pub const REAL_BANK_KEY: &str = "sk_test_cappadociaLocal0000000001";
pub const REAL_BANK_ACCOUNT: &str = "acc_cappadociaIsbank";

const REAL_BANK_CALLER: Caller<'static> = Caller {
    merchant_id: REAL_BANK_MERCHANT,
    mode: "test",
    key_id: REAL_BANK_KEY_ID,
};

/// The stack the cases run against, with what they share.
pub struct Ctx<'a> {
    pub server: &'a DevServer,
    pub http: reqwest::Client,
    /// An enabled endpoint of [`PIPELINE_MERCHANT`] (at a `.invalid` host name, which never
    /// resolves, so an attempt fails at once and is rescheduled, with no network).
    pub endpoint: WebhookEndpoint,
    /// That endpoint's signing secret (the deliverer signs with it; no log may show it).
    pub endpoint_secret: String,
    /// Lambda and CodeDeploy for the deploy hook.
    pub hook: HookStub,
    seq: AtomicU64,
    /// Points inquiries made so far ([`points_card`]).
    points: AtomicU64,
    /// [`Ctx::real_bank`]: the money operations' cases as `tests/tests/aws_calls.rs` counts
    /// them.
    real_bank: bool,
}

/// A check of a function's answer.
pub type Check = Box<dyn Fn(&Value) -> Result<(), String> + Send + Sync>;

/// An event and the check of the function's answer to it.
pub struct Invocation {
    pub event: Value,
    pub check: Check,
    /// What the check looks for, for messages.
    pub expects: String,
    /// Variables the process gets besides its template environment (the deploy hook's
    /// AWS endpoint: the [`HookStub`]).
    pub env: Vec<(String, String)>,
}

fn http_check(status: u16, pointer: &'static str, want: Value) -> Invocation {
    Invocation {
        event: Value::Null,
        env: Vec::new(),
        expects: format!("HTTP {status} with {pointer} = {want}"),
        check: Box::new(move |answer| {
            let (got, body) = events::http_answer(answer);
            if got == status && body.pointer(pointer) == Some(&want) {
                Ok(())
            } else {
                Err(format!(
                    "expected {status} with {pointer} = {want}, got {answer}"
                ))
            }
        }),
    }
}

fn with_event(mut inv: Invocation, event: Value) -> Invocation {
    inv.event = event;
    inv
}

impl<'a> Ctx<'a> {
    /// Registers the pipeline merchant's endpoint on `server`.
    pub async fn new(server: &'a DevServer) -> Result<Ctx<'a>, String> {
        let merchant = MerchantId::parse(PIPELINE_MERCHANT).map_err(|e| e.to_string())?;
        let (endpoint, endpoint_secret) = server
            .register_endpoint(
                &merchant,
                "https://hooks.paygate.invalid/webhooks",
                &[EventFilter::All],
                Mode::Test,
            )
            .await
            .map_err(|e| e.to_string())?;
        Ok(Ctx {
            server,
            http: reqwest::Client::new(),
            endpoint,
            endpoint_secret,
            hook: HookStub::start().await.map_err(|e| e.to_string())?,
            seq: AtomicU64::new(0),
            points: AtomicU64::new(0),
            real_bank: false,
        })
    }

    /// The money operations (capture, cancel, refund, query) act for [`REAL_BANK_MERCHANT`]
    /// on its Nestpay test account, and the refund carries an `Idempotency-Key`: the cases of
    /// the cost model (`paygate_tests::bench::aws_counter::EXPECTED`), which `make bench`
    /// counts. Without it they run on [`MERCHANT`]'s simulator account, whose bank is the
    /// in-process simulator: its ledger is a DynamoDB table the function itself reads and
    /// writes (a `GetItem` and a `PutItem` per operation), calls no real bank costs.
    pub fn real_bank(mut self) -> Self {
        self.real_bank = true;
        self
    }

    fn next(&self) -> u64 {
        self.seq.fetch_add(1, Ordering::Relaxed)
    }

    /// A payment of [`MERCHANT`] made by the stack's test helper; its id.
    pub async fn create_payment(&self, body: Value) -> Result<String, String> {
        self.create_payment_as(KEY, body).await
    }

    /// A payment made by the stack's test helper with the API key `key`; its id.
    async fn create_payment_as(&self, key: &str, body: Value) -> Result<String, String> {
        let resp = self
            .http
            .post(format!("{}/v1/test_helpers/payments", self.server.url))
            .bearer_auth(key)
            .json(&body)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = resp.status();
        let answer: Value = resp.json().await.map_err(|e| e.to_string())?;
        match answer["id"].as_str() {
            Some(id) if status.as_u16() == 201 => Ok(id.to_owned()),
            _ => Err(format!("test helper answered {status}: {answer}")),
        }
    }

    /// A payment for a money operation's case: [`MERCHANT`]'s (its default, simulator
    /// account), or under [`Ctx::real_bank`] one on [`REAL_BANK_ACCOUNT`].
    async fn payment(&self, status: &str, extra: Value) -> Result<String, String> {
        let mut body = json!({ "amount": 10_000, "currency": "TRY", "status": status });
        if let (Some(b), Value::Object(extra)) = (body.as_object_mut(), extra) {
            b.extend(extra);
        }
        if self.real_bank {
            body["accountId"] = json!(REAL_BANK_ACCOUNT);
            self.create_payment_as(REAL_BANK_KEY, body).await
        } else {
            self.create_payment(body).await
        }
    }

    /// An event of `PIPELINE_MERCHANT` as the outbox hands it over (a new id each call).
    fn event_record(&self) -> Value {
        let n = self.next();
        json!({
            "id": format!("evt_binaries{n}x{}", std::process::id()),
            "type": "payment.captured",
            "mode": "test",
            "createdAt": "2026-11-21T09:00:00.000Z",
            "merchantId": PIPELINE_MERCHANT,
            "paymentId": "pay_bosphorusBench1",
            "data": {
                "id": "pay_bosphorusBench1", "object": "payment", "status": "captured",
                "mode": "test", "amount": 15000, "currency": "TRY", "capturedAmount": 15000,
                "refundedAmount": 0, "refundableAmount": 15000,
                "accountId": "acc_bosphorusAkbank", "orderId": "ORD-BENCH",
                "pendingOperation": null,
                "createdAt": "2026-11-21T08:55:00.000Z", "updatedAt": "2026-11-21T09:00:00.000Z"
            }
        })
    }

    /// A pending delivery of a new event to the pipeline endpoint, stored; its id.
    pub async fn delivery(&self) -> Result<String, String> {
        let record: EventRecord =
            serde_json::from_value(self.event_record()).map_err(|e| e.to_string())?;
        let now = paygate_domain::ports::Clock::now(&paygate_compose::system::SystemClock);
        // Stored as sent (as the dashboard's test event is), so the sweeper leaves it alone.
        OutboxWriter::put_event(&self.server.outbox(), &record, true)
            .await
            .map_err(|e| e.to_string())?;
        let delivery = Delivery::new(&record, &self.endpoint, now);
        self.server
            .deliveries()
            .create_delivery(&delivery)
            .await
            .map_err(|e| e.to_string())?;
        Ok(delivery.id.as_str().to_owned())
    }

    /// A fresh invocation of `bin` (a template function's binary name).
    pub async fn invocation(&self, bin: &str) -> Result<Invocation, String> {
        let api = |route: &str, path: &str, params: &[(&str, &str)], body: Option<&Value>| {
            events::api_request(route, path, params, body, Some(CALLER))
        };
        let money_caller = if self.real_bank {
            REAL_BANK_CALLER
        } else {
            CALLER
        };
        let op = |id: &str, op: &str, body: Value| {
            events::api_request(
                &format!("POST /v1/payments/{{id}}/{op}"),
                &format!("/v1/payments/{id}/{op}"),
                &[("id", id)],
                Some(&body),
                Some(money_caller),
            )
        };
        Ok(match bin {
            "authorizer" => Invocation {
                event: events::authorizer_request(
                    "GET /v1/payments/{id}",
                    &format!("/v1/payments/{SEEDED_PAYMENT}"),
                    Some(&format!("Bearer {KEY}")),
                ),
                env: Vec::new(),
                expects: format!("isAuthorized with merchantId {MERCHANT}"),
                check: Box::new(|a| {
                    if a["isAuthorized"] == json!(true) && a["context"]["merchantId"] == MERCHANT {
                        Ok(())
                    } else {
                        Err(format!("expected an authorized {MERCHANT}, got {a}"))
                    }
                }),
            },
            "get-payment" => with_event(
                http_check(200, "/id", json!(SEEDED_PAYMENT)),
                api(
                    "GET /v1/payments/{id}",
                    &format!("/v1/payments/{SEEDED_PAYMENT}"),
                    &[("id", SEEDED_PAYMENT)],
                    None,
                ),
            ),
            "capture-payment" => {
                let id = self.payment("authorized", json!({})).await?;
                with_event(
                    http_check(200, "/payment/status", json!("captured")),
                    op(&id, "capture", json!({})),
                )
            }
            "cancel-payment" => {
                let id = self.payment("authorized", json!({})).await?;
                with_event(
                    http_check(200, "/payment/status", json!("cancelled")),
                    op(&id, "cancel", json!({})),
                )
            }
            "refund-payment" => {
                // On a real protocol, settled at the bank (past its end of day): a refund, not
                // a void.
                let extra = if self.real_bank {
                    json!({ "settled": true })
                } else {
                    json!({})
                };
                let id = self.payment("captured", extra).await?;
                let mut event = op(&id, "refund", json!({ "amount": 2500 }));
                if self.real_bank {
                    event["headers"]["idempotency-key"] = json!(format!(
                        "bench-refund-{}-{}",
                        std::process::id(),
                        self.next()
                    ));
                }
                with_event(
                    http_check(200, "/payment/status", json!("partially_refunded")),
                    event,
                )
            }
            "query-payment" => {
                let id = self
                    .payment("pending", json!({ "bankState": "declined" }))
                    .await?;
                with_event(
                    http_check(200, "/payment/status", json!("declined")),
                    op(&id, "query", json!({})),
                )
            }
            "points-inquiry" => with_event(
                http_check(200, "/accountId", json!("acc_anatoliaIsbank")),
                api(
                    "POST /v1/payments/points/inquiry",
                    "/v1/payments/points/inquiry",
                    &[],
                    Some(&json!({
                        "card": { "number": points_card(self.points.fetch_add(1, Ordering::Relaxed)),
                                  "expMonth": "12", "expYear": "2030",
                                  "cvv": "123", "holder": "Ayse Yilmaz" },
                        "currency": "TRY"
                    })),
                ),
            ),
            "test-create-payment" => with_event(
                http_check(201, "/status", json!("authorized")),
                api(
                    "POST /v1/test_helpers/payments",
                    "/v1/test_helpers/payments",
                    &[],
                    Some(&json!({ "amount": 4200, "currency": "TRY", "status": "authorized" })),
                ),
            ),
            "admin-endpoints" => with_event(
                http_check(200, "/data/0/id", json!(self.endpoint.id.as_str())),
                events::api_request(
                    "GET /admin/v1/merchants/{merchantId}/webhook-endpoints",
                    &format!("/admin/v1/merchants/{PIPELINE_MERCHANT}/webhook-endpoints"),
                    &[("merchantId", PIPELINE_MERCHANT)],
                    None,
                    None,
                ),
            ),
            "admin-deliveries" => {
                let id = self.delivery().await?;
                with_event(
                    http_check(200, "/id", json!(id)),
                    events::api_request(
                        "GET /admin/v1/merchants/{merchantId}/deliveries/{deliveryId}",
                        &format!("/admin/v1/merchants/{PIPELINE_MERCHANT}/deliveries/{id}"),
                        &[("merchantId", PIPELINE_MERCHANT), ("deliveryId", &id)],
                        None,
                        None,
                    ),
                )
            }
            "webhook-fanout" => batch(events::sqs_batch(
                "arn:aws:sqs:us-east-1:123456789012:paygate-local-events",
                &[self.event_record().to_string()],
            )),
            "webhook-deliver" => {
                let id = self.delivery().await?;
                let msg =
                    json!({ "deliveryId": id, "attempt": 1, "dueAt": "2026-01-01T00:00:00.000Z" });
                batch(events::sqs_batch(
                    "arn:aws:sqs:us-east-1:123456789012:paygate-local-deliveries",
                    &[msg.to_string()],
                ))
            }
            "outbox-sweeper" | "reconciler" => Invocation {
                event: events::scheduled(&format!("paygate-local-{bin}")),
                env: Vec::new(),
                expects: "a report (a JSON object)".to_owned(),
                check: Box::new(|a| {
                    if a.as_object().is_some_and(|o| !o.is_empty()) {
                        Ok(())
                    } else {
                        Err(format!("expected a report, got {a}"))
                    }
                }),
            },
            "deploy-hook" => {
                let exec = format!("exec-binaries-{}", self.next());
                let seen = self.hook.seen.clone();
                let want = exec.clone();
                Invocation {
                    event: json!({
                        "DeploymentId": "d-BINARIES",
                        "LifecycleEventHookExecutionId": exec,
                    }),
                    env: vec![("AWS_ENDPOINT_URL".to_owned(), self.hook.url.clone())],
                    expects: "Succeeded, every target invoked, the verdict reported".to_owned(),
                    check: Box::new(move |a| {
                        let seen = seen.lock().map(|s| s.clone()).unwrap_or_default();
                        let invoked: Vec<&str> =
                            seen.invocations.iter().map(|(f, _)| f.as_str()).collect();
                        let targets: Vec<&str> = LOCAL_SMOKE_TARGETS.split(',').collect();
                        let reported = seen.reports.iter().any(|r| {
                            r["lifecycleEventHookExecutionId"] == want.as_str()
                                && r["deploymentId"] == "d-BINARIES"
                                && r["status"] == "Succeeded"
                        });
                        if a["status"] == "Succeeded" && reported && invoked.ends_with(&targets) {
                            Ok(())
                        } else {
                            Err(format!(
                                "answered {a}; the stub saw {invoked:?}, {:?}",
                                seen.reports
                            ))
                        }
                    }),
                }
            }
            other => return Err(format!("no case for function {other}")),
        })
    }
}

/// An SQS batch whose answer must report no item failure.
fn batch(event: Value) -> Invocation {
    Invocation {
        event,
        env: Vec::new(),
        expects: "batchItemFailures empty".to_owned(),
        check: Box::new(|a| match a["batchItemFailures"].as_array() {
            Some(f) if f.is_empty() => Ok(()),
            _ => Err(format!("expected no batch item failures, got {a}")),
        }),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn points_cards_are_luhn_valid_and_the_first_is_points_card() {
        assert_eq!(super::points_card(0), super::POINTS_CARD);
        for n in [1, 2, 17, 999_999_999] {
            let card = super::points_card(n);
            assert_eq!(card.len(), 16, "{card}");
            assert!(card.starts_with("454360"), "{card}");
            assert!(crate::luhn_ok(&card), "{card}");
        }
    }
}
