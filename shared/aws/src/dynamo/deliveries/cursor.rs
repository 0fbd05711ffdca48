//! The cursors of the dashboard's delivery history: a position in the `byEndpoint` index,
//! handed out as opaque lowercase hex and accepted back only for the endpoint it came from.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use paygate_domain::{
    webhook::{Delivery, DeliveryId, WebhookEndpointId},
    StoreError, Timestamp,
};

use crate::dynamo::{
    item::{s, Item},
    webhook_item::{attr, DELIVERY_SK},
};

/// The `byEndpoint` position just after `d`: the index keys and the table keys, as the
/// lowercase hex of a JSON object of strings.
pub(super) fn encode_cursor(d: &Delivery) -> String {
    let key: HashMap<&str, String> = HashMap::from([
        (attr::PK, d.id.as_str().to_owned()),
        (attr::SK, DELIVERY_SK.to_owned()),
        (attr::ENDPOINT_ID, d.endpoint_id.as_str().to_owned()),
        (attr::CREATED_AT, d.created_at.to_iso8601()),
    ]);
    to_hex(&serde_json::to_vec(&key).unwrap_or_default())
}

/// The cursor of a `LastEvaluatedKey` of the `byEndpoint` index.
pub(super) fn encode_key_cursor(key: &Item) -> Result<String, StoreError> {
    let mut out: HashMap<&str, &str> = HashMap::new();
    for name in CURSOR_KEYS {
        match key.get(name) {
            Some(AttributeValue::S(v)) => {
                out.insert(name, v);
            }
            _ => {
                return Err(StoreError::Corrupt(format!(
                    "LastEvaluatedKey lacks the string `{name}`"
                )))
            }
        }
    }
    Ok(to_hex(&serde_json::to_vec(&out).unwrap_or_default()))
}

const CURSOR_KEYS: [&str; 4] = [attr::PK, attr::SK, attr::ENDPOINT_ID, attr::CREATED_AT];

fn invalid_cursor() -> StoreError {
    StoreError::Corrupt("invalid cursor".to_owned())
}

/// The `ExclusiveStartKey` of a cursor, which must be one of `endpoint`'s.
pub(super) fn decode_cursor(
    cursor: &str,
    endpoint: &WebhookEndpointId,
) -> Result<Item, StoreError> {
    let bytes = from_hex(cursor).ok_or_else(invalid_cursor)?;
    let key: HashMap<String, String> =
        serde_json::from_slice(&bytes).map_err(|_| invalid_cursor())?;
    let valid = key.len() == CURSOR_KEYS.len()
        && CURSOR_KEYS.iter().all(|k| key.contains_key(*k))
        && key.get(attr::ENDPOINT_ID).map(String::as_str) == Some(endpoint.as_str())
        && key.get(attr::SK).map(String::as_str) == Some(DELIVERY_SK)
        && key
            .get(attr::PK)
            .is_some_and(|v| DeliveryId::parse(v).is_ok())
        && key
            .get(attr::CREATED_AT)
            .is_some_and(|v| Timestamp::parse_iso8601(v).is_some());
    if !valid {
        return Err(invalid_cursor());
    }
    Ok(key.into_iter().map(|(k, v)| (k, s(v))).collect())
}

fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

