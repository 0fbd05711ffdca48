//! A counting proxy in front of the local AWS stand-in (moto): one function process's
//! `AWS_ENDPOINT_URL` points here, every request is forwarded to moto unchanged and its
//! operation recorded with its arrival time, so `make bench` counts the AWS round trips of
//! that process's events alone: the local stack's own calls (its queue polling, the bank
//! simulator's ledger, the cases' set-up) go to moto directly and are never counted.
//!
//! The operation is the `X-Amz-Target` header's (`DynamoDB_20120810.GetItem`,
//! `AmazonSQS.SendMessage`, `secretsmanager.GetSecretValue`: the JSON protocols of the three
//! services the functions call), shortened to its part after the dot; Lambda's `Invoke` (the
//! deploy hook's smoke requests) is named from its path; any other request without one
//! counts as its method and path.
//!
//! A DynamoDB request also keeps its table, its item's `pk` and the `:tokens` it adds
//! ([`Call`]), so [`lease_refills`] can tell a throttle lease's refill, which a new clock
//! minute makes (`paygate_domain::throttle::lease`), from any other extra call.

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Instant,
};

use axum::{
    body::{to_bytes, Body},
    extract::{Request, State},
    http::StatusCode,
    response::Response,
    Router,
};
use tokio::{net::TcpListener, task::JoinHandle};

/// The AWS calls of each function's warm event, in order of first call ([`summary`]'s
/// form): the cost model's figures (`docs/performance.md`, "AWS calls per event").
/// `tests/tests/aws_calls.rs` counts each case in process and fails on any difference;
/// `make bench` counts the release binaries' warm events (its cases under
/// `Ctx::real_bank`) and reports a difference as a failure ([`expected`]). A name is the
/// function's binary, then after a comma which case when it matters.
pub const EXPECTED: &[(&str, &str)] = &[
    // The verified key is cached for 30 s (paygate_payments::cache).
    ("authorizer", ""),
    // The payment and its transactions (the throttle batch is leased already).
    ("get-payment", "GetItem, Query"),
    // Payment read, reservation, commit (with its event), the event to the queue.
    (
        "capture-payment, unkeyed",
        "GetItem, TransactWriteItems ×2, SendMessage",
    ),
    // The key taken, then as unkeyed; the key's answer rides in the commit.
    (
        "refund-payment, keyed",
        "PutItem, GetItem, TransactWriteItems ×2, SendMessage",
    ),
    // A pending payment the bank declined: read, settled, its event queued.
    ("query-payment", "GetItem, TransactWriteItems, SendMessage"),
    // The merchant's endpoints, the delivery stored, its message queued, the event marked
    // handed over (one endpoint).
    ("webhook-fanout", "Query, PutItem, SendMessage, UpdateItem"),
    // A failed attempt (the endpoint's host never resolves), as measured: four reads (the
    // delivery, its event, its endpoint), two updates and a transaction (the attempt and the
    // endpoint's health), the retry queued; the signing secret is cached.
    (
        "webhook-deliver",
        "GetItem ×4, UpdateItem ×2, TransactWriteItems, SendMessage",
    ),
];

/// The [`EXPECTED`] calls of binary `bin`'s warm event, when the table has them.
pub fn expected(bin: &str) -> Option<&'static str> {
    EXPECTED.iter().find_map(|(name, calls)| {
        let case_of = name.split(", ").next().unwrap_or(name);
        (case_of == bin).then_some(*calls)
    })
}

/// A body larger than this is refused (the functions' AWS requests are a few KB).
const MAX_BODY: usize = 16 * 1024 * 1024;

/// One request the proxy forwarded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The operation ([`summary`]'s names).
    pub op: String,
    /// DynamoDB: the request's `TableName`.
    pub table: Option<String>,
    /// DynamoDB: the item's partition key (`Key.pk.S`).
    pub pk: Option<String>,
    /// DynamoDB: the number `:tokens` of its expression values (a throttle counter's
    /// increment: 1 a request, the batch size for a lease).
    pub tokens: Option<u64>,
}

impl Call {
    /// A call known only by its operation.
    pub fn op(op: &str) -> Call {
        Call {
            op: op.to_owned(),
            table: None,
            pk: None,
            tokens: None,
        }
    }

