use paygate_domain::{EventType, Timestamp};
use serde_json::json;

use super::*;

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// The field a refusal names; every refusal here is a 400 `invalid_request`.
fn field(e: &ApiError) -> String {
    assert_eq!(e.status.as_u16(), 400, "{e:?}");
    assert_eq!(e.code, "invalid_request", "{e:?}");
    e.details
        .as_ref()
        .and_then(|d| d["field"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn strict() -> EgressPolicy {
    EgressPolicy::strict()
}

#[test]
fn a_new_endpoint_is_read_with_its_defaults() {
    let e = new_endpoint(
        &obj(json!({"url": " https://Hooks.Example.com/pg ", "events": ["*", "payment.captured", "*"], "mode": "live"})),
        &strict(),
    )
    .unwrap();
    assert_eq!(e.url, "https://hooks.example.com/pg");
    assert_eq!(
        e.events,
        [
            EventFilter::All,
            EventFilter::Only(EventType::PaymentCaptured)
        ]
    );
    assert_eq!(
        (e.mode, e.description.as_str(), e.enabled),
        (Mode::Live, "", true)
    );
}

#[test]
fn a_new_endpoint_names_the_first_field_that_fails_in_field_order() {
    // url is read before events, events before mode, mode before description.
    let cases = [
        (
            json!({"url": "http://a.example.com", "events": [], "mode": "x"}),
            "url",
        ),
        (
            json!({"url": "https://a.example.com", "events": [], "mode": "x"}),
            "events",
        ),
        (
            json!({"url": "https://a.example.com", "events": ["*"], "mode": "x"}),
            "mode",
        ),
        (
            json!({"url": "https://a.example.com", "events": ["*"], "mode": "test", "description": 5}),
            "description",
        ),
        (
            json!({"url": "https://a.example.com", "events": ["*"], "mode": "test", "enabled": null}),
            "enabled",
        ),
        (
            json!({"events": ["*"], "mode": "test", "extra": 1}),
            "extra",
        ),
        (
            json!({"url": "https://a.example.com", "mode": "test"}),
            "events",
        ),
        (
            json!({"url": "https://a.example.com", "events": null, "mode": "test"}),
            "events",
        ),
    ];
    for (body, expected) in cases {
        let e = new_endpoint(&obj(body.clone()), &strict()).unwrap_err();
        assert_eq!(field(&e), expected, "{body}");
    }
}

#[test]
fn a_patch_carries_only_what_is_given() {
    assert_eq!(
        endpoint_patch(&Map::new(), &strict()).unwrap(),
        EndpointPatch::default()
    );
    let p = endpoint_patch(
        &obj(json!({"enabled": false, "description": "d", "events": ["payment.failed"]})),
        &strict(),
    )
    .unwrap();
    assert_eq!(p.url, None);
    assert_eq!(p.enabled, Some(false));
    assert_eq!(p.description.as_deref(), Some("d"));
    assert_eq!(
        p.events,
        Some(vec![EventFilter::Only(EventType::PaymentFailed)])
    );
    for (body, expected) in [
        (json!({"mode": "live"}), "mode"),
        (json!({"url": "https://10.1.2.3/h"}), "url"),
        (json!({"events": "*"}), "events"),
        (json!({"description": "é".repeat(501)}), "description"),
    ] {
        let e = endpoint_patch(&obj(body.clone()), &strict()).unwrap_err();
        assert_eq!(field(&e), expected, "{body}");
    }
    // 500 characters (1000 bytes) is within the limit: characters are counted.
    let p = endpoint_patch(&obj(json!({"description": "é".repeat(500)})), &strict()).unwrap();
    assert_eq!(p.description.map(|d| d.chars().count()), Some(500));
}

#[test]
fn rotation_grace_defaults_and_is_bounded() {
    assert_eq!(rotation_grace(&Map::new()).unwrap(), DEFAULT_GRACE_SECONDS);
    assert_eq!(rotation_grace(&obj(json!({"graceSeconds": 0}))).unwrap(), 0);
    assert_eq!(
        rotation_grace(&obj(json!({"graceSeconds": 604800.0}))).unwrap(),
        MAX_GRACE_SECONDS
    );
    for bad in [
        json!(-1),
        json!(604_801),
        json!(1.5),
        json!("60"),
        json!(null),
    ] {
        let e = rotation_grace(&obj(json!({ "graceSeconds": bad }))).unwrap_err();
        assert_eq!(field(&e), "graceSeconds", "{bad}");
    }
    let e = rotation_grace(&obj(json!({"grace": 1}))).unwrap_err();
    assert_eq!(field(&e), "grace");
}

#[test]
fn bodies_without_fields_take_none() {
    assert!(no_fields(&Map::new()).is_ok());
    let e = no_fields(&obj(json!({"event": "x"}))).unwrap_err();
    assert_eq!(field(&e), "event");
}

#[test]
fn api_key_bodies() {
    let k = new_api_key(&obj(json!({"mode": "test", "name": "  ci  "}))).unwrap();
    assert_eq!((k.mode, k.name.as_str()), (Mode::Test, "ci"));
    assert_eq!(new_api_key(&obj(json!({"mode": "live"}))).unwrap().name, "");
    for (body, expected) in [
        (json!({}), "mode"),
        (json!({"mode": "prod"}), "mode"),
        (json!({"mode": "test", "name": "n".repeat(101)}), "name"),
        (json!({"mode": "test", "name": 1}), "name"),
        (json!({"mode": "test", "secret": "sk"}), "secret"),
    ] {
        let e = new_api_key(&obj(body.clone())).unwrap_err();
        assert_eq!(field(&e), expected, "{body}");
    }
    assert_eq!(roll_expiry_hours(&Map::new()).unwrap(), 24);
    assert_eq!(
        roll_expiry_hours(&obj(json!({"expiresInHours": 168}))).unwrap(),
        168
    );
    for bad in [json!(0), json!(169), json!(-5), json!("1"), json!(2.5)] {
        let e = roll_expiry_hours(&obj(json!({ "expiresInHours": bad }))).unwrap_err();
        assert_eq!(field(&e), "expiresInHours", "{bad}");
    }
}

#[test]
fn recover_ranges_are_bounded_by_now_and_the_retention() {
    let now = Timestamp::parse_iso8601("2026-03-01T12:00:00Z").unwrap();
    let range = recover_range(&obj(json!({"since": "2026-03-01T11:00:00Z"})), now).unwrap();
    assert_eq!(
        (range.since.to_iso8601(), range.until),
        ("2026-03-01T11:00:00.000Z".into(), now)
    );
    for (body, expected) in [
        (json!({}), "since"),
        (json!({"since": "yesterday"}), "since"),
        (json!({"since": "2026-03-01T13:00:00Z"}), "since"),
        (json!({"since": "2025-01-01T00:00:00Z"}), "since"),
        (
            json!({"since": "2026-03-01T11:00:00Z", "until": "2026-03-01T10:00:00Z"}),
            "until",
        ),
        (
            json!({"since": "2026-03-01T11:00:00Z", "until": 5}),
            "until",
        ),
        (
            json!({"since": "2026-03-01T11:00:00Z", "limit": 5}),
            "limit",
        ),
    ] {
        let e = recover_range(&obj(body.clone()), now).unwrap_err();
        assert_eq!(field(&e), expected, "{body}");
    }
}

#[test]
fn the_history_query_is_percent_decoded_and_checked() {
    assert_eq!(
        HistoryQuery::from_query(None).unwrap(),
        HistoryQuery::default()
    );
    assert_eq!(
        HistoryQuery::from_query(Some("")).unwrap(),
        HistoryQuery::default()
    );
    let q = HistoryQuery::from_query(Some("status=failed&limit=100&cursor=ab%2Bcd")).unwrap();
    assert_eq!(q.status, Some(DeliveryStatus::Failed));
    assert_eq!(q.limit, Some(100));
    assert_eq!(q.cursor.as_deref(), Some("ab+cd"));
    for (raw, expected) in [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=-1", "limit"),
        ("limit=1&limit=2", "limit"),
        ("status=done", "status"),
        ("cursor=", "cursor"),
        ("sort=asc", "sort"),
        ("%FF=1", "\u{fffd}"),
    ] {
        let e = HistoryQuery::from_query(Some(raw)).unwrap_err();
        assert_eq!(field(&e), expected, "{raw}");
    }
    let long = format!("cursor={}", "a".repeat(MAX_CURSOR_LEN + 1));
    assert_eq!(
        field(&HistoryQuery::from_query(Some(&long)).unwrap_err()),
        "cursor"
    );
    let longest = format!("cursor={}", "a".repeat(MAX_CURSOR_LEN));
    assert!(HistoryQuery::from_query(Some(&longest)).is_ok());
}

#[test]
fn the_store_reads_the_history_query_with_the_default_limit_when_none_is_given() {
    assert_eq!(
        HistoryQuery::default().store_query(),
        DeliveryQuery {
            status: None,
            limit: DEFAULT_LIMIT,
            cursor: None,
        }
    );
    let q = HistoryQuery::from_query(Some("status=pending&limit=7&cursor=c1")).unwrap();
    assert_eq!(
        q.store_query(),
        DeliveryQuery {
            status: Some(DeliveryStatus::Pending),
            limit: 7,
            cursor: Some("c1".into()),
        }
    );
}

/// Regression (fuzz target `admin_bodies`): a URL within the limit as sent could grow past
/// it when normalised (spaces and non-ASCII characters percent-encoded), be stored over the
/// documented `maxLength`, and then be refused when sent back on PATCH. The limit now holds
/// for the stored form.
#[test]
fn the_url_limit_holds_for_the_normalised_form() {
    let base = "https://hooks.example.com/";
    // 26 + 2 × 1000 bytes as sent, 26 + 6 × 1000 once percent-encoded.
    let grows = format!("{base}{}", "é".repeat(1000));
    assert!(grows.len() <= MAX_URL_LEN);
    assert_eq!(field(&valid_url(&grows, &strict()).unwrap_err()), "url");
    let spaces = format!("{base}a{}b", " ".repeat(1000));
    assert_eq!(field(&valid_url(&spaces, &strict()).unwrap_err()), "url");
    // Exactly at the limit once normalised: accepted, and accepted again as stored.
    let fits = format!("{base}{}", "é".repeat((MAX_URL_LEN - base.len()) / 6));
    let stored = valid_url(&fits, &strict()).unwrap();
    assert_eq!(stored.len(), MAX_URL_LEN);
    assert_eq!(valid_url(&stored, &strict()).unwrap(), stored);
    let over = format!("{fits}x");
    assert_eq!(field(&valid_url(&over, &strict()).unwrap_err()), "url");
    // The fuzzer's own case: bytes 0b b8 (a vertical tab and, read lossily, U+FFFD) repeated
    // after the host up to 2048 bytes as sent; each 4 bytes become 12 percent-encoded.
    let mut fuzzed = base.to_owned();
    while fuzzed.len() + 4 <= MAX_URL_LEN {
        fuzzed.push_str("\u{b}\u{fffd}");
    }
    assert_eq!(field(&valid_url(&fuzzed, &strict()).unwrap_err()), "url");
}
