//! The simulators' admin bodies (`POST /_sim/orders`, `/_sim/faults`, and a protocol's own,
//! e.g. Garanti's `/_sim/rewards`), read by pure functions over the body's bytes so that
//! they can be tested and fuzzed apart from the routes (`fuzz/fuzz_targets/
//! test_helper_bodies.rs`). The routes take the bytes with [`JsonBytes`], which checks the
//! content type as axum's `Json` extractor does, and answer what these functions refuse with
//! the same status and text that extractor would: `415` without a JSON content type, `400`
//! for bytes that are not JSON, `422` for JSON of the wrong shape.

use axum::{
    body::Bytes,
    extract::{
        rejection::{JsonRejection, MissingJsonContentType},
        FromRequest, Request,
    },
    http::{header, HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use paygate_domain::ports::TestOrder;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::admin::FaultsBody;

/// A body a simulator refuses: the status and the plain-text answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub status: StatusCode,
    pub text: String,
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        (self.status, self.text).into_response()
    }
}

impl From<JsonRejection> for Refused {
    fn from(r: JsonRejection) -> Self {
        Self {
            status: r.status(),
            text: r.body_text(),
        }
    }
}

/// `bytes` as a `T`, exactly as axum's `Json<T>` reads a body once its content type is
/// accepted (`400` syntax, `422` data, with axum's texts).
pub fn json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Refused> {
    Json::<T>::from_bytes(bytes)
        .map(|Json(v)| v)
        .map_err(Refused::from)
}

/// The body of `POST /_sim/orders`: the client named by `client_field` (`clientId`,
/// `merchantId`, `shopCode`, …) and the [`TestOrder`] beside it. A body without these is
/// `422`.
pub fn order_body(client_field: &str, bytes: &[u8]) -> Result<(String, TestOrder), Refused> {
    let mut body: Map<String, Value> = json(bytes)?;
    let data_error = |why: String| Refused {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        text: format!("Failed to deserialize the JSON body into the target type: {why}"),
    };
    let client = match body.remove(client_field) {
        Some(Value::String(c)) => c,
        Some(_) => {
            return Err(data_error(format!(
                "invalid type: `{client_field}` must be a string"
            )))
        }
        None => return Err(data_error(format!("missing field `{client_field}`"))),
    };
    let order =
        serde_json::from_value(Value::Object(body)).map_err(|e| data_error(e.to_string()))?;
    Ok((client, order))
}

/// The body of `POST /_sim/faults` ([`FaultsBody`]: each field optional, default 0).
pub fn faults_body(bytes: &[u8]) -> Result<FaultsBody, Refused> {
    json(bytes)
}

/// Whether a request says its body is JSON, as axum's `Json` decides it: `application/json`
/// or `application/<anything>+json`, parameters allowed.
pub fn json_content_type(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<mime::Mime>().ok())
        .is_some_and(|m| {
            m.type_() == "application"
                && (m.subtype() == "json" || m.suffix().is_some_and(|s| s == "json"))
        })
}

/// A JSON request's body as bytes, for the pure readers above: refused as axum's `Json`
/// refuses it (`415` without a JSON content type; a body that cannot be read as axum's
/// `Bytes` refuses it).
#[derive(Debug, Clone)]
pub struct JsonBytes(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonBytes {
    type Rejection = Response;

    async fn from_request(req: Request, state: &S) -> Result<Self, Response> {
        if !json_content_type(req.headers()) {
            return Err(JsonRejection::from(MissingJsonContentType::default()).into_response());
        }
        Bytes::from_request(req, state)
            .await
            .map(Self)
            .map_err(|r| JsonRejection::from(r).into_response())
    }
}

#[cfg(test)]
#[path = "bodies_tests.rs"]
mod tests;
