//! The dashboard's admin API (spec: "Webhook endpoints are configured in a merchant
//! dashboard: add an endpoint, choose the events to receive, and choose the mode. The
//! dashboard can send a test event, show delivery history, and resend a failed delivery.
//! A signing secret is displayed once at endpoint creation and can be rotated.")
//!
//! Two Lambda functions serve it, each routing on the HTTP API route key:
//!
//! * `admin-endpoints` ([`EndpointsDeps`], [`http::handle_endpoints`]): create, list, read,
//!   update, delete endpoints; rotate the signing secret; send a `webhook.test` event.
//! * `admin-deliveries` ([`DeliveriesDeps`], [`http::handle_deliveries`]): an endpoint's
//!   delivery history, one delivery with its attempts, resend, an event's deliveries.
//!
//! Every route acts on one merchant, named in the path (`/admin/v1/merchants/{merchantId}/…`).
//! Who may call them is API Gateway's IAM authorization (SigV4, `execute-api:Invoke` on the
//! merchant's path); the functions see no other auth layer. An unknown merchant, endpoint,
//! delivery or event is 404; a field that does not validate is 400 `invalid_request` naming
//! it; errors use the one envelope of `crate::ApiError`.
//!
//! The handlers work over ports only (endpoints, deliveries, outbox writer, deliveries
//! queue, signing-secret vault, clock, ids, egress policy), so their tests run on in-memory
//! doubles ([`testing::MemoryVault`] and `paygate_domain::testkit`).

pub mod audit;
pub mod deliveries;
pub mod endpoints;
pub mod http;
pub mod input;
pub mod keys;
pub mod operations;
pub mod payments;
pub mod reconciliations;
pub mod routes;
pub mod secrets;
pub mod testing;
pub mod views;

#[cfg(test)]
mod fixture;

pub use audit::Audit;
pub use deliveries::DeliveriesDeps;
pub use endpoints::EndpointsDeps;
pub use routes::{AdminFunction, AdminRoute, ROUTES};
pub use secrets::{new_signing_secret, SecretVault, SECRET_PREFIX_ENV};

use crate::ApiError;
use paygate_domain::{
    error::code,
    ports::{
        DeliveryMessage, DeliveryQueue, EndpointHealthStore, EndpointReader, MerchantDirectory,
    },
    webhook::{DeliveryId, EndpointHealth, WebhookEndpoint, WebhookEndpointId},
    MerchantId, StoreError, Timestamp,
};

/// A store failure as the client sees it: 500, with the cause logged (never returned).
pub(crate) fn store_error(e: StoreError) -> ApiError {
    match e {
        StoreError::Corrupt(m) if m == "invalid cursor" => {
            ApiError::invalid("cursor", "is not a cursor this listing handed out")
        }
        StoreError::Conflict { .. } => ApiError::new(
            lambda_http::http::StatusCode::CONFLICT,
            code::CONCURRENT_MODIFICATION,
            "The resource was changed by another request. Read it again and retry.",
        ),
        other => {
            tracing::error!(error = %other, "admin store call failed");
            ApiError::internal()
        }
    }
}

/// The merchant of the path, which must exist; otherwise 404.
pub(crate) async fn merchant(
    merchants: &dyn MerchantDirectory,
    raw: &str,
) -> Result<MerchantId, ApiError> {
    let id = MerchantId::parse(raw).map_err(|_| ApiError::not_found("merchant"))?;
    if merchants.merchant_exists(&id).await.map_err(store_error)? {
        Ok(id)
    } else {
        Err(ApiError::not_found("merchant"))
    }
}

/// The endpoint id of the path; one that does not parse is 404, like an unknown one.
fn endpoint_id(raw: &str) -> Result<WebhookEndpointId, ApiError> {
    WebhookEndpointId::parse(raw).map_err(|_| ApiError::not_found("webhook endpoint"))
}

/// The endpoint of the path, which must be the merchant's; otherwise 404.
pub(crate) async fn endpoint_of(
    endpoints: &dyn EndpointReader,
    merchant: &MerchantId,
    raw: &str,
) -> Result<WebhookEndpoint, ApiError> {
    endpoints
        .get_endpoint(merchant, &endpoint_id(raw)?)
        .await
        .map_err(store_error)?
        .ok_or_else(|| ApiError::not_found("webhook endpoint"))
}

/// The endpoint of the path with its health, which must be the merchant's; otherwise 404.
pub(crate) async fn with_health(
    health: &dyn EndpointHealthStore,
    merchant: &MerchantId,
    raw: &str,
) -> Result<(WebhookEndpoint, EndpointHealth), ApiError> {
    health
        .get_health(merchant, &endpoint_id(raw)?)
        .await
        .map_err(store_error)?
        .ok_or_else(|| ApiError::not_found("webhook endpoint"))
}

/// Queues attempt `attempt` of a pending delivery, due `now`. A failure is logged, not
/// returned: the delivery is pending and due, so the sweeper re-enqueues it. `what` names
/// the delivery in the log line ("test event", "resend", …).
pub(crate) async fn queue_now(
    queue: &dyn DeliveryQueue,
    delivery: &DeliveryId,
    attempt: u32,
    now: Timestamp,
    what: &str,
) {
    let msg = DeliveryMessage {
        delivery_id: delivery.clone(),
        attempt,
        due_at: now,
    };
    if let Err(e) = queue.enqueue(&msg, 0).await {
        tracing::warn!(delivery_id = %delivery, error = %e, "{what} not queued; the sweeper will");
    }
}
