//! The dashboard's admin routes in the local stack: each request's AWS Signature Version 4
//! is verified first ([`crate::sigv4`], standing in for API Gateway's IAM authorization),
//! then handed, Lambda-shaped (route key, path parameters), to the same `handle` the
//! deployed `admin-endpoints` or `admin-deliveries` function runs.

use std::{collections::HashMap, sync::Arc};

use axum::{
    extract::{Path, Request as AxumRequest, State},
    http::StatusCode,
    response::Response as AxumResponse,
    routing::{delete, get, patch, post},
    Router,
};
use lambda_http::{
    aws_lambda_events::apigw::{
        ApiGatewayRequestAuthorizer, ApiGatewayRequestAuthorizerIamDescription,
        ApiGatewayV2httpRequestContext,
    },
    Body as LambdaBody,
};
use paygate_cli::sigv4::AdminCredentials;
use paygate_compose::{Build, ConfigError, Wiring};
use paygate_domain::ports::{Clock, IdGenerator};
use paygate_http::admin::{AdminFunction, AdminRoute};
use paygate_http::ApiError;

use crate::{
    gateway::{lambda_request, method_not_allowed, read, to_axum},
    sigv4::Verifier,
};

/// Signing secrets of endpoints made through the local admin API:
/// `paygate/local/webhooks/<endpointId>` (the template's `paygate/<stage>/webhooks/`).
pub const SECRET_PREFIX: &str = "paygate/local/webhooks/";

/// Every admin route the dev server serves (the template's IAM-authorized HttpApi events).
pub fn route_keys() -> Vec<String> {
    paygate_http::admin::ROUTES
        .iter()
        .map(|r| r.key())
        .collect()
}

/// The two admin functions' dependencies, built once, and the signature check.
pub struct AdminApp {
    endpoints: fn_admin_endpoints::Deps,
    deliveries: fn_admin_deliveries::Deps,
    verifier: Verifier,
    clock: Arc<dyn Clock>,
    /// Request ids (API Gateway's `requestId`), which the audit trail records.
    ids: Arc<dyn IdGenerator>,
}

impl AdminApp {
    /// `admin`: the local admin credentials (seed.json `"admin"`); without them every admin
    /// request is refused.
    pub fn new(w: &Wiring, admin: Option<AdminCredentials>) -> Result<Self, ConfigError> {
        Ok(Self {
            endpoints: Build::build(w)?,
            deliveries: Build::build(w)?,
            verifier: Verifier::new(admin),
            clock: w.clock.clone(),
            ids: w.ids.clone(),
        })
    }
}

type Shared = Arc<AdminApp>;

