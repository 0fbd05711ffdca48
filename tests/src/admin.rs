//! Driving the dashboard's admin API over HTTP with requests signed like in AWS (SigV4,
//! service `execute-api`), with the local admin credentials of `infra/local/seed.json`.
//!
//! The signer itself is `paygate_cli::sigv4::sign_request` (re-exported here): the same one the
//! CLI uses.

use std::time::SystemTime;

pub use paygate_cli::sigv4::{
    sign_request, sign_request_with_headers, AccessKey, AdminCredentials,
};
use serde_json::Value;

use crate::{Reply, Stack};

/// The seed's admin credentials.
pub fn admin_credentials() -> AdminCredentials {
    crate::seed()
        .admin
        .clone()
        .expect("seed.json has admin credentials")
}

/// Now, for signing (the harness is a client; clients read the clock).
#[allow(clippy::disallowed_methods)]
pub fn now() -> SystemTime {
    SystemTime::now()
}

/// How an admin request is signed.
#[derive(Debug, Clone)]
pub enum Signing {
    /// Not at all.
    None,
    /// With these credentials and region, at this time.
    With {
        key: AccessKey,
        region: String,
        at: SystemTime,
    },
}

impl Signing {
    /// The seed's admin credentials, now.
    pub fn admin() -> Self {
        let c = admin_credentials();
        Self::With {
            key: c.access_key(),
            region: c.region,
            at: now(),
        }
    }
}

/// An admin request to send, and what to change after signing it (to tamper).
#[derive(Debug, Clone)]
pub struct AdminRequest {
    pub method: String,
    /// Path and query, e.g. `/admin/v1/merchants/mch_anatolia/webhook-endpoints?x=1`.
    pub path: String,
    /// Sent as `application/json` (and `content-type` is signed) when present.
    pub body: Option<String>,
    pub signing: Signing,
    /// Sent instead of the signed path, when set (a tampered path).
    pub send_path: Option<String>,
    /// Sent instead of the signed body, when set (a tampered body).
    pub send_body: Option<String>,
}

impl AdminRequest {
    pub fn new(method: &str, path: &str, body: Option<&Value>) -> Self {
        Self {
            method: method.to_owned(),
            path: path.to_owned(),
            body: body.map(Value::to_string),
            signing: Signing::admin(),
            send_path: None,
            send_body: None,
        }
    }
}

impl Stack {
    /// Sends an admin request signed with the seed's admin credentials.
    /// Signed at the stack's time (its clock may have been moved ahead).
    pub async fn admin(&self, method: &str, path: &str, body: Option<&Value>) -> Reply {
        let mut req = AdminRequest::new(method, path, body);
        if let Signing::With { at, .. } = &mut req.signing {
            let offset = self.clock.offset_millis();
            let shift = std::time::Duration::from_millis(offset.unsigned_abs());
            *at = if offset >= 0 {
                *at + shift
            } else {
                *at - shift
            };
        }
        self.admin_request(req).await
    }

    /// Sends `req` as described (signed or not, tampered or not).
    pub async fn admin_request(&self, req: AdminRequest) -> Reply {
        let url = format!("{}{}", self.url, req.path);
        let body = req.body.clone().unwrap_or_default();
        let content_type = req
            .body
            .as_ref()
            .map(|_| ("content-type", "application/json"));
        let mut headers: Vec<(String, String)> = content_type
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        if let Signing::With { key, region, at } = &req.signing {
            let extra: Vec<(&str, &str)> = content_type.into_iter().collect();
            let signed = sign_request_with_headers(
                &req.method,
                &url,
                &extra,
                body.as_bytes(),
                key,
                region,
                *at,
            )
            .expect("the request can be signed");
            headers.extend(signed.into_iter().map(|(k, v)| (k.to_owned(), v)));
        }
        let method = reqwest::Method::from_bytes(req.method.as_bytes()).expect("a method");
        let send_url = format!(
            "{}{}",
            self.url,
            req.send_path.as_deref().unwrap_or(&req.path)
        );
        let mut r = self.http.request(method, send_url);
        for (k, v) in headers {
            r = r.header(k, v);
        }
        let sent_body = req.send_body.or(req.body);
        if let Some(b) = sent_body {
            r = r.body(b);
        }
        let resp = r.send().await.expect("the stack answers HTTP");
        let status = resp.status();
        let text = resp.text().await.expect("a readable body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply { status, body, text }
    }
}
