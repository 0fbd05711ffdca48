//! Transactions: the bank-facing record each money-moving operation produces.

use serde::{Deserialize, Serialize};

use crate::{
    ids::{PaymentId, TransactionId},
    money::Currency,
    time::Timestamp,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
        }
    }
}
