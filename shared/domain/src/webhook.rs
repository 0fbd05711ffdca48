//! Webhooks: endpoints, deliveries, attempts and the retry schedule, decided in pure code.
//!
//! A delivery is one event for one endpoint. Its id is derived from the two (so fanning
//! the same event out twice creates nothing new) and is sent as `X-Svc-Delivery` on every
//! attempt. Attempt 1 is immediate; attempt `n + 1` is due `schedule[n - 1]` after attempt
//! `n` failed; after the last retry fails the delivery is `failed`.

use serde::{Deserialize, Serialize};

use crate::{
    account::Mode,
    event::{EventRecord, EventType},
    ids::{EventId, MerchantId},
    time::Timestamp,
};

pub use crate::ids::{DeliveryId, WebhookEndpointId};

pub mod health;
pub use health::{DisablePolicy, DisabledReason, EndpointHealth, HealthAction};

/// What an endpoint subscribes to: one event type, or every type (`*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventFilter {
    All,
    Only(EventType),
}

impl EventFilter {
    pub fn parse(s: &str) -> Option<Self> {
        if s == "*" {
            Some(Self::All)
        } else {
            EventType::parse(s).map(Self::Only)
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::All => "*",
            Self::Only(t) => t.as_str(),
        }
    }

    pub fn matches(self, t: EventType) -> bool {
        match self {
            Self::All => true,
            Self::Only(x) => x == t,
        }
    }
}

impl Serialize for EventFilter {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EventFilter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).ok_or_else(|| serde::de::Error::custom("unknown event type"))
    }
}

/// A merchant's webhook endpoint. Its signing secrets live in Secrets Manager under
/// `secret_id`; they are never part of this record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookEndpoint {
    pub id: WebhookEndpointId,
    pub merchant_id: MerchantId,
    pub url: String,
    pub events: Vec<EventFilter>,
    pub mode: Mode,
    pub enabled: bool,
    #[serde(default)]
    pub description: String,
    /// Secrets Manager id of the endpoint's signing secrets.
    pub secret_id: String,
    /// Bumped by every rotation of the signing secret (and written into the secret
    /// document as well): a sender whose cached secret has another version reads it again,
    /// so the very next delivery after a rotation is signed with the new secret.
    #[serde(default)]
    pub secret_version: u64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Why the endpoint is disabled (`None` while enabled). `failing` is set only by the
    /// auto-disable rule ([`health`]); enabling the endpoint clears it.
    #[serde(default)]
    pub disabled_reason: Option<DisabledReason>,
}

impl WebhookEndpoint {
    /// Whether `event` goes to this endpoint: enabled, subscribed, same merchant and mode.
    pub fn wants(&self, event: &EventRecord) -> bool {
        self.enabled && self.subscribed_to(event)
    }

    /// Whether `event` is recorded for this endpoint without being sent: it was disabled
    /// automatically (`failing`) and would otherwise get it. Its delivery is recorded as
    /// failed ([`Delivery::held`]), so that `recover` delivers it once the endpoint is
    /// enabled again (as Svix does); an endpoint disabled by hand gets nothing.
    pub fn holds(&self, event: &EventRecord) -> bool {
        !self.enabled
            && self.disabled_reason == Some(DisabledReason::Failing)
            && self.subscribed_to(event)
    }

    fn subscribed_to(&self, event: &EventRecord) -> bool {
        self.merchant_id == event.merchant_id
            && self.mode == event.mode
            && self.events.iter().any(|f| f.matches(event.event_type))
    }
}

