//! The dashboard's local HTTP server: the page's assets (compiled in), its config, and the
//! signing forwarder of `/admin/v1/merchants/…` calls. Every request passes the
//! [`Guard`](super::guard::Guard) (Host, Origin) and then needs the
//! [`Session`](super::session::Session) cookie, but for the one-time launch link that sets it.

use std::sync::Arc;

use axum::{
    body::to_bytes,
    extract::{Request, State},
    http::{header, HeaderMap, HeaderValue, Method, StatusCode},
    response::{IntoResponse, Response},
    Router,
};
use serde_json::{json, Value};

use super::{
    assets,
    guard::{admin_segments, method_ok, query_pairs, Guard, Refusal, TOKEN_HEADER},
    session::{Launch, Session, LAUNCH_PREFIX},
    SignerSource,
};
use crate::client::{api_url, error_chain, error_parts};

/// Largest request body forwarded (the admin API's own limit is smaller).
pub const MAX_BODY: usize = 64 * 1024;

/// What the server runs with.
pub struct Dashboard {
    pub guard: Guard,
    /// The launch secret and the session cookie it sets.
    pub session: Session,
    /// The API's base URL.
    pub base: url::Url,
    pub signer: SignerSource,
    pub http: reqwest::Client,
    /// Merchants offered by the selector (the seed's with `--local`, `--merchant`).
    pub merchants: Vec<String>,
    /// How requests are signed, for the page's header (no secret in it).
    pub signing: String,
    pub clock: fn() -> std::time::SystemTime,
}

/// The router of a dashboard.
pub fn router(dashboard: Arc<Dashboard>) -> Router {
    Router::new().fallback(handle).with_state(dashboard)
}

