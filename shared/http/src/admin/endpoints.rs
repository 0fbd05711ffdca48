//! Webhook endpoints: create (the secret is returned this once), list, read, update,
//! delete, rotate the signing secret, send a test event.

use paygate_domain::error::code;
use std::sync::Arc;

use crate::ApiError;
use paygate_domain::secret::SecretDoc;
use paygate_domain::{
    payment::PaymentView,
    ports::{
        ApiKeyAdmin, Clock, DeliveryQueue, DeliveryStore, EndpointAdmin, EndpointHealthStore,
        IdGenerator, MerchantDirectory, OutboxWriter,
    },
    webhook::{Delivery, DisabledReason, EndpointHealth, WebhookEndpoint, WebhookEndpointId},
    AccountId, Currency, EventId, EventRecord, EventType, Mode, PaymentId, PaymentStatus,
    StoreError, Timestamp,
};
use paygate_webhooks::EgressPolicy;
use serde_json::{Map, Value};

use crate::admin::{
    endpoint_of,
    input::{self, EndpointPatch, NewEndpoint},
    merchant, queue_now,
    secrets::{new_signing_secret, secret_name, SecretVault},
    store_error,
    views::{Deleted, DeliveryView, EndpointList, EndpointView, EndpointWithSecret, RotatedSecret},
    with_health,
};

pub use crate::admin::input::{
    DEFAULT_GRACE_SECONDS, MAX_DESCRIPTION_CHARS, MAX_GRACE_SECONDS, MAX_URL_LEN,
};
/// How long a rotation claimed on the endpoint (its `secretVersion` bumped) but not yet
/// written to the vault blocks another rotation (409); after that it counts as abandoned.
pub const ROTATION_SETTLE_MS: i64 = 60_000;
/// Most endpoints one merchant may have.
pub const MAX_ENDPOINTS_PER_MERCHANT: usize = 20;

/// What the `admin-endpoints` function works with.
pub struct EndpointsDeps {
    pub merchants: Arc<dyn MerchantDirectory>,
    pub endpoints: Arc<dyn EndpointAdmin>,
    /// Creates the test event's delivery.
    pub deliveries: Arc<dyn DeliveryStore>,
    /// Writes the test event (marked sent: it is not fanned out).
    pub outbox: Arc<dyn OutboxWriter>,
    /// Attempt 1 of the test event's delivery.
    pub queue: Arc<dyn DeliveryQueue>,
    pub secrets: Arc<dyn SecretVault>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
    /// Which IP literals an endpoint URL may name (strict in AWS).
    pub egress: EgressPolicy,
    /// `paygate/<stage>/webhooks/`: signing secrets are `<prefix><endpointId>`.
    pub secret_prefix: String,
    /// The endpoints' health (failingSince in the views; reset when re-enabled).
    pub health: Arc<dyn EndpointHealthStore>,
    /// The merchant's API keys (`admin::keys`).
    pub keys: Arc<dyn ApiKeyAdmin>,
    /// The audit trail: every write recorded (`admin::audit`), and read by `GET …/audit`.
    pub audit: crate::admin::audit::Audit,
}

/// How many times a re-enable re-reads the health after losing a race to an attempt.
const HEALTH_TRIES: usize = 5;

