use paygate_domain::{
    ports::{Clock, DeliveryStore, Outbox},
    webhook::{DeliveryStatus, EventFilter},
    EventType, Mode,
};
use serde_json::json;

use super::*;
use crate::admin::fixture::{expect_err, obj, World, M1, M2, PREFIX};

#[tokio::test]
async fn create_returns_the_secret_once_and_stores_it_under_the_prefix() {
    let w = World::new();
    let body = obj(json!({
        "url": "https://hooks.example.com/pg",
        "events": ["payment.captured", "payment.refunded", "payment.captured"],
        "mode": "live",
        "description": "orders"
    }));
    let made = create(&w.endpoints_deps(), M1, &body).await.unwrap();

    // the answer: the endpoint and its secret
    assert!(made.endpoint.id.starts_with("whe_"));
    assert_eq!(made.endpoint.url, "https://hooks.example.com/pg");
    assert_eq!(
        made.endpoint.events,
        [
            EventFilter::Only(EventType::PaymentCaptured),
            EventFilter::Only(EventType::PaymentRefunded)
        ],
        "duplicates dropped, order kept"
    );
    assert_eq!(made.endpoint.mode, Mode::Live);
    assert!(made.endpoint.enabled);
    assert_eq!(made.endpoint.description, "orders");
    assert_eq!(made.endpoint.created_at, w.now());
    assert!(made.secret.starts_with("whsec_") && made.secret.len() == 70);

    // stored: the endpoint names the secret; the vault holds it as the current one
    let stored = w.endpoint(M1, &made.endpoint.id).await;
    assert_eq!(stored.secret_id, format!("{PREFIX}{}", made.endpoint.id));
    assert_eq!(w.vault.doc(&stored.secret_id).unwrap().current, made.secret);

    // and no read or list ever shows it again
    let deps = w.endpoints_deps();
    let read = serde_json::to_string(&get(&deps, M1, &made.endpoint.id).await.unwrap()).unwrap();
    let listed = serde_json::to_string(&list(&deps, M1).await.unwrap()).unwrap();
    for text in [&read, &listed] {
        assert!(!text.contains(&made.secret), "{text}");
        assert!(!text.contains("secret"), "{text}");
    }
    let created = serde_json::to_value(&made).unwrap();
    assert_eq!(created["secret"], json!(made.secret));
    assert_eq!(created["createdAt"], json!("2026-11-21T09:00:00.000Z"));
}

#[tokio::test]
async fn create_validates_every_field_and_names_it() {
    let w = World::new();
    let deps = w.endpoints_deps();
    let ok = json!({"url": "https://a.example.com/h", "events": ["*"], "mode": "test"});
    let with = |k: &str, v: serde_json::Value| {
        let mut b = obj(ok.clone());
        b.insert(k.into(), v);
        b
    };
    let without = |k: &str| {
        let mut b = obj(ok.clone());
        b.remove(k);
        b
    };
    for (body, field) in [
        (without("url"), "url"),
        (with("url", json!("http://a.example.com/h")), "url"),
        (with("url", json!("not a url")), "url"),
        (with("url", json!("https://user:pw@a.example.com/")), "url"),
        (with("url", json!("https://10.0.0.8/hook")), "url"),
        (with("url", json!("https://127.0.0.1:8443/hook")), "url"),
        (with("url", json!("https://[::1]/hook")), "url"),
        (with("url", json!("https://169.254.169.254/latest")), "url"),
        (with("url", json!("https://0x7f.1/")), "url"),
        (
            with(
                "url",
                json!(format!("https://a.example.com/{}", "x".repeat(2100))),
            ),
            "url",
        ),
        (without("events"), "events"),
        (with("events", json!([])), "events"),
        (with("events", json!("*")), "events"),
        (with("events", json!(["payment.exploded"])), "events"),
        (with("events", json!([7])), "events"),
        (without("mode"), "mode"),
        (with("mode", json!("sandbox")), "mode"),
        (with("description", json!("d".repeat(501))), "description"),
        (with("enabled", json!("yes")), "enabled"),
        (with("secret", json!("whsec_mine")), "secret"),
    ] {
        expect_err(
            create(&deps, M1, &body).await,
            400,
            "invalid_request",
            Some(field),
        );
    }
    assert!(
        w.vault.ids().is_empty(),
        "no secret made for a refused request"
    );
    // an unknown merchant, and one that is not even an id, are 404
    expect_err(
        create(&deps, "mch_nobody", &obj(ok.clone())).await,
        404,
        "not_found",
        None,
    );
    expect_err(
        create(&deps, "acme", &obj(ok.clone())).await,
        404,
        "not_found",
        None,
    );
}

