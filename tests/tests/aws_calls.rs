//! AWS round trips per function event, held to the cost model (issue 20).
//!
//! Each function runs in this process with its own dependencies, built by the same compose
//! builders as deployed, over AWS clients whose every request goes through a counting proxy
//! in front of moto (`paygate_tests::bench::aws_counter`); the local stack (tables, seed,
//! bank simulators, the payments the cases need) talks to moto directly and is never
//! counted. A function serves a first event (its caches, its throttle batch), then the
//! counted warm one. The counts are one table, [`EXPECTED`] (in `paygate_tests::bench::
//! aws_counter`, which `make bench` checks its own counts against), which
//! `docs/performance.md` cites: the test fails when a function makes more — or fewer — AWS
//! calls than it says.
//! The money cases run on a Nestpay test account (its simulator is HTTP, not AWS); the
//! pipeline cases on the bench's registered endpoint (a `.invalid` host: the attempt fails
//! at once, no network).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Instant;

use lambda_http::aws_lambda_events::{apigw::ApiGatewayV2CustomAuthorizerV2Request, sqs::SqsEvent};
use paygate_compose::{Build, Overrides, Wiring};
use paygate_tests::bench::{
    aws_counter::{lease_refills, ops, summary, AwsCounter, EXPECTED},
    cases::{Ctx, REAL_BANK_ACCOUNT, REAL_BANK_KEY},
    events::{self, Caller},
    functions::start_server,
};
use serde_json::{json, Value};

const CAPPADOCIA: Caller<'static> = Caller {
    merchant_id: "mch_cappadocia",
    mode: "test",
    key_id: "key_cappadociaTest",
};
const CAPPADOCIA_KEY: &str = REAL_BANK_KEY;
/// A Nestpay test account of the seed (İşbank).
const NESTPAY_ACCOUNT: &str = REAL_BANK_ACCOUNT;

struct Counted {
    counter: AwsCounter,
    wiring: Wiring,
    /// When counting began.
    origin: Instant,
    /// The throttle counters' table: a warm event that starts in a later clock minute than
    /// the key's lease leases again, an expected call the cost model leaves out
    /// ([`lease_refills`]).
    throttle_table: String,
}

impl Counted {
    /// The calls `run` makes, without a throttle lease's refill.
    async fn calls<F: std::future::Future<Output = Value>>(&self, run: F) -> (Value, String) {
        let from = Instant::now();
        let answer = run.await;
        let before = self.counter.requests_between(self.origin, from);
        let during = self.counter.requests_between(from, Instant::now());
        let (calls, _refills) = lease_refills(&before, &during, &self.throttle_table);
        (answer, summary(&ops(&calls)))
    }
}

async fn payment(server: &paygate_devserver::DevServer, status: &str, extra: Value) -> String {
    let mut body = json!({
        "amount": 10_000, "currency": "TRY", "status": status, "accountId": NESTPAY_ACCOUNT
    });
    if let (Some(b), Value::Object(extra)) = (body.as_object_mut(), extra) {
        b.extend(extra);
    }
    let resp = reqwest::Client::new()
        .post(format!("{}/v1/test_helpers/payments", server.url))
        .bearer_auth(CAPPADOCIA_KEY)
        .json(&body)
        .send()
        .await
        .unwrap();
    let answer: Value = resp.json().await.unwrap();
    answer["id"].as_str().expect("a payment id").to_owned()
}

fn operation(id: &str, op: &str, body: &Value) -> lambda_http::Request {
    let event = events::api_request(
        &format!("POST /v1/payments/{{id}}/{op}"),
        &format!("/v1/payments/{id}/{op}"),
        &[("id", id)],
        Some(body),
        Some(CAPPADOCIA),
    );
    lambda_http::request::from_str(&event.to_string()).unwrap()
}

fn keyed(mut req: lambda_http::Request, key: &str) -> lambda_http::Request {
    req.headers_mut()
        .insert("idempotency-key", key.parse().unwrap());
    req
}

fn http(resp: lambda_http::Response<lambda_http::Body>) -> Value {
    let status = resp.status().as_u16();
    let body = match resp.body() {
        lambda_http::Body::Text(t) => serde_json::from_str(t).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    json!({ "status": status, "body": body })
}

fn sqs(event: &Value) -> SqsEvent {
    serde_json::from_value(event.clone()).unwrap()
}

#[test]
fn every_functions_warm_event_makes_the_aws_calls_of_the_cost_model() {
    // The functions run on this thread as on a Lambda's (a debug build's futures need more
    // than a test thread's 2 MiB).
    std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(count_every_function())
        })
        .unwrap()
        .join()
        .unwrap();
}

