//! The local server against a recording stand-in for the API: it forwards only
//! `/admin/v1/merchants/…`, signs what it forwards (the signature recomputed here), refuses
//! other hosts, origins and token-less calls before anything reaches the API, and serves
//! the page with its token and a strict content security policy.

use std::sync::{Arc, Mutex};

use axum::{extract::Request, http::StatusCode, response::IntoResponse, Router};
use serde_json::{json, Value};

use super::{guard::Guard, server, session::Session, Dashboard, SignerSource};
use crate::{
    client::Signer,
    sigv4::{compute_signature, parse_amz_date, AccessKey, AuthorizationHeader},
};

const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const SESSION: &str = "5e5510115e5510115e5510115e5510115e5510115e5510115e5510115e551011";
const LAUNCH: &str = "1a0c41a0c41a0c41a0c41a0c41a0c41a0c41a0c41a0c41a0c41a0c41a0c41a0";

fn key() -> AccessKey {
    AccessKey {
        access_key_id: "AKIATESTDASHBOARD".to_owned(),
        secret_access_key: "dashboard/test/secret".to_owned(),
    }
}

#[derive(Debug, Clone)]
struct Seen {
    method: String,
    uri: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

type Log = Arc<Mutex<Vec<Seen>>>;

/// What the stand-in API answers to `format=csv`.
const CSV: &str = "date,accountId,kind,orderId\r\n2026-11-26,acc_1,missing_here,\"<b>o,1\"\r\n";

/// A stand-in API on a free port: records every request; `/…/missing` answers the API's
/// 404 envelope, `/…/gateway` API Gateway's `{"message"}`, `format=csv` 200 [`CSV`] as
/// `text/csv`, anything else 201 `{"ok":true}`.
async fn upstream() -> (String, Log) {
    let log: Log = Arc::default();
    let rec = log.clone();
    let app = Router::new().fallback(move |req: Request| {
        let rec = rec.clone();
        async move {
            let (parts, body) = req.into_parts();
            let body = axum::body::to_bytes(body, 1 << 20).await.unwrap().to_vec();
            let headers = parts
                .headers
                .iter()
                .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
                .collect();
            let uri = parts.uri.to_string();
            rec.lock().unwrap().push(Seen {
                method: parts.method.to_string(),
                uri: uri.clone(),
                headers,
                body,
            });
            if uri.contains("/missing") {
                let e = json!({"error": {"code": "not_found", "message": "No such endpoint."}});
                (StatusCode::NOT_FOUND, e.to_string()).into_response()
            } else if uri.contains("/gateway") {
                (StatusCode::FORBIDDEN, r#"{"message":"Forbidden"}"#).into_response()
            } else if uri.contains("format=csv") {
                let mut resp = (StatusCode::OK, CSV).into_response();
                resp.headers_mut().insert(
                    "content-type",
                    axum::http::HeaderValue::from_static("text/csv; charset=utf-8"),
                );
                resp
            } else {
                (StatusCode::CREATED, r#"{"ok":true}"#).into_response()
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), log)
}

/// A dashboard forwarding to `base` on a free port, its launch spent already (the calls
/// carry the session cookie); its port.
async fn dashboard(base: &str) -> u16 {
    dashboard_with(base, |port| Session::established(port, SESSION.to_owned())).await
}

/// A dashboard forwarding to `base` on a free port with the session `session` makes.
async fn dashboard_with(base: &str, session: impl FnOnce(u16) -> Session) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let d = Dashboard {
        guard: Guard::new(port, TOKEN.to_owned()),
        session: session(port),
        base: url::Url::parse(base).unwrap(),
        signer: SignerSource::Fixed(Signer {
            key: key(),
            session_token: None,
            region: "eu-central-1".to_owned(),
        }),
        http: reqwest::Client::new(),
        merchants: vec!["mch_anatolia".to_owned(), "mch_bosphorus".to_owned()],
        signing: "test credentials".to_owned(),
        clock: crate::client::system_now,
    };
    tokio::spawn(server::serve(listener, Arc::new(d), std::future::pending()));
    port
}

struct Call<'a> {
    method: &'a str,
    path: &'a str,
    host: Option<String>,
    origin: Option<&'a str>,
    token: Option<&'a str>,
    cookie: Option<String>,
    body: Option<&'a str>,
}

impl<'a> Call<'a> {
    fn new(port: u16, method: &'a str, path: &'a str) -> Self {
        Self {
            method,
            path,
            host: Some(format!("127.0.0.1:{port}")),
            origin: None,
            token: Some(TOKEN),
            cookie: Some(format!("paygate_dashboard_{port}={SESSION}")),
            body: None,
        }
    }

    async fn send(self, port: u16) -> (u16, reqwest::header::HeaderMap, String) {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let mut req = http.request(
            reqwest::Method::from_bytes(self.method.as_bytes()).unwrap(),
            format!("http://127.0.0.1:{port}{}", self.path),
        );
        if let Some(h) = self.host {
            req = req.header("host", h);
        }
        if let Some(o) = self.origin {
            req = req.header("origin", o);
        }
        if let Some(t) = self.token {
            req = req.header("x-paygate-dashboard", t);
        }
        if let Some(c) = self.cookie {
            req = req.header("cookie", c);
        }
        if let Some(b) = self.body {
            req = req
                .header("content-type", "application/json")
                .body(b.to_owned());
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        (status, headers, resp.text().await.unwrap())
    }
}

/// Recomputes the SigV4 signature of a forwarded request over the headers it says it
/// signed, as API Gateway (and the dev server's verifier) do.
fn assert_signed(seen: &Seen, upstream_host: &str) {
    let auth = AuthorizationHeader::parse(seen.header("authorization").expect("signed"))
        .expect("a SigV4 Authorization header");
    assert_eq!(auth.access_key_id, "AKIATESTDASHBOARD");
    assert_eq!(auth.region, "eu-central-1");
    assert_eq!(auth.service, "execute-api");
    let date = seen.header("x-amz-date").unwrap();
    let headers: Vec<(&str, &str)> = auth
        .signed_headers
        .iter()
        .map(|h| {
            (
                h.as_str(),
                seen.header(h).unwrap_or_else(|| panic!("{h} sent")),
            )
        })
        .collect();
    let uri = format!("http://{upstream_host}{}", seen.uri);
    let expected = compute_signature(
        &seen.method,
        &uri,
        &headers,
        &seen.body,
        &key(),
        "eu-central-1",
        parse_amz_date(date).unwrap(),
    )
    .unwrap();
    assert_eq!(auth.signature, expected, "signature of {}", seen.uri);
}

#[tokio::test]
async fn admin_calls_are_signed_and_forwarded_with_body_and_query() {
    let (base, log) = upstream().await;
    let port = dashboard(&base).await;
    let host = base.trim_start_matches("http://").to_owned();

    let mut post = Call::new(
        port,
        "POST",
        "/admin/v1/merchants/mch_anatolia/webhook-endpoints",
    );
    post.body = Some(r#"{"url":"https://shop.example/h","events":["*"],"mode":"test"}"#);
    let (status, _, body) = post.send(port).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body, r#"{"ok":true}"#);

    let origin = format!("http://localhost:{port}");
    let mut get = Call::new(
        port,
        "GET",
        "/admin/v1/merchants/mch_anatolia/webhook-endpoints/whe_1/deliveries?status=failed&limit=20",
    );
    get.origin = Some(&origin);
    get.host = Some(format!("localhost:{port}"));
    let (status, _, _) = get.send(port).await;
    assert_eq!(status, 201);

    let seen = log.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].method, "POST");
    assert_eq!(
        seen[0].uri,
        "/admin/v1/merchants/mch_anatolia/webhook-endpoints"
    );
    assert_eq!(
        seen[0].body,
        br#"{"url":"https://shop.example/h","events":["*"],"mode":"test"}"#
    );
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert_eq!(
        seen[1].uri,
        "/admin/v1/merchants/mch_anatolia/webhook-endpoints/whe_1/deliveries?status=failed&limit=20"
    );
    for s in &seen {
        assert_signed(s, &host);
        // the page's token and origin stay here
        assert_eq!(s.header("x-paygate-dashboard"), None);
        assert_eq!(s.header("origin"), None);
        assert_eq!(s.header("host"), Some(host.as_str()));
    }
}

#[tokio::test]
async fn only_admin_merchant_paths_and_methods_reach_the_api() {
    let (base, log) = upstream().await;
    let port = dashboard(&base).await;
    for (method, path, want) in [
        ("GET", "/v1/payments/pay_1", 404),
        ("POST", "/v1/payments/pay_1/capture", 405),
        ("GET", "/admin/v2/merchants/m/webhook-endpoints", 404),
        ("GET", "/admin/v1/merchants/m", 404),
        (
            "GET",
            "/admin/v1/merchants/m/%2e%2e/%2e%2e/v1/payments",
            404,
        ),
        ("GET", "/admin/v1/merchants/m/a%2Fb", 404),
        ("PUT", "/admin/v1/merchants/m/webhook-endpoints", 405),
        (
            "GET",
            "/admin/v1/merchants/m/webhook-endpoints/../../../../v1/payments/p",
            404,
        ),
        ("GET", "/https://evil.example/admin/v1/merchants/m/x", 404),
    ] {
        let (status, _, body) = Call::new(port, method, path).send(port).await;
        assert_eq!(status, want, "{method} {path}: {body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert!(
            v["error"]["code"]
                .as_str()
                .unwrap()
                .starts_with("dashboard_"),
            "{body}"
        );
    }
    assert!(log.lock().unwrap().is_empty(), "nothing reached the API");
}

#[tokio::test]
async fn foreign_hosts_origins_and_missing_tokens_are_refused() {
    let (base, log) = upstream().await;
    let port = dashboard(&base).await;
    let path = "/admin/v1/merchants/mch_anatolia/webhook-endpoints";

    let mut rebound = Call::new(port, "GET", path);
    rebound.host = Some(format!("attacker.example:{port}"));
    let mut foreign = Call::new(port, "POST", path);
    foreign.origin = Some("https://attacker.example");
    foreign.body = Some("{}");
    let mut no_token = Call::new(port, "POST", path);
    no_token.body = Some("{}");
    no_token.token = None;
    let mut wrong_token = Call::new(port, "GET", path);
    wrong_token.token = Some("0000");
    for (call, code) in [
        (rebound, "dashboard_forbidden_host"),
        (foreign, "dashboard_forbidden_origin"),
        (no_token, "dashboard_forbidden_token"),
        (wrong_token, "dashboard_forbidden_token"),
    ] {
        let (status, _, body) = call.send(port).await;
        assert_eq!(status, 403, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["error"]["code"], json!(code));
    }
    // the page itself is not served to a rebound name either, nor the config without token
    let mut page = Call::new(port, "GET", "/");
    page.host = Some(format!("attacker.example:{port}"));
    assert_eq!(page.send(port).await.0, 403);
    let mut config = Call::new(port, "GET", "/dashboard/config");
    config.token = None;
    assert_eq!(config.send(port).await.0, 403);
    assert!(log.lock().unwrap().is_empty(), "nothing reached the API");
}

#[tokio::test]
async fn only_the_browser_that_opened_the_launch_link_is_served() {
    let (base, log) = upstream().await;
    let port = dashboard_with(&base, |port| {
        Session::new(port, LAUNCH.to_owned(), SESSION.to_owned())
    })
    .await;
    let cookie = format!("paygate_dashboard_{port}={SESSION}");
    let link = format!("/launch/{LAUNCH}");
    let api = "/admin/v1/merchants/mch_anatolia/webhook-endpoints";
    let refused = |status: u16, body: &str, code: &str| {
        let v: Value = serde_json::from_str(body).unwrap();
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (401, Some(code)),
            "{body}"
        );
    };

    // GIVEN a local client without the link: the page, its files, its config and the API
    // are all refused (even with the token, even with a guessed session cookie)
    for path in ["/", "/index.html", "/app.js", "/dashboard/config", api] {
        let mut c = Call::new(port, "GET", path);
        c.cookie = None;
        let (status, _, body) = c.send(port).await;
        refused(status, &body, "dashboard_unauthenticated");
        assert!(!body.contains(TOKEN));
        let mut early = Call::new(port, "GET", path);
        early.cookie = Some(cookie.clone());
        let (status, _, body) = early.send(port).await;
        refused(status, &body, "dashboard_unauthenticated");
    }
    // AND a wrong launch secret, a HEAD of the right one, or one from a rebound name
    // open nothing and do not spend it
    let (status, _, _) = Call::new(port, "GET", &format!("/launch/{}", &LAUNCH[1..]))
        .send(port)
        .await;
    assert_eq!(status, 403);
    let (status, _, _) = Call::new(port, "HEAD", &format!("/launch/{LAUNCH}"))
        .send(port)
        .await;
    assert_eq!(status, 405);
    let mut rebound = Call::new(port, "GET", &link);
    rebound.host = Some(format!("attacker.example:{port}"));
    assert_eq!(rebound.send(port).await.0, 403);

    // WHEN the browser opens the link
    let mut launch = Call::new(port, "GET", &link);
    launch.cookie = None;
    let (status, headers, _) = launch.send(port).await;
    // THEN a redirect to the page sets the session cookie (not the launch secret)
    assert_eq!(status, 303);
    assert_eq!(headers["location"], "/");
    assert_eq!(
        headers["set-cookie"].to_str().unwrap(),
        format!("{cookie}; HttpOnly; SameSite=Strict; Path=/")
    );
    assert_eq!(headers["cache-control"], "no-store");
    // AND with the cookie the page and the API answer
    let (status, _, body) = Call::new(port, "GET", "/").send(port).await;
    assert_eq!(status, 200);
    assert!(body.contains(TOKEN));
    assert_eq!(Call::new(port, "GET", api).send(port).await.0, 201);
    // AND the link is spent: a second client opening it gets nothing, the cookie holder is
    // just sent to the page
    let mut again = Call::new(port, "GET", &link);
    again.cookie = None;
    let (status, headers, body) = again.send(port).await;
    assert_eq!(status, 403, "{body}");
    assert!(headers.get("set-cookie").is_none());
    let (status, headers, _) = Call::new(port, "GET", &format!("/launch/{LAUNCH}"))
        .send(port)
        .await;
    assert_eq!((status, headers.get("set-cookie")), (303, None));
    let mut no_cookie = Call::new(port, "POST", api);
    no_cookie.cookie = None;
    no_cookie.body = Some("{}");
    let (status, _, body) = no_cookie.send(port).await;
    refused(status, &body, "dashboard_unauthenticated");
    assert_eq!(
        log.lock().unwrap().len(),
        1,
        "only the session's call reached the API"
    );
}

#[tokio::test]
async fn the_page_carries_the_token_and_a_strict_policy() {
    let (base, _log) = upstream().await;
    let port = dashboard(&base).await;
    let mut page = Call::new(port, "GET", "/");
    page.token = None;
    let (status, headers, body) = page.send(port).await;
    assert_eq!(status, 200);
    assert!(body.contains(&format!("content=\"{TOKEN}\"")));
    assert!(!body.contains(super::assets::TOKEN_PLACEHOLDER));
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'none'") && csp.contains("script-src 'self'"));
    assert!(csp.contains("frame-ancestors 'none'"));
    assert_eq!(headers["x-frame-options"], "DENY");
    assert!(headers.get("access-control-allow-origin").is_none());

    for (path, ct) in [
        ("/app.js", "text/javascript"),
        ("/app.css", "text/css"),
        ("/api.js", "text/javascript"),
    ] {
        let mut c = Call::new(port, "GET", path);
        c.token = None;
        let (status, headers, _) = c.send(port).await;
        assert_eq!(status, 200, "{path}");
        assert!(headers["content-type"].to_str().unwrap().starts_with(ct));
    }
    let (status, _, body) = Call::new(port, "GET", "/dashboard/config").send(port).await;
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["merchants"], json!(["mch_anatolia", "mch_bosphorus"]));
}

#[test]
fn no_asset_builds_html_from_strings_or_loads_from_elsewhere() {
    for (path, asset) in super::assets::FILES {
        for banned in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
            "src=\"http",
            "href=\"http",
            "src=\"//",
            "href=\"//",
            "url(",
            "@import",
            "fetch(\"http",
        ] {
            assert!(!asset.body.contains(banned), "{path} uses {banned}");
        }
    }
}

