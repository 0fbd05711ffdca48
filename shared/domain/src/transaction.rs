//! Transactions: the bank-facing record each money-moving operation produces.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{
    ids::{PaymentId, TransactionId},
    money::Currency,
    time::Timestamp,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TransactionType {
    Capture,
    Cancel,
    Refund,
}

impl TransactionType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Capture => "capture",
            Self::Cancel => "cancel",
            Self::Refund => "refund",
        }
    }
}

/// `pending` while the bank call is in flight; `unknown` when it got no answer (settled
/// later by `query`); `approved`, `declined` or `failed` (technical error, or the bank shows
/// the operation never took effect) once final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TransactionStatus {
    Pending,
    Approved,
    Declined,
    Failed,
    Unknown,
}

impl TransactionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Approved => "approved",
            Self::Declined => "declined",
            Self::Failed => "failed",
            Self::Unknown => "unknown",
        }
    }

    pub fn is_final(self) -> bool {
        matches!(self, Self::Approved | Self::Declined | Self::Failed)
    }
}

/// A transaction record; also its public JSON shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transaction {
    pub id: TransactionId,
    pub payment_id: PaymentId,
    #[serde(rename = "type")]
    pub kind: TransactionType,
    pub amount: i64,
    pub currency: Currency,
    pub status: TransactionStatus,
    /// Bank response code (`00` approved, `51`, `91`, …); empty while pending.
    pub bank_code: String,
    /// Bank response text, when the bank gave one.
    pub bank_message: String,
    pub auth_code: String,
    /// Retrieval reference number: digits, empty until the bank assigns one.
    pub rrn: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Why a cancel or refund was made (the merchant's word; `None` when not given).
    #[serde(default)]
    pub reason: Option<Reason>,
    /// The merchant's free text on the operation.
    #[serde(default)]
    pub description: Option<String>,
    /// The merchant's keys and values on the operation (`{}` when none).
    #[serde(default)]
    pub metadata: Metadata,
    /// Who made the operation: `api` (a request to this service) or `external` (found
    /// at the bank by a query: done in the bank's own merchant panel).
    #[serde(default)]
    pub origin: Origin,
    /// When the transaction became final (approved, declined, failed); `None` before.
    #[serde(default)]
    pub settled_at: Option<Timestamp>,
    /// The stable code of a declined or failed transaction (`crate::decline`); absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decline_code: Option<crate::decline::DeclineCode>,
}

/// The reasons a cancel or refund can be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    RequestedByCustomer,
    Duplicate,
    Fraudulent,
    Other,
}

impl Reason {
    pub const ALL: [Reason; 4] = [
        Self::RequestedByCustomer,
        Self::Duplicate,
        Self::Fraudulent,
        Self::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::RequestedByCustomer => "requested_by_customer",
            Self::Duplicate => "duplicate",
            Self::Fraudulent => "fraudulent",
            Self::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// Where a transaction comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A request to this service.
    #[default]
    Api,
    /// Found at the bank by a query, with no request of ours behind it (a refund or cancel
    /// made in the bank's own merchant panel).
    External,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Api => "api",
            Self::External => "external",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Api, Self::External]
            .into_iter()
            .find(|o| o.as_str() == s)
    }
}

/// A transaction's `metadata`: string keys to string values, bounded by [`NoteLimits`].
pub type Metadata = BTreeMap<String, String>;

/// The bounds of what a merchant may record on a cancel or refund.
pub struct NoteLimits;

impl NoteLimits {
    /// Longest `description`, in characters.
    pub const DESCRIPTION_CHARS: usize = 500;
    /// Most `metadata` keys.
    pub const METADATA_KEYS: usize = 20;
    /// Longest `metadata` key, in characters (at least one).
    pub const KEY_CHARS: usize = 40;
    /// Longest `metadata` value, in characters.
    pub const VALUE_CHARS: usize = 500;
}

/// What the merchant records on a cancel or refund: reason, description, metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Note {
    pub reason: Option<Reason>,
    pub description: Option<String>,
    pub metadata: Metadata,
}

/// A note out of bounds: which field (`metadata.<key>` for a value) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} {message}")]
pub struct NoteError {
    pub field: String,
    pub message: String,
}

