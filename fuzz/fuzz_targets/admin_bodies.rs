//! The admin API's input (`paygate_http::admin::input`): any bytes as the body of every
//! admin route (endpoint create and patch, secret rotation, test event and resend, recover,
//! API key create and roll), as an endpoint URL (alone, after a host, and repeated up to the
//! length limit, where percent-encoding makes it grow) and as the delivery history's query
//! string; and, since raw bytes rarely form an object with the right fields, the same bytes
//! shaped into one (`common/shape.rs`: a valid body of a route, then fields set or
//! removed). Besides no panic: a refusal is a 4xx, never a 5xx; what is accepted respects
//! the documented limits, and an accepted URL (the stored, normalised form) is accepted
//! again as itself.
#![no_main]
#[path = "common/shape.rs"]
mod shape;

use lambda_http::{Body, Request};
use libfuzzer_sys::fuzz_target;
use paygate_domain::Timestamp;
use paygate_http::{
    admin::input::{
        self, HistoryQuery, MAX_CURSOR_LEN, MAX_DESCRIPTION_CHARS, MAX_GRACE_SECONDS, MAX_LIMIT,
        MAX_URL_LEN,
    },
    parse_object, ApiError,
};
use paygate_webhooks::EgressPolicy;
use serde_json::{Map, Value};

/// The fields the admin bodies have.
const KEYS: &[&str] = &[
    "url",
    "events",
    "mode",
    "description",
    "enabled",
    "graceSeconds",
    "name",
    "expiresInHours",
    "since",
    "until",
];

/// Words the admin bodies accept (or nearly): URLs, event types, modes, times around `NOW`.
const WORDS: &[&str] = &[
    "https://hooks.example.com/h",
    "https://Hooks.Example.COM:443/a/../b?q=1#f",
    "https://10.0.0.1/",
    "https://[::1]/",
    "https://user:pw@a.example.com/",
    "http://a.example.com/",
    "https://xn--bcher-kva.example/",
    "https://bücher.example/",
    "*",
    "payment.captured",
    "payment.requires_action",
    "webhook.test",
    "test",
    "live",
    "2027-01-15T07:00:00Z",
    "2027-01-15T07:59:59.999Z",
    "2027-01-15T08:00:00Z",
    "2027-01-01T00:00:00+03:00",
    "2026-12-01T00:00:00Z",
    " ",
    "é",
    "",
];

/// A valid body of each route that takes fields.
const BASES: &[&str] = &[
    r#"{"url": "https://hooks.example.com/h", "events": ["*"], "mode": "test"}"#,
    r#"{"url": "https://hooks.example.com/h", "events": ["payment.captured"], "mode": "live", "description": "d", "enabled": false}"#,
    r#"{"graceSeconds": 3600}"#,
    r#"{"mode": "live", "name": "ci"}"#,
    r#"{"expiresInHours": 24}"#,
    r#"{"since": "2027-01-15T07:00:00Z", "until": "2027-01-15T07:30:00Z"}"#,
];

/// 2027-01-15T08:00:00Z.
const NOW: i64 = 1_800_000_000_000;

fn refused(e: &ApiError) {
    assert!(e.status.is_client_error(), "a refusal must be a 4xx: {e:?}");
}

/// What is stored for `url` is within the limit and is accepted again as itself.
fn url(u: &str, egress: &EgressPolicy) {
    match input::valid_url(u, egress) {
        Ok(stored) => {
            assert!(
                stored.len() <= MAX_URL_LEN,
                "stored URL over the limit: {}",
                stored.len()
            );
            assert!(stored.starts_with("https://"), "{stored}");
            assert_eq!(input::valid_url(&stored, egress), Ok(stored.clone()));
        }
        Err(e) => refused(&e),
    }
}

fn description(d: &str) {
    assert!(d.chars().count() <= MAX_DESCRIPTION_CHARS);
}

fn events(list: &[paygate_domain::webhook::EventFilter]) {
    assert!(!list.is_empty());
    for (i, e) in list.iter().enumerate() {
        assert!(!list[..i].contains(e), "duplicate event filter");
    }
}

/// Every admin route's body parser on `body`.
fn bodies(body: &Map<String, Value>, egress: &EgressPolicy) {
    let now = Timestamp::from_unix_millis(NOW);
    match input::new_endpoint(body, egress) {
        Ok(e) => {
            url(&e.url, egress);
            events(&e.events);
            description(&e.description);
        }
        Err(e) => refused(&e),
    }
    match input::endpoint_patch(body, egress) {
        Ok(p) => {
            if let Some(u) = &p.url {
                url(u, egress);
            }
            if let Some(list) = &p.events {
                events(list);
            }
            if let Some(d) = &p.description {
                description(d);
            }
        }
        Err(e) => refused(&e),
    }
    match input::rotation_grace(body) {
        Ok(g) => assert!((0..=MAX_GRACE_SECONDS).contains(&g)),
        Err(e) => refused(&e),
    }
    match input::no_fields(body) {
        Ok(()) => assert!(body.is_empty()),
        Err(e) => refused(&e),
    }
    match input::new_api_key(body) {
        Ok(k) => {
            assert!(k.name.chars().count() <= paygate_domain::apikey::MAX_NAME_CHARS);
            assert_eq!(k.name, k.name.trim());
        }
        Err(e) => refused(&e),
    }
    match input::roll_expiry_hours(body) {
        Ok(h) => assert!((1..=paygate_domain::apikey::MAX_ROLL_EXPIRY_HOURS).contains(&h)),
        Err(e) => refused(&e),
    }
    match input::recover_range(body, now) {
        Ok(r) => assert!(r.since <= now && r.since < r.until),
        Err(e) => refused(&e),
    }
}

fuzz_target!(|data: &[u8]| {
    let egress = EgressPolicy::strict();

    let mut req = Request::new(Body::Binary(data.to_vec()));
    req.headers_mut().insert(
        "content-type",
        lambda_http::http::HeaderValue::from_static("application/json"),
    );
    match parse_object(&req) {
        Ok(body) => bodies(&body, &egress),
        Err(e) => refused(&e),
    }
    let shaped = shape::object(&mut shape::Reader::new(data), BASES, KEYS, WORDS);
    bodies(&shaped, &egress);

    let text = String::from_utf8_lossy(data);
    url(&text, &egress);
    let mut long = String::from("https://hooks.example.com/");
    long.push_str(&text);
    url(&long, &egress);
    if !text.is_empty() {
        // The text repeated up to the limit as sent: whatever grows when normalised shows.
        while long.len() + text.len() <= MAX_URL_LEN {
            long.push_str(&text);
        }
        url(&long, &egress);
    }
    match HistoryQuery::from_query(Some(&text)) {
        Ok(q) => {
            assert!(q.limit.is_none_or(|n| (1..=MAX_LIMIT).contains(&n)));
            assert!(q
                .cursor
                .is_none_or(|c| !c.is_empty() && c.len() <= MAX_CURSOR_LEN));
        }
        Err(e) => refused(&e),
    }
});
