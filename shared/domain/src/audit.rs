//! The admin control plane's audit trail: who (the IAM principal) did what (an action on
//! which ids, with a summary free of secrets), when, to which merchant, in which mode, under
//! which request id, and how it ended.
//!
//! One admin write leaves one record, stored as two append-only items of the merchant's
//! trail: its **intent**, written before anything is done (if it cannot be written the
//! request is refused and nothing is done: a change is never made unrecorded), then its
//! **result** (status, error code, the ids the answer named). A record whose result could
//! not be written reads as outcome `unknown`; the intent alone already says who asked for
//! what. Neither item is ever replaced, updated or deleted: each is put only where no item
//! is ([`AuditLog::append`]).
//!
//! Both items sort under the record's entry key, `<unix millis, 13 digits>#<aud_id>`
//! (intent `…#1`, result `…#2`), so a merchant's trail reads newest first and the two
//! halves of a record are neighbours ([`merge`]).

use std::collections::BTreeMap;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ids::IdGenerator, ports::Page, MerchantId, Mode, StoreError, Timestamp};

/// The prefix of an audit record's id.
pub const AUDIT_ID_PREFIX: &str = "aud_";

/// What a record says was asked for: written before the change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditIntent {
    /// `aud_…`.
    pub id: String,
    pub merchant_id: MerchantId,
    /// When the request arrived (the injected clock).
    pub at: Timestamp,
    /// The caller: the IAM principal's ARN (API Gateway's IAM authorization), locally the
    /// dev server's signing key as an ARN.
    pub principal: String,
    /// `webhook_endpoint.create`, `api_key.roll`, … (`paygate_http::admin::AdminRoute::action`).
    pub action: String,
    /// The ids the request named (`endpointId`, `deliveryId`, `keyId`), and after the
    /// answer the ids it created.
    pub targets: BTreeMap<String, String>,
    /// What was asked, without secrets: the fields given and the values of those that are
    /// safe to keep (mode, enabled, events, the URL's host, time bounds, durations).
    pub summary: BTreeMap<String, Value>,
    /// Test or live, when the request or its answer says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// API Gateway's request id (the access log's `requestId`).
    pub request_id: String,
}

/// How an admin write ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditOutcome {
    /// 2xx: done.
    Succeeded,
    /// 4xx: refused (invalid, not found, conflicting); nothing was changed.
    Rejected,
    /// 5xx: failed; the change may be partial.
    Failed,
    /// The result could not be recorded: the HTTP status is in the access log under the
    /// record's request id.
    Unknown,
}

impl AuditOutcome {
    /// The outcome of an HTTP status.
    pub const fn of_status(status: u16) -> Self {
        match status {
            200..=299 => Self::Succeeded,
            400..=499 => Self::Rejected,
            _ => Self::Failed,
        }
    }
}

/// How a write ended: written after the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditResult {
    /// When the answer was ready.
    pub at: Timestamp,
    pub status: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Ids the answer named that the request did not (a created endpoint or key).
    #[serde(default)]
    pub targets: BTreeMap<String, String>,
}

/// One half of a record.
#[derive(Debug, Clone, PartialEq)]
pub enum AuditPart {
    Intent(AuditIntent),
    Result(AuditResult),
}

/// One stored item: a half of the record under `entry` in `merchant_id`'s trail.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditItem {
    pub merchant_id: MerchantId,
    /// The record's entry key ([`entry_key`]).
    pub entry: String,
    pub part: AuditPart,
}

impl AuditItem {
    /// The item's sort key in the trail: the entry key, then `#1` (intent) or `#2` (result).
    pub fn sort_key(&self) -> String {
        let half = match self.part {
            AuditPart::Intent(_) => 1,
            AuditPart::Result(_) => 2,
        };
        format!("{}#{half}", self.entry)
    }
}

/// A record as the admin API shows it: the intent with its result merged in.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRecord {
    #[serde(flatten)]
    pub intent: AuditIntent,
    pub outcome: AuditOutcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Timestamp>,
}

/// A new record id.
pub fn new_audit_id(ids: &dyn IdGenerator) -> String {
    format!("{AUDIT_ID_PREFIX}{}", ids.opaque())
}

/// The entry key of a record made at `at` with id `id`: sorts by time, then id.
pub fn entry_key(at: Timestamp, id: &str) -> String {
    format!("{:013}#{id}", at.unix_millis().max(0))
}

