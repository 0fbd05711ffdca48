//! The HTTP API's Lambda authorizer: `Authorization: Bearer sk_test_…|sk_live_…` → merchant
//! and mode.
//!
//! HTTP APIs can only answer a bare `403 {"message":"Forbidden"}` for a request an authorizer
//! denies, while our contract is a 401 in our own error envelope. So the authorizer lets a
//! request through and says who the caller is (`merchantId`, `mode`, `keyId`) or why there is
//! none (`authError`: `missing`, `invalid`, `unavailable`); every function refuses a request
//! without a merchant in its context with 401 (`paygate_http::context`).
//!
//! It denies outright, before any function runs and without a key lookup ([`Gate`]):
//! - with `PAYGATE_EDGE_SECRET` set (template `EdgeProtection=waf`), a request that does not
//!   carry that secret in `x-paygate-edge`: it did not come through CloudFront and its WAF;
//! - with `PAYGATE_MALFORMED_KEY_ANSWER=deny` (template `MalformedKeyAnswer`), a request
//!   whose `Authorization` has no key's shape (none, or not `Bearer sk_test_/sk_live_` and
//!   16 to 128 letters and digits): one Lambda per garbage request instead of two, at the
//!   price of API Gateway's bare 403 instead of the 401 envelope for those requests.

use aws_lambda_events::apigw::{
    ApiGatewayV2CustomAuthorizerSimpleResponse, ApiGatewayV2CustomAuthorizerV2Request,
};
use paygate_compose::{Build, ConfigError, Wiring};
use serde_json::Value;

/// Environment: what a request without a well-formed key gets, `envelope` (default: the
/// function's 401 in the error envelope) or `deny` (API Gateway's 403, no function runs).
pub const MALFORMED_KEY_ANSWER_ENV: &str = "PAYGATE_MALFORMED_KEY_ANSWER";
/// Environment: the secret CloudFront adds to every request it forwards (EdgeProtection
/// `waf`); when set, a request without it is denied.
pub const EDGE_SECRET_ENV: &str = "PAYGATE_EDGE_SECRET";
/// The header CloudFront carries the edge secret in.
pub const EDGE_HEADER: &str = "x-paygate-edge";

/// What a request without a well-formed API key is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MalformedKeyAnswer {
    /// Let it through: the function answers 401 in the error envelope.
    #[default]
    Envelope,
    /// Deny it here: API Gateway answers 403 and no function runs.
    Deny,
}

/// The refusals that need no key lookup.
#[derive(Clone, Default)]
pub struct Gate {
    pub malformed: MalformedKeyAnswer,
    /// The edge secret, when the API sits behind CloudFront (never logged).
    pub edge_secret: Option<String>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("malformed", &self.malformed)
            .field(
                "edge_secret",
                &self.edge_secret.as_ref().map(|_| "[redacted]"),
            )
            .finish()
    }
}

/// Why [`Gate::refuses`] denied a request (logged; API Gateway's answer says nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The edge secret is missing or wrong: the request bypassed CloudFront.
    NotFromEdge,
    /// No `Authorization` header, or one without a key's shape.
    MalformedKey,
}

impl Gate {
    /// From the names (the environment, when deployed): both settings are optional.
    pub fn from_names(names: &paygate_compose::Names) -> Result<Self, ConfigError> {
        let malformed = match names.optional(MALFORMED_KEY_ANSWER_ENV).as_deref() {
            None | Some("envelope") => MalformedKeyAnswer::Envelope,
            Some("deny") => MalformedKeyAnswer::Deny,
            Some(_) => return Err(ConfigError::Malformed(MALFORMED_KEY_ANSWER_ENV.to_owned())),
        };
        let edge_secret = names.optional(EDGE_SECRET_ENV).filter(|s| !s.is_empty());
        if edge_secret.as_ref().is_some_and(|s| s.len() < 32) {
            return Err(ConfigError::OutOfRange {
                key: EDGE_SECRET_ENV.to_owned(),
                reason: "shorter than 32 characters".to_owned(),
            });
        }
        Ok(Self {
            malformed,
            edge_secret,
        })
    }

