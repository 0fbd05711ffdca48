//! Response helpers.

use lambda_http::{http::StatusCode, Body, Response};
use serde::Serialize;

use crate::error::ApiError;

/// `Cache-Control` of every API answer: payments, API keys and signing secrets are never
/// to be kept by a browser, proxy or CDN.
pub const CACHE_CONTROL: &str = "no-store";

/// A JSON response, never cached. Serialising our own types cannot fail; if it ever did, a
/// bare 500.
pub fn json<T: Serialize>(status: StatusCode, value: &T) -> Response<Body> {
    let (status, body) = match serde_json::to_string(value) {
        Ok(b) => (status, b),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            r#"{"error":{"code":"internal_error","message":"An internal error occurred."}}"#
                .to_owned(),
        ),
    };
    let mut resp = Response::new(Body::Text(body));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        "content-type",
        lambda_http::http::HeaderValue::from_static("application/json"),
    );
    resp.headers_mut().insert(
        "cache-control",
        lambda_http::http::HeaderValue::from_static(CACHE_CONTROL),
    );
    resp
}

/// Turns a handler result into a response: the value with `status`, or the error envelope.
pub fn respond<T: Serialize>(status: StatusCode, result: Result<T, ApiError>) -> Response<Body> {
    match result {
        Ok(v) => json(status, &v),
        Err(e) => e.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_answer_is_cached() {
        let ok = json(
            StatusCode::CREATED,
            &serde_json::json!({"secret": "whsec_x"}),
        );
        let err = ApiError::internal().into_response();
        for resp in [ok, err] {
            assert_eq!(resp.headers().get("cache-control").unwrap(), "no-store");
        }
    }
}
