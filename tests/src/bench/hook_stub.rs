//! Lambda and CodeDeploy as the deploy hook (`functions/deploy-hook`) calls them, on
//! loopback: `POST /2015-03-31/functions/{name}/invocations` answers what a healthy payment
//! function answers the smoke request (404 `not_found` in the envelope) and
//! `POST /` with `X-Amz-Target: CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus`
//! records the verdict. Both refuse a request that is not SigV4-signed for their service.

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
};

use axum::{
    extract::{Path, State},
    http::{HeaderMap, StatusCode},
    routing::post,
    Json, Router,
};
use serde_json::{json, Value};
use tokio::{net::TcpListener, task::JoinHandle};

/// What the stub received.
#[derive(Debug, Default, Clone)]
pub struct Seen {
    /// `(function, payload)` of each invocation.
    pub invocations: Vec<(String, Value)>,
    /// The body of each lifecycle report.
    pub reports: Vec<Value>,
}

type Shared = Arc<Mutex<Seen>>;

/// The running stub; stops when dropped.
pub struct HookStub {
    pub url: String,
    pub seen: Shared,
    task: JoinHandle<()>,
}

impl Drop for HookStub {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Whether `headers` carry a SigV4 signature for `service` (scope `…/<service>/aws4_request`).
fn signed_for(headers: &HeaderMap, service: &str) -> bool {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| {
            a.starts_with("AWS4-HMAC-SHA256 Credential=")
                && a.contains(&format!("/{service}/aws4_request"))
        })
        && headers.contains_key("x-amz-date")
}

async fn invoke(
    State(seen): State<Shared>,
    Path(function): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> (StatusCode, Json<Value>) {
    if !signed_for(&headers, "lambda") {
        return (StatusCode::FORBIDDEN, Json(json!({"message": "unsigned"})));
    }
    let payload = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if let Ok(mut s) = seen.lock() {
        s.invocations.push((function, payload));
    }
    let envelope = json!({"error": {"code": "not_found", "message": "No such payment."}});
    (
        StatusCode::OK,
        Json(json!({
            "statusCode": 404,
            "headers": {"content-type": "application/json"},
            "body": envelope.to_string(),
            "isBase64Encoded": false,
        })),
    )
}

async fn codedeploy(
    State(seen): State<Shared>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> (StatusCode, Json<Value>) {
    let target = headers.get("x-amz-target").and_then(|v| v.to_str().ok());
    if !signed_for(&headers, "codedeploy")
        || target != Some("CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus")
    {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"message": "unexpected"})),
        );
    }
    let report: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = report["lifecycleEventHookExecutionId"].clone();
    if let Ok(mut s) = seen.lock() {
        s.reports.push(report);
    }
    (
        StatusCode::OK,
        Json(json!({"lifecycleEventHookExecutionId": id})),
    )
}

impl HookStub {
    pub async fn start() -> std::io::Result<HookStub> {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let url = format!("http://{}", listener.local_addr()?);
        let seen = Shared::default();
        let app = Router::new()
            .route("/2015-03-31/functions/{function}/invocations", post(invoke))
            .route("/", post(codedeploy))
            .with_state(seen.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(HookStub { url, seen, task })
    }

    pub fn seen(&self) -> Seen {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}