    /// Whether the request is denied before any key lookup, and why.
    pub fn refuses(&self, headers: &aws_lambda_events::http::HeaderMap) -> Option<Refusal> {
        if let Some(secret) = &self.edge_secret {
            let sent = headers.get(EDGE_HEADER).map(|v| v.as_bytes());
            if !sent.is_some_and(|sent| constant_time_eq(sent, secret.as_bytes())) {
                return Some(Refusal::NotFromEdge);
            }
        }
        if self.malformed == MalformedKeyAnswer::Deny {
            let authorization = headers.get("authorization").and_then(|v| v.to_str().ok());
            if paygate_payments::auth::bearer_key(authorization).is_err() {
                return Some(Refusal::MalformedKey);
            }
        }
        None
    }
}

/// Equal bytes, in a time that depends only on the lengths.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Dependencies, built once per Lambda instance: the key lookup (`paygate_compose`) and the
/// gate.
pub struct Deps {
    pub auth: paygate_compose::Authorizer,
    pub gate: Gate,
}

impl Build for Deps {
    fn build(w: &Wiring) -> Result<Self, ConfigError> {
        Ok(Self {
            auth: Build::build(w)?,
            gate: Gate::from_names(&w.names)?,
        })
    }
}

/// The authorizer context for a request's `Authorization` header.
pub async fn context_for(
    deps: &Deps,
    authorization: Option<&str>,
) -> std::collections::HashMap<String, Value> {
    let result = paygate_payments::authenticate(
        deps.auth.keys.as_ref(),
        authorization,
        deps.auth.clock.now(),
    )
    .await;
    if let Err(e) = &result {
        tracing::info!(reason = %e, "request without a valid API key");
    }
    paygate_http::principal_fields(&result)
}

