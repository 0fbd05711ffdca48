//! Vectors signed by `aws-sigv4` itself (through `paygate_cli::sigv4::sign_request`), verified
//! as the dev server receives them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use paygate_cli::sigv4::{sign_request, sign_request_with_headers, AccessKey};

use super::*;

const HOST: &str = "127.0.0.1:3000";
const PATH: &str = "/admin/v1/merchants/mch_anatolia/webhook-endpoints";

fn creds() -> AdminCredentials {
    AdminCredentials {
        access_key_id: "AKIDLOCALADMIN0001".into(),
        secret_access_key: "localAdminSecretKey/forDevOnly+000000001".into(),
        region: "us-east-1".into(),
    }
}

/// 2026-11-21T09:30:00Z.
fn t0() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_795_253_400)
}

fn ts(t: SystemTime) -> Timestamp {
    Timestamp::from_unix_millis(
        i64::try_from(t.duration_since(UNIX_EPOCH).unwrap().as_millis()).unwrap(),
    )
}

/// The headers a signed request arrives with (plus `host` and any `extra`).
fn signed(
    method: &str,
    path_and_query: &str,
    body: &[u8],
    key: &AccessKey,
    region: &str,
    at: SystemTime,
    extra: &[(&str, &str)],
) -> HeaderMap {
    let url = format!("http://{HOST}{path_and_query}");
    let sig = if extra.is_empty() {
        sign_request(method, &url, body, key, region, at).unwrap()
    } else {
        sign_request_with_headers(method, &url, extra, body, key, region, at).unwrap()
    };
    let mut h = HeaderMap::new();
    h.insert("host", HeaderValue::from_static(HOST));
    for (k, v) in extra {
        h.insert(
            HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    for (k, v) in sig {
        h.insert(k, HeaderValue::from_str(&v).unwrap());
    }
    h
}

fn verifier() -> Verifier {
    Verifier::new(Some(creds()))
}

#[test]
fn a_request_signed_with_the_admin_key_passes() {
    let c = creds();
    let body = br#"{"url":"https://a.example.com","events":["*"],"mode":"test"}"#;
    let h = signed(
        "POST",
        PATH,
        body,
        &c.access_key(),
        &c.region,
        t0(),
        &[("content-type", "application/json")],
    );
    assert_eq!(
        verifier().verify("POST", PATH, &h, body, ts(t0())),
        Ok(c.access_key_id.clone())
    );
    // a query string and an empty body
    let q = format!("{PATH}/whe_1/deliveries?status=failed&limit=2");
    let h = signed("GET", &q, b"", &c.access_key(), &c.region, t0(), &[]);
    assert!(verifier().verify("GET", &q, &h, b"", ts(t0())).is_ok());
    // up to five minutes either way
    for skew in [-299_000, 299_000] {
        assert!(verifier()
            .verify("GET", &q, &h, b"", ts(t0()).plus_millis(skew))
            .is_ok());
    }
}

#[test]
fn unsigned_and_malformed_requests_are_refused() {
    let v = verifier();
    let mut h = HeaderMap::new();
    h.insert("host", HeaderValue::from_static(HOST));
    assert_eq!(
        v.verify("GET", PATH, &h, b"", ts(t0())),
        Err(Rejection::Unsigned)
    );
    h.insert(
        "authorization",
        HeaderValue::from_static("Bearer sk_test_x"),
    );
    assert_eq!(
        v.verify("GET", PATH, &h, b"", ts(t0())),
        Err(Rejection::Unsigned)
    );
    h.insert("x-amz-date", HeaderValue::from_static("20261121T093000Z"));
    assert_eq!(
        v.verify("GET", PATH, &h, b"", ts(t0())),
        Err(Rejection::Malformed)
    );
    // without credentials configured, even a good signature is refused
    let c = creds();
    let good = signed("GET", PATH, b"", &c.access_key(), &c.region, t0(), &[]);
    assert_eq!(
        Verifier::new(None).verify("GET", PATH, &good, b"", ts(t0())),
        Err(Rejection::NotConfigured)
    );
}

#[test]
fn another_key_region_or_service_is_refused() {
    let c = creds();
    let mut other = c.access_key();
    other.access_key_id = "AKIDSOMEONEELSE".into();
    let h = signed("GET", PATH, b"", &other, &c.region, t0(), &[]);
    assert_eq!(
        verifier().verify("GET", PATH, &h, b"", ts(t0())),
        Err(Rejection::UnknownKey)
    );
    // the right key id with the wrong secret
    let mut wrong = c.access_key();
    wrong.secret_access_key = "not-the-secret".into();
    let h = signed("GET", PATH, b"", &wrong, &c.region, t0(), &[]);
    assert_eq!(
        verifier().verify("GET", PATH, &h, b"", ts(t0())),
        Err(Rejection::BadSignature)
    );
    // another region
    let h = signed("GET", PATH, b"", &c.access_key(), "eu-central-1", t0(), &[]);
    assert!(matches!(
        verifier().verify("GET", PATH, &h, b"", ts(t0())),
        Err(Rejection::WrongScope { .. })
    ));
}

#[test]
fn tampering_with_method_path_query_header_or_body_is_refused() {
    let c = creds();
    let body = br#"{"enabled":false}"#;
    let path = format!("{PATH}/whe_1");
    let h = signed(
        "PATCH",
        &path,
        body,
        &c.access_key(),
        &c.region,
        t0(),
        &[("content-type", "application/json")],
    );
    let v = verifier();
    let now = ts(t0());
    assert!(v.verify("PATCH", &path, &h, body, now).is_ok());
    assert_eq!(
        v.verify("DELETE", &path, &h, body, now),
        Err(Rejection::BadSignature)
    );
    assert_eq!(
        v.verify(
            "PATCH",
            &path.replace("mch_anatolia", "mch_bosphorus"),
            &h,
            body,
            now
        ),
        Err(Rejection::BadSignature)
    );
    assert_eq!(
        v.verify("PATCH", &format!("{path}?x=1"), &h, body, now),
        Err(Rejection::BadSignature)
    );
    assert_eq!(
        v.verify("PATCH", &path, &h, br#"{"enabled":true}"#, now),
        Err(Rejection::BadSignature)
    );
    let mut changed = h.clone();
    changed.insert("content-type", HeaderValue::from_static("text/plain"));
    assert_eq!(
        v.verify("PATCH", &path, &changed, body, now),
        Err(Rejection::BadSignature)
    );
    let mut dropped = h.clone();
    dropped.remove("content-type");
    assert_eq!(
        v.verify("PATCH", &path, &dropped, body, now),
        Err(Rejection::Malformed)
    );
    let mut redated = h.clone();
    redated.insert("x-amz-date", HeaderValue::from_static("20261121T093100Z"));
    assert_eq!(
        v.verify("PATCH", &path, &redated, body, now),
        Err(Rejection::BadSignature)
    );
    let mut flipped = h;
    let auth = flipped["authorization"].to_str().unwrap().to_owned();
    let last = auth.chars().last().unwrap();
    let other = if last == '0' { '1' } else { '0' };
    flipped.insert(
        "authorization",
        HeaderValue::from_str(&format!("{}{other}", &auth[..auth.len() - 1])).unwrap(),
    );
    assert_eq!(
        v.verify("PATCH", &path, &flipped, body, now),
        Err(Rejection::BadSignature)
    );
}

#[test]
fn a_stale_or_future_date_is_refused() {
    let c = creds();
    let h = signed("GET", PATH, b"", &c.access_key(), &c.region, t0(), &[]);
    for skew in [-301_000, 301_000, 86_400_000] {
        assert_eq!(
            verifier().verify("GET", PATH, &h, b"", ts(t0()).plus_millis(skew)),
            Err(Rejection::Stale),
            "{skew}"
        );
    }
}