/// `POST …/webhook-endpoints`: `url`, `events`, `mode`, optional `description` and
/// `enabled` (default true). The signing secret is generated, stored, and returned here
/// only.
pub async fn create(
    deps: &EndpointsDeps,
    merchant_raw: &str,
    body: &Map<String, Value>,
) -> Result<EndpointWithSecret, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let NewEndpoint {
        url,
        events,
        mode,
        description,
        enabled,
    } = input::new_endpoint(body, &deps.egress)?;

    let existing = deps
        .endpoints
        .list_endpoints(&merchant_id)
        .await
        .map_err(store_error)?;
    if existing.len() >= MAX_ENDPOINTS_PER_MERCHANT {
        return Err(ApiError::new(
            lambda_http::http::StatusCode::CONFLICT,
            code::ENDPOINT_LIMIT_REACHED,
            format!(
                "A merchant can have at most {MAX_ENDPOINTS_PER_MERCHANT} webhook endpoints. Delete one first."
            ),
        ));
    }

    let now = deps.clock.now();
    let id = WebhookEndpointId::generate(deps.ids.as_ref());
    let secret = new_signing_secret().map_err(store_error)?;
    let doc = SecretDoc {
        current: secret.clone(),
        previous: Vec::new(),
        version: 0,
    };
    let secret_id = deps
        .secrets
        .create_secret(&secret_name(&deps.secret_prefix, &id), &doc)
        .await
        .map_err(store_error)?;
    let endpoint = WebhookEndpoint {
        id,
        merchant_id,
        url,
        events,
        mode,
        enabled,
        description,
        secret_id,
        secret_version: 0,
        created_at: now,
        updated_at: now,
        disabled_reason: (!enabled).then_some(DisabledReason::Manual),
    };
    if let Err(e) = deps.endpoints.create_endpoint(&endpoint).await {
        // No endpoint points at the secret: remove it rather than leave an orphan.
        if let Err(cleanup) = deps.secrets.delete_secret(&endpoint.secret_id).await {
            tracing::warn!(endpoint_id = %endpoint.id, error = %cleanup, "orphan signing secret left");
        }
        return Err(store_error(e));
    }
    tracing::info!(endpoint_id = %endpoint.id, merchant_id = %endpoint.merchant_id, "webhook endpoint created");
    Ok(EndpointWithSecret {
        endpoint: EndpointView::from(&endpoint),
        secret,
    })
}

/// `GET …/webhook-endpoints`: the merchant's endpoints (never their secrets).
pub async fn list(deps: &EndpointsDeps, merchant_raw: &str) -> Result<EndpointList, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let endpoints = deps
        .health
        .list_health(&merchant_id)
        .await
        .map_err(store_error)?;
    Ok(EndpointList {
        data: endpoints
            .iter()
            .map(|(e, h)| EndpointView::of(e, h))
            .collect(),
    })
}

/// Starts a new health run for an endpoint being enabled again (failingSince and the
/// warning cleared), by version: a lost race with an attempt is re-read and redone.
async fn reset_failing(
    deps: &EndpointsDeps,
    endpoint: &WebhookEndpoint,
) -> Result<EndpointHealth, ApiError> {
    for _ in 0..HEALTH_TRIES {
        let (_, health) = with_health(
            deps.health.as_ref(),
            &endpoint.merchant_id,
            endpoint.id.as_str(),
        )
        .await?;
        if health.failing_since.is_none() && health.warned_at.is_none() {
            return Ok(health);
        }
        let next = health.reset_failing();
        if deps
            .health
            .put_health(&endpoint.merchant_id, &endpoint.id, &next, None)
            .await
            .map_err(store_error)?
        {
            return Ok(next);
        }
    }
    Err(store_error(StoreError::Conflict { current: None }))
}

/// `GET …/webhook-endpoints/{endpointId}`.
pub async fn get(
    deps: &EndpointsDeps,
    merchant_raw: &str,
    endpoint_raw: &str,
) -> Result<EndpointView, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let (endpoint, health) = with_health(deps.health.as_ref(), &merchant_id, endpoint_raw).await?;
    Ok(EndpointView::of(&endpoint, &health))
}