pub async fn handle(
    deps: &Deps,
    event: ApiGatewayV2CustomAuthorizerV2Request,
) -> ApiGatewayV2CustomAuthorizerSimpleResponse {
    let mut resp = ApiGatewayV2CustomAuthorizerSimpleResponse::default();
    if let Some(refusal) = deps.gate.refuses(&event.headers) {
        tracing::info!(?refusal, "request denied by the authorizer");
        resp.is_authorized = false;
        return resp;
    }
    let auth = event
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok());
    let context = context_for(deps, auth).await;
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

    fn deps(keys: MemoryKeys, gate: Gate) -> Deps {
        Deps {
            auth: paygate_compose::Authorizer {
                keys: Arc::new(keys),
                clock: Arc::new(paygate_domain::testkit::ManualClock::at(
                    paygate_domain::testkit::T0,
                )),
            },
            gate,
        }
    }

    fn deps_default() -> Deps {
        deps(MemoryKeys::default(), Gate::default())
    }

    fn request(headers: &[(&'static str, &str)]) -> ApiGatewayV2CustomAuthorizerV2Request {
        let mut event = ApiGatewayV2CustomAuthorizerV2Request::default();
        for (name, value) in headers {
            event.headers.insert(*name, value.parse().unwrap());
        }
        event
    }

    /// A key store that fails the test when it is read: the gate's refusals look nothing up.
    #[derive(Default)]
    struct NoLookups(std::sync::atomic::AtomicUsize);

    #[async_trait::async_trait]
    impl paygate_domain::ports::ApiKeyLookup for NoLookups {
        async fn find_key(
            &self,
            _hash: &str,
        ) -> Result<Option<ApiKeyRecord>, paygate_domain::StoreError> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(None)
        }
        async fn touch_key(
            &self,
            _hash: &str,
            _at: paygate_domain::Timestamp,
        ) -> Result<(), paygate_domain::StoreError> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn deny_mode_refuses_requests_without_a_well_formed_key_before_any_lookup() {
        let lookups = Arc::new(NoLookups::default());
        let deps = Deps {
            auth: paygate_compose::Authorizer {
                keys: lookups.clone(),
                clock: Arc::new(paygate_domain::testkit::ManualClock::at(
                    paygate_domain::testkit::T0,
                )),
            },
            gate: Gate {
                malformed: MalformedKeyAnswer::Deny,
                edge_secret: None,
            },
        };
        let well_formed = format!("Bearer sk_test_{}", "a".repeat(24));
        for garbage in [
            None,
            Some(""),
            Some("Basic dXNlcjpwYXNz"),
            Some("Bearer sk_prod_aaaaaaaaaaaaaaaaaaaaaaaa"),
            Some("Bearer sk_test_short"),
            Some("Bearer sk_test_aaaaaaaaaaaaaaaa!aaaaaaa"),
        ] {
            let headers: Vec<(&'static str, &str)> =
                garbage.map(|v| ("authorization", v)).into_iter().collect();
            let resp = handle(&deps, request(&headers)).await;
            assert!(!resp.is_authorized, "{garbage:?} is let through");
            assert_eq!(resp.context, Value::Null, "{garbage:?}: no context");
        }
        assert_eq!(lookups.0.load(std::sync::atomic::Ordering::SeqCst), 0);
        // A well-formed but unknown key is looked up, and let through to the 401 envelope.
        let resp = handle(&deps, request(&[("authorization", &well_formed)])).await;
        assert!(resp.is_authorized);
        assert_eq!(resp.context["authError"], "invalid");
        assert_eq!(lookups.0.load(std::sync::atomic::Ordering::SeqCst), 1);
        // The default (envelope) lets garbage through to the function's 401.
        let resp = handle(&deps_default(), request(&[])).await;
        assert!(resp.is_authorized);
        assert_eq!(resp.context["authError"], "missing");
    }

    #[tokio::test]
    async fn behind_the_edge_a_request_without_the_edge_secret_is_denied() {
        let secret = "e".repeat(48);
        let gate = Gate {
            malformed: MalformedKeyAnswer::Envelope,
            edge_secret: Some(secret.clone()),
        };
        let deps = deps(MemoryKeys::default(), gate);
        let wrong = format!("{}f", "e".repeat(47));
        for headers in [
            vec![],
            vec![("x-paygate-edge", wrong.as_str())],
            vec![("x-paygate-edge", "e")],
        ] {
            let resp = handle(&deps, request(&headers)).await;
            assert!(!resp.is_authorized, "{headers:?}");
        }
        let resp = handle(&deps, request(&[("x-paygate-edge", &secret)])).await;
        assert!(resp.is_authorized);
        assert_eq!(resp.context["authError"], "missing");
        assert!(
            !format!("{:?}", deps.gate).contains(&secret),
            "the secret shows in Debug"
        );
    }

    #[test]
    fn the_gate_reads_its_settings_and_refuses_bad_ones() {
        let names = |pairs: &[(&str, &str)]| {
            paygate_compose::Names::from_map(pairs.iter().map(|(k, v)| (*k, *v)))
        };
        let gate = Gate::from_names(&names(&[])).unwrap();
        assert_eq!(gate.malformed, MalformedKeyAnswer::Envelope);
        assert!(gate.edge_secret.is_none());
        let long = "s".repeat(32);
        let gate = Gate::from_names(&names(&[
            (MALFORMED_KEY_ANSWER_ENV, "deny"),
            (EDGE_SECRET_ENV, &long),
        ]))
        .unwrap();
        assert_eq!(gate.malformed, MalformedKeyAnswer::Deny);
        assert_eq!(gate.edge_secret.as_deref(), Some(long.as_str()));
        assert!(Gate::from_names(&names(&[(MALFORMED_KEY_ANSWER_ENV, "yes")])).is_err());
        assert!(Gate::from_names(&names(&[(EDGE_SECRET_ENV, "short")])).is_err());
    }

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
        let deps = deps(keys, Gate::default());
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
