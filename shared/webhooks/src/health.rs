//! Endpoint health after each recorded attempt: the counters, the "failing for 3 days"
//! warning and the auto-disable (rules in `paygate_domain::webhook::health`).
//!
//! Best effort by design: the attempt is recorded already, so a health write that fails is
//! logged and the delivery goes on. A lost race (another attempt of the same endpoint wrote
//! first) is re-read and re-decided, up to [`MAX_TRIES`] times.
//!
//! The operational signals are a structured log line and an EMF metric each
//! (`WebhookEndpointFailing` when the warning is written, `WebhookEndpointDisabled` when the
//! endpoint is disabled; namespace `paygate`, no dimensions; the endpoint and merchant ids
//! are properties of the record). `webhook.endpoint.disabled` is not sent as a webhook: the
//! merchant's event model (`EventRecord`) carries a payment in `data`, and an operational
//! event about an endpoint does not fit it; operators alarm on the metric instead.

use paygate_domain::{
    ports::EndpointHealthStore,
    webhook::{DisablePolicy, HealthAction, WebhookEndpointId},
    MerchantId, Timestamp,
};

/// Re-reads after a lost race before giving up on one attempt's counters.
pub const MAX_TRIES: usize = 5;
/// The EMF metric of the warning.
pub const FAILING_METRIC: &str = "WebhookEndpointFailing";
/// The EMF metric of an auto-disable.
pub const DISABLED_METRIC: &str = "WebhookEndpointDisabled";
/// The operational event name of an auto-disable (in the log record).
pub const DISABLED_EVENT: &str = "webhook.endpoint.disabled";

/// One EMF record counting `metric` once, with the endpoint as properties.
pub fn emf(
    metric: &str,
    merchant: &MerchantId,
    endpoint: &WebhookEndpointId,
    now: Timestamp,
) -> String {
    serde_json::json!({
        "_aws": {
            "Timestamp": now.unix_millis(),
            "CloudWatchMetrics": [{
                "Namespace": "paygate",
                "Dimensions": [[]],
                "Metrics": [{"Name": metric, "Unit": "Count"}],
            }],
        },
        metric: 1,
        "merchantId": merchant.as_str(),
        "endpointId": endpoint.as_str(),
    })
    .to_string()
}

/// Records one attempt at `at` in the endpoint's health and acts on what it calls for at
/// `now`. Returns what was written (`None`: nothing, the endpoint is gone or the store
/// failed).
pub async fn observe(
    store: &dyn EndpointHealthStore,
    policy: &DisablePolicy,
    merchant: &MerchantId,
    endpoint: &WebhookEndpointId,
    at: Timestamp,
    succeeded: bool,
    now: Timestamp,
) -> Option<HealthAction> {
    for _ in 0..MAX_TRIES {
        let (current, health) = match store.get_health(merchant, endpoint).await {
            Ok(Some(found)) => found,
            Ok(None) => return None,
            Err(e) => {
                tracing::warn!(endpoint_id = %endpoint, error = %e, "endpoint health not read");
                return None;
            }
        };
        let next = health.recorded(at, succeeded);
        let mut action = next.action(now, policy);
        if action == HealthAction::Disable && !current.enabled {
            // Disabled already (by hand, or by a concurrent attempt): just count.
            action = HealthAction::Record;
        }
        let (next, disable_at) = match action {
            HealthAction::Record => (next, None),
            HealthAction::Warn => (next.warned(now), None),
            HealthAction::Disable => (next, Some(now)),
        };
        match store
            .put_health(merchant, endpoint, &next, disable_at)
            .await
        {
            Ok(true) => {
                signal(
                    action,
                    merchant,
                    endpoint,
                    next.failing_since,
                    next.failed_attempts,
                    now,
                );
                return Some(action);
            }
            Ok(false) => continue,
            Err(e) => {
                tracing::warn!(endpoint_id = %endpoint, error = %e, "endpoint health not written");
                return None;
            }
        }
    }
    tracing::warn!(endpoint_id = %endpoint, tries = MAX_TRIES, "endpoint health lost every race");
    None
}

