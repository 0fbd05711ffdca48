//! Real requests through the local stack (part 3): the [`SCENARIO`] transcript, body
//! hygiene, parallel refunds, resends and coverage, each answer validated against the
//! document.

use std::collections::{BTreeMap, BTreeSet};

use paygate_tests::{admin, card_number, keys, Stack, WebhookOptions};
use serde_json::{json, Value};

use crate::{
    doc, error_codes, operations, response_schema,
    scenario::SCENARIO,
    validator::{short, Validator},
};

/// One HTTP answer as received.
struct Answer {
    status: u16,
    content_type: String,
    text: String,
}

/// How a request authenticates.
#[derive(Clone, Copy)]
enum Auth<'a> {
    None,
    Bearer(&'a str),
    /// SigV4 with the seed's local admin credentials.
    Admin,
}

async fn send(
    stack: &Stack,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: Option<(&str, String)>,
) -> Answer {
    send_as(
        stack,
        method,
        path,
        key.map_or(Auth::None, Auth::Bearer),
        body,
    )
    .await
}

async fn send_as(
    stack: &Stack,
    method: &str,
    path: &str,
    auth: Auth<'_>,
    body: Option<(&str, String)>,
) -> Answer {
    let url = format!("{}{path}", stack.url);
    let mut req = stack.http.request(
        reqwest::Method::from_bytes(method.as_bytes()).expect("method"),
        &url,
    );
    match auth {
        Auth::None => {}
        Auth::Bearer(k) => req = req.header("authorization", format!("Bearer {k}")),
        Auth::Admin => {
            let creds = admin::admin_credentials();
            let signed_type: Vec<(&str, &str)> =
                body.iter().map(|(ct, _)| ("content-type", *ct)).collect();
            let payload = body.as_ref().map(|(_, b)| b.as_bytes()).unwrap_or_default();
            let headers = admin::sign_request_with_headers(
                method,
                &url,
                &signed_type,
                payload,
                &creds.access_key(),
                &creds.region,
                admin::now(),
            )
            .expect("signable");
            for (k, v) in headers {
                req = req.header(k, v);
            }
        }
    }
    if let Some((content_type, body)) = body {
        req = req.header("content-type", content_type).body(body);
    }
    let resp = req.send().await.expect("the stack answers");
    let status = resp.status().as_u16();
    let content_type = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let text = resp.text().await.expect("a body");
    Answer {
        status,
        content_type,
        text,
    }
}

/// `POST path` with a test key, an `Idempotency-Key` and a JSON body; the answer and its
/// `Idempotent-Replayed` header.
async fn send_idempotent(
    stack: &Stack,
    path: &str,
    idempotency_key: &str,
    body: &str,
) -> (Answer, Option<String>) {
    let resp = stack
        .http
        .post(format!("{}{path}", stack.url))
        .header("authorization", format!("Bearer {}", keys().anatolia_test))
        .header("content-type", "application/json")
        .header("idempotency-key", idempotency_key)
        .body(body.to_owned())
        .send()
        .await
        .expect("the stack answers");
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let replayed = header("idempotent-replayed");
    let content_type = header("content-type").unwrap_or_default();
    let status = resp.status().as_u16();
    let text = resp.text().await.expect("a body");
    let answer = Answer {
        status,
        content_type,
        text,
    };
    (answer, replayed)
}

/// The documented route (`"POST /v1/payments/{id}/refund"`) a request path falls under: the
/// matching template with the most literal segments.
fn route_of(method: &str, path: &str) -> Option<String> {
    let path = path.split('?').next().unwrap_or(path);
    let segments: Vec<&str> = path.split('/').collect();
    operations(doc())
        .into_keys()
        .filter_map(|route| {
            let (m, template) = route.split_once(' ')?;
            let t: Vec<&str> = template.split('/').collect();
            let fits = m == method
                && t.len() == segments.len()
                && t.iter()
                    .zip(&segments)
                    .all(|(t, s)| t.starts_with('{') || t == s);
            let literal = t.iter().filter(|t| !t.starts_with('{')).count();
            fits.then_some((literal, route))
        })
        .max()
        .map(|(_, route)| route)
}

