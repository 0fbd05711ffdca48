//! Refunds and cancels made at the bank without us (in the bank's own merchant panel), found
//! by a query: recorded as `external` transactions through the same conditional write as any
//! other transition.
//!
//! Conservative by rule: only a conclusive answer that shows *more* refunded or cancelled at
//! the bank than recorded here is recorded, and never while an operation of ours is pending
//! or unknown on the payment (the difference could be that operation: it is settled first, by
//! the same query or the reconciler, and a later query looks again). A bank that shows less
//! than recorded (a late booking of our own refund) records nothing.

use super::{Payment, PaymentStatus, Settlement};
use crate::{
    bank::{BankState, BankStatus},
    event::{EventRecord, EventType},
    ids::{EventId, IdGenerator, TransactionId},
    time::Timestamp,
    transaction::{Origin, Transaction, TransactionStatus, TransactionType},
};

/// What a status answer says about refunds or cancels made without us.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExternalVerdict {
    /// The bank agrees with what is recorded here (or shows less: nothing to record).
    Agrees,
    /// Not decidable now: an operation of ours is pending or unknown on the payment, or the
    /// answer is not conclusive. Nothing is recorded.
    Wait,
    /// The bank shows more than recorded, but not in a way this service can record (more
    /// refunded than captured; a cancel after a refund): left to the daily reconciliation.
    Inconsistent,
    /// Record this: the payment, the `external` transaction and its event, in one write
    /// conditional on the version read.
    Record(Box<Settlement>),
}