#[test]
fn the_payment_page_words_every_decline_code_as_the_api_does() {
    use paygate_domain::{DeclineCode, Lang};
    let page = super::assets::get("/payment.js").unwrap().body;
    for code in DeclineCode::ALL {
        let line = format!("    {}: {:?},", code.as_str(), code.message(Lang::En));
        assert!(page.contains(&line), "payment.js lacks {line}");
    }
}

#[tokio::test]
async fn api_errors_keep_their_envelope_and_an_unreachable_api_is_explained() {
    let (base, _log) = upstream().await;
    let port = dashboard(&base).await;
    let (status, _, body) = Call::new(
        port,
        "GET",
        "/admin/v1/merchants/m/webhook-endpoints/missing",
    )
    .send(port)
    .await;
    assert_eq!(status, 404);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"error": {"code": "not_found", "message": "No such endpoint."}})
    );
    let (status, _, body) = Call::new(port, "GET", "/admin/v1/merchants/m/gateway")
        .send(port)
        .await;
    assert_eq!(status, 403);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"error": {"code": "gateway", "message": "Forbidden"}})
    );

    // an API that is not there: a port nothing listens on
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dead = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let port = dashboard(&dead).await;
    let (status, _, body) = Call::new(port, "GET", "/admin/v1/merchants/m/webhook-endpoints")
        .send(port)
        .await;
    assert_eq!(status, 502);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["code"], json!("dashboard_upstream_unreachable"));
    assert!(v["error"]["message"].as_str().unwrap().contains(&dead));
}

#[tokio::test]
async fn a_csv_answer_is_passed_on_as_it_came() {
    let (base, log) = upstream().await;
    let port = dashboard(&base).await;
    let (status, headers, body) = Call::new(
        port,
        "GET",
        "/admin/v1/merchants/mch_anatolia/reconciliations?date=2026-11-26&format=csv",
    )
    .send(port)
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, CSV);
    assert_eq!(
        headers.get("content-type").unwrap(),
        "text/csv; charset=utf-8"
    );
    assert_eq!(headers.get("x-content-type-options").unwrap(), "nosniff");
    let seen = log.lock().unwrap().clone();
    assert_eq!(
        seen[0].uri,
        "/admin/v1/merchants/mch_anatolia/reconciliations?date=2026-11-26&format=csv"
    );
    assert_signed(&seen[0], base.trim_start_matches("http://"));
}
