//! A local stand-in for the Lambda Runtime API (2018-06-01), enough for the runtime crates
//! (`lambda_runtime`, `lambda_http`) and for a minimal C client:
//!
//! - `GET  /2018-06-01/runtime/invocation/next` long-polls until an event is queued, then
//!   answers it with `Lambda-Runtime-Aws-Request-Id`, `Lambda-Runtime-Deadline-Ms`,
//!   `Lambda-Runtime-Invoked-Function-Arn` and `Lambda-Runtime-Trace-Id`;
//! - `POST /2018-06-01/runtime/invocation/{id}/response` and `…/{id}/error` record the
//!   outcome of that invocation;
//! - `POST /2018-06-01/runtime/init/error` records a failed start.
//!
//! Every `GET …/next` is time-stamped on arrival: the first one is the moment the function
//! is ready (what `make bench` measures as init). A stub with nothing queued never answers,
//! so a started function blocks at its first `next` as it does on Lambda between events.

use std::{
    collections::{HashMap, VecDeque},
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use axum::{
    body::Bytes,
    extract::{Path, State},
    http::{HeaderMap, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
    routing::{get, post},
    Router,
};
use serde_json::Value;
use tokio::{net::TcpListener, sync::Notify, task::JoinHandle};

/// The ARN handed to every invocation (`Lambda-Runtime-Invoked-Function-Arn`).
pub const FUNCTION_ARN: &str = "arn:aws:lambda:us-east-1:123456789012:function:paygate-local";

/// How long an invocation may run: the deadline header is now + this.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// What a function answered for one invocation (or at start-up).
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// `POST …/{id}/response`: the body as sent.
    Response(Bytes),
    /// `POST …/{id}/error` or `…/init/error`: the error type header and the body.
    Error { error_type: String, body: Bytes },
}

impl Outcome {
    /// The response body as JSON (`None` for an error or a body that is not JSON).
    pub fn json(&self) -> Option<Value> {
        match self {
            Outcome::Response(b) => serde_json::from_slice(b).ok(),
            Outcome::Error { .. } => None,
        }
    }
}

#[derive(Default)]
struct Inner {
    queue: VecDeque<(String, Bytes)>,
    /// Arrival time of every `GET …/next`, in order.
    nexts: Vec<Instant>,
    outcomes: HashMap<String, Outcome>,
    /// Arrival time of each invocation's outcome.
    outcome_times: HashMap<String, Instant>,
    init_error: Option<Outcome>,
    seq: u64,
}

#[derive(Default)]
struct Shared {
    inner: Mutex<Inner>,
    /// Woken when an event is queued (for the long-polling `next`).
    queued: Notify,
    /// Woken on every `next`, outcome or init error (for the waiters below).
    changed: Notify,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A running stub on `127.0.0.1`; dropping it stops the server.
pub struct RuntimeStub {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl Drop for RuntimeStub {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl RuntimeStub {
    /// Starts a stub on a free port of 127.0.0.1 (call from within a Tokio runtime).
    pub async fn start() -> std::io::Result<RuntimeStub> {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .route("/2018-06-01/runtime/invocation/next", get(next))
            .route(
                "/2018-06-01/runtime/invocation/{id}/response",
                post(response),
            )
            .route("/2018-06-01/runtime/invocation/{id}/error", post(error))
            .route("/2018-06-01/runtime/init/error", post(init_error))
            .with_state(shared.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(RuntimeStub { addr, shared, task })
    }

    /// `host:port`, the value of `AWS_LAMBDA_RUNTIME_API`.
    pub fn api(&self) -> String {
        self.addr.to_string()
    }

    /// The environment Lambda gives every function process: the Runtime API address and
    /// the function's name, memory, version and log names (the runtime crates require them).
    pub fn lambda_env(&self, function: &str) -> Vec<(String, String)> {
        [
            ("AWS_LAMBDA_RUNTIME_API", self.api()),
            ("AWS_LAMBDA_FUNCTION_NAME", function.to_owned()),
            ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256".to_owned()),
            ("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST".to_owned()),
            (
                "AWS_LAMBDA_LOG_GROUP_NAME",
                format!("/aws/lambda/{function}"),
            ),
            ("AWS_LAMBDA_LOG_STREAM_NAME", "local".to_owned()),
            ("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }

    /// Queues `event` for the next `GET …/next`; its request id.
    pub fn push(&self, event: &Value) -> String {
        self.push_raw(Bytes::from(event.to_string()))
    }

    /// Queues a raw event body; its request id.
    pub fn push_raw(&self, body: Bytes) -> String {
        let id = {
            let mut inner = self.shared.lock();
            inner.seq += 1;
            let id = format!("00000000-0000-4000-8000-{:012}", inner.seq);
            inner.queue.push_back((id.clone(), body));
            id
        };
        self.shared.queued.notify_one();
        id
    }

    /// How many `GET …/next` have arrived so far.
    pub fn nexts(&self) -> usize {
        self.shared.lock().nexts.len()
    }

    /// Waits until the `n`th (1-based) `GET …/next` has arrived; its arrival time, or `None`
    /// after `timeout`.
    pub async fn wait_next(&self, n: usize, timeout: Duration) -> Option<Instant> {
        self.wait(timeout, |i| i.nexts.get(n.saturating_sub(1)).copied())
            .await
    }

    /// Waits for the outcome of invocation `id` (or for an init error, which ends every
    /// invocation); `None` after `timeout`.
    pub async fn outcome(&self, id: &str, timeout: Duration) -> Option<Outcome> {
        self.wait(timeout, |i| {
            i.outcomes.get(id).cloned().or_else(|| i.init_error.clone())
        })
        .await
    }

    /// When the `n`th (1-based) `GET …/next` arrived, if it has.
    pub fn next_at(&self, n: usize) -> Option<Instant> {
        self.shared.lock().nexts.get(n.checked_sub(1)?).copied()
    }

    /// When the outcome of invocation `id` arrived, if it has.
    pub fn outcome_at(&self, id: &str) -> Option<Instant> {
        self.shared.lock().outcome_times.get(id).copied()
    }

    /// The init error the function reported, if any.
    pub fn init_error(&self) -> Option<Outcome> {
        self.shared.lock().init_error.clone()
    }

    async fn wait<T>(&self, timeout: Duration, probe: impl Fn(&Inner) -> Option<T>) -> Option<T> {
        let until = tokio::time::Instant::now() + timeout;
        loop {
            // Registered before probing, so a change between the probe and the wait is seen.
            let changed = self.shared.changed.notified();
            if let Some(v) = probe(&self.shared.lock()) {
                return Some(v);
            }
            if tokio::time::timeout_at(until, changed).await.is_err() {
                return probe(&self.shared.lock());
            }
        }
    }
}

async fn next(State(s): State<Arc<Shared>>) -> Response {
    s.lock().nexts.push(Instant::now());
    s.changed.notify_waiters();
    let (id, body) = loop {
        let queued = s.queued.notified();
        if let Some(ev) = s.lock().queue.pop_front() {
            break ev;
        }
        queued.await;
    };
    let now = paygate_domain::ports::Clock::now(&paygate_compose::system::SystemClock);
    let deadline = now.unix_millis() + i64::try_from(DEADLINE.as_millis()).unwrap_or(0);
    let mut headers = HeaderMap::new();
    let mut set = |name: &'static str, value: String| {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(name, v);
        }
    };
    set("content-type", "application/json".to_owned());
    set("lambda-runtime-aws-request-id", id.clone());
    set("lambda-runtime-deadline-ms", deadline.to_string());
    set(
        "lambda-runtime-invoked-function-arn",
        FUNCTION_ARN.to_owned(),
    );
    set(
        "lambda-runtime-trace-id",
        format!(
            "Root=1-00000000-{:0>24};Parent=0000000000000001;Sampled=0",
            id.replace('-', "").get(8..).unwrap_or_default()
        ),
    );
    (StatusCode::OK, headers, body).into_response()
}

fn record(s: &Shared, id: String, outcome: Outcome) -> StatusCode {
    let mut inner = s.lock();
    inner.outcome_times.insert(id.clone(), Instant::now());
    inner.outcomes.insert(id, outcome);
    drop(inner);
    s.changed.notify_waiters();
    StatusCode::ACCEPTED
}

fn error_type(headers: &HeaderMap) -> String {
    headers
        .get("lambda-runtime-function-error-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

async fn response(State(s): State<Arc<Shared>>, Path(id): Path<String>, body: Bytes) -> StatusCode {
    record(&s, id, Outcome::Response(body))
}

async fn error(
    State(s): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let error_type = error_type(&headers);
    record(&s, id, Outcome::Error { error_type, body })
}

async fn init_error(State(s): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let error_type = error_type(&headers);
    s.lock().init_error = Some(Outcome::Error { error_type, body });
    s.changed.notify_waiters();
    StatusCode::ACCEPTED
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NEXT: &str = "2018-06-01/runtime/invocation/next";

    #[tokio::test]
    async fn hands_out_queued_events_with_the_runtime_headers_and_records_answers() {
        let stub = RuntimeStub::start().await.unwrap();
        let http = reqwest::Client::new();
        let base = format!("http://{}", stub.api());
        let id = stub.push(&json!({ "hello": 1 }));

        let resp = http.get(format!("{base}/{NEXT}")).send().await.unwrap();
        assert_eq!(resp.status(), 200);
        let h = resp.headers().clone();
        assert_eq!(h["lambda-runtime-aws-request-id"], id.as_str());
        assert_eq!(h["lambda-runtime-invoked-function-arn"], FUNCTION_ARN);
        let deadline: i64 = h["lambda-runtime-deadline-ms"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let now =
            paygate_domain::ports::Clock::now(&paygate_compose::system::SystemClock).unix_millis();
        assert!(deadline > now && deadline <= now + 30_000);
        assert!(h["lambda-runtime-trace-id"]
            .to_str()
            .unwrap()
            .starts_with("Root=1-"));
        assert_eq!(resp.json::<Value>().await.unwrap(), json!({ "hello": 1 }));
        assert_eq!(stub.nexts(), 1);

        let url = format!("{base}/2018-06-01/runtime/invocation/{id}/response");
        let posted = http.post(url).body(r#"{"ok":true}"#).send().await.unwrap();
        assert_eq!(posted.status(), 202);
        let outcome = stub.outcome(&id, Duration::from_secs(5)).await.unwrap();
        assert_eq!(outcome.json(), Some(json!({ "ok": true })));

        let id2 = stub.push(&json!({}));
        let _ = http.get(format!("{base}/{NEXT}")).send().await.unwrap();
        let url = format!("{base}/2018-06-01/runtime/invocation/{id2}/error");
        let posted = http
            .post(url)
            .header("lambda-runtime-function-error-type", "Handler.Failed")
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_eq!(posted.status(), 202);
        match stub.outcome(&id2, Duration::from_secs(5)).await.unwrap() {
            Outcome::Error { error_type, .. } => assert_eq!(error_type, "Handler.Failed"),
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn next_waits_for_an_event_and_its_arrival_is_recorded() {
        let stub = RuntimeStub::start().await.unwrap();
        let url = format!("http://{}/{NEXT}", stub.api());
        let poll = tokio::spawn(async move { reqwest::get(url).await.unwrap().text().await });
        assert!(stub.wait_next(1, Duration::from_secs(5)).await.is_some());
        assert!(stub.wait_next(2, Duration::from_millis(50)).await.is_none());
        assert!(!poll.is_finished(), "next answered with nothing queued");
        stub.push(&json!("late"));
        assert_eq!(poll.await.unwrap().unwrap(), "\"late\"");
    }

    #[tokio::test]
    async fn an_init_error_ends_every_wait_for_an_outcome() {
        let stub = RuntimeStub::start().await.unwrap();
        let id = stub.push(&json!({}));
        let url = format!("http://{}/2018-06-01/runtime/init/error", stub.api());
        let posted = reqwest::Client::new()
            .post(url)
            .header("lambda-runtime-function-error-type", "Runtime.InitError")
            .body("boom")
            .send()
            .await
            .unwrap();
        assert_eq!(posted.status(), 202);
        assert!(matches!(
            stub.outcome(&id, Duration::from_secs(5)).await,
            Some(Outcome::Error { .. })
        ));
        assert!(stub.init_error().is_some());
    }
}
