//! Settling from the bank's records: an operation whose outcome is unknown (or whose
//! reservation went stale), and a payment still `pending`.
//!
//! Conservative by rule: only a conclusive answer settles. A failed query ("could not
//! tell") settles nothing. A conclusion that the operation did *not* happen — the bank has
//! no record, or shows the order unchanged — counts only once [`NOT_FOUND_GRACE_MS`] has
//! passed since the operation started: banks book late, and reading a late booking as
//! "nothing moved" would free the amount for a second movement. A `pending` payment the
//! bank has no record of fails only once its own, longer grace has passed since its
//! creation ([`super::PendingGrace`]: a 3-D session can outlast three minutes). A
//! conclusion that it *did* happen settles at once.

use super::{Payment, PaymentStatus, Settlement};
use crate::{
    bank::{BankOutcome, BankState, BankStatus},
    error::DomainError,
    event::{EventRecord, EventType},
    ids::EventId,
    time::Timestamp,
    transaction::{Transaction, TransactionType},
};

/// How long after an operation started a "did not happen" answer from the bank is believed
/// (a pending payment's "no record" waits for [`super::PendingGrace`]).
pub const NOT_FOUND_GRACE_MS: i64 = 180_000;

/// What a status answer means for an unsettled operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusVerdict {
    /// The answer settles the operation: write this.
    Settled(Box<Settlement>),
    /// Not conclusive (a failed query, or a negative answer inside the grace period): the
    /// operation stays unknown and is asked about again later.
    Wait,
    /// A two-step cancel of a captured pre-authorization is half done at the bank: the
    /// capture is reversed but the authorization is still held. The cancel must be completed
    /// (the bank adapters' cancel performs only the missing step).
    ResumeCancel,
}

/// How long a claim to resume a half-done cancel holds ([`Payment::claim_resume`]): longer
/// than a function lives, so a claim can only be over once its holder is gone.
pub const RESUME_LEASE_MS: i64 = 60_000;

/// The outcome a resumed two-step cancel records for its missing step. Only an approval
/// settles it: the bank has already reversed the capture, so a decline, an error or no
/// answer says nothing about the hold still open and cannot make the cancel "not done" —
/// the operation stays unknown and is asked about (and resumed) again.
pub fn resumed_cancel_outcome(outcome: BankOutcome) -> BankOutcome {
    match outcome {
        approved @ BankOutcome::Approved { .. } => approved,
        BankOutcome::Declined { code, message, .. } | BankOutcome::Error { code, message } => {
            BankOutcome::Unknown {
                reason: format!(
                    "the resumed cancel's missing step was refused ({code} {message}); the capture is reversed, the hold not confirmed released"
                ),
            }
        }
        unknown @ BankOutcome::Unknown { .. } => unknown,
    }
}

fn within_grace(since: Timestamp, now: Timestamp) -> bool {
    now.unix_millis() - since.unix_millis() < NOT_FOUND_GRACE_MS
}

impl Payment {
    /// Settles the unknown (or stale) pending operation, whose transaction is `txn`, from the
    /// bank's status answer.
    pub fn settle_from_status(
        &self,
        txn: &Transaction,
        status: &BankStatus,
        event_id: EventId,
        now: Timestamp,
    ) -> Result<StatusVerdict, DomainError> {
        let op = self.pending.as_ref().ok_or(DomainError::NothingPending)?;
        if !status.is_conclusive() {
            return Ok(StatusVerdict::Wait);
        }
        let took_effect = status.found
            && match op.kind {
                TransactionType::Capture => matches!(
                    status.state,
                    BankState::Approved | BankState::Refunded | BankState::PartiallyRefunded
                ),
                TransactionType::Cancel => status.state == BankState::Cancelled,
                TransactionType::Refund => {
                    status.refunded_amount >= self.refunded_amount + op.amount
                }
            };
        if !took_effect
            && op.kind == TransactionType::Cancel
            && self.status == PaymentStatus::Captured
            && status.found
            && status.state == BankState::Preauth
        {
            return Ok(StatusVerdict::ResumeCancel);
        }
        if !took_effect && within_grace(op.started_at, now) {
            return Ok(StatusVerdict::Wait);
        }
        let outcome = if took_effect {
            // The order-level status carries the sale's references, not this operation's:
            // the settled transaction gets none rather than borrowed ones.
            BankOutcome::Approved {
                code: status.code.clone(),
                auth_code: None,
                rrn: None,
            }
        } else {
            BankOutcome::Error {
                code: status.code.clone(),
                message: "the bank shows the operation did not take effect".to_owned(),
            }
        };
        self.settle(txn, &outcome, event_id, now)
            .map(|s| StatusVerdict::Settled(Box::new(s)))
    }