fn valid_entry(entry: &str) -> bool {
    let Some((millis, id)) = entry.split_once('#') else {
        return false;
    };
    let opaque = id.strip_prefix(AUDIT_ID_PREFIX).unwrap_or("");
    millis.len() == 13
        && millis.bytes().all(|b| b.is_ascii_digit())
        && !opaque.is_empty()
        && opaque.len() <= 64
        && opaque.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The cursor after `record`: its entry key, hex-encoded.
pub fn cursor_after(record: &AuditRecord) -> String {
    entry_key(record.intent.at, &record.intent.id)
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The entry key a cursor stands for; `None` when it is not one [`cursor_after`] makes.
/// The trail continues with the entries sorting before it.
pub fn entry_of_cursor(cursor: &str) -> Option<String> {
    if !cursor.len().is_multiple_of(2) || cursor.len() > 2 * 96 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..cursor.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(cursor.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok().filter(|e| valid_entry(e))
}

/// The `StoreError` of a cursor [`entry_of_cursor`] refuses (the admin edge answers it
/// 400 on `cursor`).
pub fn invalid_cursor() -> StoreError {
    StoreError::Corrupt("invalid cursor".to_owned())
}

/// Records of items read newest first: each entry's halves joined, an entry without its
/// intent (cut off at a page's end) left out.
pub fn merge(items: &[AuditItem]) -> Vec<AuditRecord> {
    let mut groups: Vec<(&str, Option<&AuditIntent>, Option<&AuditResult>)> = Vec::new();
    for item in items {
        if groups.last().is_none_or(|g| g.0 != item.entry) {
            groups.push((&item.entry, None, None));
        }
        if let Some(g) = groups.last_mut() {
            match &item.part {
                AuditPart::Intent(i) => g.1 = Some(i),
                AuditPart::Result(r) => g.2 = Some(r),
            }
        }
    }
    groups
        .into_iter()
        .filter_map(|(_, intent, result)| {
            let mut intent = intent?.clone();
            Some(match result {
                None => AuditRecord {
                    intent,
                    outcome: AuditOutcome::Unknown,
                    status: None,
                    error_code: None,
                    finished_at: None,
                },
                Some(r) => {
                    intent.mode = intent.mode.or(r.mode);
                    for (k, v) in &r.targets {
                        intent.targets.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                    AuditRecord {
                        intent,
                        outcome: AuditOutcome::of_status(r.status),
                        status: Some(r.status),
                        error_code: r.error_code.clone(),
                        finished_at: Some(r.at),
                    }
                }
            })
        })
        .collect()
}

/// One page of records out of `records` (newest first, possibly one more than `limit`):
/// the first `limit`, with a cursor when more follow.
pub fn page_of(mut records: Vec<AuditRecord>, limit: usize) -> Page<AuditRecord> {
    let more = records.len() > limit;
    records.truncate(limit);
    let next_cursor = more.then(|| records.last().map(cursor_after)).flatten();
    Page {
        items: records,
        next_cursor,
    }
}

/// A merchant's audit trail: append-only.
#[async_trait]
pub trait AuditLog: Send + Sync {
    /// Stores one item where none is: `StoreError::AlreadyExists` when its key is taken.
    /// Nothing is ever replaced, updated or deleted.
    async fn append(&self, item: &AuditItem) -> Result<(), StoreError>;
    /// A page of the merchant's records, newest first, at most `limit`; `cursor` is a
    /// previous page's `next_cursor` (one not handed out is `StoreError::Corrupt("invalid
    /// cursor")`).
    async fn list(
        &self,
        merchant: &MerchantId,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<AuditRecord>, StoreError>;
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn intent(at: i64, id: &str) -> AuditItem {
        let at = Timestamp::from_unix_millis(at);
        AuditItem {
            merchant_id: MerchantId::parse("mch_1").unwrap(),
            entry: entry_key(at, id),
            part: AuditPart::Intent(AuditIntent {
                id: id.into(),
                merchant_id: MerchantId::parse("mch_1").unwrap(),
                at,
                principal: "arn:aws:iam::1:user/a".into(),
                action: "api_key.create".into(),
                targets: BTreeMap::new(),
                summary: BTreeMap::new(),
                mode: None,
                request_id: "r".into(),
            }),
        }
    }

    fn result(of: &AuditItem, status: u16) -> AuditItem {
        AuditItem {
            part: AuditPart::Result(AuditResult {
                at: Timestamp::from_unix_millis(9),
                status,
                error_code: None,
                mode: Some(Mode::Live),
                targets: BTreeMap::from([("keyId".into(), "key_1".into())]),
            }),
            ..of.clone()
        }
    }

    #[test]
    fn halves_merge_and_a_missing_result_is_unknown() {
        let (a, b) = (intent(2, "aud_b"), intent(1, "aud_a"));
        let items = [result(&a, 201), a.clone(), b.clone()];
        assert!(items[0].sort_key() > items[1].sort_key());
        let records = merge(&items);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].outcome, AuditOutcome::Succeeded);
        assert_eq!(records[0].intent.mode, Some(Mode::Live));
        assert_eq!(records[0].intent.targets["keyId"], "key_1");
        assert_eq!(records[1].outcome, AuditOutcome::Unknown);
        // a result whose intent is on the next page is left out
        assert!(merge(&[result(&a, 404)]).is_empty());
        assert_eq!(AuditOutcome::of_status(404), AuditOutcome::Rejected);
        assert_eq!(AuditOutcome::of_status(503), AuditOutcome::Failed);
    }

    #[test]
    fn cursors_round_trip_and_others_are_refused() {
        let records = merge(&[intent(3, "aud_c"), intent(2, "aud_b"), intent(1, "aud_a")]);
        let page = page_of(records, 2);
        assert_eq!(page.items.len(), 2);
        let c = page.next_cursor.unwrap();
        assert_eq!(
            entry_of_cursor(&c).unwrap(),
            entry_key(Timestamp::from_unix_millis(2), "aud_b")
        );
        for bad in ["", "zz", "61", &"00".repeat(20)] {
            assert_eq!(entry_of_cursor(bad), None, "{bad}");
        }
    }
}
