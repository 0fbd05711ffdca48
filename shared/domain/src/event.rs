//! Event records written to the outbox in the same transaction as the state change.

use serde::{Deserialize, Serialize};

use crate::{
    account::Mode,
    ids::{EventId, MerchantId, PaymentId},
    payment::{Payment, PaymentView},
    time::Timestamp,
    transaction::Transaction,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventType {
    #[serde(rename = "payment.requires_action")]
    PaymentRequiresAction,
    #[serde(rename = "payment.authorized")]
    PaymentAuthorized,
    #[serde(rename = "payment.captured")]
    PaymentCaptured,
    #[serde(rename = "payment.failed")]
    PaymentFailed,
    #[serde(rename = "payment.cancelled")]
    PaymentCancelled,
    #[serde(rename = "payment.refunded")]
    PaymentRefunded,
    #[serde(rename = "webhook.test")]
    WebhookTest,
}

impl EventType {
    pub const ALL: [EventType; 7] = [
        Self::PaymentRequiresAction,
        Self::PaymentAuthorized,
        Self::PaymentCaptured,
        Self::PaymentFailed,
        Self::PaymentCancelled,
        Self::PaymentRefunded,
        Self::WebhookTest,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::PaymentRequiresAction => "payment.requires_action",
            Self::PaymentAuthorized => "payment.authorized",
            Self::PaymentCaptured => "payment.captured",
            Self::PaymentFailed => "payment.failed",
            Self::PaymentCancelled => "payment.cancelled",
            Self::PaymentRefunded => "payment.refunded",
            Self::WebhookTest => "webhook.test",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// One outbox event: the envelope's fields plus what routing needs (merchant, payment).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventRecord {
    pub id: EventId,
    #[serde(rename = "type")]
    pub event_type: EventType,
    pub mode: Mode,
    pub created_at: Timestamp,
    pub merchant_id: MerchantId,
    pub payment_id: PaymentId,
    /// The payment as it was right after the change (the envelope's `data`).
    pub data: PaymentView,
    /// The transaction that caused the event, as recorded with it (the envelope's
    /// `data.transaction`); `None` for events no transaction caused (a pending payment
    /// finalized by a query, a test event). Events stored before it existed have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction: Option<Box<Transaction>>,
}

impl EventRecord {
    pub fn for_payment(
        id: EventId,
        event_type: EventType,
        payment: &Payment,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            event_type,
            mode: payment.mode,
            created_at: now,
            merchant_id: payment.merchant_id.clone(),
            payment_id: payment.id.clone(),
            data: payment.view(),
            transaction: None,
        }
    }

    /// The event with the transaction that caused it.
    pub fn caused_by(mut self, transaction: &Transaction) -> Self {
        self.transaction = Some(Box::new(transaction.clone()));
        self
    }
}
