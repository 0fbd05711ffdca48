//! Response helpers.

use lambda_http::{http::StatusCode, Body, Response};
use serde::Serialize;

use crate::error::ApiError;

/// A JSON response. Serialising our own types cannot fail; if it ever did, a bare 500.
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
    resp
}

/// Turns a handler result into a response: the value with `status`, or the error envelope.
pub fn respond<T: Serialize>(status: StatusCode, result: Result<T, ApiError>) -> Response<Body> {
    match result {
        Ok(v) => json(status, &v),
        Err(e) => e.into_response(),
    }
}