/// Next whitespace-separated token of `s`, and the rest.
fn token(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let end = s.find(' ').unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Sends requests to the stack, validates every answer against the document and against
/// the scenario's expectations, and records what was covered.
struct Conformance<'a> {
    stack: &'a Stack,
    vars: BTreeMap<String, String>,
    failures: Vec<String>,
    /// Route → statuses seen.
    seen: BTreeMap<String, BTreeSet<u16>>,
    codes: BTreeSet<String>,
}

impl<'a> Conformance<'a> {
    fn new(stack: &'a Stack) -> Self {
        Self {
            stack,
            vars: BTreeMap::new(),
            failures: Vec::new(),
            seen: BTreeMap::new(),
            codes: BTreeSet::new(),
        }
    }

    fn substitute(&self, s: &str) -> String {
        self.vars
            .iter()
            .fold(s.to_owned(), |s, (k, v)| s.replace(&format!("{{{k}}}"), v))
    }

    /// Runs one line of [`SCENARIO`].
    async fn line(&mut self, line: &str) {
        let (request, checks) = line.split_once(" => ").unwrap_or((line, ""));
        let request = self.substitute(request);
        let (key, rest) = token(&request);
        let (method, rest) = token(rest);
        let (path, rest) = token(rest);
        let (status, rest) = token(rest);
        let (expect, rest) = if status.starts_with('2') {
            (status.to_owned(), rest)
        } else {
            let (code, rest) = token(rest);
            (format!("{status} {code}"), rest)
        };
        let k = keys();
        let auth = match key {
            "t" => Auth::Bearer(k.anatolia_test),
            "l" => Auth::Bearer(k.anatolia_live),
            "b" => Auth::Bearer(k.bosphorus_test),
            "x" => Auth::Bearer("sk_test_notAKeyAtAll0000000000"),
            "-" => Auth::None,
            "A" => Auth::Admin,
            other => panic!("unknown key {other:?} in: {line}"),
        };
        let body = rest.trim();
        let body = (!body.is_empty()).then(|| ("application/json", body.to_owned()));
        let what = format!("{method} {path}");
        let answer = send_as(self.stack, method, path, auth, body).await;
        let json = match route_of(method, path) {
            Some(route) => self.check(&route, &what, &answer),
            None => {
                self.failures
                    .push(format!("{what}: not a documented route"));
                Value::Null
            }
        };
        self.expect(&what, &answer, &json, &expect);
        for check in checks.split_whitespace() {
            if let Some(name) = check.strip_prefix('@') {
                let (name, pointer) = name.split_once(':').unwrap_or((name, "/id"));
                let id = json
                    .pointer(pointer)
                    .and_then(Value::as_str)
                    .unwrap_or("pay_missing")
                    .to_owned();
                self.vars.insert(name.to_owned(), id);
                continue;
            }
            let (pointer, want) = check.split_once('=').expect("CHECK is /pointer=<json>");
            let want: Value = serde_json::from_str(want)
                .unwrap_or_else(|e| panic!("bad JSON in check {check}: {e}"));
            if json.pointer(pointer) != Some(&want) {
                let got = json.pointer(pointer).map_or("nothing".to_owned(), short);
                self.failures
                    .push(format!("{what}: {pointer} should be {want}, is {got}"));
            }
        }
    }

    /// Checks `answer` to a request on the documented `route`; returns its JSON body.
    fn check(&mut self, route: &str, what: &str, answer: &Answer) -> Value {
        self.seen
            .entry(route.to_owned())
            .or_default()
            .insert(answer.status);
        match response_schema(doc(), route, answer.status) {
            Ok(schema) => self.check_against(what, schema, answer),
            Err(e) => {
                self.failures.push(format!("{what}: {e}: {}", answer.text));
                serde_json::from_str(&answer.text).unwrap_or(Value::Null)
            }
        }
    }