/// Regression (fuzz target `admin_bodies`): an endpoint created with a URL that grows when
/// normalised was stored over 2048 characters and then refused when its own URL was sent
/// back on PATCH. Such a URL is refused at creation; one at the limit once normalised is
/// stored and accepted again as stored.
#[tokio::test]
async fn a_stored_url_is_within_the_limit_and_accepted_again() {
    let w = World::new();
    let deps = w.endpoints_deps();
    let base = "https://hooks.example.com/";
    let body = |url: &str| obj(json!({"url": url, "events": ["*"], "mode": "test"}));
    let grows = format!("{base}{}", "é".repeat(1000));
    expect_err(
        create(&deps, M1, &body(&grows)).await,
        400,
        "invalid_request",
        Some("url"),
    );
    let fits = format!("{base}{}", "é".repeat((MAX_URL_LEN - base.len()) / 6));
    let made = create(&deps, M1, &body(&fits)).await.unwrap();
    assert_eq!(made.endpoint.url.len(), MAX_URL_LEN);
    let patch = obj(json!({"url": made.endpoint.url, "description": "again"}));
    let v = update(&deps, M1, &made.endpoint.id, &patch).await.unwrap();
    assert_eq!(
        (v.url, v.description),
        (made.endpoint.url, "again".to_owned())
    );
    expect_err(
        update(&deps, M1, &made.endpoint.id, &obj(json!({"url": grows}))).await,
        400,
        "invalid_request",
        Some("url"),
    );
}

#[tokio::test]
async fn a_listed_private_address_is_accepted_locally() {
    let w = World::new().allow("127.0.0.1");
    let deps = w.endpoints_deps();
    let body = obj(json!({"url": "https://127.0.0.1:8443/hook", "events": ["*"], "mode": "test"}));
    assert!(create(&deps, M1, &body).await.is_ok());
    let other = obj(json!({"url": "https://127.0.0.2/hook", "events": ["*"], "mode": "test"}));
    expect_err(
        create(&deps, M1, &other).await,
        400,
        "invalid_request",
        Some("url"),
    );
}

#[tokio::test]
async fn a_failed_endpoint_write_leaves_no_secret_behind() {
    let w = World::new();
    // GIVEN the first endpoint got id t1, and t3 is taken by another endpoint item
    let (id, _) = w.create(M1, json!(["*"])).await;
    let taken = w.endpoint(M1, &id).await;
    w.endpoints
        .0
        .lock()
        .unwrap()
        .push(paygate_domain::webhook::WebhookEndpoint {
            id: paygate_domain::WebhookEndpointId::parse("whe_t3").unwrap(),
            ..taken
        });
    // WHEN two more are created (ids t2 and t3) THEN the one whose write fails leaves no
    // secret behind
    let before = w.vault.ids().len();
    let mut refused = 0;
    for _ in 0..2 {
        if create(
            &w.endpoints_deps(),
            M1,
            &obj(json!({"url": "https://a.example.com", "events": ["*"], "mode": "test"})),
        )
        .await
        .is_err()
        {
            refused += 1;
        }
    }
    assert_eq!(refused, 1, "one of the two ids was taken");
    assert_eq!(
        w.vault.ids().len(),
        before + 1,
        "only the stored endpoint has a secret"
    );
}

