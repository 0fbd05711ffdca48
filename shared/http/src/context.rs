//! The authorizer's context, as every API function reads it.
//!
//! In AWS the HTTP API's Lambda authorizer puts `merchantId`, `mode` and `keyId` (or
//! `authError`) into `requestContext.authorizer.lambda`; the dev server's emulated authorizer
//! does the same. A request without a merchant in its context is refused with 401.

use std::collections::HashMap;

use lambda_http::{request::RequestContext, Request, RequestExt};
use paygate_domain::{ids::ApiKeyId, MerchantId, Mode};
use paygate_payments::{AuthError, Principal};
use serde_json::Value;

pub const MERCHANT_ID: &str = "merchantId";
pub const MODE: &str = "mode";
pub const KEY_ID: &str = "keyId";
pub const AUTH_ERROR: &str = "authError";

/// The authorizer context for an authentication result.
pub fn principal_fields(result: &Result<Principal, AuthError>) -> HashMap<String, Value> {
    let mut m = HashMap::new();
    match result {
        Ok(p) => {
            m.insert(MERCHANT_ID.into(), Value::from(p.merchant_id.as_str()));
            m.insert(MODE.into(), Value::from(p.mode.as_str()));
            m.insert(KEY_ID.into(), Value::from(p.key_id.as_str()));
        }
        Err(e) => {
            let code = match e {
                AuthError::Missing => "missing",
                AuthError::Invalid => "invalid",
                AuthError::Unavailable => "unavailable",
            };
            m.insert(AUTH_ERROR.into(), Value::from(code));
        }
    }
    m
}

/// The caller, from the authorizer context.
pub fn principal(req: &Request) -> Result<Principal, AuthError> {
    let fields = match req.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(ctx)) => ctx.authorizer.as_ref().map(|a| &a.fields),
        _ => None,
    };
    let Some(fields) = fields else {
        return Err(AuthError::Missing);
    };
    let get = |k: &str| fields.get(k).and_then(Value::as_str);
    match get(AUTH_ERROR) {
        Some("missing") => return Err(AuthError::Missing),
        Some("unavailable") => return Err(AuthError::Unavailable),
        Some(_) => return Err(AuthError::Invalid),
        None => {}
    }
    let merchant_id = get(MERCHANT_ID).and_then(|s| MerchantId::parse(s).ok());
    let mode = get(MODE).and_then(Mode::parse);
    let key_id = get(KEY_ID).and_then(|s| ApiKeyId::parse(s).ok());
    match (merchant_id, mode, key_id) {
        (Some(merchant_id), Some(mode), Some(key_id)) => Ok(Principal {
            merchant_id,
            mode,
            key_id,
        }),
        _ => Err(AuthError::Missing),
    }
}

#[cfg(test)]
mod tests {
    use lambda_http::aws_lambda_events::apigw::{
        ApiGatewayRequestAuthorizer, ApiGatewayV2httpRequestContext,
    };

    use super::*;

    fn request_with(fields: HashMap<String, Value>) -> Request {
        let mut auth = ApiGatewayRequestAuthorizer::default();
        auth.fields = fields;
        let mut ctx = ApiGatewayV2httpRequestContext::default();
        ctx.authorizer = Some(auth);
        Request::default().with_request_context(RequestContext::ApiGatewayV2(ctx))
    }

    #[test]
    fn round_trips_a_principal_through_the_context() {
        let p = Principal {
            merchant_id: MerchantId::parse("mch_a").unwrap(),
            mode: Mode::Live,
            key_id: ApiKeyId::parse("key_a").unwrap(),
        };
        let req = request_with(principal_fields(&Ok(p.clone())));
        assert_eq!(principal(&req), Ok(p));
    }

    #[test]
    fn no_context_or_an_auth_error_is_refused() {
        assert_eq!(principal(&Request::default()), Err(AuthError::Missing));
        let req = request_with(principal_fields(&Err(AuthError::Invalid)));
        assert_eq!(principal(&req), Err(AuthError::Invalid));
        let mut partial = HashMap::new();
        partial.insert(MERCHANT_ID.to_owned(), Value::from("mch_a"));
        assert_eq!(principal(&request_with(partial)), Err(AuthError::Missing));
    }
}
