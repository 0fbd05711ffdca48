//! Request bodies: parsed as a JSON object, then read field by field so every error names
//! the field (`invalid_request` with `details.field`). Unknown fields are refused.

use lambda_http::{Body, Request};
use paygate_domain::error::code;
use serde_json::{Map, Value};

use crate::error::ApiError;

/// Largest accepted request body.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The body as a JSON object; an empty body is `{}`.
pub fn parse_object(req: &Request) -> Result<Map<String, Value>, ApiError> {
    let bytes: &[u8] = match req.body() {
        Body::Empty => b"",
        Body::Text(t) => t.as_bytes(),
        Body::Binary(b) => b,
        _ => b"",
    };
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::new(
            lambda_http::http::StatusCode::PAYLOAD_TOO_LARGE,
            code::REQUEST_TOO_LARGE,
            format!("Request bodies are limited to {MAX_BODY_BYTES} bytes."),
        ));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    let content_type = req
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !content_type
        .trim_start()
        .to_ascii_lowercase()
        .starts_with("application/json")
    {
        return Err(ApiError::new(
            lambda_http::http::StatusCode::UNSUPPORTED_MEDIA_TYPE,
            code::UNSUPPORTED_MEDIA_TYPE,
            "Send JSON bodies with `Content-Type: application/json`.",
        ));
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(ApiError::invalid("body", "must be a JSON object")),
        Err(_) => Err(ApiError::invalid("body", "is not valid JSON")),
    }
}

/// Field-by-field reader over a JSON object.
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
    prefix: &'a str,
}

impl<'a> Fields<'a> {
    pub fn new(map: &'a Map<String, Value>) -> Self {
        Self { map, prefix: "" }
    }

    pub fn nested(map: &'a Map<String, Value>, prefix: &'a str) -> Self {
        Self { map, prefix }
    }

    fn name(&self, field: &str) -> String {
        if self.prefix.is_empty() {
            field.to_owned()
        } else {
            format!("{}.{field}", self.prefix)
        }
    }

    /// Refuses any field not in `known`.
    pub fn only(&self, known: &[&str]) -> Result<(), ApiError> {
        match self.map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(ApiError::invalid(&self.name(k), "is not a known field")),
            None => Ok(()),
        }
    }

    /// The field's value when present. `null` is not absence: no field of the API is
    /// nullable, so an explicit `null` is refused with the field's name (a `"amount": null`
    /// read as "omitted" would mean "the full amount").
    pub fn value(&self, field: &str) -> Result<Option<&'a Value>, ApiError> {
        match self.map.get(field) {
            None => Ok(None),
            Some(Value::Null) => Err(ApiError::invalid(&self.name(field), "must not be null")),
            Some(v) => Ok(Some(v)),
        }
    }

    /// An optional integer. JSON Schema counts any number with a zero fractional part as an
    /// integer, so `1079.0` is `1079`; `1079.5` is refused. A number written with a fraction is
    /// read as a binary64 by the JSON parser, so it is accepted only within ±2^53, where every
    /// integer is exact (every integer field of the API is bounded far below that).
    pub fn opt_i64(&self, field: &str) -> Result<Option<i64>, ApiError> {
        let Some(v) = self.value(field)? else {
            return Ok(None);
        };
        integer(v)
            .map(Some)
            .ok_or_else(|| ApiError::invalid(&self.name(field), "must be an integer"))
    }

    /// An optional boolean.
    pub fn opt_bool(&self, field: &str) -> Result<Option<bool>, ApiError> {
        match self.value(field)? {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(ApiError::invalid(
                &self.name(field),
                "must be true or false",
            )),
        }
    }

    pub fn req_i64(&self, field: &str) -> Result<i64, ApiError> {
        self.opt_i64(field)?
            .ok_or_else(|| ApiError::invalid(&self.name(field), "is required"))
    }

    pub fn opt_str(&self, field: &str) -> Result<Option<&'a str>, ApiError> {
        match self.value(field)? {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .map(Some)
                .ok_or_else(|| ApiError::invalid(&self.name(field), "must be a string")),
        }
    }

    pub fn req_str(&self, field: &str) -> Result<&'a str, ApiError> {
        self.opt_str(field)?
            .ok_or_else(|| ApiError::invalid(&self.name(field), "is required"))
    }

    pub fn req_object(&self, field: &str) -> Result<&'a Map<String, Value>, ApiError> {
        match self.value(field)? {
            None => Err(ApiError::invalid(&self.name(field), "is required")),
            Some(v) => v
                .as_object()
                .ok_or_else(|| ApiError::invalid(&self.name(field), "must be an object")),
        }
    }
}

/// Largest magnitude below which every binary64 integer is exact (2^53).
const EXACT_F64: f64 = 9_007_199_254_740_992.0;

/// A JSON number with no fractional part as an `i64` (`10`, `10.0`, `1e3`), else `None`.
fn integer(v: &Value) -> Option<i64> {
    if let Some(i) = v.as_i64() {
        return Some(i);
    }
    let f = v.as_f64()?;
    // `as` is exact here: f is integral and strictly inside ±2^53.
    #[allow(clippy::cast_possible_truncation)]
    (f.fract() == 0.0 && f.abs() < EXACT_F64).then_some(f as i64)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn names_the_field_in_every_error() {
        let m = obj(json!({"amount": "10", "card": {"number": 4}}));
        let f = Fields::new(&m);
        let e = f.opt_i64("amount").unwrap_err();
        assert_eq!(e.details.unwrap()["field"], "amount");
        let card = f.req_object("card").unwrap();
        let e = Fields::nested(card, "card").req_str("number").unwrap_err();
        assert_eq!(e.details.unwrap()["field"], "card.number");
        let e = f.only(&["amount"]).unwrap_err();
        assert_eq!(e.details.unwrap()["field"], "card");
    }

    #[test]
    fn fractions_are_not_integers() {
        for bad in [
            json!(10.5),
            json!(0.1),
            json!(-3.25),
            json!(1e300),
            json!("10"),
        ] {
            let m = obj(json!({ "amount": bad }));
            let e = Fields::new(&m).opt_i64("amount").unwrap_err();
            assert_eq!(e.details.unwrap()["field"], "amount", "{bad}");
        }
    }

    #[test]
    fn integral_floats_are_integers() {
        let m: Map<String, Value> =
            serde_json::from_str(r#"{"a": 1079.0, "b": 1e3, "c": -0.0, "d": 10000000000.0}"#)
                .unwrap();
        let f = Fields::new(&m);
        assert_eq!(f.opt_i64("a").unwrap(), Some(1079));
        assert_eq!(f.opt_i64("b").unwrap(), Some(1000));
        assert_eq!(f.opt_i64("c").unwrap(), Some(0));
        assert_eq!(f.opt_i64("d").unwrap(), Some(10_000_000_000));
        assert_eq!(f.opt_i64("absent").unwrap(), None);
    }

    #[test]
    fn null_is_not_absent() {
        let m = obj(json!({"amount": null, "s": null, "b": null, "o": null}));
        let f = Fields::new(&m);
        for e in [
            f.opt_i64("amount").unwrap_err(),
            f.opt_str("s").unwrap_err(),
            f.opt_bool("b").unwrap_err(),
            f.req_object("o").unwrap_err(),
        ] {
            assert_eq!(e.code, code::INVALID_REQUEST);
            assert!(e.message.contains("must not be null"), "{}", e.message);
        }
        let card = obj(json!({"cvv": null}));
        let e = Fields::nested(&card, "card").opt_str("cvv").unwrap_err();
        assert_eq!(e.details.unwrap()["field"], "card.cvv");
    }
}
