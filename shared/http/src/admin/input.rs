//! The admin API's input, read by pure functions: every route's body (already a JSON object,
//! `crate::parse_object`) and the delivery history's query string, checked field by field
//! into what the handler acts on. No store, clock or network is touched here: the handlers
//! call these at the point where they used to read the fields (after the merchant check),
//! and `fuzz/fuzz_targets/admin_bodies.rs` runs them on arbitrary bytes.
//!
//! Every refusal is a 400 `invalid_request` naming the field (`ApiError::invalid`).

use paygate_domain::{
    apikey::{roll_hours, MAX_NAME_CHARS, MAX_ROLL_EXPIRY_HOURS},
    ports::DeliveryQuery,
    webhook::{DeliveryStatus, EventFilter, DELIVERY_RETENTION_DAYS},
    Mode, TimeRange, Timestamp,
};
use paygate_webhooks::{check_url, Blocked, EgressPolicy};
use serde_json::{Map, Value};

use crate::{ApiError, Fields};

/// Longest accepted endpoint URL (bytes), as sent and as stored: the normalised form (what
/// [`valid_url`] returns, percent-encoded ASCII) is held to it too.
pub const MAX_URL_LEN: usize = 2048;
/// Longest accepted description.
pub const MAX_DESCRIPTION_CHARS: usize = 500;
/// The rotation grace period when the request names none: 24 hours.
pub const DEFAULT_GRACE_SECONDS: i64 = 86_400;
/// The longest rotation grace period: 7 days.
pub const MAX_GRACE_SECONDS: i64 = 7 * 86_400;
/// Delivery history page size when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 20;
/// Largest delivery history page.
pub const MAX_LIMIT: usize = 100;
/// Longest delivery history cursor accepted.
pub const MAX_CURSOR_LEN: usize = 2048;

/// `url`: at most [`MAX_URL_LEN`] bytes, parseable, HTTPS, no credentials, not an IP
/// literal of a private network (unless the egress policy lists it); returned normalised
/// (the WHATWG serialisation), which must be within [`MAX_URL_LEN`] as well: a URL that
/// grows past it when percent-encoded is refused, so what is stored is always accepted
/// again. A hostname is checked again at every delivery, where it is resolved.
pub fn valid_url(url: &str, egress: &EgressPolicy) -> Result<String, ApiError> {
    if url.len() > MAX_URL_LEN {
        return Err(ApiError::invalid(
            "url",
            &format!("must be at most {MAX_URL_LEN} characters"),
        ));
    }
    match check_url(url.trim(), egress) {
        Ok(parsed) => {
            let normalised = parsed.to_string();
            if normalised.len() > MAX_URL_LEN {
                return Err(ApiError::invalid(
                    "url",
                    &format!(
                        "must be at most {MAX_URL_LEN} characters once normalised (it is {} with its spaces, controls and non-ASCII characters percent-encoded)",
                        normalised.len()
                    ),
                ));
            }
            Ok(normalised)
        }
        Err(e) => {
            let reason = match e {
                Blocked::InvalidUrl => "is not a valid URL".to_owned(),
                Blocked::NotHttps => "must be an https:// URL".to_owned(),
                Blocked::Credentials => "must not carry a user name or password".to_owned(),
                Blocked::NoHost => "has no host".to_owned(),
                Blocked::Address(ip) | Blocked::Resolved { addr: ip, .. } => format!(
                    "names {ip}, which is a private, loopback, link-local or otherwise non-public address"
                ),
            };
            Err(ApiError::invalid("url", &reason))
        }
    }
}

/// `events`: a non-empty list of the spec's event types or `*`; duplicates dropped.
pub fn valid_events(v: &Value) -> Result<Vec<EventFilter>, ApiError> {
    let list = v
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| ApiError::invalid("events", "must be a non-empty list of event types"))?;
    let mut out: Vec<EventFilter> = Vec::new();
    for item in list {
        let f = item.as_str().and_then(EventFilter::parse).ok_or_else(|| {
            ApiError::invalid(
                "events",
                "must list event types (payment.requires_action, payment.authorized, payment.captured, payment.failed, payment.cancelled, payment.refunded, webhook.test) or \"*\"",
            )
        })?;
        if !out.contains(&f) {
            out.push(f);
        }
    }
    Ok(out)
}