impl Payment {
    /// Decides whether `status` shows a refund or cancel made at the bank without us, and if
    /// so what to record: an approved transaction of type `refund` (the difference between the
    /// bank's refunded total and ours) or `cancel` (the whole order), with
    /// `origin: external`, and the payment moved as if it had been ours.
    /// The transaction's and the event's ids come from `ids` only when there is something to
    /// record.
    pub fn external_from_status(
        &self,
        status: &BankStatus,
        ids: &dyn IdGenerator,
        now: Timestamp,
    ) -> ExternalVerdict {
        if self.pending.is_some() || !status.is_conclusive() {
            return ExternalVerdict::Wait;
        }
        if !status.found {
            return ExternalVerdict::Agrees;
        }
        use PaymentStatus as S;
        let (kind, amount) = match (self.status, status.state) {
            (
                S::Captured | S::PartiallyRefunded,
                BankState::Refunded | BankState::PartiallyRefunded,
            ) => {
                let more = status.refunded_amount - self.refunded_amount;
                if more <= 0 {
                    return ExternalVerdict::Agrees;
                }
                if more > self.refundable() {
                    return ExternalVerdict::Inconsistent;
                }
                (TransactionType::Refund, more)
            }
            (S::Authorized, BankState::Cancelled) => (TransactionType::Cancel, self.amount),
            (S::Captured, BankState::Cancelled) if self.refunded_amount == 0 => {
                (TransactionType::Cancel, self.captured_amount)
            }
            (S::PartiallyRefunded, BankState::Cancelled) => return ExternalVerdict::Inconsistent,
            _ => return ExternalVerdict::Agrees,
        };
        let mut payment = self.clone();
        payment.version += 1;
        payment.updated_at = now;
        let event_type = match kind {
            TransactionType::Refund => {
                payment.refunded_amount += amount;
                payment.status = if payment.refunded_amount >= payment.captured_amount {
                    S::Refunded
                } else {
                    S::PartiallyRefunded
                };
                EventType::PaymentRefunded
            }
            _ => {
                payment.status = S::Cancelled;
                EventType::PaymentCancelled
            }
        };
        let mut txn = Transaction::pending(
            TransactionId::generate(ids),
            self.id.clone(),
            kind,
            amount,
            self.currency,
            now,
        );
        // The order-level status carries the sale's references, not this operation's.
        txn.status = TransactionStatus::Approved;
        txn.bank_code = status.code.clone();
        txn.origin = Origin::External;
        txn.settled_at = Some(now);
        let event = EventRecord::for_payment(EventId::generate(ids), event_type, &payment, now)
            .caused_by(&txn);
        ExternalVerdict::Record(Box::new(Settlement {
            payment,
            transaction: txn,
            event: Some(event),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        account::Mode,
        ids::{AccountId, MerchantId, PaymentId},
        money::Currency,
        payment::{CreatedPayment, PendingOperation, PendingState},
    };

    const T0: Timestamp = Timestamp::from_unix_millis(1_795_000_000_000);
    const LATER: Timestamp = Timestamp::from_unix_millis(1_795_000_600_000);

    fn payment(status: PaymentStatus, refunded: i64) -> Payment {
        let mut p = Payment::created(
            CreatedPayment {
                id: PaymentId::parse("pay_1").unwrap(),
                merchant_id: MerchantId::parse("mch_1").unwrap(),
                mode: Mode::Test,
                account_id: AccountId::parse("acc_1").unwrap(),
                order_id: "ORD1".into(),
                currency: Currency::Try,
                amount: 10_000,
                status: if status == PaymentStatus::Authorized {
                    status
                } else {
                    PaymentStatus::Captured
                },
            },
            T0,
        );
        p.status = status;
        p.refunded_amount = refunded;
        p
    }

    fn bank(state: BankState, refunded: i64) -> BankStatus {
        BankStatus {
            found: true,
            state,
            amount: 10_000,
            refunded_amount: refunded,
            code: "00".into(),
            auth_code: "123456".into(),
            rrn: "612345678901".into(),
        }
    }

    struct Fixed;
    impl IdGenerator for Fixed {
        fn opaque(&self) -> String {
            "ext".into()
        }
    }

    fn decide(p: &Payment, status: &BankStatus) -> ExternalVerdict {
        p.external_from_status(status, &Fixed, LATER)
    }

    fn recorded(v: ExternalVerdict) -> Settlement {
        match v {
            ExternalVerdict::Record(s) => *s,
            other => panic!("expected a record, got {other:?}"),
        }
    }

    #[test]
    fn a_refund_made_at_the_bank_is_recorded_once_as_external() {
        let p = payment(PaymentStatus::Captured, 0);
        let status = bank(BankState::PartiallyRefunded, 3_000);
        let s = recorded(decide(&p, &status));
        assert_eq!(s.payment.status, PaymentStatus::PartiallyRefunded);
        assert_eq!(s.payment.refunded_amount, 3_000);
        assert_eq!(s.payment.version, p.version + 1);
        let t = &s.transaction;
        assert_eq!(
            (t.kind, t.amount, t.status),
            (TransactionType::Refund, 3_000, TransactionStatus::Approved)
        );
        assert_eq!((t.origin, t.settled_at), (Origin::External, Some(LATER)));
        // The sale's references are not this refund's.
        assert!(t.rrn.is_empty() && t.auth_code.is_empty());
        let event = s.event.unwrap();
        assert_eq!(event.event_type, EventType::PaymentRefunded);
        assert_eq!(event.transaction.as_deref(), Some(t));
        assert_eq!(event.data.refunded_amount, 3_000);
        // The same answer read again over what was recorded: nothing more.
        assert_eq!(decide(&s.payment, &status), ExternalVerdict::Agrees);
        // The rest refunded at the bank later: the remainder, and the payment is refunded.
        let s = recorded(decide(&s.payment, &bank(BankState::Refunded, 10_000)));
        assert_eq!(
            (s.transaction.amount, s.payment.status),
            (7_000, PaymentStatus::Refunded)
        );
    }

    #[test]
    fn a_cancel_made_at_the_bank_cancels_the_whole_order() {
        for status in [PaymentStatus::Authorized, PaymentStatus::Captured] {
            let p = payment(status, 0);
            let s = recorded(decide(&p, &bank(BankState::Cancelled, 0)));
            assert_eq!(s.payment.status, PaymentStatus::Cancelled);
            assert_eq!(
                (s.transaction.kind, s.transaction.amount),
                (TransactionType::Cancel, 10_000)
            );
            assert_eq!(s.transaction.origin, Origin::External);
            assert_eq!(s.event.unwrap().event_type, EventType::PaymentCancelled);
        }
    }

    #[test]
    fn an_operation_of_ours_pending_or_unknown_records_nothing() {
        for state in [PendingState::InFlight, PendingState::Unknown] {
            let mut p = payment(PaymentStatus::Captured, 0);
            p.pending = Some(PendingOperation {
                kind: TransactionType::Refund,
                transaction_id: TransactionId::parse("txn_ours").unwrap(),
                amount: 3_000,
                state,
                started_at: T0,
                resume_until: None,
            });
            assert_eq!(
                decide(&p, &bank(BankState::PartiallyRefunded, 3_000)),
                ExternalVerdict::Wait
            );
            assert_eq!(
                decide(&p, &bank(BankState::Cancelled, 0)),
                ExternalVerdict::Wait
            );
        }
    }

    #[test]
    fn only_a_conclusive_answer_showing_more_than_recorded_records() {
        let p = payment(PaymentStatus::PartiallyRefunded, 5_000);
        // Could not tell.
        assert_eq!(
            decide(&p, &BankStatus::unavailable("96")),
            ExternalVerdict::Wait
        );
        // Less or as much refunded at the bank (a late booking of ours): nothing.
        for refunded in [0, 3_000, 5_000] {
            assert_eq!(
                decide(&p, &bank(BankState::PartiallyRefunded, refunded)),
                ExternalVerdict::Agrees
            );
        }
        assert_eq!(
            decide(&p, &bank(BankState::Approved, 0)),
            ExternalVerdict::Agrees
        );
        assert_eq!(
            decide(&p, &BankStatus::not_found("05")),
            ExternalVerdict::Agrees
        );
        // More refunded than captured, a cancel after a refund: not recordable here.
        assert_eq!(
            decide(&p, &bank(BankState::Refunded, 10_001)),
            ExternalVerdict::Inconsistent
        );
        assert_eq!(
            decide(&p, &bank(BankState::Cancelled, 0)),
            ExternalVerdict::Inconsistent
        );
        // Final payments stay as they are.
        for status in [
            PaymentStatus::Refunded,
            PaymentStatus::Cancelled,
            PaymentStatus::Declined,
            PaymentStatus::Failed,
        ] {
            let p = payment(
                status,
                if status == PaymentStatus::Refunded {
                    10_000
                } else {
                    0
                },
            );
            for st in [
                bank(BankState::Refunded, 10_000),
                bank(BankState::Cancelled, 0),
            ] {
                assert_eq!(decide(&p, &st), ExternalVerdict::Agrees, "{status}");
            }
        }
    }

    /// Ours as well as external ones: `settledAt` once final, and the event carries the
    /// transaction that caused it.
    #[test]
    fn a_settled_operation_of_ours_says_when_and_rides_in_its_event() {
        use crate::{bank::BankOutcome, payment::StaleAfter};
        let p = payment(PaymentStatus::Captured, 0);
        let planned = p
            .plan(
                TransactionType::Refund,
                Some(2_500),
                T0,
                StaleAfter::DEFAULT,
            )
            .unwrap();
        let id = TransactionId::parse("txn_ours").unwrap();
        let reserved = p.reserve(planned, id.clone(), T0);
        let txn = Transaction::pending(
            id,
            p.id.clone(),
            TransactionType::Refund,
            2_500,
            p.currency,
            T0,
        );
        assert_eq!(txn.settled_at, None);
        let approved = BankOutcome::Approved {
            code: "00".into(),
            auth_code: None,
            rrn: Some("1".into()),
        };
        let declined = BankOutcome::Declined {
            code: "51".into(),
            message: String::new(),
            after_cutoff: false,
        };
        let unknown = BankOutcome::Unknown {
            reason: "time-out".into(),
        };
        for (outcome, settled) in [(approved, true), (declined, true), (unknown, false)] {
            let s = reserved
                .settle(&txn, &outcome, EventId::parse("evt_1").unwrap(), LATER)
                .unwrap();
            assert_eq!(
                s.transaction.settled_at,
                settled.then_some(LATER),
                "{outcome:?}"
            );
            assert_eq!(s.transaction.origin, Origin::Api);
            if let Some(e) = s.event {
                assert_eq!(e.transaction.as_deref(), Some(&s.transaction));
            }
        }
    }
}
