//! CodeDeploy's pre-traffic hook (template `PreTrafficHookFunction`): before CodeDeploy
//! shifts any traffic of the `live` alias to a new version of a merchant API function, this
//! invokes each new version (`PAYGATE_SMOKE_TARGETS`, version ARNs) with a harmless request
//! — a payment that does not exist, for a merchant that does not exist, authenticated as the
//! authorizer would — and expects the answer every healthy version gives: `404 not_found` in
//! the error envelope. That proves the new binary starts (its settings, its clients), takes
//! API Gateway's event, reads DynamoDB with its role (and, in `EgressMode=static-ips`, through
//! the VPC) and answers in the envelope; it moves no money, calls no bank and writes nothing
//! but the throttle counter of a key that does not exist.
//!
//! Then it reports `Succeeded` or `Failed` to CodeDeploy
//! (`PutLifecycleEventHookExecutionStatus`); `Failed` stops the deployment and CodeDeploy
//! leaves the alias on the old version. A report that cannot be made is an error (the
//! invocation fails and Lambda retries it); unreported, CodeDeploy fails the deployment at
//! its hook timeout.

mod aws;

use std::sync::Arc;

use paygate_compose::{Build, ConfigError, Wiring};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use aws::{AwsError, SignedHttp};

/// Environment: the function versions to smoke-test, comma-separated version ARNs.
pub const TARGETS_ENV: &str = "PAYGATE_SMOKE_TARGETS";

/// The payment the smoke request asks for: valid in form, never created.
pub const SMOKE_PAYMENT: &str = "pay_deploySmokeNoSuchPayment";
/// The merchant the smoke request claims to be: valid in form, never created.
pub const SMOKE_MERCHANT: &str = "mch_deploySmokeNoSuchMerchant";
const SMOKE_KEY: &str = "key_deploySmokeNoSuchKey";

/// What CodeDeploy sends a lifecycle hook.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct HookEvent {
    pub deployment_id: String,
    pub lifecycle_event_hook_execution_id: String,
}

/// The hook's verdict, as CodeDeploy spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Status {
    Succeeded,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Succeeded => "Succeeded",
            Status::Failed => "Failed",
        }
    }
}

/// What an invoked version answered: Lambda's `X-Amz-Function-Error` (an unhandled error or
/// a crash) and the payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invoked {
    pub function_error: Option<String>,
    pub payload: Vec<u8>,
}

/// The two AWS calls the hook makes.
#[async_trait::async_trait]
pub trait Aws: Send + Sync {
    /// Lambda `Invoke` (RequestResponse) of `function` (a version ARN) with `payload`.
    async fn invoke(&self, function: &str, payload: &[u8]) -> Result<Invoked, AwsError>;
    /// CodeDeploy `PutLifecycleEventHookExecutionStatus`.
    async fn report(&self, event: &HookEvent, status: Status) -> Result<(), AwsError>;
}

/// Dependencies: the targets and the AWS calls.
pub struct Deps {
    pub targets: Vec<String>,
    pub aws: Arc<dyn Aws>,
}

impl Build for Deps {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        let raw = w.names.required(TARGETS_ENV)?;
        let targets: Vec<String> = raw
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect();
        if targets.is_empty() {
            return Err(ConfigError::Malformed(TARGETS_ENV.to_owned()));
        }
        let aws = SignedHttp::from_env(w.clock.clone())
            .map_err(|e| ConfigError::Client(e.to_string()))?;
        Ok(Self {
            targets,
            aws: Arc::new(aws),
        })
    }
}

/// The request every target is invoked with: API Gateway's HTTP API event (payload 2.0) for
/// `POST /v1/payments/{id}/...` with an empty JSON body, its authorizer context naming a
/// merchant that does not exist (test mode). Every payment route answers it `404 not_found`.
pub fn smoke_event() -> Value {
    let path = format!("/v1/payments/{SMOKE_PAYMENT}");
    json!({
        "version": "2.0",
        "routeKey": "POST /v1/payments/{id}",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {
            "content-type": "application/json",
            "user-agent": "paygate-deploy-hook",
        },
        "pathParameters": { "id": SMOKE_PAYMENT },
        "requestContext": {
            "accountId": "anonymous",
            "apiId": "deploy-smoke",
            "domainName": "deploy-smoke.invalid",
            "domainPrefix": "deploy-smoke",
            "http": {
                "method": "POST",
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": "paygate-deploy-hook",
            },
            "requestId": "deploy-smoke",
            "routeKey": "POST /v1/payments/{id}",
            "stage": "$default",
            "time": "01/Jan/2026:00:00:00 +0000",
            "timeEpoch": 0,
            "authorizer": {
                "lambda": {
                    "merchantId": SMOKE_MERCHANT,
                    "mode": "test",
                    "keyId": SMOKE_KEY,
                }
            },
        },
        "body": "{}",
        "isBase64Encoded": false,
    })
}

/// Whether an invoked version's answer is the healthy one: no function error, and an API
/// Gateway response `404` whose body is the envelope with `not_found`.
pub fn check_answer(invoked: &Invoked) -> Result<(), String> {
    if let Some(e) = &invoked.function_error {
        return Err(format!("function error {e}"));
    }
    let answer: Value = serde_json::from_slice(&invoked.payload)
        .map_err(|_| "the answer is not JSON".to_owned())?;
    let status = answer["statusCode"].as_u64();
    let body: Value = answer["body"]
        .as_str()
        .and_then(|b| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    let code = body["error"]["code"].as_str();
    if status == Some(404) && code == Some("not_found") {
        Ok(())
    } else {
        Err(format!(
            "answered {} {}, expected 404 not_found",
            status.map_or("no status".to_owned(), |s| s.to_string()),
            code.unwrap_or("without an error code")
        ))
    }
}

/// The hook's outcome: the verdict reported, and each failing target with its reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub status: Status,
    pub failures: Vec<(String, String)>,
}

/// The hook could not report its verdict.
#[derive(Debug, thiserror::Error)]
#[error("the hook's status was not reported to CodeDeploy: {0}")]
pub struct ReportFailed(#[source] pub AwsError);

/// Smoke-tests every target (one after another: a handful of short invocations), then
/// reports the verdict.
pub async fn run(deps: &Deps, event: &HookEvent) -> Result<Outcome, ReportFailed> {
    let payload = smoke_event().to_string().into_bytes();
    let mut failures = Vec::new();
    for target in &deps.targets {
        let result = match deps.aws.invoke(target, &payload).await {
            Ok(invoked) => check_answer(&invoked),
            Err(e) => Err(format!("not invoked: {e}")),
        };
        match result {
            Ok(()) => tracing::info!(%target, "smoke test passed"),
            Err(reason) => {
                tracing::error!(%target, %reason, "smoke test failed");
                failures.push((target.clone(), reason));
            }
        }
    }
    let status = if failures.is_empty() {
        Status::Succeeded
    } else {
        Status::Failed
    };
    deps.aws.report(event, status).await.map_err(ReportFailed)?;
    tracing::info!(
        deployment = %event.deployment_id,
        status = status.as_str(),
        "reported to CodeDeploy"
    );
    Ok(Outcome { status, failures })
}

#[cfg(test)]
mod tests;
