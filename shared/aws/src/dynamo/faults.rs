//! A fault layer under the SDK's HTTP client (feature `faults`, tests only): the faults
//! DynamoDB produces and moto never does, injected on the wire so the real SDK, its retries
//! and our adapters see them exactly as in AWS.
//!
//! * [`DynamoFault::LostAnswer`]: the request reaches the server and is applied; the answer
//!   is lost (the SDK sees a time-out and retries the same request).
//! * [`DynamoFault::ServerError`]: HTTP 500 before anything is applied.
//! * [`DynamoFault::TransactionConflict`]: the write collided with another transaction
//!   (`TransactionCanceledException` with a `TransactionConflict` reason for a
//!   `TransactWriteItems`, `TransactionConflictException` otherwise); nothing applied.
//! * [`DynamoFault::Throttled`]: `ThrottlingException`; nothing applied.
//! * [`DynamoFault::TokenMismatch`] (scripted only, never drawn at random):
//!   `IdempotentParameterMismatchException` for a `TransactWriteItems`; nothing applied.
//!
//! moto ignores `ClientRequestToken`s; [`FaultPlan::honour_tokens`] makes the layer keep
//! them as DynamoDB does (its 10-minute window taken as lasting the whole test): a
//! `TransactWriteItems` whose token was sent before with other parameters is refused with
//! `IdempotentParameterMismatchException`, and one whose token and parameters were sent
//! before and succeeded answers success without being applied again.
//!
//! Faults are scripted per operation (the `X-Amz-Target` name, e.g. `TransactWriteItems`)
//! or drawn at random from a seed over the write operations, so runs repeat exactly. Every
//! `TransactWriteItems` request's `ClientRequestToken` is recorded.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex},
};

use aws_sdk_dynamodb::config::{
    retry::RetryConfig, BehaviorVersion, Credentials, Region, SharedHttpClient,
};
use aws_smithy_runtime_api::client::{
    http::{
        HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
    },
    orchestrator::{HttpRequest, HttpResponse},
    result::ConnectorError,
    runtime_components::RuntimeComponents,
};
use aws_smithy_types::body::SdkBody;

/// A fault a DynamoDB call can meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DynamoFault {
    LostAnswer,
    ServerError,
    TransactionConflict,
    Throttled,
    TokenMismatch,
}

impl DynamoFault {
    /// The faults random plans draw from ([`DynamoFault::TokenMismatch`] is scripted only).
    pub const ALL: [DynamoFault; 4] = [
        Self::LostAnswer,
        Self::ServerError,
        Self::TransactionConflict,
        Self::Throttled,
    ];
}

/// The write operations random faults are drawn for.
pub const WRITE_OPS: [&str; 4] = ["PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems"];

#[derive(Debug, Default)]
struct State {
    script: HashMap<String, VecDeque<Option<DynamoFault>>>,
    /// Random faults: xorshift state and the chance per write, in per mille.
    rng: Option<(u64, u32)>,
    injected: HashMap<DynamoFault, usize>,
    tokens: Vec<String>,
    /// With [`FaultPlan::honour_tokens`]: each `ClientRequestToken` seen, with the request's
    /// other parameters and whether it succeeded.
    seen_tokens: Option<HashMap<String, SeenToken>>,
}

#[derive(Debug)]
struct SeenToken {
    params: serde_json::Value,
    succeeded: Arc<Mutex<bool>>,
}

/// What [`FaultPlan::token_check`] decided for a `TransactWriteItems`.
enum TokenCheck {
    /// Send it (and, when given, record whether it succeeded).
    Send(Option<Arc<Mutex<bool>>>),
    /// A repeat of a request that succeeded: answer success without sending.
    Replay,
    /// The token came before with other parameters.
    Mismatch,
}

/// The plan shared by a test and the clients built over it.
#[derive(Debug, Clone, Default)]
pub struct FaultPlan(Arc<Mutex<State>>);

impl FaultPlan {
    pub fn new() -> Self {
        Self::default()
    }

    /// The next calls of `op` meet `faults` in order (`None`: let that call through).
    pub fn script(&self, op: &str, faults: impl IntoIterator<Item = Option<DynamoFault>>) {
        self.lock()
            .script
            .entry(op.to_owned())
            .or_default()
            .extend(faults);
    }

    /// From now on each write meets a fault with `per_mille` / 1000 chance, the kind drawn
    /// evenly; the draws follow `seed`.
    pub fn random(&self, seed: u64, per_mille: u32) {
        self.lock().rng = Some((seed.max(1), per_mille));
    }

