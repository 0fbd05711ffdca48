//! Attribute-value helpers: building items and reading them back strictly.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use paygate_domain::{IdError, StoreError, Timestamp};

/// One DynamoDB item.
pub(crate) type Item = HashMap<String, AttributeValue>;

/// Partition-key attribute of the tables with composite keys (payments, deliveries).
pub(crate) const PK: &str = "pk";
/// Sort-key attribute of those tables.
pub(crate) const SK: &str = "sk";

/// A string attribute.
pub(crate) fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// A number attribute.
pub(crate) fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// A time attribute (ISO 8601, sortable as a string).
pub(crate) fn t(v: Timestamp) -> AttributeValue {
    AttributeValue::S(v.to_iso8601())
}

/// Builds an expression-attribute map from pairs.
pub(crate) fn attrs<V: Clone>(pairs: &[(&str, V)]) -> HashMap<String, V> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

/// An item a listing skips because it does not decode: its key attribute `key` (an id; `?`
/// when that is missing too) and the decoding error, which names the attribute at fault.
pub(crate) fn undecodable(
    item: &Item,
    key: &str,
    err: &StoreError,
) -> paygate_domain::ports::Undecodable {
    let key = match item.get(key) {
        Some(AttributeValue::S(k)) => k.clone(),
        _ => "?".to_owned(),
    };
    let reason = match err {
        StoreError::Corrupt(why) => why.clone(),
        other => other.to_string(),
    };
    paygate_domain::ports::Undecodable { key, reason }
}

/// Strict reader over one item; every failure is `StoreError::Corrupt` naming the item kind
/// and the attribute (never the value).
pub(crate) struct Fields<'a> {
    item: &'a Item,
    what: &'static str,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(item: &'a Item, what: &'static str) -> Self {
        Self { item, what }
    }

    pub(crate) fn corrupt(&self, name: &str, problem: &str) -> StoreError {
        StoreError::Corrupt(format!("{} item: attribute `{name}` {problem}", self.what))
    }

    pub(crate) fn has(&self, name: &str) -> bool {
        self.item.contains_key(name)
    }

    pub(crate) fn str(&self, name: &str) -> Result<&'a str, StoreError> {
        match self.item.get(name) {
            Some(AttributeValue::S(v)) => Ok(v),
            Some(_) => Err(self.corrupt(name, "is not a string")),
            None => Err(self.corrupt(name, "is missing")),
        }
    }

    /// A free-text attribute that may be absent (read as empty).
    pub(crate) fn text(&self, name: &str) -> Result<String, StoreError> {
        if self.has(name) {
            self.str(name).map(str::to_owned)
        } else {
            Ok(String::new())
        }
    }

    pub(crate) fn i64(&self, name: &str) -> Result<i64, StoreError> {
        match self.item.get(name) {
            Some(AttributeValue::N(v)) => v
                .parse()
                .map_err(|_| self.corrupt(name, "is not an integer")),
            Some(_) => Err(self.corrupt(name, "is not a number")),
            None => Err(self.corrupt(name, "is missing")),
        }
    }

    pub(crate) fn u64(&self, name: &str) -> Result<u64, StoreError> {
        let v = self.i64(name)?;
        u64::try_from(v).map_err(|_| self.corrupt(name, "is negative"))
    }

    pub(crate) fn bool(&self, name: &str) -> Result<bool, StoreError> {
        match self.item.get(name) {
            Some(AttributeValue::Bool(v)) => Ok(*v),
            Some(_) => Err(self.corrupt(name, "is not a boolean")),
            None => Err(self.corrupt(name, "is missing")),
        }
    }

    pub(crate) fn time(&self, name: &str) -> Result<Timestamp, StoreError> {
        Timestamp::parse_iso8601(self.str(name)?)
            .ok_or_else(|| self.corrupt(name, "is not an ISO 8601 time"))
    }

    /// A typed id (`pay_…`, `acc_…`, …).
    pub(crate) fn id<T>(
        &self,
        name: &str,
        parse: impl FnOnce(&str) -> Result<T, IdError>,
    ) -> Result<T, StoreError> {
        parse(self.str(name)?).map_err(|_| self.corrupt(name, "is not a valid id"))
    }

    /// A string attribute parsed into an enum.
    pub(crate) fn parsed<T>(
        &self,
        name: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T, StoreError> {
        parse(self.str(name)?).ok_or_else(|| self.corrupt(name, "has an unknown value"))
    }

    /// A map attribute, read with the same strictness.
    pub(crate) fn map(&self, name: &str, what: &'static str) -> Result<Fields<'a>, StoreError> {
        match self.item.get(name) {
            Some(AttributeValue::M(m)) => Ok(Fields::new(m, what)),
            Some(_) => Err(self.corrupt(name, "is not a map")),
            None => Err(self.corrupt(name, "is missing")),
        }
    }

    /// A list of strings.
    pub(crate) fn strings(&self, name: &str) -> Result<Vec<&'a str>, StoreError> {
        match self.item.get(name) {
            Some(AttributeValue::L(list)) => list
                .iter()
                .map(|v| match v {
                    AttributeValue::S(s) => Ok(s.as_str()),
                    _ => Err(self.corrupt(name, "holds a non-string")),
                })
                .collect(),
            Some(_) => Err(self.corrupt(name, "is not a list")),
            None => Err(self.corrupt(name, "is missing")),
        }
    }

    /// A JSON document stored as a string attribute.
    pub(crate) fn json<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<T, StoreError> {
        serde_json::from_str(self.str(name)?)
            .map_err(|e| self.corrupt(name, &format!("is not a valid document ({e})")))
    }
}

/// Serialises a document for a `doc` attribute.
pub(crate) fn json_doc<T: serde::Serialize>(v: &T, what: &str) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|e| StoreError::Corrupt(format!("encoding {what}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_strict_and_name_the_attribute() {
        let item: Item = attrs(&[("a", s("x")), ("b", n(7)), ("c", n("x"))]);
        let f = Fields::new(&item, "thing");
        assert_eq!(f.str("a").unwrap(), "x");
        assert_eq!(f.i64("b").unwrap(), 7);
        let err = f.i64("a").unwrap_err().to_string();
        assert!(
            err.contains("thing item: attribute `a` is not a number"),
            "{err}"
        );
        assert!(matches!(f.i64("c"), Err(StoreError::Corrupt(_))));
        assert!(matches!(f.str("zz"), Err(StoreError::Corrupt(_))));
        assert_eq!(f.text("zz").unwrap(), "");
        assert!(matches!(f.u64("b"), Ok(7)));
    }
}
