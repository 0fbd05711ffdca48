//! The routes of `template.yaml`, each handing a Lambda-shaped request to the same `handle`
//! function the deployed Lambda runs, after the emulated authorizer has filled the context.

use std::{collections::HashMap, sync::Arc};

use axum::{
    extract::{Path, Request as AxumRequest, State},
    response::Response as AxumResponse,
    routing::{get, post},
    Router,
};
use lambda_http::aws_lambda_events::apigw::{
    ApiGatewayRequestAuthorizer, ApiGatewayV2httpRequestContext,
};
use paygate_compose::{Build, ConfigError, Wiring};

use crate::gateway::{lambda_request, method_not_allowed, read, to_axum};
use paygate_http::ApiError;

/// Every function's dependencies, built once like a warm Lambda's.
pub struct App {
    authorizer: fn_authorizer::Deps,
    capture: fn_capture_payment::Deps,
    cancel: fn_cancel_payment::Deps,
    refund: fn_refund_payment::Deps,
    query: fn_query_payment::Deps,
    get: fn_get_payment::Deps,
    points: fn_points_inquiry::Deps,
    create: fn_test_create_payment::Deps,
}

impl App {
    /// Each function's dependencies from the compose builder its Lambda calls.
    pub fn new(w: &Wiring) -> Result<Self, ConfigError> {
        Ok(Self {
            authorizer: Build::build(w)?,
            capture: Build::build(w)?,
            cancel: Build::build(w)?,
            refund: Build::build(w)?,
            query: Build::build(w)?,
            get: Build::build(w)?,
            points: Build::build(w)?,
            create: Build::build(w)?,
        })
    }
}

type Shared = Arc<App>;

/// Every route the dev server serves, as `METHOD /path` (the template's HttpApi events).
pub const ROUTE_KEYS: [&str; 9] = [
    Route::Capture.key(),
    Route::Cancel.key(),
    Route::Refund.key(),
    Route::Reverse.key(),
    Route::Query.key(),
    Route::Get.key(),
    Route::Transactions.key(),
    Route::Points.key(),
    Route::CreateTestPayment.key(),
];

#[derive(Clone, Copy)]
enum Route {
    Capture,
    Cancel,
    Refund,
    Reverse,
    Query,
    Get,
    Transactions,
    Points,
    CreateTestPayment,
}

impl Route {
    const fn key(self) -> &'static str {
        match self {
            Self::Capture => "POST /v1/payments/{id}/capture",
            Self::Cancel => "POST /v1/payments/{id}/cancel",
            Self::Refund => "POST /v1/payments/{id}/refund",
            Self::Reverse => paygate_http::reverse::REVERSE_ROUTE,
            Self::Query => "POST /v1/payments/{id}/query",
            Self::Get => "GET /v1/payments/{id}",
            Self::Transactions => paygate_http::handlers::TRANSACTIONS_ROUTE,
            Self::Points => "POST /v1/payments/points/inquiry",
            Self::CreateTestPayment => "POST /v1/test_helpers/payments",
        }
    }
}

pub fn router(app: Shared) -> Router {
    let with_id = |route: Route| {
        move |State(app): State<Shared>, Path(id): Path<String>, req: AxumRequest| async move {
            dispatch(app, route, Some(id), req).await
        }
    };
    let without_id = |route: Route| {
        move |State(app): State<Shared>, req: AxumRequest| async move {
            dispatch(app, route, None, req).await
        }
    };
    Router::new()
        .route(
            "/v1/payments/points/inquiry",
            post(without_id(Route::Points)),
        )
        .route("/v1/payments/{id}/capture", post(with_id(Route::Capture)))
        .route("/v1/payments/{id}/cancel", post(with_id(Route::Cancel)))
        .route("/v1/payments/{id}/refund", post(with_id(Route::Refund)))
        .route("/v1/payments/{id}/reverse", post(with_id(Route::Reverse)))
        .route("/v1/payments/{id}/query", post(with_id(Route::Query)))
        .route("/v1/payments/{id}", get(with_id(Route::Get)))
        .route(
            "/v1/payments/{id}/transactions",
            get(with_id(Route::Transactions)),
        )
        .route(
            "/v1/test_helpers/payments",
            post(without_id(Route::CreateTestPayment)),
        )
        .fallback(|| async { to_axum(ApiError::not_found("route").into_response()) })
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(app)
}

async fn dispatch(app: Shared, route: Route, id: Option<String>, req: AxumRequest) -> AxumResponse {
    let (parts, bytes) = match read(req).await {
        Ok(read) => read,
        Err(too_large) => return *too_large,
    };
    // The authorizer runs first, exactly as API Gateway would invoke it.
    let auth_header = parts
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok());
    let fields = fn_authorizer::context_for(&app.authorizer, auth_header).await;
    let mut authorizer = ApiGatewayRequestAuthorizer::default();
    authorizer.fields = fields;
    let mut ctx = ApiGatewayV2httpRequestContext::default();
    ctx.authorizer = Some(authorizer);
    ctx.route_key = Some(route.key().to_owned());

    let params: HashMap<String, String> = id.map(|id| ("id".to_owned(), id)).into_iter().collect();
    let lreq = lambda_request(parts, &bytes, params, ctx);

    // Each function's future is boxed: inline, every route's would share this one frame,
    // which in a debug build outgrew a test thread's 2 MiB stack (the tests' servers run on
    // the test's own runtime thread).
    let resp = match route {
        Route::Capture => Box::pin(fn_capture_payment::handle(&app.capture, lreq)).await,
        Route::Cancel => Box::pin(fn_cancel_payment::handle(&app.cancel, lreq)).await,
        Route::Refund | Route::Reverse => {
            Box::pin(fn_refund_payment::handle(&app.refund, lreq)).await
        }
        Route::Query => Box::pin(fn_query_payment::handle(&app.query, lreq)).await,
        Route::Get | Route::Transactions => Box::pin(fn_get_payment::handle(&app.get, lreq)).await,
        Route::Points => Box::pin(fn_points_inquiry::handle(&app.points, lreq)).await,
        Route::CreateTestPayment => {
            Box::pin(fn_test_create_payment::handle(&app.create, lreq)).await
        }
    };
    to_axum(resp)
}
