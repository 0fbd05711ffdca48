//! The admin API's input (`paygate_http::admin::input`): any bytes as the body of every
//! admin route (endpoint create and patch, secret rotation, test event and resend, recover,
//! API key create and roll), as an endpoint URL (alone, after a host, and repeated up to the
//! length limit, where percent-encoding makes it grow) and as the delivery history's query
//! string. Besides no panic: a refusal is a 4xx, never a 5xx; what is accepted respects the
//! documented limits, and an accepted URL (the stored, normalised form) is accepted again
//! as itself.
#![no_main]
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

fn refused(e: &ApiError) {
    assert!(e.status.is_client_error(), "a refusal must be a 4xx: {e:?}");
}

/// What is stored for `url` is within the limit and is accepted again as itself.
fn url(u: &str, egress: &EgressPolicy) {
    match input::valid_url(u, egress) {
        Ok(stored) => {
            assert!(stored.len() <= MAX_URL_LEN, "stored URL over the limit: {}", stored.len());
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

fuzz_target!(|data: &[u8]| {
    let egress = EgressPolicy::strict();
    let now = Timestamp::from_unix_millis(1_800_000_000_000);

    let mut req = Request::new(Body::Binary(data.to_vec()));
    req.headers_mut().insert(
        "content-type",
        lambda_http::http::HeaderValue::from_static("application/json"),
    );
    match parse_object(&req) {
        Err(e) => refused(&e),
        Ok(body) => {
            match input::new_endpoint(&body, &egress) {
                Ok(e) => {
                    url(&e.url, &egress);
                    events(&e.events);
                    description(&e.description);
                }
                Err(e) => refused(&e),
            }
            match input::endpoint_patch(&body, &egress) {
                Ok(p) => {
                    if let Some(u) = &p.url {
                        url(u, &egress);
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
            match input::rotation_grace(&body) {
                Ok(g) => assert!((0..=MAX_GRACE_SECONDS).contains(&g)),
                Err(e) => refused(&e),
            }
            match input::no_fields(&body) {
                Ok(()) => assert!(body.is_empty()),
                Err(e) => refused(&e),
            }
            match input::new_api_key(&body) {
                Ok(k) => {
                    assert!(k.name.chars().count() <= paygate_domain::apikey::MAX_NAME_CHARS);
                    assert_eq!(k.name, k.name.trim());
                }
                Err(e) => refused(&e),
            }
            match input::roll_expiry_hours(&body) {
                Ok(h) => assert!((1..=paygate_domain::apikey::MAX_ROLL_EXPIRY_HOURS).contains(&h)),
                Err(e) => refused(&e),
            }
            match input::recover_range(&body, now) {
                Ok((since, until)) => assert!(since <= now && since < until),
                Err(e) => refused(&e),
            }
        }
    }

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