fn valid_description(f: &Fields<'_>) -> Result<Option<String>, ApiError> {
    match f.opt_str("description")? {
        Some(d) if d.chars().count() > MAX_DESCRIPTION_CHARS => Err(ApiError::invalid(
            "description",
            &format!("must be at most {MAX_DESCRIPTION_CHARS} characters"),
        )),
        other => Ok(other.map(str::to_owned)),
    }
}

/// The body of `POST …/webhook-endpoints`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEndpoint {
    pub url: String,
    pub events: Vec<EventFilter>,
    pub mode: Mode,
    pub description: String,
    pub enabled: bool,
}

/// `{url, events, mode, description?, enabled?}` (enabled by default).
pub fn new_endpoint(
    body: &Map<String, Value>,
    egress: &EgressPolicy,
) -> Result<NewEndpoint, ApiError> {
    let f = Fields::new(body);
    f.only(&["url", "events", "mode", "description", "enabled"])?;
    let url = valid_url(f.req_str("url")?, egress)?;
    let events = valid_events(
        f.value("events")?
            .ok_or_else(|| ApiError::invalid("events", "is required"))?,
    )?;
    let mode = Mode::parse(f.req_str("mode")?)
        .ok_or_else(|| ApiError::invalid("mode", "must be test or live"))?;
    let description = valid_description(&f)?.unwrap_or_default();
    let enabled = f.opt_bool("enabled")?.unwrap_or(true);
    Ok(NewEndpoint {
        url,
        events,
        mode,
        description,
        enabled,
    })
}

/// The body of `PATCH …/webhook-endpoints/{endpointId}`: what to change.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EndpointPatch {
    pub url: Option<String>,
    pub events: Option<Vec<EventFilter>>,
    pub enabled: Option<bool>,
    pub description: Option<String>,
}

/// Any of `{url, events, enabled, description}` (the mode never changes).
pub fn endpoint_patch(
    body: &Map<String, Value>,
    egress: &EgressPolicy,
) -> Result<EndpointPatch, ApiError> {
    let f = Fields::new(body);
    f.only(&["url", "events", "enabled", "description"])?;
    let url = f
        .opt_str("url")?
        .map(|u| valid_url(u, egress))
        .transpose()?;
    let events = f.value("events")?.map(valid_events).transpose()?;
    let enabled = f.opt_bool("enabled")?;
    let description = valid_description(&f)?;
    Ok(EndpointPatch {
        url,
        events,
        enabled,
        description,
    })
}

/// The body of `POST …/rotate-secret`: `{graceSeconds?}`, 0 to [`MAX_GRACE_SECONDS`]
/// (default [`DEFAULT_GRACE_SECONDS`]).
pub fn rotation_grace(body: &Map<String, Value>) -> Result<i64, ApiError> {
    let f = Fields::new(body);
    f.only(&["graceSeconds"])?;
    match f.opt_i64("graceSeconds")? {
        None => Ok(DEFAULT_GRACE_SECONDS),
        Some(g) if (0..=MAX_GRACE_SECONDS).contains(&g) => Ok(g),
        Some(_) => Err(ApiError::invalid(
            "graceSeconds",
            &format!("must be an integer from 0 to {MAX_GRACE_SECONDS}"),
        )),
    }
}

/// A body that takes no fields (`POST …/test`, `POST …/resend`): `{}` or empty.
pub fn no_fields(body: &Map<String, Value>) -> Result<(), ApiError> {
    Fields::new(body).only(&[])
}

/// The body of `POST …/api-keys`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiKey {
    pub mode: Mode,
    /// Trimmed; empty when not given.
    pub name: String,
}

/// `{"mode": "test"|"live", "name"?}` (a name of at most `MAX_NAME_CHARS` characters).
pub fn new_api_key(body: &Map<String, Value>) -> Result<NewApiKey, ApiError> {
    let f = Fields::new(body);
    f.only(&["mode", "name"])?;
    let mode = Mode::parse(f.req_str("mode")?)
        .ok_or_else(|| ApiError::invalid("mode", "must be test or live"))?;
    let name = match f.opt_str("name")? {
        Some(n) if n.chars().count() > MAX_NAME_CHARS => {
            return Err(ApiError::invalid(
                "name",
                &format!("must be at most {MAX_NAME_CHARS} characters"),
            ))
        }
        Some(n) => n.trim().to_owned(),
        None => String::new(),
    };
    Ok(NewApiKey { mode, name })
}

