//! HTTP clients over one `reqwest::Client`: the admin API (every request signed with AWS
//! Signature Version 4 for `execute-api`, as API Gateway's IAM authorization and the dev
//! server's emulation of it require) and the merchant API (`Authorization: Bearer
//! sk_test_…`).

use std::time::{Duration, SystemTime};

use crate::sigv4::{sign_request_with_session_token, AccessKey};
use reqwest::Method;
use serde_json::Value;
use url::Url;

use crate::CliError;

/// How long one API call may take, whole.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Resolved credentials and the region they sign for.
#[derive(Clone)]
pub struct Signer {
    pub key: AccessKey,
    /// Temporary credentials' token (STS, SSO, roles): sent as `x-amz-security-token`.
    pub session_token: Option<String>,
    pub region: String,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field("key", &self.key)
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "[redacted]"),
            )
            .field("region", &self.region)
            .finish()
    }
}

impl Signer {
    /// The headers that sign `method url` with `body` (and `content-type`, when given) at
    /// `now`.
    pub fn sign(
        &self,
        method: &str,
        url: &Url,
        content_type: Option<&str>,
        body: &[u8],
        now: SystemTime,
    ) -> Result<Vec<(&'static str, String)>, CliError> {
        let extra: Vec<(&str, &str)> = content_type
            .map(|ct| vec![("content-type", ct)])
            .unwrap_or_default();
        sign_request_with_session_token(
            method,
            url.as_str(),
            &extra,
            body,
            &self.key,
            self.session_token.as_deref(),
            &self.region,
            now,
        )
        .map_err(|e| CliError::Credentials(e.to_string()))
    }
}

/// The wall clock, read here only (signing needs it; the library's logic takes time as an
/// argument).
#[allow(clippy::disallowed_methods)]
pub fn system_now() -> SystemTime {
    SystemTime::now()
}

/// The HTTP client every command shares.
pub fn http_client() -> Result<reqwest::Client, CliError> {
    reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .user_agent(concat!("paygate-cli/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| CliError::Listener(format!("cannot build the HTTP client: {e}")))
}

/// `base` + path segments (each percent-encoded) + query. `base` may carry a path prefix
/// (a stage, `https://…/prod`).
pub fn api_url(base: &Url, segments: &[&str], query: &[(&str, String)]) -> Result<Url, CliError> {
    let mut url = base.clone();
    {
        let mut path = url
            .path_segments_mut()
            .map_err(|()| CliError::usage(format!("--api-url {base} cannot take a path")))?;
        path.pop_if_empty();
        path.extend(segments);
    }
    url.set_query(None);
    if !query.is_empty() {
        url.query_pairs_mut()
            .extend_pairs(query.iter().map(|(k, v)| (*k, v.as_str())));
    }
    Ok(url)
}

/// Parses `--api-url`: http or https, with a host.
pub fn parse_base_url(raw: &str) -> Result<Url, CliError> {
    let url = Url::parse(raw.trim())
        .map_err(|e| CliError::usage(format!("--api-url {raw:?} is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(CliError::usage(format!(
            "--api-url {raw:?} must be an http:// or https:// URL with a host"
        )));
    }
    Ok(url)
}

/// Sends a request; the JSON answer of a 2xx, or the API's error.
async fn send(
    http: &reqwest::Client,
    method: Method,
    url: Url,
    headers: Vec<(&'static str, String)>,
    body: Option<String>,
) -> Result<Value, CliError> {
    let path = url.path().to_owned();
    let what = format!("{method} {path}");
    let text = send_text(http, method, url, headers, body).await?;
    match serde_json::from_str(&text) {
        Ok(v) => Ok(v),
        Err(_) if text.trim().is_empty() => Ok(Value::Null),
        Err(_) => Err(CliError::Decode {
            what,
            message: format!("not JSON: {}", crate::output::snippet(&text, 200)),
        }),
    }
}

/// Sends a request; the body of a 2xx as it came (a CSV, say), or the API's error.
async fn send_text(
    http: &reqwest::Client,
    method: Method,
    url: Url,
    headers: Vec<(&'static str, String)>,
    body: Option<String>,
) -> Result<String, CliError> {
    let path = url.path().to_owned();
    let mut req = http.request(method.clone(), url.clone());
    for (k, v) in headers {
        req = req.header(k, v);
    }
    if let Some(b) = body {
        req = req.body(b);
    }
    let http_err = |e: reqwest::Error| CliError::Http {
        method: method.to_string(),
        url: url.to_string(),
        message: if e.is_connect() {
            format!("{}\n{}", error_chain(&e), connect_hint(&url))
        } else {
            error_chain(&e)
        },
    };
    let resp = req.send().await.map_err(http_err)?;
    let status = resp.status();
    let text = resp.text().await.map_err(http_err)?;
    if status.is_success() {
        return Ok(text);
    }
    let json: Option<Value> = serde_json::from_str(&text).ok();
    let (code, message) = error_parts(json.as_ref(), &text);
    Err(CliError::Api {
        method: method.to_string(),
        path,
        status: status.as_u16(),
        code,
        message,
    })
}

/// The code and message of an error answer: paygate's envelope, API Gateway's
/// `{"message": …}`, or the start of the text.
pub fn error_parts(json: Option<&Value>, text: &str) -> (String, String) {
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    match json {
        Some(v) if v.get("error").is_some() => (
            s(v.pointer("/error/code")).unwrap_or_else(|| "error".to_owned()),
            s(v.pointer("/error/message")).unwrap_or_default(),
        ),
        Some(v) if v.get("message").is_some() || v.get("Message").is_some() => (
            "gateway".to_owned(),
            s(v.get("message").or_else(|| v.get("Message"))).unwrap_or_default(),
        ),
        _ => ("error".to_owned(), crate::output::snippet(text, 200)),
    }
}

/// What to do when nothing answers at `url`'s address: the local stack's port or the API's
/// URL reaches the CLI by these settings.
pub fn connect_hint(url: &Url) -> String {
    format!(
        "nothing answers at {}: is the stack running? `make dev` serves http://127.0.0.1:$PAYGATE_PORT \
         (3000 unless set); give the CLI the same PAYGATE_PORT, or the API's URL with --api-url / \
         PAYGATE_API_URL (a deployed stack: its ApiUrl output)",
        url.origin().ascii_serialization()
    )
}

/// An error and its causes, `: `-joined (reqwest's own message says little).
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cur = s.source();
    }
    out
}

/// The admin API of one merchant, signed.
pub struct AdminClient<'a> {
    pub http: &'a reqwest::Client,
    pub base: &'a Url,
    pub signer: &'a Signer,
    pub merchant: &'a str,
    pub clock: fn() -> SystemTime,
}

