//! The hook's two AWS calls as plain HTTPS requests signed with SigV4 (the SDK's own
//! signer, `aws-sigv4`), with the function's credentials from Lambda's environment.
//!
//! - Lambda `Invoke`: `POST /2015-03-31/functions/{arn}/invocations`, service `lambda`.
//! - CodeDeploy `PutLifecycleEventHookExecutionStatus`: `POST /` with
//!   `X-Amz-Target: CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus` and an
//!   `application/x-amz-json-1.1` body, service `codedeploy`.
//!
//! `AWS_ENDPOINT_URL`, when set, replaces both services' endpoints (tests point it at a
//! local stub), as it does for the AWS SDK.

use std::{
    sync::Arc,
    time::{Duration, SystemTime},
};

use aws_credential_types::Credentials;
use aws_sigv4::{
    http_request::{sign, SignableBody, SignableRequest, SigningSettings},
    sign::v4,
};
use paygate_domain::ports::Clock;
use serde_json::json;

use crate::{Aws, HookEvent, Invoked, Status};

/// One call's bound: an invocation is a cold start and a DynamoDB read at most.
const TIMEOUT: Duration = Duration::from_secs(20);

/// A call failed: not sent, not answered, or answered with an error status.
#[derive(Debug, thiserror::Error)]
pub enum AwsError {
    #[error("missing environment variable {0}")]
    Missing(&'static str),
    #[error("cannot sign the request: {0}")]
    Sign(String),
    #[error("no answer: {0}")]
    Transport(String),
    /// The service's status and error type (`x-amzn-errortype`), never the body.
    #[error("{service} answered {status} {error_type}")]
    Status {
        service: &'static str,
        status: u16,
        error_type: String,
    },
}

/// Credentials and region as Lambda hands them to the function.
#[derive(Clone)]
struct Identity {
    access_key_id: String,
    secret_access_key: String,
    session_token: Option<String>,
    region: String,
}

/// Lambda and CodeDeploy over signed HTTPS.
pub struct SignedHttp {
    client: reqwest::Client,
    /// `None` when the environment lacks credentials or a region: every call then fails.
    identity: Option<Identity>,
    /// `AWS_ENDPOINT_URL`, without a trailing slash.
    endpoint: Option<String>,
    clock: Arc<dyn Clock>,
}

impl SignedHttp {
    /// From Lambda's environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_SESSION_TOKEN`, `AWS_REGION`, and `AWS_ENDPOINT_URL` if set). Missing credentials
    /// are not an error here: the calls fail instead.
    pub fn from_env(clock: Arc<dyn Clock>) -> Result<Self, AwsError> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let identity = match (
            var("AWS_ACCESS_KEY_ID"),
            var("AWS_SECRET_ACCESS_KEY"),
            var("AWS_REGION").or_else(|| var("AWS_DEFAULT_REGION")),
        ) {
            (Some(access_key_id), Some(secret_access_key), Some(region)) => Some(Identity {
                access_key_id,
                secret_access_key,
                session_token: var("AWS_SESSION_TOKEN"),
                region,
            }),
            _ => None,
        };
        Self::new(
            identity.map(|i| {
                (
                    i.access_key_id,
                    i.secret_access_key,
                    i.session_token,
                    i.region,
                )
            }),
            var("AWS_ENDPOINT_URL"),
            clock,
        )
    }