    fn check_against(&mut self, what: &str, schema: &Value, answer: &Answer) -> Value {
        if !answer.content_type.starts_with("application/json") {
            let ct = &answer.content_type;
            self.failures.push(format!("{what}: content-type {ct:?}"));
        }
        let Ok(body) = serde_json::from_str::<Value>(&answer.text) else {
            let text = &answer.text;
            self.failures.push(format!("{what}: not JSON: {text}"));
            return Value::Null;
        };
        let status = answer.status;
        for e in (Validator { root: doc() }).errors(schema, &body) {
            self.failures.push(format!("{what} ({status}): {e}"));
        }
        if status >= 400 {
            let code = body["error"]["code"].as_str().unwrap_or("<none>");
            if !error_codes(doc()).contains(code) {
                let problem = format!("{what}: error code {code} is not in ErrorCode");
                self.failures.push(problem);
            }
            self.codes.insert(code.to_owned());
        }
        body
    }

    /// Records a behaviour mismatch: `expect` is `"<status>"` or `"<status> <code>"`.
    fn expect(&mut self, what: &str, answer: &Answer, body: &Value, expect: &str) {
        let got = match body["error"]["code"].as_str() {
            Some(code) if expect.contains(' ') => format!("{} {code}", answer.status),
            _ => answer.status.to_string(),
        };
        if got != expect {
            let body = short(body);
            let problem = format!("{what}: expected {expect}, got {got}: {body}");
            self.failures.push(problem);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_answers_as_documented() {
    // One retry a second after a failure: the admin scenario's delivery fails within seconds.
    let webhook = WebhookOptions {
        schedule: paygate_domain::webhook::RetrySchedule::parse("1s").expect("a schedule"),
        ..WebhookOptions::default()
    };
    let stack = Stack::start_with_webhooks("openapi", webhook).await;
    let mut c = Conformance::new(&stack);
    for (name, prefix, suffix) in [
        ("isbank", "454360", ""),
        ("isbank5100", "454360", "5100"),
        ("isbank9100", "454360", "9100"),
        ("yapikredi", "450803", ""),
        ("garanti", "540669", ""),
        ("unknownbin", "979200", ""),
    ] {
        c.vars
            .insert(name.to_owned(), card_number(prefix, 16, suffix));
    }
    for line in SCENARIO.lines() {
        if !line.trim().is_empty() && !line.starts_with('#') {
            c.line(line).await;
        }
    }

    // Body hygiene on two routes: a non-JSON content type, and a body over 64 KiB.
    let t = Some(keys().anatolia_test);
    let refund = "/v1/payments/pay_anatoliaCapt2/refund";
    let plain = Some(("text/plain", r#"{"amount": 100}"#.to_owned()));
    let a = send(&stack, "POST", refund, t, plain.clone()).await;
    let body = c.check("POST /v1/payments/{id}/refund", refund, &a);
    c.expect(refund, &a, &body, "415 unsupported_media_type");
    let helper = "/v1/test_helpers/payments";
    let a = send(&stack, "POST", helper, t, plain).await;
    let body = c.check("POST /v1/test_helpers/payments", helper, &a);
    c.expect(helper, &a, &body, "415 unsupported_media_type");
    let big = format!("{{\"amount\": 1{}}}", " ".repeat(70_000));
    let a = send(&stack, "POST", refund, t, Some(("application/json", big))).await;
    let body = c.check("POST /v1/payments/{id}/refund", refund, &a);
    c.expect(refund, &a, &body, "413 request_too_large");

    // Idempotency-Key: a refund replayed (same answer, marked), the key reused with another
    // body, a malformed key.
    let route = "POST /v1/payments/{id}/refund";
    let refund_once = r#"{"amount": 100}"#;
    let (first, replayed) = send_idempotent(&stack, refund, "openapi-1", refund_once).await;
    let first_body = c.check(route, refund, &first);
    c.expect(refund, &first, &first_body, "200");
    let (again, again_replayed) =
        send_idempotent(&stack, refund, "openapi-1", r#"{ "amount" : 100 }"#).await;
    let again_body = c.check(route, refund, &again);
    if replayed.is_some() || again_replayed.as_deref() != Some("true") || again_body != first_body {
        let problem = format!(
            "replay: first {replayed:?} {first_body}, again {again_replayed:?} {again_body}"
        );
        c.failures.push(problem);
    }
    let (a, _) = send_idempotent(&stack, refund, "openapi-1", r#"{"amount": 200}"#).await;
    let body = c.check(route, refund, &a);
    c.expect(refund, &a, &body, "422 idempotency_key_reused");
    let long = "k".repeat(256);
    let (a, _) = send_idempotent(&stack, refund, &long, refund_once).await;
    let body = c.check(route, refund, &a);
    c.expect(refund, &a, &body, "400 invalid_idempotency_key");

    // Parallel refunds of one payment: whatever each one gets must be documented.
    let path = "/v1/payments/pay_bosphorusCapt2/refund";
    let b = Some(keys().bosphorus_test);
    let one = || Some(("application/json", r#"{"amount": 100}"#.to_owned()));
    let parallel = (0..6).map(|_| send(&stack, "POST", path, b, one()));
    for a in futures::future::join_all(parallel).await {
        c.check("POST /v1/payments/{id}/refund", path, &a);
        if a.status != 200 && a.status != 409 {
            let problem = format!("parallel refund: {} {}", a.status, a.text);
            c.failures.push(problem);
        }
    }

    // Resend: once the test delivery has failed (its attempts to localhost are refused),
    // it is resent (202), and a resend while it is pending again is 409.
    let delivery = format!(
        "/admin/v1/merchants/mch_anatolia/deliveries/{}",
        c.vars["delivery"]
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let a = send_as(&stack, "GET", &delivery, Auth::Admin, None).await;
        let body = c.check(
            "GET /admin/v1/merchants/{merchantId}/deliveries/{deliveryId}",
            &delivery,
            &a,
        );
        if body["status"] == json!("failed") {
            if body["attempts"][0]["error"] != json!("blocked") {
                c.failures
                    .push(format!("the localhost attempt was not blocked: {body}"));
            }
            break;
        }
        if std::time::Instant::now() > deadline {
            c.failures
                .push(format!("the test delivery never failed: {body}"));
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let resend = format!("{delivery}/resend");
    let route = "POST /admin/v1/merchants/{merchantId}/deliveries/{deliveryId}/resend";
    let a = send_as(&stack, "POST", &resend, Auth::Admin, None).await;
    let body = c.check(route, &resend, &a);
    c.expect(&resend, &a, &body, "202");
    let a = send_as(&stack, "POST", &resend, Auth::Admin, None).await;
    let body = c.check(route, &resend, &a);
    c.expect(&resend, &a, &body, "409 delivery_pending");

    // Recover from the test delivery's creation time: it is pending again (resent above),
    // so nothing is requested twice.
    let a = send_as(&stack, "GET", &delivery, Auth::Admin, None).await;
    let shown = c.check(
        "GET /admin/v1/merchants/{merchantId}/deliveries/{deliveryId}",
        &delivery,
        &a,
    );
    let recover = format!(
        "/admin/v1/merchants/mch_anatolia/webhook-endpoints/{}/recover",
        c.vars["endpoint"]
    );
    let since = json!({ "since": shown["createdAt"] }).to_string();
    let a = send_as(
        &stack,
        "POST",
        &recover,
        Auth::Admin,
        Some(("application/json", since)),
    )
    .await;
    let body = c.check(
        "POST /admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}/recover",
        &recover,
        &a,
    );
    c.expect(&recover, &a, &body, "202");

    // Outside the documented routes: the dev server's own answers.
    for (method, path, schema, expect) in [
        (
            "DELETE",
            "/v1/payments/pay_anatoliaCapt2",
            "MethodNotAllowedError",
            "405 method_not_allowed",
        ),
        ("GET", "/v1/nothing/here", "NotFoundError", "404 not_found"),
    ] {
        let a = send(&stack, method, path, t, None).await;
        let schema = json!({ "$ref": format!("#/components/schemas/{schema}") });
        let body = c.check_against(path, &schema, &a);
        c.expect(path, &a, &body, expect);
    }

    // Coverage: every route's success answer, and the main error codes.
    for (route, op) in operations(doc()) {
        let success: u16 = op["responses"]
            .as_object()
            .and_then(|r| r.keys().find(|s| s.starts_with('2')))
            .and_then(|s| s.parse().ok())
            .expect("a success status");
        if !c.seen.get(&route).is_some_and(|s| s.contains(&success)) {
            let problem = format!("{route}: its {success} answer was never exercised");
            c.failures.push(problem);
        }
    }
    for code in [
        "invalid_request",
        "invalid_amount",
        "amount_exceeds_authorized",
        "amount_exceeds_refundable",
        "operation_not_supported",
        "no_account_for_card",
        "unauthorized",
        "not_found",
        "method_not_allowed",
        "invalid_state",
        "operation_outcome_unknown",
        "request_too_large",
        "unsupported_media_type",
        "provider_declined",
        "provider_error",
        "forbidden",
        "delivery_pending",
        "endpoint_disabled",
        "invalid_idempotency_key",
        "idempotency_key_reused",
    ] {
        if !c.codes.contains(code) {
            c.failures
                .push(format!("error code {code} was never exercised"));
        }
    }
    let checked: usize = c.seen.values().map(BTreeSet::len).sum();
    assert!(
        c.failures.is_empty(),
        "{} problem(s) (route/status pairs seen: {checked}):\n  {}",
        c.failures.len(),
        c.failures.join("\n  ")
    );
}

/// A `429 rate_limited` answer (points inquiry, one a second here) is the documented one:
/// its body validates and `Retry-After` is the documented whole number of seconds.
#[tokio::test]
async fn a_rate_limited_answer_is_as_documented() {
    use paygate_domain::throttle::{Limits, RateLimit};
    let limits = Limits {
        api: RateLimit::new(100_000, 1_000_000).unwrap(),
        points: RateLimit::new(1, 1_000_000).unwrap(),
        ..paygate_tests::GENEROUS_LIMITS
    };
    let stack = Stack::start_with_throttle("openapi-429", limits).await;
    let body = paygate_tests::points_body(&card_number("454360", 16, ""), None).to_string();
    let path = "/v1/payments/points/inquiry";
    let send = || {
        stack
            .http
            .post(format!("{}{path}", stack.url))
            .header("authorization", format!("Bearer {}", keys().anatolia_test))
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
    };
    let answers = futures::future::join_all((0..4).map(|_| send())).await;
    let mut c = Conformance::new(&stack);
    let mut limited = 0;
    for resp in answers {
        let resp = resp.unwrap();
        let status = resp.status().as_u16();
        if status != 429 {
            continue;
        }
        limited += 1;
        let retry = resp.headers()["retry-after"].to_str().unwrap().to_owned();
        let retry: u32 = retry.parse().expect("Retry-After is whole seconds");
        assert!((1..=60).contains(&retry), "{retry}");
        let answer = Answer {
            status,
            content_type: resp.headers()["content-type"].to_str().unwrap().to_owned(),
            text: resp.text().await.unwrap(),
        };
        let json = c.check(&format!("POST {path}"), "points inquiry", &answer);
        c.expect("points inquiry", &answer, &json, "429 rate_limited");
    }
    assert!(limited >= 2, "one a second: {limited} of 4 refused");
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n  "));
    assert!(c.codes.contains("rate_limited"));
}