    /// `(subject#scope, minute)` when this is a lease of the API scope's minute counter in
    /// `throttle_table`: an `UpdateItem` adding more than one token to a `<key>#api#<minute>`
    /// item (a request counted alone adds one).
    fn api_lease(&self, throttle_table: &str) -> Option<(&str, i64)> {
        if self.op != "UpdateItem"
            || self.table.as_deref() != Some(throttle_table)
            || self.tokens? < 2
        {
            return None;
        }
        let (subject, minute) = self.pk.as_deref()?.rsplit_once('#')?;
        subject
            .ends_with("#api")
            .then_some(())
            .and_then(|()| Some((subject, minute.parse().ok()?)))
    }
}

/// The lease refills among `warm`'s calls: a lease of the API scope (in `throttle_table`)
/// for a key whose lease `first` (the same process's earlier event) took in an earlier clock
/// minute, at most one per key. A batch is spent only in its minute, so the first request of
/// a new minute leases again: an expected call when the warm event starts in another minute
/// than the first, which the calls of the cost model ([`EXPECTED`]) leave out. Anything
/// else — a lease in the first event's minute, a second one, a request counted alone — is
/// not a refill. Returns `warm` without the refills, and how many there were.
pub fn lease_refills(first: &[Call], warm: &[Call], throttle_table: &str) -> (Vec<Call>, usize) {
    let leased: Vec<(&str, i64)> = first
        .iter()
        .filter_map(|c| c.api_lease(throttle_table))
        .collect();
    let mut refilled: Vec<&str> = Vec::new();
    let mut rest = Vec::new();
    for call in warm {
        let refill = call.api_lease(throttle_table).filter(|(subject, minute)| {
            !refilled.contains(subject) && leased.iter().any(|(s, m)| s == subject && m < minute)
        });
        match refill {
            Some((subject, _)) => refilled.push(subject),
            None => rest.push(call.clone()),
        }
    }
    let n = refilled.len();
    (rest, n)
}

/// The operations of `calls`, in order.
pub fn ops(calls: &[Call]) -> Vec<String> {
    calls.iter().map(|c| c.op.clone()).collect()
}

struct Shared {
    upstream: String,
    http: reqwest::Client,
    calls: Mutex<Vec<(Instant, Call)>>,
}

/// A running proxy on `127.0.0.1`; dropping it stops the server.
pub struct AwsCounter {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl Drop for AwsCounter {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl AwsCounter {
    /// Starts a proxy to `upstream` (moto's endpoint URL) on a free port.
    pub async fn start(upstream: &str) -> std::io::Result<AwsCounter> {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            upstream: upstream.trim_end_matches('/').to_owned(),
            http: reqwest::Client::new(),
            calls: Mutex::new(Vec::new()),
        });
        let app = Router::new().fallback(forward).with_state(shared.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(AwsCounter { addr, shared, task })
    }

    /// The value of `AWS_ENDPOINT_URL` for the process whose calls are counted.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The operations that arrived in `[from, to]`, in order.
    pub fn calls_between(&self, from: Instant, to: Instant) -> Vec<String> {
        ops(&self.requests_between(from, to))
    }

    /// The requests that arrived in `[from, to]`, in order.
    pub fn requests_between(&self, from: Instant, to: Instant) -> Vec<Call> {
        self.lock()
            .iter()
            .filter(|(at, _)| *at >= from && *at <= to)
            .map(|(_, call)| call.clone())
            .collect()
    }

