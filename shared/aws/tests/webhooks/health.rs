//! Endpoint health on the endpoint item, the auto-disable write, the recover query and the
//! backlog count.

use paygate_domain::{
    ports::EndpointHealthStore,
    webhook::{DisabledReason, EndpointHealth},
};

use super::*;

#[tokio::test]
async fn health_is_written_by_version_survives_updates_and_can_disable() {
    // GIVEN an endpoint with no health yet
    let env = Env::new("health").await;
    let m = merchant();
    let e = endpoint(&m, &endpoint_id("h"));
    env.endpoints.put_endpoint(&e, true).await.unwrap();
    let (read, h0) = env.endpoints.get_health(&m, &e.id).await.unwrap().unwrap();
    assert_eq!(read, e);
    assert_eq!(h0, EndpointHealth::default());

    // WHEN a failure is recorded at version 1 THEN it is stored; a second write of version 1
    // (a lost race) is refused and changes nothing
    let h1 = h0.recorded(T0, false);
    assert!(env
        .endpoints
        .put_health(&m, &e.id, &h1, None)
        .await
        .unwrap());
    let stale = h0.recorded(T0.plus_millis(SEC), true);
    assert!(!env
        .endpoints
        .put_health(&m, &e.id, &stale, None)
        .await
        .unwrap());
    assert_eq!(
        env.endpoints
            .get_health(&m, &e.id)
            .await
            .unwrap()
            .unwrap()
            .1,
        h1
    );

    // AND a settings update keeps the health
    let mut changed = e.clone();
    changed.description = "renamed".into();
    changed.updated_at = T0.plus_millis(SEC);
    env.endpoints
        .update_endpoint(&changed, e.updated_at)
        .await
        .unwrap();
    let (read, h) = env.endpoints.get_health(&m, &e.id).await.unwrap().unwrap();
    assert_eq!(read, changed);
    assert_eq!(h, h1);
    assert_eq!(
        env.endpoints.list_health(&m).await.unwrap(),
        vec![(changed.clone(), h1.clone())]
    );

    // WHEN the next version disables it THEN enabled is false with reason failing and
    // updatedAt moved; the write is refused if it is disabled already
    let h2 = h1.recorded(T0.plus_millis(2 * SEC), false);
    let at = T0.plus_millis(3 * SEC);
    assert!(env
        .endpoints
        .put_health(&m, &e.id, &h2, Some(at))
        .await
        .unwrap());
    let (read, h) = env.endpoints.get_health(&m, &e.id).await.unwrap().unwrap();
    assert!(!read.enabled);
    assert_eq!(read.disabled_reason, Some(DisabledReason::Failing));
    assert_eq!(read.updated_at, at);
    assert_eq!(h, h2);
    let h3 = h2.recorded(T0.plus_millis(4 * SEC), false);
    assert!(!env
        .endpoints
        .put_health(&m, &e.id, &h3, Some(at))
        .await
        .unwrap());

    // AND enabling it again (a settings update) removes the reason
    let mut enabled = read.clone();
    enabled.enabled = true;
    enabled.disabled_reason = None;
    enabled.updated_at = at.plus_millis(SEC);
    env.endpoints.update_endpoint(&enabled, at).await.unwrap();
    assert_eq!(
        env.endpoints.get_endpoint(&m, &e.id).await.unwrap(),
        Some(enabled)
    );

    // AND an unknown endpoint has no health and takes no write
    let ghost = endpoint_id("ghost");
    assert_eq!(env.endpoints.get_health(&m, &ghost).await.unwrap(), None);
    assert!(!env
        .endpoints
        .put_health(
            &m,
            &ghost,
            &EndpointHealth::default().recorded(T0, true),
            None
        )
        .await
        .unwrap());
}

#[tokio::test]
async fn failed_deliveries_are_listed_oldest_first_in_range_and_pending_ones_counted() {
    // GIVEN an endpoint with three failed deliveries, one pending and one succeeded
    let env = Env::new("recover").await;
    let one = RetrySchedule::parse("1s").unwrap();
    let ep = endpoint_id("rc");
    let mut failed = Vec::new();
    for i in 0..3 {
        let d = delivery(&ep, T0.plus_millis(i * 60 * SEC));
        env.deliveries.create_delivery(&d).await.unwrap();
        let d1 = record(&env, &d, d.created_at.plus_millis(SEC), 500, &one).await;
        failed.push(record(&env, &d1, d.created_at.plus_millis(3 * SEC), 500, &one).await);
    }
    let pending = delivery(&ep, T0.plus_millis(30 * SEC));
    env.deliveries.create_delivery(&pending).await.unwrap();
    let ok = delivery(&ep, T0.plus_millis(90 * SEC));
    env.deliveries.create_delivery(&ok).await.unwrap();
    record(&env, &ok, T0.plus_millis(91 * SEC), 200, &one).await;
    let other = delivery(&endpoint_id("other"), T0);
    env.deliveries.create_delivery(&other).await.unwrap();

    // THEN the failed ones come oldest first, bounded, with "more" when cut
    let end = T0.plus_millis(3_600 * SEC);
    let (all, more) = env
        .deliveries
        .list_failed(&ep, TimeRange::new(T0, end), 10)
        .await
        .unwrap();
    assert_eq!(all, failed);
    assert!(!more);
    let (two, more) = env
        .deliveries
        .list_failed(&ep, TimeRange::new(T0, end), 2)
        .await
        .unwrap();
    assert_eq!(two, failed[..2].to_vec());
    assert!(more);
    // AND `since` is inclusive, `until` exclusive
    let (mid, _) = env
        .deliveries
        .list_failed(
            &ep,
            TimeRange::new(failed[1].created_at, failed[2].created_at),
            10,
        )
        .await
        .unwrap();
    assert_eq!(mid, vec![failed[1].clone()]);

    // AND the backlog counts the pending one only; a resend adds one
    assert_eq!(env.deliveries.count_pending(&ep).await.unwrap(), 1);
    env.deliveries
        .reset_for_resend(&failed[0].id, end)
        .await
        .unwrap();
    assert_eq!(env.deliveries.count_pending(&ep).await.unwrap(), 2);
    let (left, _) = env
        .deliveries
        .list_failed(&ep, TimeRange::new(T0, end), 10)
        .await
        .unwrap();
    assert_eq!(left, failed[1..].to_vec());
}
