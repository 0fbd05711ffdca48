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

    fn present(&self, field: &str) -> Option<&'a Value> {
        self.map.get(field).filter(|v| !v.is_null())
    }

    /// An optional integer (JSON number without fraction).
    pub fn opt_i64(&self, field: &str) -> Result<Option<i64>, ApiError> {
        match self.present(field) {
            None => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| ApiError::invalid(&self.name(field), "must be an integer")),
        }
    }

    pub fn req_i64(&self, field: &str) -> Result<i64, ApiError> {
        self.opt_i64(field)?
            .ok_or_else(|| ApiError::invalid(&self.name(field), "is required"))
    }

    pub fn opt_str(&self, field: &str) -> Result<Option<&'a str>, ApiError> {
        match self.present(field) {
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
        match self.present(field) {
            None => Err(ApiError::invalid(&self.name(field), "is required")),
            Some(v) => v
                .as_object()
                .ok_or_else(|| ApiError::invalid(&self.name(field), "must be an object")),
        }
    }
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
        let m = obj(json!({"amount": 10.5}));
        assert!(Fields::new(&m).opt_i64("amount").is_err());
        let m = obj(json!({"amount": null}));
        assert_eq!(Fields::new(&m).opt_i64("amount").unwrap(), None);
    }
}