    /// With explicit credentials `(access key id, secret, session token, region)` and
    /// endpoint.
    pub fn new(
        identity: Option<(String, String, Option<String>, String)>,
        endpoint: Option<String>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, AwsError> {
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(paygate_tls::default_client_config())
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .user_agent(concat!("paygate-deploy-hook/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| AwsError::Transport(e.to_string()))?;
        Ok(Self {
            client,
            identity: identity.map(
                |(access_key_id, secret_access_key, session_token, region)| Identity {
                    access_key_id,
                    secret_access_key,
                    session_token,
                    region,
                },
            ),
            endpoint: endpoint.map(|e| e.trim_end_matches('/').to_owned()),
            clock,
        })
    }

    fn identity(&self) -> Result<&Identity, AwsError> {
        self.identity.as_ref().ok_or(AwsError::Missing(
            "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_REGION",
        ))
    }

    fn base(&self, service: &str, region: &str) -> String {
        self.endpoint
            .clone()
            .unwrap_or_else(|| format!("https://{service}.{region}.amazonaws.com"))
    }

    fn now(&self) -> SystemTime {
        let ms = u64::try_from(self.clock.now().unix_millis()).unwrap_or(0);
        SystemTime::UNIX_EPOCH + Duration::from_millis(ms)
    }

    /// Signs and sends `POST url` with `headers` (signed too) and `body`; the answer's
    /// headers and body when its status is 2xx.
    async fn post(
        &self,
        service: &'static str,
        url: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> Result<(reqwest::header::HeaderMap, Vec<u8>), AwsError> {
        let id = self.identity()?;
        let credentials = Credentials::new(
            &id.access_key_id,
            &id.secret_access_key,
            id.session_token.clone(),
            None,
            "lambda-environment",
        )
        .into();
        let params = v4::SigningParams::builder()
            .identity(&credentials)
            .region(&id.region)
            .name(service)
            .time(self.now())
            .settings(SigningSettings::default())
            .build()
            .map_err(|e| AwsError::Sign(e.to_string()))?
            .into();
        let signable = SignableRequest::new(
            "POST",
            url,
            headers.iter().copied(),
            SignableBody::Bytes(&body),
        )
        .map_err(|e| AwsError::Sign(e.to_string()))?;
        let (instructions, _) = sign(signable, &params)
            .map_err(|e| AwsError::Sign(e.to_string()))?
            .into_parts();
        let mut req = self.client.post(url);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        for (name, value) in instructions.headers() {
            req = req.header(name, value);
        }
        let resp = req
            .body(body)
            .send()
            .await
            .map_err(|e| AwsError::Transport(e.without_url().to_string()))?;
        let status = resp.status();
        let answer_headers = resp.headers().clone();
        if !status.is_success() {
            let error_type = answer_headers
                .get("x-amzn-errortype")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned();
            return Err(AwsError::Status {
                service,
                status: status.as_u16(),
                error_type,
            });
        }
        let body = resp
            .bytes()
            .await
            .map_err(|e| AwsError::Transport(e.without_url().to_string()))?;
        Ok((answer_headers, body.to_vec()))
    }
}

/// A function ARN in a URL path: the SDK percent-encodes its colons.
fn path_segment(arn: &str) -> String {
    arn.replace(':', "%3A")
}

#[async_trait::async_trait]
impl Aws for SignedHttp {
    async fn invoke(&self, function: &str, payload: &[u8]) -> Result<Invoked, AwsError> {
        let region = self.identity()?.region.clone();
        let url = format!(
            "{}/2015-03-31/functions/{}/invocations",
            self.base("lambda", &region),
            path_segment(function)
        );
        let (headers, body) = self
            .post(
                "lambda",
                &url,
                &[
                    ("content-type", "application/json"),
                    ("x-amz-invocation-type", "RequestResponse"),
                ],
                payload.to_vec(),
            )
            .await?;
        Ok(Invoked {
            function_error: headers
                .get("x-amz-function-error")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            payload: body,
        })
    }

    async fn report(&self, event: &HookEvent, status: Status) -> Result<(), AwsError> {
        let region = self.identity()?.region.clone();
        let url = format!("{}/", self.base("codedeploy", &region));
        let body = json!({
            "deploymentId": event.deployment_id,
            "lifecycleEventHookExecutionId": event.lifecycle_event_hook_execution_id,
            "status": status.as_str(),
        });
        self.post(
            "codedeploy",
            &url,
            &[
                ("content-type", "application/x-amz-json-1.1"),
                (
                    "x-amz-target",
                    "CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus",
                ),
            ],
            body.to_string().into_bytes(),
        )
        .await
        .map(|_| ())
    }
}