/// `PATCH …/webhook-endpoints/{endpointId}`: any of `url`, `events`, `enabled`,
/// `description`. The mode of an endpoint never changes (create another one).
pub async fn update(
    deps: &EndpointsDeps,
    merchant_raw: &str,
    endpoint_raw: &str,
    body: &Map<String, Value>,
) -> Result<EndpointView, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let EndpointPatch {
        url,
        events,
        enabled,
        description,
    } = input::endpoint_patch(body, &deps.egress)?;

    let (current, mut health) =
        with_health(deps.health.as_ref(), &merchant_id, endpoint_raw).await?;
    let mut next = current.clone();
    if let Some(u) = url {
        next.url = u;
    }
    if let Some(e) = events {
        next.events = e;
    }
    if let Some(e) = enabled {
        next.enabled = e;
        // Disabling by hand is `manual` (an auto-disabled endpoint disabled again keeps
        // `failing`); enabling clears the reason.
        next.disabled_reason = if e {
            None
        } else {
            Some(current.disabled_reason.unwrap_or(DisabledReason::Manual))
        };
    }
    if let Some(d) = description {
        next.description = d;
    }
    if next == current {
        return Ok(EndpointView::of(&current, &health));
    }
    if next.enabled && !current.enabled {
        // Enabled again: a new run starts, written before the endpoint is enabled so that
        // the next failure cannot disable it on the old run's days. If the update below
        // fails, the endpoint stays disabled with a fresh run: harmless.
        health = reset_failing(deps, &current).await?;
    }
    // updatedAt is the optimistic lock: it must move forward even within one millisecond.
    let now = deps.clock.now();
    next.updated_at = if now > current.updated_at {
        now
    } else {
        current.updated_at.plus_millis(1)
    };
    deps.endpoints
        .update_endpoint(&next, current.updated_at)
        .await
        .map_err(store_error)?;
    Ok(EndpointView::of(&next, &health))
}

/// `DELETE …/webhook-endpoints/{endpointId}`: the endpoint and its signing secret. Its
/// delivery history stays readable by delivery and event id; pending attempts to it end as
/// `endpoint_unavailable`.
pub async fn delete(
    deps: &EndpointsDeps,
    merchant_raw: &str,
    endpoint_raw: &str,
) -> Result<Deleted, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let endpoint = endpoint_of(deps.endpoints.as_ref(), &merchant_id, endpoint_raw).await?;
    if !deps
        .endpoints
        .delete_endpoint(&merchant_id, &endpoint.id)
        .await
        .map_err(store_error)?
    {
        return Err(ApiError::not_found("webhook endpoint"));
    }
    if let Err(e) = deps.secrets.delete_secret(&endpoint.secret_id).await {
        // The endpoint is gone, so nothing signs with it any more; the secret is an orphan.
        tracing::warn!(endpoint_id = %endpoint.id, error = %e, "signing secret of a deleted endpoint not deleted");
    }
    tracing::info!(endpoint_id = %endpoint.id, merchant_id = %merchant_id, "webhook endpoint deleted");
    Ok(Deleted {
        id: endpoint.id.to_string(),
        deleted: true,
    })
}

/// `POST …/webhook-endpoints/{endpointId}/rotate-secret` with optional `graceSeconds`
/// (default 24 h, 0 = the old secret stops at once, at most 7 days). The new secret is
/// returned this once; during the grace period webhooks carry a second `v1=` made with the
/// old secret.
pub async fn rotate(
    deps: &EndpointsDeps,
    merchant_raw: &str,
    endpoint_raw: &str,
    body: &Map<String, Value>,
) -> Result<RotatedSecret, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let grace = input::rotation_grace(body)?;
    let endpoint = endpoint_of(deps.endpoints.as_ref(), &merchant_id, endpoint_raw).await?;
    let doc = deps
        .secrets
        .read_secret(&endpoint.secret_id)
        .await
        .map_err(store_error)?;
    let now = deps.clock.now();
    // A document behind the endpoint's version is a rotation claimed but not yet written:
    // rotating from it would drop that rotation's secret. Refused for a while; after that
    // the claim is taken as abandoned (its write failed and its caller got an error).
    if doc.version < endpoint.secret_version
        && now.unix_millis() - endpoint.updated_at.unix_millis() < ROTATION_SETTLE_MS
    {
        return Err(store_error(StoreError::Conflict { current: None }));
    }
    let secret = new_signing_secret().map_err(store_error)?;
    // Claim the rotation on the endpoint first, conditionally on the `updatedAt` read:
    // of two concurrent rotations one wins, the other is a 409 and writes nothing.
    let mut claimed = endpoint.clone();
    claimed.secret_version = endpoint.secret_version.max(doc.version) + 1;
    claimed.updated_at = if now > endpoint.updated_at {
        now
    } else {
        endpoint.updated_at.plus_millis(1)
    };
    deps.endpoints
        .update_endpoint(&claimed, endpoint.updated_at)
        .await
        .map_err(store_error)?;
    let rotated = doc.rotated(secret.clone(), claimed.secret_version, now, grace * 1_000);
    deps.secrets
        .put_secret(&endpoint.secret_id, &rotated)
        .await
        .map_err(store_error)?;
    tracing::info!(endpoint_id = %endpoint.id, grace_seconds = grace, secret_version = claimed.secret_version, "signing secret rotated");
    Ok(RotatedSecret {
        id: endpoint.id.to_string(),
        secret,
        previous_secret_expires_at: (grace > 0).then(|| now.plus_millis(grace * 1_000)),
    })
}

