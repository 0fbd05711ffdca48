//! The HTTP API's Lambda authorizer: `Authorization: Bearer sk_test_…|sk_live_…` → merchant
//! and mode.
//!
//! HTTP APIs can only answer a bare `403 {"message":"Forbidden"}` for a request an authorizer
//! denies, while our contract is a 401 in our own error envelope. So the authorizer always
//! lets the request through and says who the caller is (`merchantId`, `mode`, `keyId`) or
//! why there is none (`authError`: `missing`, `invalid`, `unavailable`); every function
//! refuses a request without a merchant in its context with 401 (`paygate_http::context`).

use aws_lambda_events::apigw::{
    ApiGatewayV2CustomAuthorizerSimpleResponse, ApiGatewayV2CustomAuthorizerV2Request,
};
use serde_json::Value;

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::Authorizer as Deps;

/// The authorizer context for a request's `Authorization` header.
pub async fn context_for(
    deps: &Deps,
    authorization: Option<&str>,
) -> std::collections::HashMap<String, Value> {
    let result =
        paygate_payments::authenticate(deps.keys.as_ref(), authorization, deps.clock.now()).await;
    if let Err(e) = &result {
        tracing::info!(reason = %e, "request without a valid API key");
    }
    paygate_http::principal_fields(&result)
}

pub async fn handle(
    deps: &Deps,
    event: ApiGatewayV2CustomAuthorizerV2Request,
) -> ApiGatewayV2CustomAuthorizerSimpleResponse {
    let auth = event
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok());
    let context = context_for(deps, auth).await;
    let mut resp = ApiGatewayV2CustomAuthorizerSimpleResponse::default();
    resp.is_authorized = true;
    resp.context = Value::Object(context.into_iter().collect());
    resp
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use paygate_domain::testkit::MemoryKeys;
    use paygate_domain::{ids::ApiKeyId, ApiKeyRecord, MerchantId, Mode};

    use super::*;

    #[tokio::test]
    async fn valid_key_puts_the_merchant_in_the_context_and_bad_keys_an_error() {
        let keys = MemoryKeys::default();
        let key = "sk_live_abcdefghijklmnop1234";
        keys.insert(
            &paygate_payments::hash_api_key(key),
            ApiKeyRecord {
                key_id: ApiKeyId::parse("key_1").unwrap(),
                merchant_id: MerchantId::parse("mch_1").unwrap(),
                mode: Mode::Live,
                active: true,
                expires_at: None,
                last_used_at: None,
            },
        );
        let deps = Deps {
            keys: Arc::new(keys),
            clock: Arc::new(paygate_domain::testkit::ManualClock::at(
                paygate_domain::testkit::T0,
            )),
        };
        let mut event = ApiGatewayV2CustomAuthorizerV2Request::default();
        event
            .headers
            .insert("authorization", format!("Bearer {key}").parse().unwrap());
        let resp = handle(&deps, event).await;
        assert!(resp.is_authorized);
        assert_eq!(resp.context["merchantId"], "mch_1");
        assert_eq!(resp.context["mode"], "live");
        let resp = handle(&deps, ApiGatewayV2CustomAuthorizerV2Request::default()).await;
        assert_eq!(resp.context["authError"], "missing");
        assert!(resp.context.get("merchantId").is_none());
    }
}