impl AdminClient<'_> {
    /// `/admin/v1/merchants/{merchant}/…rest` under the base URL.
    pub fn url(&self, rest: &[&str], query: &[(&str, String)]) -> Result<Url, CliError> {
        let mut segments = vec!["admin", "v1", "merchants", self.merchant];
        segments.extend_from_slice(rest);
        api_url(self.base, &segments, query)
    }

    /// Sends a signed request (`body` as JSON, `content-type` signed too).
    pub async fn call(
        &self,
        method: Method,
        url: Url,
        body: Option<&Value>,
    ) -> Result<Value, CliError> {
        let text = body.map(Value::to_string);
        let content_type = text.as_ref().map(|_| "application/json");
        let mut headers = self.signer.sign(
            method.as_str(),
            &url,
            content_type,
            text.as_deref().unwrap_or_default().as_bytes(),
            (self.clock)(),
        )?;
        if let Some(ct) = content_type {
            headers.push(("content-type", ct.to_owned()));
        }
        send(self.http, method, url, headers, text).await
    }

    /// Sends a signed request without a body; the 2xx answer's body as it came (the
    /// reconciliation CSV is printed unchanged).
    pub async fn call_text(&self, method: Method, url: Url) -> Result<String, CliError> {
        let headers = self
            .signer
            .sign(method.as_str(), &url, None, b"", (self.clock)())?;
        send_text(self.http, method, url, headers, None).await
    }

    pub async fn create_endpoint(&self, body: &Value) -> Result<Value, CliError> {
        let url = self.url(&["webhook-endpoints"], &[])?;
        self.call(Method::POST, url, Some(body)).await
    }

    pub async fn list_endpoints(&self) -> Result<Value, CliError> {
        let url = self.url(&["webhook-endpoints"], &[])?;
        self.call(Method::GET, url, None).await
    }

    /// `grace_seconds`: `None` for the server's default (24 h).
    pub async fn rotate_secret(
        &self,
        id: &str,
        grace_seconds: Option<i64>,
    ) -> Result<Value, CliError> {
        let url = self.url(&["webhook-endpoints", id, "rotate-secret"], &[])?;
        let body = match grace_seconds {
            Some(g) => serde_json::json!({ "graceSeconds": g }),
            None => serde_json::json!({}),
        };
        self.call(Method::POST, url, Some(&body)).await
    }

    pub async fn delete_endpoint(&self, id: &str) -> Result<Value, CliError> {
        let url = self.url(&["webhook-endpoints", id], &[])?;
        self.call(Method::DELETE, url, None).await
    }

    pub async fn send_test_event(&self, id: &str) -> Result<Value, CliError> {
        let url = self.url(&["webhook-endpoints", id, "test"], &[])?;
        self.call(Method::POST, url, Some(&serde_json::json!({})))
            .await
    }

    pub async fn list_deliveries(
        &self,
        endpoint: &str,
        query: &[(&str, String)],
    ) -> Result<Value, CliError> {
        let url = self.url(&["webhook-endpoints", endpoint, "deliveries"], query)?;
        self.call(Method::GET, url, None).await
    }

    pub async fn event_deliveries(&self, event: &str) -> Result<Value, CliError> {
        let url = self.url(&["events", event, "deliveries"], &[])?;
        self.call(Method::GET, url, None).await
    }

    pub async fn get_delivery(&self, id: &str) -> Result<Value, CliError> {
        let url = self.url(&["deliveries", id], &[])?;
        self.call(Method::GET, url, None).await
    }

    pub async fn recover(&self, endpoint: &str, body: &Value) -> Result<Value, CliError> {
        let url = self.url(&["webhook-endpoints", endpoint, "recover"], &[])?;
        self.call(Method::POST, url, Some(body)).await
    }

    pub async fn endpoint_health(&self, endpoint: &str) -> Result<Value, CliError> {
        let url = self.url(&["webhook-endpoints", endpoint, "health"], &[])?;
        self.call(Method::GET, url, None).await
    }

    pub async fn create_api_key(&self, body: &Value) -> Result<Value, CliError> {
        let url = self.url(&["api-keys"], &[])?;
        self.call(Method::POST, url, Some(body)).await
    }

    pub async fn list_api_keys(&self) -> Result<Value, CliError> {
        let url = self.url(&["api-keys"], &[])?;
        self.call(Method::GET, url, None).await
    }

    /// `expires_in_hours`: `None` for the server's default (24 h).
    pub async fn roll_api_key(
        &self,
        id: &str,
        expires_in_hours: Option<i64>,
    ) -> Result<Value, CliError> {
        let url = self.url(&["api-keys", id, "roll"], &[])?;
        let body = match expires_in_hours {
            Some(h) => serde_json::json!({ "expiresInHours": h }),
            None => serde_json::json!({}),
        };
        self.call(Method::POST, url, Some(&body)).await
    }

    pub async fn revoke_api_key(&self, id: &str) -> Result<Value, CliError> {
        let url = self.url(&["api-keys", id], &[])?;
        self.call(Method::DELETE, url, None).await
    }

    pub async fn resend_delivery(&self, id: &str) -> Result<Value, CliError> {
        let url = self.url(&["deliveries", id, "resend"], &[])?;
        self.call(Method::POST, url, Some(&serde_json::json!({})))
            .await
    }
}

