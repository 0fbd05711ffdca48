//! Items of the webhook tables: endpoints, deliveries and attempts.

use aws_sdk_dynamodb::types::AttributeValue;
use paygate_domain::{
    webhook::{
        Attempt, AttemptError, Delivery, DeliveryId, DeliveryStatus, DisabledReason,
        EndpointHealth, EventFilter, WebhookEndpoint, WebhookEndpointId,
    },
    EventId, EventType, MerchantId, Mode, StoreError, Timestamp,
};

use crate::dynamo::{
    item::{n, s, t, Fields, Item},
    schema::DUE_SHARD,
};

/// Attribute names the expressions refer to.
pub(crate) mod attr {
    pub(crate) const MERCHANT_ID: &str = "merchantId";
    pub(crate) const ENDPOINT_ID: &str = "endpointId";
    pub(crate) const UPDATED_AT: &str = "updatedAt";
    pub(crate) const CREATED_AT: &str = "createdAt";
    pub(crate) const EVENT_ID: &str = "eventId";
    pub(crate) use crate::dynamo::item::{PK, SK};
    pub(crate) const STATUS: &str = "status";
    pub(crate) const ATTEMPTS_MADE: &str = "attemptsMade";
    /// Attempts made before the retry schedule last (re)started (number; absent = 0).
    pub(crate) const RETRY_BASE: &str = "retryBase";
    pub(crate) const NEXT_ATTEMPT_AT: &str = "nextAttemptAt";
    pub(crate) const DUE_SHARD: &str = "dueShard";
    /// The endpoint id, on pending deliveries only (the sparse `pendingByEndpoint` index).
    pub(crate) const PENDING_ENDPOINT: &str = "pendingEndpoint";
    pub(crate) const ENABLED: &str = "enabled";
    pub(crate) const DISABLED_REASON: &str = "disabledReason";
    /// The endpoint's health document (JSON) and its version.
    pub(crate) const HEALTH: &str = "health";
    pub(crate) const HEALTH_VERSION: &str = "healthVersion";
    /// Epoch millis (number) until which an attempt is claimed; absent when unclaimed.
    pub(crate) const LEASE_UNTIL: &str = "leaseUntil";
    /// TTL attribute (epoch seconds).
    pub(crate) const EXPIRES_AT: &str = "expiresAt";
}

/// Sort key of the delivery item.
pub(crate) const DELIVERY_SK: &str = "DELIVERY";
/// Sort-key prefix of attempt items.
pub(crate) const ATTEMPT_SK_PREFIX: &str = "ATTEMPT#";

/// `ATTEMPT#0001`, … (zero-padded so that the sort key orders like the number up to 9999).
pub(crate) fn attempt_sk(number: u32) -> String {
    format!("{ATTEMPT_SK_PREFIX}{number:04}")
}

/// The TTL of every item of a delivery created at `created_at` (epoch seconds), kept for
/// `retention_secs`.
pub(crate) fn expires_at(created_at: Timestamp, retention_secs: i64) -> i64 {
    created_at.unix_seconds().saturating_add(retention_secs)
}

// --- endpoints -------------------------------------------------------------------------

pub(crate) fn encode_endpoint(e: &WebhookEndpoint) -> Item {
    let events = e.events.iter().map(|f| s(f.as_str())).collect();
    let mut item = Item::from([
        (attr::MERCHANT_ID.to_owned(), s(e.merchant_id.as_str())),
        (attr::ENDPOINT_ID.to_owned(), s(e.id.as_str())),
        ("url".to_owned(), s(&e.url)),
        ("events".to_owned(), AttributeValue::L(events)),
        ("mode".to_owned(), s(e.mode.as_str())),
        ("enabled".to_owned(), AttributeValue::Bool(e.enabled)),
        ("description".to_owned(), s(&e.description)),
        ("secretId".to_owned(), s(&e.secret_id)),
        ("secretVersion".to_owned(), n(e.secret_version)),
        (attr::CREATED_AT.to_owned(), t(e.created_at)),
        (attr::UPDATED_AT.to_owned(), t(e.updated_at)),
    ]);
    if let Some(r) = e.disabled_reason {
        item.insert(attr::DISABLED_REASON.to_owned(), s(r.as_str()));
    }
    item
}

