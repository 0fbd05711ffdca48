//! The functions' HTTP edge: the route from the HTTP API's route key (or, failing that,
//! the method and path), the path parameters, the body and query, then one handler.

use std::collections::HashMap;

use crate::{parse_object, respond, ApiError};
use lambda_http::{http::StatusCode, request::RequestContext, Body, Request, RequestExt, Response};

use crate::admin::{
    audit,
    deliveries::{self, DeliveriesDeps, HistoryQuery},
    endpoints::{self, EndpointsDeps},
    input, keys, operations,
    routes::{AdminFunction, AdminRoute},
};

/// The route of a request and its path parameters.
pub fn resolve(req: &Request) -> Option<(AdminRoute, HashMap<String, String>)> {
    let key = match req.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(ctx)) => ctx.route_key.clone(),
        _ => None,
    };
    if let Some(route) = key.as_deref().and_then(AdminRoute::from_key) {
        let names = ["merchantId", "endpointId", "deliveryId", "eventId", "keyId"];
        let params: HashMap<String, String> = names
            .iter()
            .filter(|n| route.path().contains(&format!("{{{n}}}")))
            .filter_map(|n| {
                req.path_parameters_ref()
                    .and_then(|p| p.first(n))
                    .map(|v| ((*n).to_owned(), v.to_owned()))
            })
            .collect();
        let wanted = route.path().matches('{').count();
        if params.len() == wanted {
            return Some((route, params));
        }
    }
    AdminRoute::resolve(req.method().as_str(), req.uri().path())
}

fn route_not_found() -> Response<Body> {
    ApiError::not_found("route").into_response()
}

fn param<'a>(params: &'a HashMap<String, String>, name: &str) -> &'a str {
    params.get(name).map(String::as_str).unwrap_or("")
}

/// The `admin-endpoints` function. Every write is recorded in the audit trail
/// ([`audit::around`]).
pub async fn handle_endpoints(deps: &EndpointsDeps, req: Request) -> Response<Body> {
    let Some((route, params)) = resolve(&req) else {
        return route_not_found();
    };
    if route.function() != AdminFunction::Endpoints {
        return route_not_found();
    }
    let serve = |req| serve_endpoints(deps, route, &params, req);
    let targets = audit::Targets {
        endpoints: deps.endpoints.as_ref(),
        keys: Some(deps.keys.as_ref()),
        deliveries: None,
    };
    audit::around(
        &deps.audit,
        deps.clock.as_ref(),
        targets,
        route,
        &params,
        req,
        serve,
    )
    .await
}

async fn serve_endpoints(
    deps: &EndpointsDeps,
    route: AdminRoute,
    params: &HashMap<String, String>,
    req: Request,
) -> Response<Body> {
    let m = param(params, "merchantId");
    let e = param(params, "endpointId");
    let k = param(params, "keyId");
    let body = || parse_object(&req);
    match route {
        AdminRoute::CreateEndpoint => match body() {
            Ok(b) => respond(StatusCode::CREATED, endpoints::create(deps, m, &b).await),
            Err(err) => err.into_response(),
        },
        AdminRoute::ListEndpoints => respond(StatusCode::OK, endpoints::list(deps, m).await),
        AdminRoute::GetEndpoint => respond(StatusCode::OK, endpoints::get(deps, m, e).await),
        AdminRoute::UpdateEndpoint => match body() {
            Ok(b) => respond(StatusCode::OK, endpoints::update(deps, m, e, &b).await),
            Err(err) => err.into_response(),
        },
        AdminRoute::DeleteEndpoint => respond(StatusCode::OK, endpoints::delete(deps, m, e).await),
        AdminRoute::RotateSecret => match body() {
            Ok(b) => respond(StatusCode::OK, endpoints::rotate(deps, m, e, &b).await),
            Err(err) => err.into_response(),
        },
        AdminRoute::SendTestEvent => match body() {
            Ok(b) => respond(
                StatusCode::ACCEPTED,
                endpoints::send_test(deps, m, e, &b).await,
            ),
            Err(err) => err.into_response(),
        },
        AdminRoute::CreateApiKey => match body() {
            Ok(b) => respond(StatusCode::CREATED, keys::create(deps, m, &b).await),
            Err(err) => err.into_response(),
        },
        AdminRoute::ListApiKeys => respond(StatusCode::OK, keys::list(deps, m).await),
        AdminRoute::RollApiKey => match body() {
            Ok(b) => respond(StatusCode::CREATED, keys::roll(deps, m, k, &b).await),
            Err(err) => err.into_response(),
        },
        AdminRoute::RevokeApiKey => respond(StatusCode::OK, keys::revoke(deps, m, k).await),
        AdminRoute::ListAudit => respond(
            StatusCode::OK,
            audit::list(
                deps.merchants.as_ref(),
                deps.audit.log.as_ref(),
                m,
                req.uri().query(),
            )
            .await,
        ),
        _ => route_not_found(),
    }
}

/// The `admin-deliveries` function. Resend and recover are recorded in the audit trail
/// ([`audit::around`]).
pub async fn handle_deliveries(deps: &DeliveriesDeps, req: Request) -> Response<Body> {
    let Some((route, params)) = resolve(&req) else {
        return route_not_found();
    };
    if route.function() != AdminFunction::Deliveries {
        return route_not_found();
    }
    let serve = |req| serve_deliveries(deps, route, &params, req);
    let targets = audit::Targets {
        endpoints: deps.endpoints.as_ref(),
        keys: None,
        deliveries: Some(deps.deliveries.as_ref()),
    };
    audit::around(
        &deps.audit,
        deps.clock.as_ref(),
        targets,
        route,
        &params,
        req,
        serve,
    )
    .await
}

async fn serve_deliveries(
    deps: &DeliveriesDeps,
    route: AdminRoute,
    params: &HashMap<String, String>,
    req: Request,
) -> Response<Body> {
    let m = param(params, "merchantId");
    match route {
        AdminRoute::ListEndpointDeliveries => {
            let result = match HistoryQuery::from_query(req.uri().query()) {
                Ok(q) => {
                    deliveries::list_for_endpoint(deps, m, param(params, "endpointId"), &q).await
                }
                Err(e) => Err(e),
            };
            respond(StatusCode::OK, result)
        }
        AdminRoute::GetDelivery => respond(
            StatusCode::OK,
            deliveries::show(deps, m, param(params, "deliveryId")).await,
        ),
        AdminRoute::ResendDelivery => match parse_object(&req).and_then(|b| input::no_fields(&b)) {
            Ok(()) => respond(
                StatusCode::ACCEPTED,
                deliveries::resend(deps, m, param(params, "deliveryId")).await,
            ),
            Err(err) => err.into_response(),
        },
        AdminRoute::ListEventDeliveries => respond(
            StatusCode::OK,
            deliveries::list_for_event(deps, m, param(params, "eventId")).await,
        ),
        AdminRoute::RecoverDeliveries => match parse_object(&req) {
            Ok(b) => respond(
                StatusCode::ACCEPTED,
                operations::recover(deps, m, param(params, "endpointId"), &b).await,
            ),
            Err(err) => err.into_response(),
        },
        AdminRoute::ListReconciliations => {
            crate::admin::reconciliations::list(deps, m, req.uri().query()).await
        }
        AdminRoute::GetPayment => respond(
            StatusCode::OK,
            crate::admin::payments::show(deps, m, param(params, "paymentId")).await,
        ),
        AdminRoute::EndpointHealth => respond(
            StatusCode::OK,
            operations::health(deps, m, param(params, "endpointId")).await,
        ),
        _ => route_not_found(),
    }
}
