//! Typed, prefixed identifiers (`pay_…`, `txn_…`, …). The opaque part is 1–64 ASCII
//! alphanumerics; anything else is rejected when parsed at the edge.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why a string is not a valid id of the expected kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected an id of the form {prefix}<1-64 letters or digits>")]
pub struct IdError {
    pub prefix: &'static str,
}

/// Source of the opaque part of new ids (injected: random in production, a counter in tests).
pub trait IdGenerator: Send + Sync {
    /// A fresh opaque part: 1–64 ASCII letters or digits, unique with overwhelming probability.
    fn opaque(&self) -> String;
}

fn valid_opaque(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            pub const PREFIX: &'static str = $prefix;

            /// Parses a full id (prefix included).
            pub fn parse(s: &str) -> Result<Self, IdError> {
                match s.strip_prefix($prefix) {
                    Some(rest) if valid_opaque(rest) => Ok(Self(s.to_owned())),
                    _ => Err(IdError { prefix: $prefix }),
                }
            }

            /// A new id from the injected generator.
            pub fn generate(ids: &dyn IdGenerator) -> Self {
                let opaque = ids.opaque();
                debug_assert!(valid_opaque(&opaque), "id generator produced an invalid id");
                Self(format!("{}{}", $prefix, opaque))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// An id from an opaque part already known to be valid.
            #[allow(dead_code)]
            pub(crate) fn from_valid_opaque(opaque: &str) -> Self {
                debug_assert!(valid_opaque(opaque));
                Self(format!("{}{}", $prefix, opaque))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Self::parse(&s).map_err(serde::de::Error::custom)
            }
        }
    };
}

id_type!(
    /// A payment (`pay_…`).
    PaymentId,
    "pay_"
);
id_type!(
    /// A bank-facing transaction produced by an operation (`txn_…`).
    TransactionId,
    "txn_"
);
id_type!(
    /// An event in the outbox (`evt_…`).
    EventId,
    "evt_"
);
id_type!(
    /// A merchant (`mch_…`).
    MerchantId,
    "mch_"
);
id_type!(
    /// A POS account at a bank (`acc_…`).
    AccountId,
    "acc_"
);
id_type!(
    /// A merchant's webhook endpoint (`whe_…`).
    WebhookEndpointId,
    "whe_"
);
id_type!(
    /// One event's delivery to one endpoint (`dlv_…`); sent as `X-Svc-Delivery`.
    DeliveryId,
    "dlv_"
);
id_type!(
    /// An API key's public identifier (`key_…`), never the key itself.
    ApiKeyId,
    "key_"
);

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn parses_only_its_own_prefix() {
        assert!(PaymentId::parse("pay_abc123").is_ok());
        assert!(PaymentId::parse("txn_abc123").is_err());
        assert!(PaymentId::parse("pay_").is_err());
        assert!(PaymentId::parse("pay_a-b").is_err());
        assert!(PaymentId::parse("pay_ab c").is_err());
        assert!(PaymentId::parse(&format!("pay_{}", "a".repeat(65))).is_err());
        assert_eq!(
            PaymentId::parse("nope").unwrap_err().to_string(),
            "expected an id of the form pay_<1-64 letters or digits>"
        );
    }

    proptest! {
        #[test]
        fn display_parse_round_trip(opaque in "[A-Za-z0-9]{1,64}") {
            let id = PaymentId::parse(&format!("pay_{opaque}")).unwrap();
            prop_assert_eq!(PaymentId::parse(&id.to_string()).unwrap(), id);
        }
    }
}