/// The delivery id of `event` to `endpoint`: the same pair always gives the same id.
pub fn delivery_id(event: &EventId, endpoint: &WebhookEndpointId) -> DeliveryId {
    let e = event.as_str().trim_start_matches(EventId::PREFIX);
    let w = endpoint
        .as_str()
        .trim_start_matches(WebhookEndpointId::PREFIX);
    // Both opaque parts are alphanumeric; joined they stay a valid opaque part when short
    // enough, otherwise a stable hash of the two stands in.
    let joined = format!("{e}{w}");
    let opaque = if joined.len() <= 64 {
        joined
    } else {
        format!("{:016x}{:016x}", fnv1a(e.as_bytes()), fnv1a(w.as_bytes()))
    };
    DeliveryId::from_valid_opaque(&opaque)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryStatus {
    Pending,
    Succeeded,
    Failed,
}

impl DeliveryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(Self::Pending),
            "succeeded" => Some(Self::Succeeded),
            "failed" => Some(Self::Failed),
            _ => None,
        }
    }
}

/// One event to one endpoint, across all its attempts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub id: DeliveryId,
    pub merchant_id: MerchantId,
    pub endpoint_id: WebhookEndpointId,
    pub event_id: EventId,
    pub event_type: EventType,
    pub mode: Mode,
    pub status: DeliveryStatus,
    /// Attempts recorded so far.
    pub attempts_made: u32,
    /// When the next attempt is due; `None` once final.
    pub next_attempt_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Attempts made before the retry schedule last started: 0, or after a manual resend
    /// the attempts made before it. The schedule's waits count from here, so a resent
    /// delivery gets the whole schedule again while its attempt numbers go on.
    #[serde(default)]
    pub retry_base: u32,
}

/// Why an attempt failed without an HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptError {
    /// No complete response within the time limit (10 s for the whole attempt).
    Timeout,
    /// Could not connect, or the connection broke.
    Connection,
    /// TLS handshake or certificate failure.
    Tls,
    /// The name did not resolve.
    Dns,
    /// The address is refused: private, loopback, link-local, not HTTPS, …
    Blocked,
    /// The endpoint's signing secret could not be read.
    Secret,
    /// The endpoint was deleted or disabled after the delivery was created.
    EndpointUnavailable,
}

/// One recorded attempt. Its JSON is the admin API's attempt, shown under its delivery, so
/// it leaves out the delivery id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    #[serde(skip_serializing)]
    pub delivery_id: DeliveryId,
    /// 1-based; attempt 1 is the first send, attempts 2.. are the retries.
    pub number: u32,
    pub at: Timestamp,
    pub duration_ms: u64,
    /// HTTP status, when a response arrived.
    pub status_code: Option<u16>,
    /// Failure without a status (time-out, connection, …).
    pub error: Option<AttemptError>,
    /// The start of the response body, truncated.
    pub response_body: String,
    pub succeeded: bool,
}

impl Attempt {
    /// Only a 2xx response is success.
    pub fn is_success(status_code: Option<u16>) -> bool {
        status_code.is_some_and(|c| (200..300).contains(&c))
    }
}

/// The retry schedule: waits after each failed attempt, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySchedule(Vec<u64>);

/// The spec's schedule: 30 s, 2 min, 10 min, 30 min, 2 h, 6 h, 12 h, 24 h.
pub const SPEC_SCHEDULE: &str = "30s,2m,10m,30m,2h,6h,12h,24h";

impl Default for RetrySchedule {
    fn default() -> Self {
        Self(vec![30, 120, 600, 1_800, 7_200, 21_600, 43_200, 86_400])
    }
}

impl RetrySchedule {
    /// The longest wait one entry may ask for (30 days).
    pub const MAX_WAIT_SECS: u64 = 30 * 86_400;
    /// The most entries a schedule may have.
    pub const MAX_RETRIES: usize = 100;