/// Serves `dashboard` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    dashboard: Arc<Dashboard>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(dashboard))
        .with_graceful_shutdown(shutdown)
        .await
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The headers every answer carries: nothing cached, nothing framed, nothing loaded from
/// elsewhere.
fn harden(mut resp: Response) -> Response {
    let h = resp.headers_mut();
    let set = |h: &mut HeaderMap, k: &'static str, v: &'static str| {
        h.insert(k, HeaderValue::from_static(v));
    };
    set(
        h,
        "content-security-policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    set(h, "x-frame-options", "DENY");
    set(h, "x-content-type-options", "nosniff");
    set(h, "referrer-policy", "no-referrer");
    set(h, "cache-control", "no-store");
    set(h, "cross-origin-resource-policy", "same-origin");
    resp
}

/// An answer in the API's error envelope.
pub fn envelope(status: u16, code: &str, message: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = json!({"error": {"code": code, "message": message}});
    json_response(status, body.to_string())
}

fn refused(r: Refusal) -> Response {
    let (status, code, message) = r.answer();
    envelope(status, code, message)
}

fn json_response(status: StatusCode, body: String) -> Response {
    let mut resp = (status, body).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

async fn handle(State(d): State<Arc<Dashboard>>, req: Request) -> Response {
    harden(route(&d, req).await)
}

async fn route(d: &Dashboard, req: Request) -> Response {
    let headers = req.headers();
    if !d.guard.host_ok(header_str(headers, "host")) {
        return refused(Refusal::Host);
    }
    if !d.guard.origin_ok(header_str(headers, "origin")) {
        return refused(Refusal::Origin);
    }
    let path = req.uri().path().to_owned();
    let cookie = header_str(headers, "cookie");
    if let Some(given) = path.strip_prefix(LAUNCH_PREFIX) {
        if req.method() != Method::GET {
            return refused(Refusal::Method);
        }
        return match d.session.redeem(given, cookie) {
            Launch::Granted(set_cookie) => to_page(Some(&set_cookie)),
            Launch::AlreadyIn => to_page(None),
            Launch::Refused => refused(Refusal::Launch),
        };
    }
    if !d.session.cookie_ok(cookie) {
        return refused(Refusal::Session);
    }
    if path.starts_with("/admin/") {
        return forward(d, req).await;
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return refused(Refusal::Method);
    }
    if path == "/dashboard/config" {
        if !d.guard.token_ok(header_str(headers, TOKEN_HEADER)) {
            return refused(Refusal::Token);
        }
        let body = json!({
            "merchants": d.merchants,
            "apiUrl": d.base.as_str(),
            "signing": d.signing,
        });
        return json_response(StatusCode::OK, body.to_string());
    }
    match assets::get(&path) {
        Some(asset) => {
            let body = if asset.is_page {
                asset
                    .body
                    .replace(assets::TOKEN_PLACEHOLDER, d.guard.token())
            } else {
                asset.body.to_owned()
            };
            let mut resp = (StatusCode::OK, body).into_response();
            resp.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(asset.content_type),
            );
            resp
        }
        None => envelope(404, "dashboard_not_found", "No such page."),
    }
}

/// `303 See Other` to `/` (the launch secret leaves the address bar and the history),
/// setting the session cookie when given.
fn to_page(set_cookie: Option<&str>) -> Response {
    let mut resp = StatusCode::SEE_OTHER.into_response();
    let h = resp.headers_mut();
    h.insert(header::LOCATION, HeaderValue::from_static("/"));
    if let Some(c) = set_cookie.and_then(|c| HeaderValue::from_str(c).ok()) {
        h.insert(header::SET_COOKIE, c);
    }
    resp
}

/// Checks, signs and forwards one admin call; answers the API's status and body as they
/// are (its error envelope included; a 2xx `text/csv` answer as CSV), or the dashboard's
/// own envelope when the API could not be reached.
async fn forward(d: &Dashboard, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    if let Err(r) = d.guard.check_call(
        header_str(&parts.headers, "host"),
        header_str(&parts.headers, "origin"),
        header_str(&parts.headers, TOKEN_HEADER),
    ) {
        return refused(r);
    }
    if let Err(r) = method_ok(parts.method.as_str()) {
        return refused(r);
    }
    let segments = match admin_segments(parts.uri.path()) {
        Ok(s) => s,
        Err(r) => return refused(r),
    };
    let body = match to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(_) => {
            return envelope(
                413,
                "dashboard_body_too_large",
                "The request body is larger than 64 KiB.",
            )
        }
    };
    let query = query_pairs(parts.uri.query());
    let query: Vec<(&str, String)> = query.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let url = match api_url(&d.base, &segments, &query) {
        Ok(u) => u,
        Err(e) => return envelope(500, "dashboard_url", &e.to_string()),
    };
    let signer = match d.signer.current().await {
        Ok(s) => s,
        Err(e) => return envelope(502, "dashboard_credentials", &e.to_string()),
    };
    let content_type = (!body.is_empty()).then_some("application/json");
    let signed = match signer.sign(
        parts.method.as_str(),
        &url,
        content_type,
        &body,
        (d.clock)(),
    ) {
        Ok(h) => h,
        Err(e) => return envelope(502, "dashboard_credentials", &e.to_string()),
    };
    let method = reqwest::Method::from_bytes(parts.method.as_str().as_bytes())
        .unwrap_or(reqwest::Method::GET);
    let mut upstream = d.http.request(method, url);
    for (k, v) in signed {
        upstream = upstream.header(k, v);
    }
    if let Some(ct) = content_type {
        upstream = upstream.header("content-type", ct).body(body.to_vec());
    }
    let resp = match upstream.send().await {
        Ok(r) => r,
        Err(e) => {
            return envelope(
                502,
                "dashboard_upstream_unreachable",
                &format!("Cannot reach the API at {}: {}", d.base, error_chain(&e)),
            )
        }
    };
    let status = StatusCode::from_u16(resp.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
    let csv = status.is_success()
        && resp
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("text/csv"));
    let text = match resp.text().await {
        Ok(t) => t,
        Err(e) => {
            return envelope(
                502,
                "dashboard_upstream_unreadable",
                &format!("The API's answer could not be read: {}", error_chain(&e)),
            )
        }
    };
    if csv {
        // The reconciliation CSV (`format=csv`): passed on as it came, for the page to save.
        let mut resp = (status, text).into_response();
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/csv; charset=utf-8"),
        );
        return resp;
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(v) if status.is_success() || v.get("error").is_some() => {
            json_response(status, v.to_string())
        }
        parsed => {
            // Not the API's JSON (API Gateway's `{"message": …}`, an HTML error page):
            // in the envelope, so the page shows one kind of error.
            if status.is_success() && text.trim().is_empty() {
                return json_response(status, "null".to_owned());
            }
            let (code, message) = error_parts(parsed.ok().as_ref(), &text);
            let status = if status.is_success() {
                StatusCode::BAD_GATEWAY
            } else {
                status
            };
            envelope(status.as_u16(), &code, &message)
        }
    }
}