fn from_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| {
        char::from(c)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    s.as_bytes()
        .chunks(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use paygate_domain::{webhook::DeliveryStatus, EventId, EventType, MerchantId, Mode};

    use super::*;
    use crate::dynamo::item::t;

    fn delivery(endpoint: &str) -> Delivery {
        let t0 = Timestamp::from_unix_millis(1_795_255_200_000);
        Delivery {
            id: DeliveryId::parse("dlv_abc").unwrap(),
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            endpoint_id: WebhookEndpointId::parse(endpoint).unwrap(),
            event_id: EventId::parse("evt_1").unwrap(),
            event_type: EventType::PaymentCaptured,
            mode: Mode::Test,
            status: DeliveryStatus::Pending,
            attempts_made: 0,
            next_attempt_at: None,
            created_at: t0,
            updated_at: t0,
            retry_base: 0,
        }
    }

    #[test]
    fn hex_round_trips_and_rejects_garbage() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(from_hex(&to_hex(&bytes)), Some(bytes));
        assert_eq!(to_hex(b"\x01\xab"), "01ab");
        assert_eq!(from_hex("0"), None);
        assert_eq!(from_hex("zz"), None);
        assert_eq!(from_hex("ab").unwrap(), vec![0xab]);
    }

    #[test]
    fn cursors_are_bound_to_their_endpoint() {
        let d = delivery("whe_one");
        let c = encode_cursor(&d);
        let key = decode_cursor(&c, &d.endpoint_id).unwrap();
        assert_eq!(key.get("pk"), Some(&s("dlv_abc")));
        assert_eq!(key.get("sk"), Some(&s("DELIVERY")));
        assert_eq!(key.get("createdAt"), Some(&t(d.created_at)));
        assert_eq!(key.len(), 4);
        // the same cursor on another endpoint, or a tampered one, is refused
        let other = WebhookEndpointId::parse("whe_two").unwrap();
        assert!(matches!(
            decode_cursor(&c, &other),
            Err(StoreError::Corrupt(_))
        ));
        assert!(decode_cursor("nothex", &d.endpoint_id).is_err());
        assert!(decode_cursor(&to_hex(b"{}"), &d.endpoint_id).is_err());
        // and a LastEvaluatedKey encodes to the same cursor
        assert_eq!(
            decode_cursor(&encode_key_cursor(&key).unwrap(), &d.endpoint_id).unwrap(),
            key
        );
    }

    /// The cursor comes from the query string unchecked but for its length: whatever text,
    /// hex or JSON it holds, decoding answers (never panics), and only a well-formed key of
    /// this endpoint is accepted.
    mod decoding {
        use proptest::{collection, prelude::*};

        use super::*;

        const ENDPOINT: &str = "whe_one";
        const CREATED: &str = "2026-11-21T09:00:00.000Z";

        fn endpoint() -> WebhookEndpointId {
            WebhookEndpointId::parse(ENDPOINT).unwrap()
        }

        /// An accepted cursor is exactly the four keys of a delivery of this endpoint.
        fn check(cursor: &str) {
            match decode_cursor(cursor, &endpoint()) {
                Ok(key) => {
                    assert_eq!(key.len(), CURSOR_KEYS.len());
                    assert_eq!(key.get(attr::ENDPOINT_ID), Some(&s(ENDPOINT)));
                    assert_eq!(key.get(attr::SK), Some(&s(DELIVERY_SK)));
                }
                Err(e) => assert!(matches!(e, StoreError::Corrupt(ref m) if m == "invalid cursor")),
            }
        }

        /// Keys and values near the real ones, and anything else.
        fn key_name() -> impl Strategy<Value = String> {
            prop_oneof![
                Just(attr::PK.to_owned()),
                Just(attr::SK.to_owned()),
                Just(attr::ENDPOINT_ID.to_owned()),
                Just(attr::CREATED_AT.to_owned()),
                "\\PC{0,12}",
            ]
        }

        fn key_value() -> impl Strategy<Value = serde_json::Value> {
            prop_oneof![
                Just(serde_json::json!("dlv_abc")),
                Just(serde_json::json!(DELIVERY_SK)),
                Just(serde_json::json!(ENDPOINT)),
                Just(serde_json::json!(CREATED)),
                "\\PC{0,40}".prop_map(serde_json::Value::from),
                any::<i64>().prop_map(serde_json::Value::from),
                any::<f64>().prop_map(serde_json::Value::from),
                Just(serde_json::Value::Null),
                collection::vec(any::<u8>(), 0..4).prop_map(serde_json::Value::from),
            ]
        }

        proptest! {
            #[test]
            fn any_text_is_answered(text in "\\PC{0,300}") {
                check(&text);
            }

            #[test]
            fn any_bytes_as_hex_are_answered(bytes in collection::vec(any::<u8>(), 0..300)) {
                check(&to_hex(&bytes));
                check(&to_hex(&bytes).to_uppercase());
            }

            #[test]
            fn any_json_object_is_answered(
                map in collection::hash_map(key_name(), key_value(), 0..7)
            ) {
                let json = serde_json::to_vec(&map).unwrap();
                check(&to_hex(&json));
            }

            #[test]
            fn a_real_key_with_one_field_changed_is_answered(
                change in proptest::option::of((key_name(), proptest::option::of(key_value())))
            ) {
                let mut map: HashMap<String, serde_json::Value> = CURSOR_KEYS
                    .iter()
                    .zip(["dlv_abc", DELIVERY_SK, ENDPOINT, CREATED])
                    .map(|(k, v)| ((*k).to_owned(), serde_json::json!(v)))
                    .collect();
                let unchanged = change.is_none();
                match change {
                    Some((k, Some(v))) => {
                        map.insert(k, v);
                    }
                    Some((k, None)) => {
                        map.remove(&k);
                    }
                    None => {}
                }
                let cursor = to_hex(&serde_json::to_vec(&map).unwrap());
                check(&cursor);
                if unchanged {
                    prop_assert!(decode_cursor(&cursor, &endpoint()).is_ok());
                }
            }

            #[test]
            fn any_json_value_is_answered(v in key_value()) {
                check(&to_hex(&serde_json::to_vec(&v).unwrap()));
            }

            #[test]
            fn a_cursor_handed_out_is_taken_back(n in 0u32..1_000_000, ms in 0i64..4_102_444_800_000) {
                let mut d = delivery(ENDPOINT);
                d.id = DeliveryId::parse(&format!("dlv_{n}")).unwrap();
                d.created_at = Timestamp::from_unix_millis(ms);
                let key = decode_cursor(&encode_cursor(&d), &endpoint()).unwrap();
                prop_assert_eq!(key.get(attr::PK), Some(&s(d.id.as_str())));
                prop_assert_eq!(key.get(attr::CREATED_AT), Some(&t(d.created_at)));
            }
        }
    }
}
