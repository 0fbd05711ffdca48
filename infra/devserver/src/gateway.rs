//! What the emulated API Gateway does for every route, merchant and admin alike: the body
//! limit, the Lambda-shaped request and the way its response goes back out.

use std::collections::HashMap;

use axum::{
    body::{to_bytes, Body as AxumBody, Bytes},
    http::{request::Parts, StatusCode},
    response::Response as AxumResponse,
};
use lambda_http::{
    aws_lambda_events::apigw::ApiGatewayV2httpRequestContext, request::RequestContext,
    Body as LambdaBody, RequestExt,
};
use paygate_domain::error::code;
use paygate_http::ApiError;

/// Largest body the emulated API Gateway accepts before the function sees it.
const GATEWAY_BODY_LIMIT: usize = 1024 * 1024;

/// The request's head and body, or the 413 API Gateway answers for a body over the limit.
pub(crate) async fn read(req: axum::extract::Request) -> Result<(Parts, Bytes), Box<AxumResponse>> {
    let (parts, body) = req.into_parts();
    match to_bytes(body, GATEWAY_BODY_LIMIT).await {
        Ok(bytes) => Ok((parts, bytes)),
        Err(_) => Err(Box::new(to_axum(
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                code::REQUEST_TOO_LARGE,
                "Request body too large.",
            )
            .into_response(),
        ))),
    }
}

/// The Lambda request the function gets: the body as text (or binary), the path
/// parameters, and the request context (route key, authorizer fields).
pub(crate) fn lambda_request(
    parts: Parts,
    bytes: &Bytes,
    params: HashMap<String, String>,
    ctx: ApiGatewayV2httpRequestContext,
) -> lambda_http::Request {
    let body = if bytes.is_empty() {
        LambdaBody::Empty
    } else {
        match String::from_utf8(bytes.to_vec()) {
            Ok(s) => LambdaBody::Text(s),
            Err(e) => LambdaBody::Binary(e.into_bytes()),
        }
    };
    let mut req = lambda_http::http::Request::from_parts(parts, body);
    if !params.is_empty() {
        req = req.with_path_parameters(params);
    }
    req.with_request_context(RequestContext::ApiGatewayV2(ctx))
}

/// A route's method is not one the template routes.
pub(crate) async fn method_not_allowed() -> AxumResponse {
    to_axum(
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "This route does not accept that method.",
        )
        .into_response(),
    )
}

/// The function's response, as API Gateway sends it.
pub(crate) fn to_axum(resp: lambda_http::Response<LambdaBody>) -> AxumResponse {
    let (parts, body) = resp.into_parts();
    let bytes = match body {
        LambdaBody::Text(s) => s.into_bytes(),
        LambdaBody::Binary(b) => b,
        _ => Vec::new(),
    };
    AxumResponse::from_parts(parts, AxumBody::from(bytes))
}