impl Note {
    /// Checks `description` and `metadata` against [`NoteLimits`] (no control characters in
    /// either: they are for people and spreadsheets).
    pub fn checked(self) -> Result<Self, NoteError> {
        let err = |field: &str, message: String| NoteError {
            field: field.to_owned(),
            message,
        };
        let printable = |s: &str| !s.chars().any(char::is_control);
        if let Some(d) = &self.description {
            if d.chars().count() > NoteLimits::DESCRIPTION_CHARS {
                return Err(err(
                    "description",
                    format!(
                        "must be at most {} characters",
                        NoteLimits::DESCRIPTION_CHARS
                    ),
                ));
            }
            if !printable(d) {
                return Err(err(
                    "description",
                    "must not contain control characters".into(),
                ));
            }
        }
        if self.metadata.len() > NoteLimits::METADATA_KEYS {
            return Err(err(
                "metadata",
                format!("must have at most {} keys", NoteLimits::METADATA_KEYS),
            ));
        }
        for (k, v) in &self.metadata {
            let n = k.chars().count();
            if n == 0 || n > NoteLimits::KEY_CHARS || !printable(k) {
                return Err(err(
                    "metadata",
                    format!(
                        "keys must be 1 to {} printable characters",
                        NoteLimits::KEY_CHARS
                    ),
                ));
            }
            if v.chars().count() > NoteLimits::VALUE_CHARS || !printable(v) {
                return Err(err(
                    &format!("metadata.{k}"),
                    format!(
                        "must be at most {} printable characters",
                        NoteLimits::VALUE_CHARS
                    ),
                ));
            }
        }
        Ok(self)
    }
}

impl Transaction {
    pub fn pending(
        id: TransactionId,
        payment_id: PaymentId,
        kind: TransactionType,
        amount: i64,
        currency: Currency,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            payment_id,
            kind,
            amount,
            currency,
            status: TransactionStatus::Pending,
            bank_code: String::new(),
            bank_message: String::new(),
            auth_code: String::new(),
            rrn: String::new(),
            created_at: now,
            updated_at: now,
            reason: None,
            description: None,
            metadata: Metadata::new(),
            origin: Origin::Api,
            settled_at: None,
            decline_code: None,
        }
    }

    /// Records the stable code of the bank's answer on a declined or failed transaction
    /// (any other keeps none: an unknown one is settled later, an approved one has none).
    pub fn with_decline_code(mut self, code: Option<crate::decline::DeclineCode>) -> Self {
        if matches!(
            self.status,
            TransactionStatus::Declined | TransactionStatus::Failed
        ) {
            self.decline_code = code;
        }
        self
    }

    /// The transaction with the merchant's `note` on it.
    pub fn with_note(mut self, note: &Note) -> Self {
        self.reason = note.reason;
        self.description.clone_from(&note.description);
        self.metadata.clone_from(&note.metadata);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(description: Option<&str>, metadata: &[(&str, &str)]) -> Note {
        Note {
            reason: Some(Reason::Duplicate),
            description: description.map(str::to_owned),
            metadata: metadata
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        }
    }

    #[test]
    fn notes_within_bounds_pass_and_outside_name_the_field() {
        let long_key = "k".repeat(NoteLimits::KEY_CHARS);
        let ok = note(
            Some(&"ş".repeat(NoteLimits::DESCRIPTION_CHARS)),
            &[(&long_key, &"v".repeat(NoteLimits::VALUE_CHARS))],
        );
        assert_eq!(ok.clone().checked(), Ok(ok));
        let too_many: Vec<(String, String)> = (0..=NoteLimits::METADATA_KEYS)
            .map(|i| (format!("k{i}"), String::new()))
            .collect();
        let too_many: Vec<(&str, &str)> = too_many
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let over_key = "k".repeat(NoteLimits::KEY_CHARS + 1);
        let over_value = "v".repeat(NoteLimits::VALUE_CHARS + 1);
        let over_description = "d".repeat(NoteLimits::DESCRIPTION_CHARS + 1);
        for (bad, field) in [
            (note(Some(&over_description), &[]), "description"),
            (note(Some("a\u{7}b"), &[]), "description"),
            (note(None, &too_many), "metadata"),
            (note(None, &[(&over_key, "v")]), "metadata"),
            (note(None, &[("", "v")]), "metadata"),
            (note(None, &[("order", &over_value)]), "metadata.order"),
            (note(None, &[("order", "a\nb")]), "metadata.order"),
        ] {
            assert_eq!(bad.checked().unwrap_err().field, field);
        }
    }

    #[test]
    fn reasons_and_origins_read_back_from_their_names() {
        for r in Reason::ALL {
            assert_eq!(Reason::parse(r.as_str()), Some(r));
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
        assert_eq!(Reason::parse("chargeback"), None);
        for o in [Origin::Api, Origin::External] {
            assert_eq!(Origin::parse(o.as_str()), Some(o));
            assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
        }
    }
}