    /// From now on `TransactWriteItems` tokens are kept as DynamoDB keeps them (see the
    /// module documentation).
    pub fn honour_tokens(&self) {
        self.lock().seen_tokens.get_or_insert_with(HashMap::new);
    }

    fn token_check(&self, body: &[u8]) -> TokenCheck {
        let mut s = self.lock();
        let Some(seen) = s.seen_tokens.as_mut() else {
            return TokenCheck::Send(None);
        };
        let Some(mut params) = serde_json::from_slice::<serde_json::Value>(body).ok() else {
            return TokenCheck::Send(None);
        };
        let Some(token) = params
            .as_object_mut()
            .and_then(|o| o.remove("ClientRequestToken"))
            .and_then(|t| t.as_str().map(str::to_owned))
        else {
            return TokenCheck::Send(None);
        };
        match seen.get(&token) {
            Some(prev) if prev.params != params => TokenCheck::Mismatch,
            Some(prev) if *prev.succeeded.lock().unwrap_or_else(|e| e.into_inner()) => {
                TokenCheck::Replay
            }
            _ => {
                let succeeded = Arc::new(Mutex::new(false));
                seen.insert(
                    token,
                    SeenToken {
                        params,
                        succeeded: succeeded.clone(),
                    },
                );
                TokenCheck::Send(Some(succeeded))
            }
        }
    }

    /// Stops random faults and drops any scripted ones left.
    pub fn clear(&self) {
        let mut s = self.lock();
        s.rng = None;
        s.script.clear();
    }

    /// How many faults of each kind were injected.
    pub fn injected(&self) -> HashMap<DynamoFault, usize> {
        self.lock().injected.clone()
    }

    /// The `ClientRequestToken` of every `TransactWriteItems` sent, in order (retries
    /// included; a request without one is recorded as an empty string).
    pub fn transaction_tokens(&self) -> Vec<String> {
        self.lock().tokens.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn decide(&self, op: &str, body: &[u8]) -> Option<DynamoFault> {
        let mut s = self.lock();
        if op == "TransactWriteItems" {
            let token = serde_json::from_slice::<serde_json::Value>(body)
                .ok()
                .and_then(|v| v.get("ClientRequestToken")?.as_str().map(str::to_owned))
                .unwrap_or_default();
            s.tokens.push(token);
        }
        let scripted = s.script.get_mut(op).and_then(VecDeque::pop_front);
        let fault = match scripted {
            Some(f) => f,
            None => match s.rng.as_mut() {
                Some((state, per_mille)) if WRITE_OPS.contains(&op) => {
                    let roll = next(state);
                    (roll % 1000 < u64::from(*per_mille)).then(|| {
                        let i = usize::try_from(next(state) % 4).unwrap_or(0);
                        DynamoFault::ALL[i]
                    })
                }
                _ => None,
            },
        };
        if let Some(f) = fault {
            *s.injected.entry(f).or_default() += 1;
        }
        fault
    }
}

fn next(state: &mut u64) -> u64 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    x
}

/// A DynamoDB client for `endpoint` (moto) whose HTTP goes through `plan`, with `retry`.
pub fn client(
    endpoint: &str,
    region: &str,
    plan: &FaultPlan,
    retry: RetryConfig,
) -> aws_sdk_dynamodb::Client {
    let http = SharedHttpClient::new(FaultyHttp {
        inner: crate::https_client(),
        plan: plan.clone(),
    });
    let conf = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new(region.to_owned()))
        .credentials_provider(Credentials::new("test", "test", None, None, "static"))
        .retry_config(retry)
        .http_client(http)
        .build();
    aws_sdk_dynamodb::Client::from_conf(conf)
}

#[derive(Debug)]
struct FaultyHttp {
    inner: SharedHttpClient,
    plan: FaultPlan,
}

impl HttpClient for FaultyHttp {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(FaultyConnector {
            inner: self.inner.http_connector(settings, components),
            plan: self.plan.clone(),
        })
    }
}

#[derive(Debug)]
struct FaultyConnector {
    inner: SharedHttpConnector,
    plan: FaultPlan,
}

