//! The daily reconciliation against the bank: for one POS account and one business day, the
//! bank's own record of the day's money operations is matched with ours and the differences
//! are written down as a report a finance team can work from.
//!
//! Two ways of reading the bank, one report:
//! - **History** ([`DayHistory::Lines`]): families with a history-by-date call list every
//!   capture, cancel and refund they booked that day ([`BankLine`]); [`match_history`]
//!   pairs them with our transactions of the day, so an operation done only in the bank's
//!   own panel shows up as `missing_here`.
//! - **Query** ([`DayHistory::Unsupported`]): families without one are asked about each
//!   payment that had an operation that day; [`match_orders`] compares order totals
//!   (captured, refunded, cancelled) with ours. It sees everything on our orders, and
//!   nothing on orders we never heard of.
//!
//! Authorizations (sales, pre-authorizations) are not this gateway's operations (payments
//! reach it already authorized) and are not compared; declined lines moved no money and are
//! left out on both sides. The rules are pure; the run lives in `paygate_payments::daily`.

use std::fmt;

use async_trait::async_trait;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{
    ids::{AccountId, MerchantId, PaymentId, TransactionId},
    ports::Listing,
    time::Timestamp,
    transaction::{Origin, Transaction, TransactionStatus, TransactionType},
    Mode, StoreError,
};

mod csv;
mod matching;
#[cfg(test)]
mod tests;

pub use csv::{to_csv, CSV_HEADER};
pub use matching::{match_history, match_orders, OrderView};

/// Turkish banks cut their day at midnight Istanbul time (UTC+3, no daylight saving).
pub const ISTANBUL_UTC_OFFSET_HOURS: i8 = 3;

/// A request settles its own transaction within this long of creating it: the HTTP API
/// gives up after 30 s and every money function times out at 29 s. A transaction settled
/// later was settled from the bank's records — by the reconciler or a merchant's query —
/// after its request's commit was lost.
pub const REQUEST_SETTLES_WITHIN_MS: i64 = 30_000;

/// Most findings one stored report keeps besides its counts (a DynamoDB item holds 400 KB):
/// mismatches first, then matched lines. `truncated` says when some were left out.
pub const MAX_STORED_FINDINGS: usize = 1_000;

/// A bank business day (`YYYY-MM-DD`, Istanbul).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BusinessDay(time::Date);

impl BusinessDay {
    /// A strict `YYYY-MM-DD` date.
    pub fn parse(s: &str) -> Option<Self> {
        let fmt = time::macros::format_description!("[year]-[month]-[day]");
        (s.len() == 10)
            .then(|| time::Date::parse(s, &fmt).ok())
            .flatten()
            .map(Self)
    }

    /// The business day `at` falls on.
    pub fn of(at: Timestamp) -> Self {
        let ms = i128::from(at.unix_millis()) * 1_000_000;
        let offset = time::UtcOffset::from_hms(ISTANBUL_UTC_OFFSET_HOURS, 0, 0)
            .unwrap_or(time::UtcOffset::UTC);
        let dt = time::OffsetDateTime::from_unix_timestamp_nanos(ms)
            .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
            .to_offset(offset);
        Self(dt.date())
    }

    /// The day before (the one a run after midnight reconciles).
    pub fn previous(self) -> Self {
        Self(self.0.previous_day().unwrap_or(self.0))
    }

    pub fn next(self) -> Self {
        Self(self.0.next_day().unwrap_or(self.0))
    }

    /// Midnight Istanbul that starts the day.
    pub fn start(self) -> Timestamp {
        let offset = time::UtcOffset::from_hms(ISTANBUL_UTC_OFFSET_HOURS, 0, 0)
            .unwrap_or(time::UtcOffset::UTC);
        let at = self.0.midnight().assume_offset(offset);
        let ms = at.unix_timestamp_nanos() / 1_000_000;
        Timestamp::from_unix_millis(i64::try_from(ms).unwrap_or(0))
    }

    /// Whether `at` falls on this day.
    pub fn contains(self, at: Timestamp) -> bool {
        Self::of(at) == self
    }

    /// `(year, month, day)`, for protocols that spell dates their own way.
    pub fn ymd(self) -> (i32, u8, u8) {
        (self.0.year(), u8::from(self.0.month()), self.0.day())
    }
}