    /// Parses `30s,2m,10m,…` (units s, m, h, d; 1 to [`Self::MAX_RETRIES`] entries, each
    /// from 1 s to [`Self::MAX_WAIT_SECS`]). Anything else, whatever its bytes, is `None`.
    pub fn parse(s: &str) -> Option<Self> {
        let mut out = Vec::new();
        for part in s.split(',') {
            let part = part.trim();
            // The unit is the last character, which need not be one byte long.
            let (at, _) = part.char_indices().last()?;
            let (num, unit) = part.split_at(at);
            if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let n: u64 = num.parse().ok()?;
            let secs = match unit {
                "s" => n,
                "m" => n.checked_mul(60)?,
                "h" => n.checked_mul(3_600)?,
                "d" => n.checked_mul(86_400)?,
                _ => return None,
            };
            if secs == 0 || secs > Self::MAX_WAIT_SECS || out.len() == Self::MAX_RETRIES {
                return None;
            }
            out.push(secs);
        }
        (!out.is_empty()).then_some(Self(out))
    }

    pub fn retries(&self) -> u32 {
        u32::try_from(self.0.len()).unwrap_or(u32::MAX)
    }

    /// Attempts a delivery gets in all: the first plus the retries.
    pub fn max_attempts(&self) -> u32 {
        self.retries().saturating_add(1)
    }

    /// When attempt `failed + 1` is due after attempt `failed` failed at `at`; `None` when
    /// that was the last.
    pub fn next_after(&self, failed: u32, at: Timestamp) -> Option<Timestamp> {
        let idx = usize::try_from(failed.checked_sub(1)?).ok()?;
        let wait = *self.0.get(idx)?;
        Some(at.plus_millis(i64::try_from(wait.saturating_mul(1_000)).unwrap_or(i64::MAX)))
    }

    pub fn waits_seconds(&self) -> &[u64] {
        &self.0
    }
}

/// What to do with a delivery after an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AfterAttempt {
    pub delivery: Delivery,
    /// The next attempt's number and due time, when there is one.
    pub next: Option<(u32, Timestamp)>,
}

impl AfterAttempt {
    /// No further attempt whatever the schedule says (the endpoint was deleted): a failed
    /// attempt makes the delivery `failed` now; a succeeded one is unchanged.
    pub fn ended(mut self) -> Self {
        if self.delivery.status == DeliveryStatus::Pending {
            self.delivery.status = DeliveryStatus::Failed;
            self.delivery.next_attempt_at = None;
        }
        self.next = None;
        self
    }
}

impl Delivery {
    pub fn new(event: &EventRecord, endpoint: &WebhookEndpoint, now: Timestamp) -> Self {
        Self {
            id: delivery_id(&event.id, &endpoint.id),
            merchant_id: endpoint.merchant_id.clone(),
            endpoint_id: endpoint.id.clone(),
            event_id: event.id.clone(),
            event_type: event.event_type,
            mode: event.mode,
            status: DeliveryStatus::Pending,
            attempts_made: 0,
            next_attempt_at: Some(now),
            created_at: now,
            updated_at: now,
            retry_base: 0,
        }
    }

    /// The delivery of `event` to an endpoint that [holds](WebhookEndpoint::holds) it (disabled
    /// as failing), recorded at `now` without being sent: the delivery as created, its
    /// attempt 1 (`endpoint_unavailable`, nothing sent) and the delivery after it, `failed`
    /// with no further attempt. `recover` puts it back to pending once the endpoint is
    /// enabled again, and its attempt 2 is sent then.
    pub fn held(
        event: &EventRecord,
        endpoint: &WebhookEndpoint,
        now: Timestamp,
    ) -> (Delivery, Attempt, Delivery) {
        let created = Self::new(event, endpoint, now);
        let attempt = Attempt {
            delivery_id: created.id.clone(),
            number: 1,
            at: now,
            duration_ms: 0,
            status_code: None,
            error: Some(AttemptError::EndpointUnavailable),
            response_body: String::new(),
            succeeded: false,
        };
        let mut after = created.clone();
        after.attempts_made = 1;
        after.status = DeliveryStatus::Failed;
        after.next_attempt_at = None;
        (created, attempt, after)
    }