#[tokio::test]
async fn endpoints_are_the_merchants_own() {
    let w = World::new();
    let (id, _) = w.create(M1, json!(["*"])).await;
    let deps = w.endpoints_deps();
    assert_eq!(list(&deps, M1).await.unwrap().data.len(), 1);
    assert!(list(&deps, M2).await.unwrap().data.is_empty());
    expect_err(get(&deps, M2, &id).await, 404, "not_found", None);
    expect_err(get(&deps, M1, "whe_nope").await, 404, "not_found", None);
    expect_err(get(&deps, M1, "nope").await, 404, "not_found", None);
    expect_err(delete(&deps, M2, &id).await, 404, "not_found", None);
    expect_err(
        update(&deps, M2, &id, &obj(json!({"enabled": false}))).await,
        404,
        "not_found",
        None,
    );
    expect_err(
        rotate(&deps, M2, &id, &obj(json!({}))).await,
        404,
        "not_found",
        None,
    );
    expect_err(
        send_test(&deps, M2, &id, &obj(json!({}))).await,
        404,
        "not_found",
        None,
    );
    assert!(w.endpoint(M1, &id).await.enabled, "nothing changed");
}

#[tokio::test]
async fn update_changes_only_what_is_given_and_validates_the_url_again() {
    let w = World::new();
    let (id, _) = w.create(M1, json!(["payment.captured"])).await;
    let deps = w.endpoints_deps();
    w.clock.advance_millis(5_000);

    let v = update(
        &deps,
        M1,
        &id,
        &obj(json!({"enabled": false, "events": ["*"]})),
    )
    .await
    .unwrap();
    assert!(!v.enabled);
    assert_eq!(v.events, [EventFilter::All]);
    assert_eq!(v.url, "https://hooks.example.com/pg");
    assert_eq!(v.updated_at, w.now());
    assert_eq!(w.endpoint(M1, &id).await.updated_at, w.now());

    for (body, field) in [
        (json!({"url": "https://192.168.1.10/h"}), "url"),
        (json!({"url": "https://[fd00:ec2::254]/h"}), "url"),
        (json!({"url": "ftp://a.example.com"}), "url"),
        (json!({"events": []}), "events"),
        (json!({"mode": "live"}), "mode"),
        (json!({"enabled": 1}), "enabled"),
    ] {
        expect_err(
            update(&deps, M1, &id, &obj(body)).await,
            400,
            "invalid_request",
            Some(field),
        );
    }
    // a no-op update writes nothing
    let same = update(&deps, M1, &id, &obj(json!({"enabled": false})))
        .await
        .unwrap();
    assert_eq!(same, v);
    // two updates within one millisecond still move updatedAt (it is the lock)
    let a = update(&deps, M1, &id, &obj(json!({"description": "a"})))
        .await
        .unwrap();
    let b = update(&deps, M1, &id, &obj(json!({"description": "b"})))
        .await
        .unwrap();
    assert!(b.updated_at > a.updated_at);
}

#[tokio::test]
async fn delete_removes_the_endpoint_and_its_secret() {
    let w = World::new();
    let (id, _) = w.create(M1, json!(["*"])).await;
    let deps = w.endpoints_deps();
    let secret_id = w.endpoint(M1, &id).await.secret_id;
    let gone = delete(&deps, M1, &id).await.unwrap();
    assert_eq!((gone.id.as_str(), gone.deleted), (id.as_str(), true));
    assert!(w.vault.doc(&secret_id).is_none());
    expect_err(get(&deps, M1, &id).await, 404, "not_found", None);
    expect_err(delete(&deps, M1, &id).await, 404, "not_found", None);
}