async fn count_every_function() {
    let moto = paygate_aws::moto::MotoServer::shared().expect("moto starts");
    let prefix = paygate_aws::moto::unique_prefix("awscalls");
    let server = start_server(moto, &prefix).await.unwrap();
    let counter = AwsCounter::start(&moto.endpoint).await.unwrap();
    let wiring = Wiring {
        aws: paygate_aws::Clients::local(&counter.endpoint(), paygate_aws::moto::REGION),
        names: paygate_devserver::local_names(
            &server.tables,
            &server.queues,
            &format!("paygate/local/{prefix}banks/"),
            &paygate_devserver::card_key_secret(&prefix),
        ),
        clock: std::sync::Arc::new(paygate_compose::system::SystemClock),
        ids: std::sync::Arc::new(paygate_compose::system::RandomIds),
        overrides: Overrides::default(),
    };
    let c = Counted {
        counter,
        wiring,
        origin: Instant::now(),
        throttle_table: server.tables.throttle.clone(),
    };
    let ctx = Ctx::new(&server).await.unwrap();
    let mut measured: Vec<(&str, String)> = Vec::new();

    // The authorizer.
    let auth = fn_authorizer::Deps::build(&c.wiring).unwrap();
    let auth_event: ApiGatewayV2CustomAuthorizerV2Request =
        serde_json::from_value(events::authorizer_request(
            "GET /v1/payments/{id}",
            "/v1/payments/pay_x1",
            Some(&format!("Bearer {CAPPADOCIA_KEY}")),
        ))
        .unwrap();
    let first = fn_authorizer::handle(&auth, auth_event.clone()).await;
    assert_eq!(first.context["merchantId"], "mch_cappadocia");
    let (_, calls) = c
        .calls(async {
            serde_json::to_value(fn_authorizer::handle(&auth, auth_event).await).unwrap()
        })
        .await;
    measured.push(("authorizer", calls));

    // get-payment.
    let get = fn_get_payment::Deps::build(&c.wiring).unwrap();
    let id = payment(&server, "captured", json!({})).await;
    let get_req = || {
        let ev = events::api_request(
            "GET /v1/payments/{id}",
            &format!("/v1/payments/{id}"),
            &[("id", &id)],
            None,
            Some(CAPPADOCIA),
        );
        lambda_http::request::from_str(&ev.to_string()).unwrap()
    };
    fn_get_payment::handle(&get, get_req()).await;
    let (answer, calls) = c
        .calls(async { http(fn_get_payment::handle(&get, get_req()).await) })
        .await;
    assert_eq!(answer["status"], 200, "{answer}");
    measured.push(("get-payment", calls));

    // capture-payment, without a key.
    let capture = fn_capture_payment::Deps::build(&c.wiring).unwrap();
    let (a, b) = (
        payment(&server, "authorized", json!({})).await,
        payment(&server, "authorized", json!({})).await,
    );
    let first =
        http(fn_capture_payment::handle(&capture, operation(&a, "capture", &json!({}))).await);
    assert_eq!(first["status"], 200, "{first}");
    let (answer, calls) = c
        .calls(async {
            http(fn_capture_payment::handle(&capture, operation(&b, "capture", &json!({}))).await)
        })
        .await;
    assert_eq!(answer["body"]["payment"]["status"], "captured", "{answer}");
    measured.push(("capture-payment, unkeyed", calls));

    // refund-payment, with a key.
    let refund = fn_refund_payment::Deps::build(&c.wiring).unwrap();
    // Settled at the bank (past its end of day): a refund, not a void.
    let id = payment(&server, "captured", json!({ "settled": true })).await;
    let body = json!({ "amount": 2_500 });
    let first = http(
        fn_refund_payment::handle(&refund, keyed(operation(&id, "refund", &body), "r1")).await,
    );
    assert_eq!(first["status"], 200, "{first}");
    let (answer, calls) = c
        .calls(async {
            http(
                fn_refund_payment::handle(&refund, keyed(operation(&id, "refund", &body), "r2"))
                    .await,
            )
        })
        .await;
    assert_eq!(
        answer["body"]["payment"]["refundedAmount"], 5_000,
        "{answer}"
    );
    measured.push(("refund-payment, keyed", calls));

    // query-payment.
    let query = fn_query_payment::Deps::build(&c.wiring).unwrap();
    let pending = json!({ "bankState": "declined" });
    let (a, b) = (
        payment(&server, "pending", pending.clone()).await,
        payment(&server, "pending", pending).await,
    );
    let first = http(fn_query_payment::handle(&query, operation(&a, "query", &json!({}))).await);
    assert_eq!(first["status"], 200, "{first}");
    let (answer, calls) = c
        .calls(async {
            http(fn_query_payment::handle(&query, operation(&b, "query", &json!({}))).await)
        })
        .await;
    assert_eq!(answer["body"]["payment"]["status"], "declined", "{answer}");
    measured.push(("query-payment", calls));

    // webhook-fanout and webhook-deliver, on the bench's endpoint.
    let fanout = fn_webhook_fanout::Deps::build(&c.wiring).unwrap();
    for warm in [false, true] {
        let event = sqs(&ctx.invocation("webhook-fanout").await.unwrap().event);
        let (answer, calls) = c
            .calls(async {
                serde_json::to_value(fn_webhook_fanout::handle(&fanout, event).await).unwrap()
            })
            .await;
        assert_eq!(answer["batchItemFailures"], json!([]), "{answer}");
        if warm {
            measured.push(("webhook-fanout", calls));
        }
    }
    let deliver = fn_webhook_deliver::Deps::build(&c.wiring).unwrap();
    for warm in [false, true] {
        let event = sqs(&ctx.invocation("webhook-deliver").await.unwrap().event);
        let (answer, calls) = c
            .calls(async {
                serde_json::to_value(fn_webhook_deliver::handle(&deliver, event).await).unwrap()
            })
            .await;
        assert_eq!(answer["batchItemFailures"], json!([]), "{answer}");
        if warm {
            measured.push(("webhook-deliver", calls));
        }
    }

    let expected: Vec<(&str, String)> = EXPECTED
        .iter()
        .map(|(f, calls)| (*f, (*calls).to_owned()))
        .collect();
    assert_eq!(measured, expected, "AWS calls of each warm event");
}