    /// Finalizes a `pending` payment from the bank's status answer. `None` when the payment
    /// is not pending or the answer is not conclusive (it then stays pending); "no record"
    /// counts only once `grace` has passed since the payment's creation (its customer may
    /// still be in a 3-D session); a record — approved, declined, a pre-authorization, … —
    /// finalizes it at once.
    pub fn finalize_pending(
        &self,
        status: &BankStatus,
        event_id: EventId,
        now: Timestamp,
        grace: super::PendingGrace,
    ) -> Option<(Payment, EventRecord)> {
        if self.status != PaymentStatus::Pending || self.pending.is_some() {
            return None;
        }
        if !status.is_conclusive() {
            return None;
        }
        if !status.found && !grace.has_passed(self.created_at, now) {
            return None;
        }
        let mut p = self.clone();
        p.version += 1;
        p.updated_at = now;
        let bank_amount = status.amount.clamp(0, self.amount);
        let event_type = if !status.found {
            p.status = PaymentStatus::Failed;
            EventType::PaymentFailed
        } else {
            match status.state {
                BankState::Approved => {
                    p.status = PaymentStatus::Captured;
                    p.captured_amount = bank_amount;
                    EventType::PaymentCaptured
                }
                BankState::Preauth => {
                    p.status = PaymentStatus::Authorized;
                    EventType::PaymentAuthorized
                }
                BankState::Declined => {
                    p.status = PaymentStatus::Declined;
                    EventType::PaymentFailed
                }
                BankState::Cancelled => {
                    p.status = PaymentStatus::Cancelled;
                    EventType::PaymentCancelled
                }
                BankState::Refunded | BankState::PartiallyRefunded => {
                    p.captured_amount = bank_amount;
                    p.refunded_amount = status.refunded_amount.clamp(0, bank_amount);
                    p.status = if p.refunded_amount >= p.captured_amount {
                        PaymentStatus::Refunded
                    } else {
                        PaymentStatus::PartiallyRefunded
                    };
                    EventType::PaymentRefunded
                }
                BankState::Unknown => return None,
            }
        };
        if !status.auth_code.is_empty() {
            p.auth_code = status.auth_code.clone();
        }
        if !status.rrn.is_empty() {
            p.rrn = status.rrn.clone();
        }
        let event = EventRecord::for_payment(event_id, event_type, &p, now);
        Some((p, event))
    }
}

impl Payment {
    /// The payment with a claim to resume its half-done two-step cancel until
    /// [`RESUME_LEASE_MS`] from `now`, to be written conditionally on this version before the
    /// missing step is sent: of a query and the reconciler meeting the same payment, only
    /// one sends it. `None` when nothing is pending or another claim still holds.
    pub fn claim_resume(&self, now: Timestamp) -> Option<Payment> {
        let op = self.pending.as_ref()?;
        if op.resume_until.is_some_and(|until| now < until) {
            return None;
        }
        let mut next = self.clone();
        next.version += 1;
        next.updated_at = now;
        if let Some(p) = next.pending.as_mut() {
            p.resume_until = Some(now.plus_millis(RESUME_LEASE_MS));
        }
        Some(next)
    }
}

/// First wait after a reconciler try that did not settle; doubled each try up to
/// [`RECONCILE_MAX_BACKOFF_MS`].
pub const RECONCILE_FIRST_BACKOFF_MS: i64 = 10_000;
/// Longest wait between reconciler tries.
pub const RECONCILE_MAX_BACKOFF_MS: i64 = 120_000;

/// How long to wait after the `tries`-th try (1-based) that did not settle.
pub fn reconcile_backoff_ms(tries: u32) -> i64 {
    let doublings = tries.saturating_sub(1).min(16);
    RECONCILE_FIRST_BACKOFF_MS
        .saturating_mul(1i64 << doublings)
        .min(RECONCILE_MAX_BACKOFF_MS)
}

impl Payment {
    /// Since when the payment has needed settling: the start of its pending operation, or
    /// its creation while `pending`. `None` when there is nothing to settle (an operation
    /// in flight counts: it needs settling if its Lambda dies).
    pub fn unsettled_since(&self) -> Option<Timestamp> {
        match (&self.pending, self.status) {
            (Some(op), _) => Some(op.started_at),
            (None, PaymentStatus::Pending) => Some(self.created_at),
            _ => None,
        }
    }

    /// When the reconciler should first look at the payment: an operation with an unknown
    /// outcome or a pending payment at once, an operation in flight once it goes `stale`.
    /// `None` when there is nothing to settle.
    pub fn reconcile_due(&self, stale: super::StaleAfter) -> Option<Timestamp> {
        match (&self.pending, self.status) {
            (Some(op), _) if op.state == super::PendingState::Unknown => Some(self.updated_at),
            (Some(op), _) => Some(stale.stale_at(op.started_at)),
            (None, PaymentStatus::Pending) => Some(self.created_at),
            _ => None,
        }
    }
}