#[tokio::test]
async fn rotation_keeps_the_old_secret_for_the_grace_period() {
    let w = World::new();
    let (id, first) = w.create(M1, json!(["*"])).await;
    let deps = w.endpoints_deps();
    let secret_id = w.endpoint(M1, &id).await.secret_id;

    // default grace: 24 h
    let r = rotate(&deps, M1, &id, &obj(json!({}))).await.unwrap();
    assert_ne!(r.secret, first);
    assert_eq!(
        r.previous_secret_expires_at,
        Some(w.now().plus_millis(86_400_000))
    );
    let doc = w.vault.doc(&secret_id).unwrap();
    assert_eq!(doc.valid_at(w.now()), [r.secret.clone(), first.clone()]);
    assert_eq!(
        doc.valid_at(w.now().plus_millis(86_400_001)),
        [r.secret.as_str()]
    );

    // a chosen grace, then an immediate one
    let r2 = rotate(&deps, M1, &id, &obj(json!({"graceSeconds": 60})))
        .await
        .unwrap();
    let doc = w.vault.doc(&secret_id).unwrap();
    assert_eq!(
        doc.valid_at(w.now()),
        [r2.secret.clone(), r.secret.clone(), first.clone()]
    );
    let r3 = rotate(&deps, M1, &id, &obj(json!({"graceSeconds": 0})))
        .await
        .unwrap();
    assert_eq!(r3.previous_secret_expires_at, None);
    let doc = w.vault.doc(&secret_id).unwrap();
    assert_eq!(doc.valid_at(w.now())[0], r3.secret);
    assert!(
        !doc.valid_at(w.now()).contains(&r2.secret),
        "grace 0: the old one stops now"
    );

    for bad in [
        json!({"graceSeconds": -1}),
        json!({"graceSeconds": 604_801}),
        json!({"graceSeconds": "60"}),
        json!({"grace": 1}),
    ] {
        let field = if bad.get("grace").is_some() {
            "grace"
        } else {
            "graceSeconds"
        };
        expect_err(
            rotate(&deps, M1, &id, &obj(bad)).await,
            400,
            "invalid_request",
            Some(field),
        );
    }
    // a vault that cannot be reached is a 500 with nothing changed
    w.vault.set_failing(true);
    expect_err(
        rotate(&deps, M1, &id, &obj(json!({}))).await,
        500,
        "internal_error",
        None,
    );
}

#[tokio::test]
async fn rotation_bumps_the_secret_version_on_the_endpoint_and_in_the_vault() {
    let w = World::new();
    let (id, _) = w.create(M1, json!(["*"])).await;
    let deps = w.endpoints_deps();
    let before = w.endpoint(M1, &id).await;
    assert_eq!(before.secret_version, 0);
    rotate(&deps, M1, &id, &obj(json!({}))).await.unwrap();
    let after = w.endpoint(M1, &id).await;
    assert_eq!(after.secret_version, 1);
    assert!(after.updated_at > before.updated_at);
    assert_eq!(w.vault.doc(&after.secret_id).unwrap().version, 1);
    rotate(&deps, M1, &id, &obj(json!({}))).await.unwrap();
    assert_eq!(w.endpoint(M1, &id).await.secret_version, 2);
}

#[tokio::test]
async fn a_rotation_racing_another_is_a_409_and_loses_no_secret() {
    let w = World::new();
    let (id, _) = w.create(M1, json!(["*"])).await;
    let deps = w.endpoints_deps();
    let first = rotate(&deps, M1, &id, &obj(json!({"graceSeconds": 3600})))
        .await
        .unwrap();
    // GIVEN another rotation has claimed version 2 on the endpoint but not yet written
    // its secret (the window between its two writes)
    let secret_id = w.endpoint(M1, &id).await.secret_id;
    {
        let mut v = w.endpoints.0.lock().unwrap();
        let e = v.iter_mut().find(|e| e.id.as_str() == id).unwrap();
        e.secret_version = 2;
        e.updated_at = w.now();
    }
    // WHEN a rotation comes in THEN it is a 409 and the vault is untouched
    expect_err(
        rotate(&deps, M1, &id, &obj(json!({}))).await,
        409,
        "concurrent_modification",
        None,
    );
    let doc = w.vault.doc(&secret_id).unwrap();
    assert_eq!(doc.version, 1);
    assert_eq!(doc.current, first.secret);
    // AND once the claim is old enough to be abandoned, rotating works again and keeps
    // the last written secret in its grace
    w.clock.advance_millis(ROTATION_SETTLE_MS);
    let next = rotate(&deps, M1, &id, &obj(json!({}))).await.unwrap();
    let doc = w.vault.doc(&secret_id).unwrap();
    assert_eq!(doc.version, 3);
    assert_eq!(w.endpoint(M1, &id).await.secret_version, 3);
    assert_eq!(doc.valid_at(w.now())[..2], [next.secret, first.secret]);
}