    /// The delivery put back to pending for a manual resend at `now`: the next attempt
    /// (number `attempts_made + 1`, same delivery id) is due at once and the retry schedule
    /// starts over. `None` when it is pending already (nothing to resend).
    pub fn resent(&self, now: Timestamp) -> Option<Delivery> {
        if self.status == DeliveryStatus::Pending {
            return None;
        }
        let mut d = self.clone();
        d.status = DeliveryStatus::Pending;
        d.next_attempt_at = Some(now);
        d.updated_at = now;
        d.retry_base = self.attempts_made;
        Some(d)
    }

    /// Records attempt `attempt.number` and decides what follows it, timing the next attempt
    /// from when this one started. See [`Delivery::after_attempt_at`].
    pub fn after_attempt(&self, attempt: &Attempt, schedule: &RetrySchedule) -> AfterAttempt {
        self.after_attempt_at(attempt, attempt.at, schedule)
    }

    /// Records attempt `attempt.number` and decides what follows it: the next attempt is due
    /// its wait after `failed_at`, the moment the failure was known (the end of the attempt).
    pub fn after_attempt_at(
        &self,
        attempt: &Attempt,
        failed_at: Timestamp,
        schedule: &RetrySchedule,
    ) -> AfterAttempt {
        let mut d = self.clone();
        d.attempts_made = attempt.number;
        d.updated_at = attempt.at;
        if attempt.succeeded {
            d.status = DeliveryStatus::Succeeded;
            d.next_attempt_at = None;
            return AfterAttempt {
                delivery: d,
                next: None,
            };
        }
        // The schedule counts the attempts since it (re)started.
        let in_run = attempt.number.saturating_sub(self.retry_base);
        match schedule.next_after(in_run, failed_at) {
            Some(due) => {
                d.status = DeliveryStatus::Pending;
                d.next_attempt_at = Some(due);
                AfterAttempt {
                    delivery: d,
                    next: Some((attempt.number + 1, due)),
                }
            }
            None => {
                d.status = DeliveryStatus::Failed;
                d.next_attempt_at = None;
                AfterAttempt {
                    delivery: d,
                    next: None,
                }
            }
        }
    }
}

/// The webhook body: the spec's envelope. Serialised once; those bytes are signed and sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope<'a> {
    pub id: &'a EventId,
    #[serde(rename = "type")]
    pub event_type: EventType,
    pub mode: Mode,
    pub created_at: Timestamp,
    pub data: EnvelopeData<'a>,
}

/// The envelope's `data`: the payment, and the transaction that caused the event when one
/// did (`data.transaction`, left out otherwise).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvelopeData<'a> {
    #[serde(flatten)]
    pub payment: &'a crate::payment::PaymentView,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction: Option<&'a crate::transaction::Transaction>,
}

impl<'a> Envelope<'a> {
    pub fn of(event: &'a EventRecord) -> Self {
        Self {
            id: &event.id,
            event_type: event.event_type,
            mode: event.mode,
            created_at: event.created_at,
            data: EnvelopeData {
                payment: &event.data,
                transaction: event.transaction.as_deref(),
            },
        }
    }

    /// The exact body bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// How long deliveries and their attempts are kept: 90 days after the delivery was created
/// (the store's TTL; recover refuses to look further back).
pub const DELIVERY_RETENTION_DAYS: i64 = 90;

/// Sent as `User-Agent` on every webhook request.
pub const USER_AGENT: &str = concat!("paygate-webhooks/", env!("CARGO_PKG_VERSION"));

/// The largest delay SQS allows on one message; longer waits are chains of hops.
pub const MAX_QUEUE_DELAY_SECS: i64 = 900;

/// The delay for the next hop towards `due` (0 when due already).
pub fn hop_delay_secs(now: Timestamp, due: Timestamp) -> i64 {
    let remaining_ms = due.unix_millis() - now.unix_millis();
    if remaining_ms <= 0 {
        return 0;
    }
    ((remaining_ms + 999) / 1000).min(MAX_QUEUE_DELAY_SECS)
}

#[cfg(test)]
mod tests;
