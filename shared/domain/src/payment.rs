//! The payment aggregate and its state machine, exactly as the spec's permission table.
//!
//! Every decision here is pure: given the payment as read and the bank's answer, these
//! functions return the next payment (version bumped), the transaction and the event to
//! write. The store then writes them conditionally on the version that was read.

use serde::{Deserialize, Serialize};

use crate::{
    account::Mode,
    bank::BankOutcome,
    error::DomainError,
    event::{EventRecord, EventType},
    ids::{AccountId, EventId, MerchantId, PaymentId, TransactionId},
    money::{valid_amount, Currency},
    time::Timestamp,
    transaction::{Transaction, TransactionStatus, TransactionType},
};

/// The spec's payment statuses, and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentStatus {
    Pending,
    Authorized,
    Captured,
    PartiallyRefunded,
    Refunded,
    Cancelled,
    Declined,
    Failed,
}

impl PaymentStatus {
    pub const ALL: [PaymentStatus; 8] = [
        Self::Pending,
        Self::Authorized,
        Self::Captured,
        Self::PartiallyRefunded,
        Self::Refunded,
        Self::Cancelled,
        Self::Declined,
        Self::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Authorized => "authorized",
            Self::Captured => "captured",
            Self::PartiallyRefunded => "partially_refunded",
            Self::Refunded => "refunded",
            Self::Cancelled => "cancelled",
            Self::Declined => "declined",
            Self::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

impl std::fmt::Display for PaymentStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PendingState {
    /// Reserved; the bank call is under way.
    InFlight,
    /// The bank gave no answer; only a status query can settle it.
    Unknown,
}

/// The reservation a money-moving operation holds on the payment while it is at the bank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingOperation {
    #[serde(rename = "type")]
    pub kind: TransactionType,
    pub transaction_id: TransactionId,
    pub amount: i64,
    pub state: PendingState,
    pub started_at: Timestamp,
    /// Until when a query or the reconciler holds the right to resume this half-done
    /// two-step cancel at the bank (`Payment::claim_resume`); internal, not in the API.
    #[serde(skip)]
    pub resume_until: Option<Timestamp>,
}

/// The payment aggregate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    pub id: PaymentId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub account_id: AccountId,
    /// The order id the bank knows this payment by.
    pub order_id: String,
    pub currency: Currency,
    /// The authorised (or sold) amount.
    pub amount: i64,
    pub captured_amount: i64,
    pub refunded_amount: i64,
    pub status: PaymentStatus,
    pub pending: Option<PendingOperation>,
    pub auth_code: String,
    pub rrn: String,
    /// Optimistic-concurrency version; every write is conditional on it.
    pub version: u64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// What an accepted request will do at the bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planned {
    pub kind: TransactionType,
    pub amount: i64,
    /// Whether the amount is the whole of what the operation could cover.
    pub full: bool,
}

/// The result of settling an operation: everything the store writes in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement {
    pub payment: Payment,
    pub transaction: Transaction,
    pub event: Option<EventRecord>,
}

/// The public JSON shape of a payment (API responses and webhook `data`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentView {
    pub id: PaymentId,
    pub object: String,
    pub status: PaymentStatus,
    pub mode: Mode,
    pub amount: i64,
    pub currency: Currency,
    pub captured_amount: i64,
    pub refunded_amount: i64,
    pub refundable_amount: i64,
    pub account_id: AccountId,
    pub order_id: String,
    pub pending_operation: Option<PendingOperation>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// What a payment created directly in a status has (test payments, seed data).
pub struct CreatedPayment {
    pub id: PaymentId,
    /// Whose payment, in which mode, on which of their POS accounts.
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub account_id: AccountId,
    /// The order the bank knows it by.
    pub order_id: String,
    /// The authorized amount, in minor units of `currency`.
    pub currency: Currency,
    pub amount: i64,
    /// `authorized`, `captured`, `pending` or `failed`.
    pub status: PaymentStatus,
}

