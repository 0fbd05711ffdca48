//! A counting proxy in front of the local AWS stand-in (moto): one function process's
//! `AWS_ENDPOINT_URL` points here, every request is forwarded to moto unchanged and its
//! operation recorded with its arrival time, so `make bench` counts the AWS round trips of
//! that process's events alone: the local stack's own calls (its queue polling, the bank
//! simulator's ledger, the cases' set-up) go to moto directly and are never counted.
//!
//! The operation is the `X-Amz-Target` header's (`DynamoDB_20120810.GetItem`,
//! `AmazonSQS.SendMessage`, `secretsmanager.GetSecretValue`: the JSON protocols of the three
//! services the functions call), shortened to its part after the dot; a request without one
//! counts as its method and path.

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

struct Shared {
    upstream: String,
    http: reqwest::Client,
    calls: Mutex<Vec<(Instant, String)>>,
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
        self.lock()
            .iter()
            .filter(|(at, _)| *at >= from && *at <= to)
            .map(|(_, op)| op.clone())
            .collect()
    }

    /// Every operation so far, in order.
    pub fn calls(&self) -> Vec<String> {
        self.lock().iter().map(|(_, op)| op.clone()).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Instant, String)>> {
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
    match req
        .headers()
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
    {
        Some(target) => target.rsplit('.').next().unwrap_or(target).to_owned(),
        None => format!("{} {}", req.method(), req.uri().path()),
    }
}

async fn forward(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let at = Instant::now();
    let op = operation(&req);
    shared
        .calls
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((at, op));
    let (parts, body) = req.into_parts();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let Ok(body) = to_bytes(body, MAX_BODY).await else {
        return status(StatusCode::PAYLOAD_TOO_LARGE);
    };
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
}