impl fmt::Display for BusinessDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, m, d) = self.ymd();
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

impl fmt::Debug for BusinessDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for BusinessDay {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for BusinessDay {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).ok_or_else(|| serde::de::Error::custom("expected YYYY-MM-DD"))
    }
}

/// One approved money operation in the bank's day history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BankLine {
    pub order_id: String,
    /// A post-authorization is a `capture`, a void a `cancel`, a refund (credit) a `refund`.
    pub kind: TransactionType,
    pub amount: i64,
    /// The bank's reference of the line (may be empty).
    #[serde(default)]
    pub rrn: String,
}

/// What a family's history-by-date call gave for a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DayHistory {
    /// Every approved capture, cancel and refund the bank booked that day (all pages).
    Lines(Vec<BankLine>),
    /// The family has no history-by-date call (or this account cannot use it): reconcile by
    /// per-payment query.
    Unsupported,
    /// The call failed or an answer could not be read (time-out, technical error, a page
    /// missing): nothing can be concluded today; the report is `incomplete`.
    Unavailable { reason: String },
}

/// One of our transactions of the day, with the order id the bank knows its payment by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayTransaction {
    pub order_id: String,
    pub transaction: Transaction,
}

/// What a line of the report says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// Recorded here and at the bank, same amount.
    Matched,
    /// Approved here, not at the bank.
    MissingAtBank,
    /// At the bank, not here (e.g. a refund made in the bank's own panel).
    MissingHere,
    /// Both sides have it, with different amounts.
    AmountMismatch,
    /// At the bank, but recorded here as declined or failed.
    StateMismatch,
    /// Our outcome is still unknown (the reconciler has not settled it yet).
    UnsettledHere,
}

impl FindingKind {
    pub const ALL: [FindingKind; 6] = [
        Self::Matched,
        Self::MissingAtBank,
        Self::MissingHere,
        Self::AmountMismatch,
        Self::StateMismatch,
        Self::UnsettledHere,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Matched => "matched",
            Self::MissingAtBank => "missing_at_bank",
            Self::MissingHere => "missing_here",
            Self::AmountMismatch => "amount_mismatch",
            Self::StateMismatch => "state_mismatch",
            Self::UnsettledHere => "unsettled_here",
        }
    }
}

/// One line of a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub kind: FindingKind,
    pub order_id: String,
    pub operation: TransactionType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_id: Option<PaymentId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_id: Option<TransactionId>,
    /// Our amount (absent when we have no such transaction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<i64>,
    /// The bank's amount (absent when the bank has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_amount: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TransactionStatus>,
    /// `api`, or `external` for an operation recorded here from the bank's records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    /// Our transaction was settled from the bank's records (by the reconciler or a query)
    /// after its request's answer was lost: a lost commit, recovered.
    #[serde(default)]
    pub settled_from_bank_records: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub bank_rrn: String,
}

impl Finding {
    pub(crate) fn bank_only(kind: FindingKind, line: &BankLine) -> Self {
        Self {
            kind,
            order_id: line.order_id.clone(),
            operation: line.kind,
            payment_id: None,
            transaction_id: None,
            amount: None,
            bank_amount: Some(line.amount),
            status: None,
            origin: None,
            settled_from_bank_records: false,
            bank_rrn: line.rrn.clone(),
        }
    }

    pub(crate) fn of_payment(mut self, p: &crate::Payment) -> Self {
        self.payment_id = Some(p.id.clone());
        self
    }

    pub(crate) fn ours(kind: FindingKind, t: &DayTransaction, bank: Option<&BankLine>) -> Self {
        let x = &t.transaction;
        let late = x.settled_at.is_some_and(|at| {
            at.unix_millis() - x.created_at.unix_millis() > REQUEST_SETTLES_WITHIN_MS
        });
        Self {
            kind,
            order_id: t.order_id.clone(),
            operation: x.kind,
            payment_id: Some(x.payment_id.clone()),
            transaction_id: Some(x.id.clone()),
            amount: Some(x.amount),
            bank_amount: bank.map(|b| b.amount),
            status: Some(x.status),
            origin: Some(x.origin),
            settled_from_bank_records: late && x.origin == Origin::Api,
            bank_rrn: bank.map(|b| b.rrn.clone()).unwrap_or_default(),
        }
    }
}

/// How the bank was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    History,
    Query,
}

