//! The JSON the admin API answers with. Secrets appear only in [`EndpointWithSecret`] (the
//! create answer) and [`RotatedSecret`]: never in a read or a list.

use paygate_domain::{
    apikey::{key_prefix, ApiKey, KeyStatus},
    webhook::{
        Attempt, Delivery, DeliveryStatus, DisabledReason, EndpointHealth, EventFilter,
        WebhookEndpoint,
    },
    EventType, Mode, Timestamp,
};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointView {
    pub id: String,
    pub url: String,
    pub events: Vec<EventFilter>,
    pub mode: Mode,
    pub enabled: bool,
    pub description: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// `null` while enabled; `manual` or `failing` (auto-disabled) otherwise.
    pub disabled_reason: Option<DisabledReason>,
    /// The first failed attempt since the last success; `null` while healthy.
    pub failing_since: Option<Timestamp>,
}

/// Why a disabled endpoint is disabled: its stored reason, or `manual` for one disabled
/// before reasons were kept.
pub fn disabled_reason(e: &WebhookEndpoint) -> Option<DisabledReason> {
    (!e.enabled).then(|| e.disabled_reason.unwrap_or(DisabledReason::Manual))
}

impl EndpointView {
    /// The endpoint with its health.
    pub fn of(e: &WebhookEndpoint, h: &EndpointHealth) -> Self {
        Self {
            failing_since: h.failing_since,
            ..Self::from(e)
        }
    }
}

/// The endpoint alone (a new one: no health yet).
impl From<&WebhookEndpoint> for EndpointView {
    fn from(e: &WebhookEndpoint) -> Self {
        Self {
            id: e.id.to_string(),
            url: e.url.clone(),
            events: e.events.clone(),
            mode: e.mode,
            enabled: e.enabled,
            description: e.description.clone(),
            created_at: e.created_at,
            updated_at: e.updated_at,
            disabled_reason: disabled_reason(e),
            failing_since: None,
        }
    }
}

/// `GET …/webhook-endpoints/{endpointId}/health`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthView {
    pub endpoint_id: String,
    /// Successful over all attempts of the last 24 hours (by clock hour); `null` without
    /// attempts.
    pub success_rate: Option<f64>,
    #[serde(rename = "attempts24h")]
    pub attempts_24h: u32,
    pub last_success_at: Option<Timestamp>,
    pub last_failure_at: Option<Timestamp>,
    pub failing_since: Option<Timestamp>,
    /// Deliveries pending (first attempt or retrying).
    pub backlog: u64,
    /// `enabled` or `disabled`.
    pub status: &'static str,
    pub disabled_reason: Option<DisabledReason>,
}

/// `POST …/webhook-endpoints/{endpointId}/recover`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecoverView {
    /// Failed deliveries put back to pending and queued now.
    pub requested: u32,
    /// Failed deliveries found but not requested: pending again already (resent meanwhile).
    pub skipped: u32,
    /// More failed deliveries may follow the last one: call again with `since` set to
    /// `lastCreatedAt`.
    pub more: bool,
    /// When the last delivery looked at was created (`null` when none was).
    #[serde(rename = "lastCreatedAt")]
    pub last_created_at: Option<Timestamp>,
}

/// An API key as listed (never the secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyView {
    pub id: String,
    pub prefix: &'static str,
    pub last4: String,
    pub mode: Mode,
    pub name: String,
    pub created_at: Timestamp,
    pub expires_at: Option<Timestamp>,
    pub last_used_at: Option<Timestamp>,
    pub status: KeyStatus,
}

impl ApiKeyView {
    pub fn of(k: &ApiKey, now: Timestamp) -> Self {
        Self {
            id: k.id.to_string(),
            prefix: key_prefix(k.mode),
            last4: k.last4.clone(),
            mode: k.mode,
            name: k.name.clone(),
            created_at: k.created_at,
            expires_at: k.expires_at,
            last_used_at: k.last_used_at,
            status: k.status(now),
        }
    }
}

/// A new key: the view and, this once, the secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApiKeyWithSecret {
    #[serde(flatten)]
    pub key: ApiKeyView,
    pub secret: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApiKeyList {
    pub data: Vec<ApiKeyView>,
}

/// The create answer: the endpoint and, this once, its signing secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointWithSecret {
    #[serde(flatten)]
    pub endpoint: EndpointView,
    pub secret: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EndpointList {
    pub data: Vec<EndpointView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Deleted {
    pub id: String,
    pub deleted: bool,
}

/// The rotate answer: the new secret (shown once) and until when the old one still signs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RotatedSecret {
    pub id: String,
    pub secret: String,
    pub previous_secret_expires_at: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryView {
    pub id: String,
    pub endpoint_id: String,
    pub event_id: String,
    pub event_type: EventType,
    pub mode: Mode,
    pub status: DeliveryStatus,
    /// Attempts recorded so far.
    pub attempt_count: u32,
    /// When the next attempt is due; `null` once final.
    pub next_attempt_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<&Delivery> for DeliveryView {
    fn from(d: &Delivery) -> Self {
        Self {
            id: d.id.to_string(),
            endpoint_id: d.endpoint_id.to_string(),
            event_id: d.event_id.to_string(),
            event_type: d.event_type,
            mode: d.mode,
            status: d.status,
            attempt_count: d.attempts_made,
            next_attempt_at: d.next_attempt_at,
            created_at: d.created_at,
            updated_at: d.updated_at,
        }
    }
}

/// Most characters of a response body shown per attempt (the sender keeps at most 2 KiB).
pub const RESPONSE_BODY_SHOWN: usize = 1024;

/// One attempt as shown: the recorded [`Attempt`] (number, start, duration, status code or
/// error kind: timeout, connection, tls, dns, blocked, secret, endpoint_unavailable) with
/// its response body cut to [`RESPONSE_BODY_SHOWN`] characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct AttemptView(Attempt);

impl From<&Attempt> for AttemptView {
    fn from(a: &Attempt) -> Self {
        let mut shown = a.clone();
        shown.response_body = a.response_body.chars().take(RESPONSE_BODY_SHOWN).collect();
        Self(shown)
    }
}

impl std::ops::Deref for AttemptView {
    type Target = Attempt;

    fn deref(&self) -> &Attempt {
        &self.0
    }
}

/// One delivery with every attempt, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeliveryDetail {
    #[serde(flatten)]
    pub delivery: DeliveryView,
    pub attempts: Vec<AttemptView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryPage {
    pub data: Vec<DeliveryView>,
    /// Pass as `?cursor=` for the next page; `null` on the last one.
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeliveryList {
    pub data: Vec<DeliveryView>,
}
