//! Delivery history: an endpoint's deliveries (newest first, paginated, by status), one
//! delivery with its attempts and next attempt time, an event's deliveries; and the
//! resend of a final delivery.

use paygate_domain::error::code;
use std::sync::Arc;

use crate::ApiError;
use paygate_domain::{
    ports::{Clock, DeliveryAdmin, DeliveryQueue, EndpointReader, MerchantDirectory, Outbox},
    webhook::{DeliveryId, DeliveryStatus},
    EventId, MerchantId, StoreError,
};

use crate::admin::{
    endpoint_of,
    endpoints::endpoint_disabled,
    merchant, queue_now, store_error,
    views::{AttemptView, DeliveryDetail, DeliveryList, DeliveryPage, DeliveryView},
};

pub use crate::admin::input::{HistoryQuery, DEFAULT_LIMIT, MAX_LIMIT};

/// What the `admin-deliveries` function works with.
pub struct DeliveriesDeps {
    pub merchants: Arc<dyn MerchantDirectory>,
    pub endpoints: Arc<dyn EndpointReader>,
    pub deliveries: Arc<dyn DeliveryAdmin>,
    /// Whose event an event id is.
    pub outbox: Arc<dyn Outbox>,
    /// The resent delivery's next attempt.
    pub queue: Arc<dyn DeliveryQueue>,
    pub clock: Arc<dyn Clock>,
    /// The endpoint's health counters (`admin::operations::health`).
    pub health: Arc<dyn paygate_domain::ports::EndpointHealthStore>,
    /// The audit trail: resend and recover are recorded (`admin::audit`).
    pub audit: crate::admin::audit::Audit,
    /// The daily reconciliation reports (`admin::reconciliations`).
    pub reports: Arc<dyn paygate_domain::daily::DayReports>,
    /// One payment with its transactions, read only (`admin::payments`).
    pub payments: Arc<dyn paygate_domain::ports::PaymentReader>,
}

/// `GET …/webhook-endpoints/{endpointId}/deliveries`: newest first.
pub async fn list_for_endpoint(
    deps: &DeliveriesDeps,
    merchant_raw: &str,
    endpoint_raw: &str,
    query: &HistoryQuery,
) -> Result<DeliveryPage, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let endpoint_id = endpoint_of(deps.endpoints.as_ref(), &merchant_id, endpoint_raw)
        .await?
        .id;
    let page = deps
        .deliveries
        .list_by_endpoint(&endpoint_id, query.store_query())
        .await
        .map_err(store_error)?;
    Ok(DeliveryPage {
        // The index is by endpoint; the merchant check is the endpoint's. Belt and braces:
        data: page
            .items
            .iter()
            .filter(|d| d.merchant_id == merchant_id)
            .map(DeliveryView::from)
            .collect(),
        next_cursor: page.next_cursor,
    })
}

/// The delivery of the path, which must be the merchant's; otherwise 404.
async fn delivery_of(
    deps: &DeliveriesDeps,
    merchant_id: &MerchantId,
    raw: &str,
) -> Result<paygate_domain::webhook::Delivery, ApiError> {
    let id = DeliveryId::parse(raw).map_err(|_| ApiError::not_found("delivery"))?;
    deps.deliveries
        .get_delivery(&id)
        .await
        .map_err(store_error)?
        .filter(|d| &d.merchant_id == merchant_id)
        .ok_or_else(|| ApiError::not_found("delivery"))
}

/// `GET …/deliveries/{deliveryId}`: the delivery, every attempt (time, status code or
/// error kind, duration, truncated response body) and when the next one is due.
pub async fn show(
    deps: &DeliveriesDeps,
    merchant_raw: &str,
    delivery_raw: &str,
) -> Result<DeliveryDetail, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let delivery = delivery_of(deps, &merchant_id, delivery_raw).await?;
    let attempts = deps
        .deliveries
        .list_attempts(&delivery.id)
        .await
        .map_err(store_error)?;
    Ok(DeliveryDetail {
        delivery: DeliveryView::from(&delivery),
        attempts: attempts.iter().map(AttemptView::from).collect(),
    })
}

/// 409 `delivery_pending`.
fn delivery_pending() -> ApiError {
    ApiError::new(
        lambda_http::http::StatusCode::CONFLICT,
        code::DELIVERY_PENDING,
        "The delivery is still pending: its next attempt is scheduled. Only a succeeded or failed delivery can be resent.",
    )
}

/// `POST …/deliveries/{deliveryId}/resend`: a succeeded or failed delivery goes back to
/// pending and its next attempt is sent now, through the normal path: the same delivery id
/// (`X-Svc-Delivery`), attempt numbers going on, the retry schedule starting over. A
/// pending delivery is 409 `delivery_pending`; one whose endpoint is disabled or deleted
/// 409 `endpoint_disabled`. Answers 202 with the delivery.
pub async fn resend(
    deps: &DeliveriesDeps,
    merchant_raw: &str,
    delivery_raw: &str,
) -> Result<DeliveryView, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let delivery = delivery_of(deps, &merchant_id, delivery_raw).await?;
    if delivery.status == DeliveryStatus::Pending {
        return Err(delivery_pending());
    }
    let endpoint = deps
        .endpoints
        .get_endpoint(&merchant_id, &delivery.endpoint_id)
        .await
        .map_err(store_error)?;
    if !endpoint.is_some_and(|e| e.enabled) {
        return Err(endpoint_disabled());
    }
    let now = deps.clock.now();
    let resent = match deps.deliveries.reset_for_resend(&delivery.id, now).await {
        Ok(Some(d)) => d,
        Ok(None) => return Err(ApiError::not_found("delivery")),
        Err(StoreError::Conflict { .. }) => return Err(delivery_pending()),
        Err(e) => return Err(store_error(e)),
    };
    let attempt = resent.attempts_made + 1;
    queue_now(deps.queue.as_ref(), &resent.id, attempt, now, "resend").await;
    tracing::info!(delivery_id = %resent.id, attempt, "delivery resent");
    Ok(DeliveryView::from(&resent))
}

/// `GET …/events/{eventId}/deliveries`: one delivery per endpoint the event went to,
/// oldest first. An event of another merchant is 404.
pub async fn list_for_event(
    deps: &DeliveriesDeps,
    merchant_raw: &str,
    event_raw: &str,
) -> Result<DeliveryList, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let event_id = EventId::parse(event_raw).map_err(|_| ApiError::not_found("event"))?;
    deps.outbox
        .get_event(&event_id)
        .await
        .map_err(store_error)?
        .filter(|e| e.merchant_id == merchant_id)
        .ok_or_else(|| ApiError::not_found("event"))?;
    let deliveries = deps
        .deliveries
        .list_by_event(&event_id)
        .await
        .map_err(store_error)?;
    Ok(DeliveryList {
        data: deliveries
            .iter()
            .filter(|d| d.merchant_id == merchant_id)
            .map(DeliveryView::from)
            .collect(),
    })
}

#[cfg(test)]
mod tests;