/// Whether the report can be relied on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportStatus {
    /// Every line matched.
    Clean,
    /// At least one line did not match.
    Mismatches,
    /// The bank could not be read (whole day, or some payments): what is listed is what
    /// could be compared; the run tries the day again.
    Incomplete,
}

/// Lines per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub matched: u32,
    pub missing_at_bank: u32,
    pub missing_here: u32,
    pub amount_mismatch: u32,
    pub state_mismatch: u32,
    pub unsettled_here: u32,
}

impl Counts {
    pub fn of(findings: &[Finding]) -> Self {
        let mut c = Self::default();
        for f in findings {
            let slot = match f.kind {
                FindingKind::Matched => &mut c.matched,
                FindingKind::MissingAtBank => &mut c.missing_at_bank,
                FindingKind::MissingHere => &mut c.missing_here,
                FindingKind::AmountMismatch => &mut c.amount_mismatch,
                FindingKind::StateMismatch => &mut c.state_mismatch,
                FindingKind::UnsettledHere => &mut c.unsettled_here,
            };
            *slot += 1;
        }
        c
    }

    /// Lines that did not match.
    pub fn mismatches(&self) -> u32 {
        self.missing_at_bank
            + self.missing_here
            + self.amount_mismatch
            + self.state_mismatch
            + self.unsettled_here
    }
}

/// The reconciliation of one account's business day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DayReport {
    pub merchant_id: MerchantId,
    pub account_id: AccountId,
    pub mode: Mode,
    pub date: BusinessDay,
    pub source: Source,
    pub status: ReportStatus,
    /// Why the report is incomplete (no bank text, no secrets), when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete_reason: Option<String>,
    pub counts: Counts,
    /// Mismatches first (by kind, then order id), then matched lines.
    pub findings: Vec<Finding>,
    /// Some findings were left out of the stored report ([`MAX_STORED_FINDINGS`]); the
    /// counts are complete.
    #[serde(default)]
    pub truncated: bool,
    pub generated_at: Timestamp,
}

impl DayReport {
    /// A report over `findings` (sorted and capped here).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        merchant_id: MerchantId,
        account_id: AccountId,
        mode: Mode,
        date: BusinessDay,
        source: Source,
        incomplete_reason: Option<String>,
        mut findings: Vec<Finding>,
        generated_at: Timestamp,
    ) -> Self {
        let counts = Counts::of(&findings);
        findings.sort_by(|a, b| {
            let rank = |f: &Finding| (f.kind == FindingKind::Matched, f.kind);
            rank(a)
                .cmp(&rank(b))
                .then_with(|| a.order_id.cmp(&b.order_id))
                .then_with(|| a.transaction_id.cmp(&b.transaction_id))
        });
        let truncated = findings.len() > MAX_STORED_FINDINGS;
        findings.truncate(MAX_STORED_FINDINGS);
        let status = if incomplete_reason.is_some() {
            ReportStatus::Incomplete
        } else if counts.mismatches() > 0 {
            ReportStatus::Mismatches
        } else {
            ReportStatus::Clean
        };
        Self {
            merchant_id,
            account_id,
            mode,
            date,
            source,
            status,
            incomplete_reason,
            counts,
            findings,
            truncated,
            generated_at,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Ports
// ---------------------------------------------------------------------------------------

/// Our transactions by account and business day (the day of `createdAt`: when the request
/// reached the bank).
#[async_trait]
pub trait DayLedger: Send + Sync {
    async fn day_transactions(
        &self,
        account: &AccountId,
        day: BusinessDay,
    ) -> Result<Listing<DayTransaction>, StoreError>;
}

/// Every POS account of every merchant (the daily run's work list).
#[async_trait]
pub trait AllAccounts: Send + Sync {
    async fn all_accounts(&self) -> Result<Vec<crate::PosAccount>, StoreError>;
}

/// Stored reports, one per (merchant, account, day); a later run of the same day replaces it.
#[async_trait]
pub trait DayReports: Send + Sync {
    async fn put_report(&self, report: &DayReport) -> Result<(), StoreError>;
    /// The merchant's reports of `day`, every account, by account id.
    async fn list_reports(
        &self,
        merchant: &MerchantId,
        day: BusinessDay,
    ) -> Result<Vec<DayReport>, StoreError>;
}