impl Payment {
    /// A payment created in `c.status` at `now`: the whole amount captured when
    /// `Captured`, nothing refunded, nothing pending, version 1.
    pub fn created(c: CreatedPayment, now: Timestamp) -> Self {
        Self {
            captured_amount: if c.status == PaymentStatus::Captured {
                c.amount
            } else {
                0
            },
            id: c.id,
            merchant_id: c.merchant_id,
            mode: c.mode,
            account_id: c.account_id,
            order_id: c.order_id,
            currency: c.currency,
            amount: c.amount,
            refunded_amount: 0,
            status: c.status,
            pending: None,
            auth_code: String::new(),
            rrn: String::new(),
            version: 1,
            created_at: now,
            updated_at: now,
        }
    }

    /// Remaining refundable amount: captured minus refunded, in refundable statuses.
    pub fn refundable(&self) -> i64 {
        match self.status {
            PaymentStatus::Captured | PaymentStatus::PartiallyRefunded => {
                (self.captured_amount - self.refunded_amount).max(0)
            }
            _ => 0,
        }
    }

    pub fn view(&self) -> PaymentView {
        PaymentView {
            id: self.id.clone(),
            object: "payment".to_owned(),
            status: self.status,
            mode: self.mode,
            amount: self.amount,
            currency: self.currency,
            captured_amount: self.captured_amount,
            refunded_amount: self.refunded_amount,
            refundable_amount: self.refundable(),
            account_id: self.account_id.clone(),
            order_id: self.order_id.clone(),
            pending_operation: self.pending.clone(),
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }

    /// The pending operation, if its outcome is unknown (explicitly, or because it has been
    /// in flight for longer than `stale` — longer than a Lambda can live).
    pub fn unsettled(&self, now: Timestamp, stale: StaleAfter) -> Option<&PendingOperation> {
        self.pending
            .as_ref()
            .filter(|p| p.state == PendingState::Unknown || stale.is_stale(p.started_at, now))
    }

    /// The spec's permission table.
    pub fn allows(&self, kind: TransactionType) -> bool {
        use PaymentStatus as S;
        match kind {
            TransactionType::Capture => self.status == S::Authorized,
            TransactionType::Cancel => {
                self.status == S::Authorized
                    || (self.status == S::Captured && self.refunded_amount == 0)
            }
            TransactionType::Refund => {
                matches!(self.status, S::Captured | S::PartiallyRefunded) && self.refundable() > 0
            }
        }
    }

    /// Whether an operation of `amount` covers the whole order (what the bank is told): a
    /// capture of the authorized amount, a refund of everything captured, any cancel.
    pub fn is_full(&self, kind: TransactionType, amount: i64) -> bool {
        match kind {
            TransactionType::Capture => amount == self.amount,
            TransactionType::Refund => amount == self.captured_amount,
            TransactionType::Cancel => true,
        }
    }

    /// Decides whether a capture, cancel or refund may go to the bank, and for how much. An
    /// operation already in flight refuses it: in progress, or unknown once `stale`.
    pub fn plan(
        &self,
        kind: TransactionType,
        requested: Option<i64>,
        now: Timestamp,
        stale: StaleAfter,
    ) -> Result<Planned, DomainError> {
        if let Some(p) = &self.pending {
            let transaction_id = p.transaction_id.clone();
            return Err(if self.unsettled(now, stale).is_some() {
                DomainError::OperationOutcomeUnknown { transaction_id }
            } else {
                DomainError::OperationInProgress { transaction_id }
            });
        }
        if requested.is_some_and(|a| !valid_amount(a)) {
            return Err(DomainError::InvalidAmount);
        }
        if !self.allows(kind) {
            return Err(DomainError::InvalidState {
                status: self.status,
                operation: kind.as_str(),
            });
        }
        match kind {
            TransactionType::Capture => {
                let amount = requested.unwrap_or(self.amount);
                if amount > self.amount {
                    return Err(DomainError::AmountExceedsAuthorized { max: self.amount });
                }
                Ok(Planned {
                    kind,
                    amount,
                    full: self.is_full(kind, amount),
                })
            }
            TransactionType::Refund => {
                let refundable = self.refundable();
                let amount = requested.unwrap_or(refundable);
                if amount > refundable {
                    return Err(DomainError::AmountExceedsRefundable { refundable });
                }
                Ok(Planned {
                    kind,
                    amount,
                    full: self.is_full(kind, amount),
                })
            }
            TransactionType::Cancel => Ok(Planned {
                kind,
                amount: if self.status == PaymentStatus::Authorized {
                    self.amount
                } else {
                    self.captured_amount
                },
                full: true,
            }),
        }
    }

    /// The payment with `planned` reserved on it (to be written conditionally).
    pub fn reserve(&self, planned: Planned, transaction_id: TransactionId, now: Timestamp) -> Self {
        let mut next = self.clone();
        next.pending = Some(PendingOperation {
            kind: planned.kind,
            transaction_id,
            amount: planned.amount,
            state: PendingState::InFlight,
            started_at: now,
            resume_until: None,
        });
        next.version += 1;
        next.updated_at = now;
        next
    }

    /// Applies the bank's answer to the pending operation.
    pub fn settle(
        &self,
        txn: &Transaction,
        outcome: &BankOutcome,
        event_id: EventId,
        now: Timestamp,
    ) -> Result<Settlement, DomainError> {
        let op = self.pending.as_ref().ok_or(DomainError::NothingPending)?;
        if op.transaction_id != txn.id {
            return Err(DomainError::NothingPending);
        }
        let mut payment = self.clone();
        payment.version += 1;
        payment.updated_at = now;
        let mut txn = txn.clone();
        txn.updated_at = now;
        let mut event = None;
        match outcome {
            BankOutcome::Approved {
                code,
                auth_code,
                rrn,
            } => {
                payment.pending = None;
                txn.status = TransactionStatus::Approved;
                txn.bank_code = code.clone();
                txn.bank_message = String::new();
                txn.auth_code = auth_code.clone().unwrap_or_default();
                txn.rrn = rrn.clone().unwrap_or_default();
                let event_type = match op.kind {
                    TransactionType::Capture => {
                        // The uncaptured remainder of a partial capture is released.
                        payment.status = PaymentStatus::Captured;
                        payment.captured_amount = op.amount;
                        EventType::PaymentCaptured
                    }
                    TransactionType::Cancel => {
                        payment.status = PaymentStatus::Cancelled;
                        EventType::PaymentCancelled
                    }
                    TransactionType::Refund => {
                        payment.refunded_amount += op.amount;
                        payment.status = if payment.refunded_amount >= payment.captured_amount {
                            PaymentStatus::Refunded
                        } else {
                            PaymentStatus::PartiallyRefunded
                        };
                        EventType::PaymentRefunded
                    }
                };
                txn.settled_at = Some(now);
                event = Some(
                    EventRecord::for_payment(event_id, event_type, &payment, now).caused_by(&txn),
                );
            }
            BankOutcome::Declined { code, message, .. } | BankOutcome::Error { code, message } => {
                payment.pending = None;
                txn.settled_at = Some(now);
                txn.status = if matches!(outcome, BankOutcome::Declined { .. }) {
                    TransactionStatus::Declined
                } else {
                    TransactionStatus::Failed
                };
                txn.bank_code = code.clone();
                txn.bank_message = message.clone();
            }
            BankOutcome::Unknown { reason } => {
                if let Some(p) = payment.pending.as_mut() {
                    p.state = PendingState::Unknown;
                    p.resume_until = None;
                }
                txn.status = TransactionStatus::Unknown;
                txn.bank_message = reason.clone();
            }
        }
        Ok(Settlement {
            payment,
            transaction: txn,
            event,
        })
    }
}

mod external;
mod grace;
mod reconcile;
pub mod reversal;
mod stale;
pub use external::ExternalVerdict;
pub use grace::PendingGrace;
pub use reconcile::{
    reconcile_backoff_ms, resumed_cancel_outcome, StatusVerdict, NOT_FOUND_GRACE_MS,
    RECONCILE_FIRST_BACKOFF_MS, RECONCILE_MAX_BACKOFF_MS, RESUME_LEASE_MS,
};
pub use stale::StaleAfter;

#[cfg(test)]
mod tests;