fn signal(
    action: HealthAction,
    merchant: &MerchantId,
    endpoint: &WebhookEndpointId,
    failing_since: Option<Timestamp>,
    failed_attempts: u32,
    now: Timestamp,
) {
    let since = failing_since.map(Timestamp::to_iso8601).unwrap_or_default();
    match action {
        HealthAction::Record => {}
        HealthAction::Warn => {
            tracing::warn!(
                merchant_id = %merchant,
                endpoint_id = %endpoint,
                failing_since = %since,
                failed_attempts,
                "webhook endpoint failing: every attempt has failed for 3 days; it is disabled at 5"
            );
            println!("{}", emf(FAILING_METRIC, merchant, endpoint, now));
        }
        HealthAction::Disable => {
            tracing::error!(
                event = DISABLED_EVENT,
                merchant_id = %merchant,
                endpoint_id = %endpoint,
                failing_since = %since,
                failed_attempts,
                reason = "failing",
                "webhook endpoint disabled: every attempt has failed for 5 days"
            );
            println!("{}", emf(DISABLED_METRIC, merchant, endpoint, now));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use paygate_domain::{
        testkit::{MemoryEndpoints, T0},
        webhook::{DisabledReason, EventFilter, WebhookEndpoint},
        Mode,
    };

    use super::*;

    const DAY: i64 = 86_400_000;

    fn setup() -> (MemoryEndpoints, MerchantId, WebhookEndpointId) {
        let store = MemoryEndpoints::default();
        let m = MerchantId::parse("mch_1").unwrap();
        let id = WebhookEndpointId::parse("whe_1").unwrap();
        store.insert(WebhookEndpoint {
            id: id.clone(),
            merchant_id: m.clone(),
            url: "https://example.com/h".into(),
            events: vec![EventFilter::All],
            mode: Mode::Test,
            enabled: true,
            description: String::new(),
            secret_id: "s".into(),
            secret_version: 0,
            created_at: T0,
            updated_at: T0,
            disabled_reason: None,
        });
        (store, m, id)
    }

    /// Failures every 6 hours from T0 to `days` days, observed at their own time.
    async fn fail_until(
        store: &MemoryEndpoints,
        m: &MerchantId,
        id: &WebhookEndpointId,
        days: i64,
    ) -> Vec<HealthAction> {
        let p = DisablePolicy::default();
        let mut out = Vec::new();
        let mut t = 0;
        while t <= days * DAY {
            let at = T0.plus_millis(t);
            out.extend(observe(store, &p, m, id, at, false, at).await);
            t += DAY / 4;
        }
        out
    }

    #[tokio::test]
    async fn warns_once_at_three_days_and_disables_at_five() {
        let (store, m, id) = setup();
        let actions = fail_until(&store, &m, &id, 5).await;
        assert_eq!(
            actions.iter().filter(|a| **a == HealthAction::Warn).count(),
            1
        );
        assert_eq!(actions.last(), Some(&HealthAction::Disable));
        let e = store.0.lock().unwrap()[0].clone();
        assert!(!e.enabled);
        assert_eq!(e.disabled_reason, Some(DisabledReason::Failing));
        assert_eq!(e.updated_at, T0.plus_millis(5 * DAY));
        let h = store.health(&id);
        assert_eq!(h.failing_since, Some(T0));
        assert_eq!(h.failed_attempts, 21);
        assert_eq!(h.warned_at, Some(T0.plus_millis(3 * DAY)));
    }

    #[tokio::test]
    async fn a_success_in_between_keeps_it_enabled() {
        let (store, m, id) = setup();
        let p = DisablePolicy::default();
        fail_until(&store, &m, &id, 4).await;
        let at = T0.plus_millis(4 * DAY + 1);
        assert_eq!(
            observe(&store, &p, &m, &id, at, true, at).await,
            Some(HealthAction::Record)
        );
        let later = T0.plus_millis(6 * DAY);
        assert_eq!(
            observe(&store, &p, &m, &id, later, false, later).await,
            Some(HealthAction::Record)
        );
        assert!(store.0.lock().unwrap()[0].enabled);
        assert_eq!(store.health(&id).failing_since, Some(later));
    }

    #[tokio::test]
    async fn lost_races_are_re_read_and_gone_endpoints_skipped() {
        let (store, m, id) = setup();
        let p = DisablePolicy::default();
        store.lose_health_races(2);
        assert_eq!(
            observe(&store, &p, &m, &id, T0, false, T0).await,
            Some(HealthAction::Record)
        );
        assert_eq!(
            store.health(&id).version,
            1,
            "counted once despite the lost races"
        );
        store.lose_health_races(MAX_TRIES as u32);
        assert_eq!(observe(&store, &p, &m, &id, T0, false, T0).await, None);
        assert_eq!(store.health(&id).version, 1);
        let ghost = WebhookEndpointId::parse("whe_ghost").unwrap();
        assert_eq!(observe(&store, &p, &m, &ghost, T0, false, T0).await, None);
    }

    #[tokio::test]
    async fn a_disabled_endpoint_is_counted_not_disabled_again() {
        let (store, m, id) = setup();
        store.0.lock().unwrap()[0].enabled = false;
        let actions = fail_until(&store, &m, &id, 6).await;
        assert!(!actions.contains(&HealthAction::Disable));
        assert_eq!(store.0.lock().unwrap()[0].disabled_reason, None);
    }

    #[test]
    fn emf_names_the_metric_and_the_endpoint() {
        let v: serde_json::Value = serde_json::from_str(&emf(
            DISABLED_METRIC,
            &MerchantId::parse("mch_1").unwrap(),
            &WebhookEndpointId::parse("whe_1").unwrap(),
            T0,
        ))
        .unwrap();
        assert_eq!(
            v["_aws"]["CloudWatchMetrics"][0]["Metrics"][0]["Name"],
            DISABLED_METRIC
        );
        assert_eq!(v[DISABLED_METRIC], 1);
        assert_eq!(v["endpointId"], "whe_1");
    }
}