/// The endpoint's health, stored on its item as a JSON document (`health`) beside its
/// version (`healthVersion`, the condition of every health write). Absent: never written.
pub(crate) fn decode_health(item: &Item) -> Result<EndpointHealth, StoreError> {
    let f = Fields::new(item, "webhook endpoint");
    if !f.has(attr::HEALTH) {
        return Ok(EndpointHealth::default());
    }
    let mut h: EndpointHealth = f.json(attr::HEALTH)?;
    h.version = f.u64(attr::HEALTH_VERSION)?;
    Ok(h)
}

pub(crate) fn decode_endpoint(item: &Item) -> Result<WebhookEndpoint, StoreError> {
    let f = Fields::new(item, "webhook endpoint");
    let events = f
        .strings("events")?
        .into_iter()
        .map(|e| EventFilter::parse(e).ok_or_else(|| f.corrupt("events", "has an unknown type")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(WebhookEndpoint {
        id: f.id(attr::ENDPOINT_ID, WebhookEndpointId::parse)?,
        merchant_id: f.id(attr::MERCHANT_ID, MerchantId::parse)?,
        url: f.str("url")?.to_owned(),
        events,
        mode: f.parsed("mode", Mode::parse)?,
        enabled: f.bool("enabled")?,
        description: f.text("description")?,
        secret_id: f.str("secretId")?.to_owned(),
        // Items written before secret versions existed are at version 0.
        secret_version: if f.has("secretVersion") {
            f.u64("secretVersion")?
        } else {
            0
        },
        created_at: f.time(attr::CREATED_AT)?,
        updated_at: f.time(attr::UPDATED_AT)?,
        disabled_reason: if f.has(attr::DISABLED_REASON) {
            Some(f.parsed(attr::DISABLED_REASON, DisabledReason::parse)?)
        } else {
            None
        },
    })
}

// --- deliveries ------------------------------------------------------------------------

/// The delivery item. `nextAttemptAt` is present when the delivery has a next attempt;
/// `dueShard` only while it is pending with one, which is what puts it in the sparse `due`
/// index. `leaseUntil` is never part of it: a write of the whole item ends any claim.
pub(crate) fn encode_delivery(d: &Delivery, retention_secs: i64) -> Item {
    let mut item = Item::from([
        (attr::PK.to_owned(), s(d.id.as_str())),
        (attr::SK.to_owned(), s(DELIVERY_SK)),
        ("id".to_owned(), s(d.id.as_str())),
        (attr::MERCHANT_ID.to_owned(), s(d.merchant_id.as_str())),
        (attr::ENDPOINT_ID.to_owned(), s(d.endpoint_id.as_str())),
        (attr::EVENT_ID.to_owned(), s(d.event_id.as_str())),
        ("eventType".to_owned(), s(d.event_type.as_str())),
        ("mode".to_owned(), s(d.mode.as_str())),
        (attr::STATUS.to_owned(), s(d.status.as_str())),
        (attr::ATTEMPTS_MADE.to_owned(), n(d.attempts_made)),
        (attr::RETRY_BASE.to_owned(), n(d.retry_base)),
        (attr::CREATED_AT.to_owned(), t(d.created_at)),
        (attr::UPDATED_AT.to_owned(), t(d.updated_at)),
        (
            attr::EXPIRES_AT.to_owned(),
            n(expires_at(d.created_at, retention_secs)),
        ),
    ]);
    if let Some(next) = d.next_attempt_at {
        item.insert(attr::NEXT_ATTEMPT_AT.to_owned(), t(next));
        if d.status == DeliveryStatus::Pending {
            item.insert(attr::DUE_SHARD.to_owned(), s(DUE_SHARD));
        }
    }
    if d.status == DeliveryStatus::Pending {
        item.insert(attr::PENDING_ENDPOINT.to_owned(), s(d.endpoint_id.as_str()));
    }
    item
}

fn u32_of(f: &Fields<'_>, name: &str) -> Result<u32, StoreError> {
    u32::try_from(f.u64(name)?).map_err(|_| f.corrupt(name, "is out of range"))
}

pub(crate) fn decode_delivery(item: &Item) -> Result<Delivery, StoreError> {
    let f = Fields::new(item, "delivery");
    let next_attempt_at = if f.has(attr::NEXT_ATTEMPT_AT) {
        Some(f.time(attr::NEXT_ATTEMPT_AT)?)
    } else {
        None
    };
    Ok(Delivery {
        id: f.id("id", DeliveryId::parse)?,
        merchant_id: f.id(attr::MERCHANT_ID, MerchantId::parse)?,
        endpoint_id: f.id(attr::ENDPOINT_ID, WebhookEndpointId::parse)?,
        event_id: f.id(attr::EVENT_ID, EventId::parse)?,
        event_type: f.parsed("eventType", EventType::parse)?,
        mode: f.parsed("mode", Mode::parse)?,
        status: f.parsed(attr::STATUS, DeliveryStatus::parse)?,
        attempts_made: u32_of(&f, attr::ATTEMPTS_MADE)?,
        next_attempt_at,
        created_at: f.time(attr::CREATED_AT)?,
        updated_at: f.time(attr::UPDATED_AT)?,
        // Items written before resends existed have none: the schedule started at 0.
        retry_base: if f.has(attr::RETRY_BASE) {
            u32_of(&f, attr::RETRY_BASE)?
        } else {
            0
        },
    })
}

// --- attempts --------------------------------------------------------------------------

/// The domain's JSON name of an attempt error (`timeout`, `connection`, …), so that the
/// stored value follows the domain's serde names, new variants included.
fn attempt_error_str(e: AttemptError) -> Result<String, StoreError> {
    match serde_json::to_value(e) {
        Ok(serde_json::Value::String(v)) => Ok(v),
        _ => Err(StoreError::Corrupt(format!(
            "encoding attempt error {e:?}: not a string"
        ))),
    }
}

fn parse_attempt_error(s: &str) -> Option<AttemptError> {
    serde_json::from_value(serde_json::Value::String(s.to_owned())).ok()
}

/// The attempt item, under its delivery's partition. It carries none of the index keys
/// (`endpointId`, `eventId`, `dueShard`), so it stays out of every GSI. `created_at` is the
/// delivery's, for the TTL.
pub(crate) fn encode_attempt(
    a: &Attempt,
    delivery_created_at: Timestamp,
    retention_secs: i64,
) -> Result<Item, StoreError> {
    let mut item = Item::from([
        (attr::PK.to_owned(), s(a.delivery_id.as_str())),
        (attr::SK.to_owned(), s(attempt_sk(a.number))),
        ("deliveryId".to_owned(), s(a.delivery_id.as_str())),
        ("number".to_owned(), n(a.number)),
        ("at".to_owned(), t(a.at)),
        ("durationMs".to_owned(), n(a.duration_ms)),
        ("responseBody".to_owned(), s(&a.response_body)),
        ("succeeded".to_owned(), AttributeValue::Bool(a.succeeded)),
        (
            attr::EXPIRES_AT.to_owned(),
            n(expires_at(delivery_created_at, retention_secs)),
        ),
    ]);
    if let Some(code) = a.status_code {
        item.insert("statusCode".to_owned(), n(code));
    }
    if let Some(e) = a.error {
        item.insert("error".to_owned(), s(attempt_error_str(e)?));
    }
    Ok(item)
}

pub(crate) fn decode_attempt(item: &Item) -> Result<Attempt, StoreError> {
    let f = Fields::new(item, "attempt");
    let status_code = if f.has("statusCode") {
        let v = f.u64("statusCode")?;
        Some(u16::try_from(v).map_err(|_| f.corrupt("statusCode", "is out of range"))?)
    } else {
        None
    };
    let error = if f.has("error") {
        Some(f.parsed("error", parse_attempt_error)?)
    } else {
        None
    };
    Ok(Attempt {
        delivery_id: f.id("deliveryId", DeliveryId::parse)?,
        number: u32_of(&f, "number")?,
        at: f.time("at")?,
        duration_ms: f.u64("durationMs")?,
        status_code,
        error,
        response_body: f.text("responseBody")?,
        succeeded: f.bool("succeeded")?,
    })
}

#[cfg(test)]
mod tests {
    use paygate_domain::webhook::RetrySchedule;

    use super::*;
    use crate::dynamo::schema::DEFAULT_RETENTION_SECS;

    const T0: Timestamp = Timestamp::from_unix_millis(1_795_255_200_000);

    fn endpoint() -> WebhookEndpoint {
        WebhookEndpoint {
            id: WebhookEndpointId::parse("whe_1").unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            url: "https://example.com/hooks".into(),
            events: vec![
                EventFilter::Only(EventType::PaymentCaptured),
                EventFilter::All,
            ],
            mode: Mode::Live,
            enabled: true,
            description: String::new(),
            secret_id: "paygate/whe_1".into(),
            secret_version: 0,
            created_at: T0,
            updated_at: T0.plus_millis(1),
            disabled_reason: None,
        }
    }

    fn delivery() -> Delivery {
        Delivery {
            id: DeliveryId::parse("dlv_1").unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            endpoint_id: WebhookEndpointId::parse("whe_1").unwrap(),
            event_id: EventId::parse("evt_1").unwrap(),
            event_type: EventType::PaymentRefunded,
            mode: Mode::Test,
            status: DeliveryStatus::Pending,
            attempts_made: 0,
            next_attempt_at: Some(T0),
            created_at: T0,
            updated_at: T0,
            retry_base: 0,
        }
    }

    #[test]
    fn endpoint_round_trips_with_events_as_strings() {
        let e = endpoint();
        let item = encode_endpoint(&e);
        assert_eq!(
            item.get("events"),
            Some(&AttributeValue::L(vec![s("payment.captured"), s("*")]))
        );
        assert_eq!(decode_endpoint(&item).unwrap(), e);
        let mut bad = item.clone();
        bad.insert("events".into(), AttributeValue::L(vec![s("nope")]));
        assert!(matches!(decode_endpoint(&bad), Err(StoreError::Corrupt(_))));
    }

    #[test]
    fn pending_delivery_is_due_and_final_one_is_not() {
        let d = delivery();
        let item = encode_delivery(&d, DEFAULT_RETENTION_SECS);
        assert_eq!(item.get("dueShard"), Some(&s("0")));
        assert_eq!(item.get("nextAttemptAt"), Some(&t(T0)));
        assert_eq!(
            item.get("expiresAt"),
            Some(&n(T0.unix_seconds() + 90 * 86_400))
        );
        assert_eq!(decode_delivery(&item).unwrap(), d);

        let attempt = Attempt {
            delivery_id: d.id.clone(),
            number: 1,
            at: T0.plus_millis(100),
            duration_ms: 80,
            status_code: Some(204),
            error: None,
            response_body: String::new(),
            succeeded: true,
        };
        let done = d
            .after_attempt(&attempt, &RetrySchedule::default())
            .delivery;
        let item = encode_delivery(&done, DEFAULT_RETENTION_SECS);
        assert!(!item.contains_key("dueShard"));
        assert!(!item.contains_key("pendingEndpoint"));
        assert!(!item.contains_key("nextAttemptAt"));
        assert_eq!(decode_delivery(&item).unwrap(), done);
    }

    #[test]
    fn attempts_round_trip_and_stay_out_of_the_indexes() {
        let a = Attempt {
            delivery_id: DeliveryId::parse("dlv_1").unwrap(),
            number: 12,
            at: T0,
            duration_ms: 10_000,
            status_code: None,
            error: Some(AttemptError::Timeout),
            response_body: "x".into(),
            succeeded: false,
        };
        let item = encode_attempt(&a, T0, DEFAULT_RETENTION_SECS).unwrap();
        assert_eq!(item.get("sk"), Some(&s("ATTEMPT#0012")));
        for key in ["endpointId", "eventId", "dueShard", "createdAt"] {
            assert!(!item.contains_key(key), "{key}");
        }
        assert_eq!(decode_attempt(&item).unwrap(), a);
        let b = Attempt {
            status_code: Some(500),
            error: None,
            ..a
        };
        assert_eq!(
            decode_attempt(&encode_attempt(&b, T0, DEFAULT_RETENTION_SECS).unwrap()).unwrap(),
            b
        );
    }

    #[test]
    fn attempt_errors_are_stored_by_their_domain_names() {
        for (e, name) in [
            (AttemptError::Timeout, "timeout"),
            (AttemptError::Connection, "connection"),
            (AttemptError::Tls, "tls"),
        ] {
            assert_eq!(attempt_error_str(e).unwrap(), name);
            assert_eq!(parse_attempt_error(name), Some(e));
        }
        assert_eq!(parse_attempt_error("Timeout"), None);
        assert_eq!(parse_attempt_error(""), None);
    }

    #[test]
    fn attempt_sort_keys_order_like_numbers() {
        let keys: Vec<String> = (1..=120).map(attempt_sk).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
    }
}