    /// Every operation so far, in order.
    pub fn calls(&self) -> Vec<String> {
        self.lock()
            .iter()
            .map(|(_, call)| call.op.clone())
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Instant, Call)>> {
        self.shared.calls.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `GetItem ×2, TransactWriteItems` for a list of operations (each name once, in the order
/// of its first call, with its count when above one).
pub fn summary(ops: &[String]) -> String {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for op in ops {
        match seen.iter_mut().find(|(o, _)| o == op) {
            Some((_, n)) => *n += 1,
            None => seen.push((op, 1)),
        }
    }
    seen.iter()
        .map(|(op, n)| {
            if *n > 1 {
                format!("{op} ×{n}")
            } else {
                (*op).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn operation(req: &Request) -> String {
    let path = req.uri().path();
    match req
        .headers()
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
    {
        Some(target) => target.rsplit('.').next().unwrap_or(target).to_owned(),
        None if path.starts_with("/2015-03-31/functions/") && path.ends_with("/invocations") => {
            "Invoke".to_owned()
        }
        None => format!("{} {path}", req.method()),
    }
}

/// `op`'s [`Call`], with a DynamoDB request's table, key and tokens read from its body.
fn call(op: String, dynamodb: bool, body: &[u8]) -> Call {
    let mut call = Call::op(&op);
    if dynamodb {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
            call.table = v["TableName"].as_str().map(str::to_owned);
            call.pk = v["Key"]["pk"]["S"].as_str().map(str::to_owned);
            call.tokens = v["ExpressionAttributeValues"][":tokens"]["N"]
                .as_str()
                .and_then(|n| n.parse().ok());
        }
    }
    call
}

async fn forward(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let at = Instant::now();
    let op = operation(&req);
    let dynamodb = req
        .headers()
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("DynamoDB_"));
    let (parts, body) = req.into_parts();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let Ok(body) = to_bytes(body, MAX_BODY).await else {
        return status(StatusCode::PAYLOAD_TOO_LARGE);
    };
    shared
        .calls
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((at, call(op, dynamodb, &body)));
    let mut out = shared
        .http
        .request(parts.method, format!("{}{path}", shared.upstream))
        .body(body);
    for (name, value) in &parts.headers {
        if name != axum::http::header::HOST && name != axum::http::header::CONTENT_LENGTH {
            out = out.header(name, value);
        }
    }
    let Ok(answer) = out.send().await else {
        return status(StatusCode::BAD_GATEWAY);
    };
    let mut response = Response::builder().status(answer.status());
    for (name, value) in answer.headers() {
        if name != axum::http::header::CONTENT_LENGTH
            && name != axum::http::header::TRANSFER_ENCODING
        {
            response = response.header(name, value);
        }
    }
    let bytes = answer.bytes().await.unwrap_or_default();
    response
        .body(Body::from(bytes))
        .unwrap_or_else(|_| status(StatusCode::BAD_GATEWAY))
}

fn status(code: StatusCode) -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = code;
    r
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_summary_counts_each_operation_in_order_of_first_call() {
        let ops = ["GetItem", "TransactWriteItems", "GetItem", "SendMessage"].map(String::from);
        assert_eq!(
            super::summary(&ops),
            "GetItem ×2, TransactWriteItems, SendMessage"
        );
        assert_eq!(super::summary(&[]), "");
    }

    #[test]
    fn the_expected_calls_are_found_by_binary_name() {
        assert_eq!(super::expected("authorizer"), Some(""));
        assert_eq!(
            super::expected("refund-payment"),
            Some("PutItem, GetItem, TransactWriteItems ×2, SendMessage")
        );
        assert_eq!(
            super::expected("capture-payment"),
            Some("GetItem, TransactWriteItems ×2, SendMessage")
        );
        assert_eq!(super::expected("cancel-payment"), None);
        assert_eq!(super::expected("refund"), None);
    }

    fn lease(pk: &str, tokens: u64) -> super::Call {
        super::Call {
            op: "UpdateItem".to_owned(),
            table: Some("t-throttle".to_owned()),
            pk: Some(pk.to_owned()),
            tokens: Some(tokens),
        }
    }

    #[test]
    fn only_a_lease_for_a_later_minute_is_a_refill() {
        use super::{lease_refills, ops, Call};
        let first = [lease("key_a#api#100", 12), Call::op("GetItem")];
        let warm = |c: super::Call| vec![c, Call::op("GetItem")];
        // The next minute's lease of the same key: a refill, left out.
        let (rest, n) = lease_refills(&first, &warm(lease("key_a#api#101", 12)), "t-throttle");
        assert_eq!((ops(&rest), n), (vec!["GetItem".to_owned()], 1));
        // Not refills: the same minute again, another key, a request counted alone, another
        // table, another scope, a second lease in the new minute.
        for extra in [
            lease("key_a#api#100", 12),
            lease("key_b#api#101", 12),
            lease("key_a#api#101", 1),
            super::Call {
                table: Some("t-other".to_owned()),
                ..lease("key_a#api#101", 12)
            },
            lease("key_a#points#101", 12),
        ] {
            let (rest, n) = lease_refills(&first, &warm(extra.clone()), "t-throttle");
            assert_eq!((rest.len(), n), (2, 0), "{extra:?}");
        }
        let twice = [lease("key_a#api#101", 12), lease("key_a#api#101", 12)];
        let (rest, n) = lease_refills(&first, &twice, "t-throttle");
        assert_eq!((rest.len(), n), (1, 1));
        // Without a lease in the first event there is nothing to refill.
        let (rest, n) = lease_refills(&[], &warm(lease("key_a#api#101", 12)), "t-throttle");
        assert_eq!((rest.len(), n), (2, 0));
    }
}