/// The merchant API with one API key.
pub struct MerchantClient<'a> {
    pub http: &'a reqwest::Client,
    pub base: &'a Url,
    pub api_key: &'a str,
}

impl MerchantClient<'_> {
    async fn post(&self, segments: &[&str], body: &Value) -> Result<Value, CliError> {
        self.post_keyed(segments, body, None).await
    }

    /// POST with an `Idempotency-Key`, when given.
    async fn post_keyed(
        &self,
        segments: &[&str],
        body: &Value,
        idempotency_key: Option<String>,
    ) -> Result<Value, CliError> {
        let url = api_url(self.base, segments, &[])?;
        let mut headers = vec![
            ("authorization", format!("Bearer {}", self.api_key)),
            ("content-type", "application/json".to_owned()),
        ];
        if let Some(key) = idempotency_key {
            headers.push(("idempotency-key", key));
        }
        send(
            self.http,
            Method::POST,
            url,
            headers,
            Some(body.to_string()),
        )
        .await
    }

    /// `POST /v1/test_helpers/payments` (test keys only): the created payment.
    pub async fn create_test_payment(&self, body: &Value) -> Result<Value, CliError> {
        self.post(&["v1", "test_helpers", "payments"], body).await
    }

    /// `POST /v1/payments/{id}/{operation}` (capture, cancel, refund, query). Every money
    /// operation carries a fresh `Idempotency-Key`, so a retry of it can never move money
    /// twice.
    pub async fn operation(
        &self,
        payment: &str,
        operation: &str,
        body: &Value,
    ) -> Result<Value, CliError> {
        let key = is_money_operation(operation)
            .then(new_idempotency_key)
            .transpose()?;
        self.post_keyed(&["v1", "payments", payment, operation], body, key)
            .await
    }
}

/// Whether `operation` moves money (and so is sent with an `Idempotency-Key`).
pub fn is_money_operation(operation: &str) -> bool {
    matches!(operation, "capture" | "cancel" | "refund")
}

/// A fresh key: 128 random bits, hex.
pub fn new_idempotency_key() -> Result<String, CliError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|_| CliError::usage("no randomness available for an Idempotency-Key"))?;
    Ok(format!("paygate-cli-{}", hex_of(&bytes)))
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