/// The `data` of a test event: a sample captured payment (its id starts `pay_sample`; it
/// exists nowhere else).
pub fn sample_payment(ids: &dyn IdGenerator, mode: Mode, now: Timestamp) -> PaymentView {
    let id = PaymentId::parse(&format!("pay_sample{}", ids.opaque()))
        .unwrap_or_else(|_| PaymentId::generate(ids));
    let account_id = AccountId::parse("acc_sample").unwrap_or_else(|_| AccountId::generate(ids));
    PaymentView {
        id,
        object: "payment".to_owned(),
        status: PaymentStatus::Captured,
        mode,
        amount: 10_000,
        currency: Currency::Try,
        captured_amount: 10_000,
        refunded_amount: 0,
        refundable_amount: 10_000,
        account_id,
        order_id: "sample-order".to_owned(),
        pending_operation: None,
        created_at: now,
        updated_at: now,
    }
}

/// `POST …/webhook-endpoints/{endpointId}/test`: a `webhook.test` event for this endpoint
/// only, through the normal delivery path (signed, recorded, retried). The event is written
/// to the outbox already marked sent, so it is never fanned out to other endpoints; its
/// delivery is created and attempt 1 enqueued. Answers 202 with the delivery.
pub async fn send_test(
    deps: &EndpointsDeps,
    merchant_raw: &str,
    endpoint_raw: &str,
    body: &Map<String, Value>,
) -> Result<DeliveryView, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    input::no_fields(body)?;
    let endpoint = endpoint_of(deps.endpoints.as_ref(), &merchant_id, endpoint_raw).await?;
    if !endpoint.enabled {
        return Err(endpoint_disabled());
    }
    let now = deps.clock.now();
    let data = sample_payment(deps.ids.as_ref(), endpoint.mode, now);
    let event = EventRecord {
        id: EventId::generate(deps.ids.as_ref()),
        event_type: EventType::WebhookTest,
        mode: endpoint.mode,
        created_at: now,
        merchant_id,
        payment_id: data.id.clone(),
        data,
        transaction: None,
    };
    deps.outbox
        .put_event(&event, true)
        .await
        .map_err(store_error)?;
    let delivery = Delivery::new(&event, &endpoint, now);
    if !deps
        .deliveries
        .create_delivery(&delivery)
        .await
        .map_err(store_error)?
    {
        // A fresh event id makes a fresh delivery id; anything else is a bug.
        return Err(store_error(StoreError::AlreadyExists));
    }
    queue_now(deps.queue.as_ref(), &delivery.id, 1, now, "test event").await;
    tracing::info!(endpoint_id = %endpoint.id, delivery_id = %delivery.id, "test event sent");
    Ok(DeliveryView::from(&delivery))
}

/// 409 `endpoint_disabled`.
pub(crate) fn endpoint_disabled() -> ApiError {
    ApiError::new(
        lambda_http::http::StatusCode::CONFLICT,
        code::ENDPOINT_DISABLED,
        "The webhook endpoint is disabled or was deleted. Enable it (PATCH with {\"enabled\": true}) first.",
    )
}

#[cfg(test)]
mod tests;