#[tokio::test]
async fn a_test_event_goes_to_that_endpoint_only_through_the_normal_path() {
    let w = World::new();
    let (id, _) = w.create(M1, json!(["payment.captured"])).await;
    let (_other, _) = w.create(M1, json!(["*"])).await;
    let deps = w.endpoints_deps();

    let d = send_test(&deps, M1, &id, &obj(json!({}))).await.unwrap();

    // the delivery: pending, for this endpoint, a webhook.test event, due now
    assert_eq!(d.endpoint_id, id);
    assert_eq!(d.event_type, EventType::WebhookTest);
    assert_eq!(d.status, DeliveryStatus::Pending);
    assert_eq!((d.attempt_count, d.next_attempt_at), (0, Some(w.now())));
    // the event: in the outbox, already sent (so never fanned out), a sample payment
    let event_id = paygate_domain::EventId::parse(&d.event_id).unwrap();
    let event = w.outbox.get_event(&event_id).await.unwrap().unwrap();
    assert_eq!(
        (event.event_type, event.mode),
        (EventType::WebhookTest, Mode::Test)
    );
    assert_eq!(event.merchant_id.as_str(), M1);
    assert!(event.data.id.as_str().starts_with("pay_sample"));
    assert_eq!(event.data.object, "payment");
    assert!(w.outbox.unsent().is_empty(), "the sweeper never sends it");
    // the delivery record and attempt 1 on the queue, now
    let stored = w
        .deliveries
        .get_delivery(&paygate_domain::DeliveryId::parse(&d.id).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.endpoint_id.as_str(), id);
    let queued = w.queue.drain();
    assert_eq!(queued.len(), 1);
    assert_eq!(
        (queued[0].0.attempt, queued[0].0.due_at, queued[0].1),
        (1, w.now(), 0)
    );
    assert_eq!(queued[0].0.delivery_id, stored.id);
    assert_eq!(
        w.deliveries.all().len(),
        1,
        "no delivery to the other endpoint"
    );

    // a body is refused; a disabled endpoint gets no test event
    expect_err(
        send_test(&deps, M1, &id, &obj(json!({"x": 1}))).await,
        400,
        "invalid_request",
        Some("x"),
    );
    update(&deps, M1, &id, &obj(json!({"enabled": false})))
        .await
        .unwrap();
    expect_err(
        send_test(&deps, M1, &id, &obj(json!({}))).await,
        409,
        "endpoint_disabled",
        None,
    );
    assert!(w.queue.drain().is_empty());
    let _ = w.clock.now();
}

#[tokio::test]
async fn a_merchant_has_at_most_twenty_endpoints() {
    let w = World::new();
    for _ in 0..MAX_ENDPOINTS_PER_MERCHANT {
        w.create(M1, json!(["*"])).await;
    }
    let body = obj(json!({"url": "https://a.example.com", "events": ["*"], "mode": "test"}));
    expect_err(
        create(&w.endpoints_deps(), M1, &body).await,
        409,
        "endpoint_limit_reached",
        None,
    );
    assert!(create(&w.endpoints_deps(), M2, &body).await.is_ok());
}
