//! Webhook endpoints: round trips, per-merchant lists, conditional writes.

use super::*;

#[tokio::test]
async fn endpoints_round_trip_list_per_merchant_and_write_conditionally() {
    // GIVEN two endpoints of one merchant (stored out of order) and one of another
    let env = Env::new("endpoints").await;
    let m = merchant();
    let other = MerchantId::parse("mch_other").unwrap();
    let b = endpoint(&m, &WebhookEndpointId::parse("whe_b").unwrap());
    let a = WebhookEndpoint {
        events: vec![EventFilter::All],
        mode: Mode::Live,
        enabled: false,
        description: String::new(),
        ..endpoint(&m, &WebhookEndpointId::parse("whe_a").unwrap())
    };
    let x = endpoint(&other, &WebhookEndpointId::parse("whe_a").unwrap());
    for e in [&b, &a, &x] {
        env.endpoints.put_endpoint(e, true).await.unwrap();
    }

    // THEN each reads back whole, and a merchant lists only its own, by id
    assert_eq!(
        env.endpoints.get_endpoint(&m, &a.id).await.unwrap(),
        Some(a.clone())
    );
    assert_eq!(
        env.endpoints.get_endpoint(&other, &x.id).await.unwrap(),
        Some(x.clone())
    );
    assert_eq!(
        env.endpoints.list_endpoints(&m).await.unwrap(),
        vec![a.clone(), b.clone()]
    );
    assert_eq!(
        env.endpoints.get_endpoint(&other, &b.id).await.unwrap(),
        None,
        "another merchant's endpoint is not found"
    );
    // AND events are stored as a list of strings
    let raw = env
        .client
        .get_item()
        .table_name(&env.names.webhook_endpoints)
        .key("merchantId", AttributeValue::S(m.to_string()))
        .key("endpointId", AttributeValue::S(b.id.to_string()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(
        raw.get("events"),
        Some(&AttributeValue::L(vec![
            AttributeValue::S("payment.captured".into()),
            AttributeValue::S("payment.refunded".into()),
        ]))
    );
    assert_eq!(
        raw.get("secretId"),
        Some(&AttributeValue::S(b.secret_id.clone()))
    );

    // WHEN an endpoint is created again THEN it already exists and is unchanged
    let changed = WebhookEndpoint {
        url: "https://elsewhere.example/".into(),
        ..b.clone()
    };
    assert!(matches!(
        env.endpoints.put_endpoint(&changed, true).await,
        Err(StoreError::AlreadyExists)
    ));
    assert_eq!(
        env.endpoints.get_endpoint(&m, &b.id).await.unwrap(),
        Some(b.clone())
    );
    // AND without expect_absent it replaces it
    env.endpoints.put_endpoint(&changed, false).await.unwrap();
    assert_eq!(
        env.endpoints.get_endpoint(&m, &b.id).await.unwrap(),
        Some(changed.clone())
    );

    // WHEN updated over the version read THEN it goes through
    let v2 = WebhookEndpoint {
        enabled: false,
        updated_at: T0.plus_millis(SEC),
        ..changed.clone()
    };
    env.endpoints
        .update_endpoint(&v2, changed.updated_at)
        .await
        .unwrap();
    assert_eq!(
        env.endpoints.get_endpoint(&m, &b.id).await.unwrap(),
        Some(v2.clone())
    );
    // AND an update over a stale version conflicts and changes nothing
    let stale = WebhookEndpoint {
        url: "https://stale.example/".into(),
        updated_at: T0.plus_millis(2 * SEC),
        ..changed.clone()
    };
    assert!(matches!(
        env.endpoints
            .update_endpoint(&stale, changed.updated_at)
            .await,
        Err(StoreError::Conflict { current: None })
    ));
    assert_eq!(
        env.endpoints.get_endpoint(&m, &b.id).await.unwrap(),
        Some(v2.clone())
    );
    // AND an update of an endpoint that does not exist conflicts without creating it
    let ghost = endpoint(&m, &WebhookEndpointId::parse("whe_ghost").unwrap());
    assert!(matches!(
        env.endpoints
            .update_endpoint(&ghost, ghost.updated_at)
            .await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(
        env.endpoints.get_endpoint(&m, &ghost.id).await.unwrap(),
        None
    );

    // WHEN deleted THEN true once, then false; the other merchant's namesake stays
    assert!(env.endpoints.delete_endpoint(&m, &a.id).await.unwrap());
    assert!(!env.endpoints.delete_endpoint(&m, &a.id).await.unwrap());
    assert_eq!(env.endpoints.list_endpoints(&m).await.unwrap(), vec![v2]);
    assert_eq!(
        env.endpoints.get_endpoint(&other, &x.id).await.unwrap(),
        Some(x)
    );
}

// --- deliveries ----------------------------------------------------------------------------