impl HttpConnector for FaultyConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let op = request
            .headers()
            .get("x-amz-target")
            .and_then(|t| t.rsplit('.').next())
            .unwrap_or("")
            .to_owned();
        let body = request.body().bytes().unwrap_or_default().to_vec();
        let Some(fault) = self.plan.decide(&op, &body) else {
            return self.send(&op, &body, request);
        };
        match fault {
            DynamoFault::LostAnswer => {
                let sent = self.send(&op, &body, request);
                HttpConnectorFuture::new(async move {
                    // Applied at the server; the answer never arrives.
                    let _ = sent.await;
                    Err(ConnectorError::timeout("injected: answer lost".into()))
                })
            }
            DynamoFault::ServerError => HttpConnectorFuture::ready(Ok(error_response(
                500,
                "InternalServerError",
                "injected: internal server error",
                None,
            ))),
            DynamoFault::Throttled => HttpConnectorFuture::ready(Ok(error_response(
                400,
                "ThrottlingException",
                "injected: rate of requests exceeds the allowed throughput",
                None,
            ))),
            DynamoFault::TransactionConflict if op == "TransactWriteItems" => {
                let items = serde_json::from_slice::<serde_json::Value>(&body)
                    .ok()
                    .and_then(|v| v.get("TransactItems")?.as_array().map(Vec::len))
                    .unwrap_or(1);
                let reasons: Vec<serde_json::Value> = (0..items)
                    .map(|i| {
                        if i == 0 {
                            serde_json::json!({"Code": "TransactionConflict",
                                "Message": "Transaction is ongoing for the item"})
                        } else {
                            serde_json::json!({"Code": "None"})
                        }
                    })
                    .collect();
                HttpConnectorFuture::ready(Ok(error_response(
                    400,
                    "TransactionCanceledException",
                    "Transaction cancelled, please refer cancellation reasons for specific reasons",
                    Some(reasons),
                )))
            }
            DynamoFault::TransactionConflict => HttpConnectorFuture::ready(Ok(error_response(
                400,
                "TransactionConflictException",
                "injected: transaction is ongoing for the item",
                None,
            ))),
            DynamoFault::TokenMismatch => HttpConnectorFuture::ready(Ok(token_mismatch())),
        }
    }
}

impl FaultyConnector {
    /// Sends `request` on to moto, keeping `TransactWriteItems` tokens as DynamoDB does when
    /// the plan says so.
    fn send(&self, op: &str, body: &[u8], request: HttpRequest) -> HttpConnectorFuture {
        if op != "TransactWriteItems" {
            return self.inner.call(request);
        }
        match self.plan.token_check(body) {
            TokenCheck::Mismatch => HttpConnectorFuture::ready(Ok(token_mismatch())),
            TokenCheck::Replay => HttpConnectorFuture::ready(Ok(json_response(200, "{}"))),
            TokenCheck::Send(None) => self.inner.call(request),
            TokenCheck::Send(Some(succeeded)) => {
                let sent = self.inner.call(request);
                HttpConnectorFuture::new(async move {
                    let answer = sent.await;
                    if matches!(&answer, Ok(r) if r.status().is_success()) {
                        *succeeded.lock().unwrap_or_else(|e| e.into_inner()) = true;
                    }
                    answer
                })
            }
        }
    }
}

fn token_mismatch() -> HttpResponse {
    error_response(
        400,
        "IdempotentParameterMismatchException",
        "Request parameters did not match the original request with the same client token",
        None,
    )
}

fn json_response(status: u16, body: &str) -> HttpResponse {
    let mut resp = HttpResponse::new(
        aws_smithy_runtime_api::http::StatusCode::from(
            http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR),
        ),
        SdkBody::from(body.to_owned()),
    );
    resp.headers_mut()
        .insert("content-type", "application/x-amz-json-1.0");
    resp
}

fn error_response(
    status: u16,
    kind: &str,
    message: &str,
    reasons: Option<Vec<serde_json::Value>>,
) -> HttpResponse {
    let mut body = serde_json::json!({
        "__type": format!("com.amazonaws.dynamodb.v20120810#{kind}"),
        "message": message,
    });
    if let (Some(r), Some(o)) = (reasons, body.as_object_mut()) {
        o.insert("CancellationReasons".into(), serde_json::Value::Array(r));
    }
    let mut resp = HttpResponse::new(
        aws_smithy_runtime_api::http::StatusCode::from(
            http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR),
        ),
        SdkBody::from(body.to_string()),
    );
    resp.headers_mut()
        .insert("content-type", "application/x-amz-json-1.0");
    resp.headers_mut()
        .insert("x-amzn-errortype", kind.to_owned());
    resp
}