/// The body of `POST …/api-keys/{keyId}/roll`: `{"expiresInHours"?}`, 1 to
/// `MAX_ROLL_EXPIRY_HOURS` (default 24): how long the old key keeps working.
pub fn roll_expiry_hours(body: &Map<String, Value>) -> Result<i64, ApiError> {
    let f = Fields::new(body);
    f.only(&["expiresInHours"])?;
    roll_hours(f.opt_i64("expiresInHours")?).ok_or_else(|| {
        ApiError::invalid(
            "expiresInHours",
            &format!("must be an integer from 1 to {MAX_ROLL_EXPIRY_HOURS}"),
        )
    })
}

fn time_field(f: &Fields<'_>, name: &str) -> Result<Option<Timestamp>, ApiError> {
    f.opt_str(name)?
        .map(|v| {
            Timestamp::parse_iso8601(v).ok_or_else(|| {
                ApiError::invalid(name, "must be an RFC 3339 time (2026-01-31T12:00:00Z)")
            })
        })
        .transpose()
}

/// The recover range `[since, until)` of a body at `now`: `since` required, not in the
/// future, not older than the delivery retention; `until` optional (default: now), after
/// `since`.
pub fn recover_range(body: &Map<String, Value>, now: Timestamp) -> Result<TimeRange, ApiError> {
    let f = Fields::new(body);
    f.only(&["since", "until"])?;
    let since =
        time_field(&f, "since")?.ok_or_else(|| ApiError::invalid("since", "is required"))?;
    if since > now {
        return Err(ApiError::invalid("since", "must not be in the future"));
    }
    let oldest = now.plus_millis(-DELIVERY_RETENTION_DAYS * 86_400_000);
    if since < oldest {
        return Err(ApiError::invalid(
            "since",
            &format!(
                "must be within the last {DELIVERY_RETENTION_DAYS} days (deliveries are kept that long)"
            ),
        ));
    }
    let until = time_field(&f, "until")?.unwrap_or(now);
    if until <= since {
        return Err(ApiError::invalid("until", "must be after since"));
    }
    Ok(TimeRange::new(since, until))
}

/// `?status=pending|succeeded|failed&limit=1..100&cursor=…` of an endpoint's history.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HistoryQuery {
    pub status: Option<DeliveryStatus>,
    pub limit: Option<usize>,
    pub cursor: Option<String>,
}

impl HistoryQuery {
    /// What the store reads: the limit defaults to [`DEFAULT_LIMIT`].
    pub fn store_query(&self) -> DeliveryQuery {
        DeliveryQuery {
            status: self.status,
            limit: self.limit.unwrap_or(DEFAULT_LIMIT),
            cursor: self.cursor.clone(),
        }
    }

    /// Parses a raw query string (`None`: no `?`), percent-decoding it first.
    pub fn from_query(query: Option<&str>) -> Result<Self, ApiError> {
        let pairs: Vec<(String, String)> = query
            .map(|q| {
                url::form_urlencoded::parse(q.as_bytes())
                    .into_owned()
                    .collect()
            })
            .unwrap_or_default();
        Self::parse(&pairs)
    }

    /// Parses query pairs; an unknown or repeated parameter is refused. The cursor is only
    /// bounded here; the store decodes it and refuses one it did not hand out for this
    /// endpoint.
    pub fn parse(pairs: &[(String, String)]) -> Result<Self, ApiError> {
        let mut q = Self::default();
        let mut seen: Vec<&str> = Vec::new();
        for (k, v) in pairs {
            if seen.contains(&k.as_str()) {
                return Err(ApiError::invalid(k, "is given more than once"));
            }
            seen.push(k);
            match k.as_str() {
                "status" => {
                    q.status = Some(DeliveryStatus::parse(v).ok_or_else(|| {
                        ApiError::invalid("status", "must be pending, succeeded or failed")
                    })?);
                }
                "limit" => {
                    let n: usize = v
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_LIMIT).contains(n))
                        .ok_or_else(|| {
                            ApiError::invalid(
                                "limit",
                                &format!("must be an integer from 1 to {MAX_LIMIT}"),
                            )
                        })?;
                    q.limit = Some(n);
                }
                "cursor" => {
                    if v.is_empty() || v.len() > MAX_CURSOR_LEN {
                        return Err(ApiError::invalid(
                            "cursor",
                            "is not a cursor this listing handed out",
                        ));
                    }
                    q.cursor = Some(v.clone());
                }
                other => return Err(ApiError::invalid(other, "is not a known query parameter")),
            }
        }
        Ok(q)
    }
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