/// The admin routes, one `.route` per route of `paygate_http::admin::ROUTES`.
pub fn router(app: Shared) -> Router {
    let to = |route: AdminRoute| {
        move |State(app): State<Shared>,
              Path(params): Path<HashMap<String, String>>,
              req: AxumRequest| async move { dispatch(app, route, params, req).await }
    };
    use AdminRoute as R;
    Router::new()
        .route(
            "/admin/v1/merchants/{merchantId}/webhook-endpoints",
            post(to(R::CreateEndpoint)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/webhook-endpoints",
            get(to(R::ListEndpoints)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}",
            get(to(R::GetEndpoint)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}",
            patch(to(R::UpdateEndpoint)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}",
            delete(to(R::DeleteEndpoint)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}/rotate-secret",
            post(to(R::RotateSecret)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}/test",
            post(to(R::SendTestEvent)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}/deliveries",
            get(to(R::ListEndpointDeliveries)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/deliveries/{deliveryId}",
            get(to(R::GetDelivery)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/deliveries/{deliveryId}/resend",
            post(to(R::ResendDelivery)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/events/{eventId}/deliveries",
            get(to(R::ListEventDeliveries)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}/recover",
            post(to(R::RecoverDeliveries)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}/health",
            get(to(R::EndpointHealth)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/api-keys",
            post(to(R::CreateApiKey)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/api-keys",
            get(to(R::ListApiKeys)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/api-keys/{keyId}/roll",
            post(to(R::RollApiKey)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/api-keys/{keyId}",
            delete(to(R::RevokeApiKey)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/audit",
            get(to(R::ListAudit)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/reconciliations",
            get(to(R::ListReconciliations)),
        )
        .route(
            "/admin/v1/merchants/{merchantId}/payments/{paymentId}",
            get(to(R::GetPayment)),
        )
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(app)
}

/// 403 `forbidden`, as API Gateway's IAM authorization refuses (its own body there is
/// `{"message": "Forbidden"}`-like; locally the envelope carries the reason).
fn forbidden(reason: &str) -> lambda_http::Response<LambdaBody> {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "forbidden",
        format!("Forbidden: {reason}. Sign admin requests with AWS Signature Version 4 (service execute-api)."),
    )
    .into_response()
}

async fn dispatch(
    app: Shared,
    route: AdminRoute,
    params: HashMap<String, String>,
    req: AxumRequest,
) -> AxumResponse {
    let (parts, bytes) = match read(req).await {
        Ok(read) => read,
        Err(too_large) => return *too_large,
    };
    // IAM authorization runs first, as API Gateway would.
    let path_and_query = parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.path().to_owned(), |pq| pq.as_str().to_owned());
    let access_key = match app.verifier.verify(
        parts.method.as_str(),
        &path_and_query,
        &parts.headers,
        &bytes,
        app.clock.now(),
    ) {
        Ok(key) => key,
        Err(rejection) => {
            tracing::info!(route = %route.key(), reason = %rejection, "admin request refused");
            return to_axum(forbidden(&rejection.to_string()));
        }
    };

    let mut ctx = ApiGatewayV2httpRequestContext::default();
    ctx.route_key = Some(route.key());
    ctx.request_id = Some(format!("local-{}", app.ids.opaque()));
    ctx.authorizer = Some(local_caller(&access_key));
    let lreq = lambda_request(parts, &bytes, params, ctx);
    let resp = match route.function() {
        AdminFunction::Endpoints => fn_admin_endpoints::handle(&app.endpoints, lreq).await,
        AdminFunction::Deliveries => fn_admin_deliveries::handle(&app.deliveries, lreq).await,
    };
    to_axum(resp)
}

/// The account id of the local stack's principals.
pub const LOCAL_ACCOUNT: &str = "000000000000";

/// The caller as API Gateway's IAM authorization describes it, for the local signing key:
/// `arn:aws:iam::000000000000:user/<access key id>` (what the audit trail records).
pub fn local_caller(access_key_id: &str) -> ApiGatewayRequestAuthorizer {
    let mut iam = ApiGatewayRequestAuthorizerIamDescription::default();
    iam.access_key = Some(access_key_id.to_owned());
    iam.account_id = Some(LOCAL_ACCOUNT.to_owned());
    iam.caller_id = Some(access_key_id.to_owned());
    iam.user_arn = Some(format!("arn:aws:iam::{LOCAL_ACCOUNT}:user/{access_key_id}"));
    let mut authorizer = ApiGatewayRequestAuthorizer::default();
    authorizer.iam = Some(iam);
    authorizer
}

/// What the banner says about the admin API.
pub fn banner_lines(seed: &crate::Seed) -> String {
    match &seed.admin {
        Some(c) => format!(
            "  Admin:    /admin/v1/merchants/{{merchantId}}/... (dashboard API): sign with SigV4, service execute-api,\n\
             \x20           region {}, access key {} (secret in infra/local/seed.json \"admin\")\n",
            c.region, c.access_key_id
        ),
        None => "  Admin:    no \"admin\" credentials in the seed: every /admin/v1 request is refused\n"
            .to_owned(),
    }
}
