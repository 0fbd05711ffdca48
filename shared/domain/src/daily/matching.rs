//! The matching rules of the daily reconciliation (pure).

use std::collections::BTreeMap;

use super::{BankLine, DayTransaction, Finding, FindingKind};
use crate::{
    bank::{BankState, BankStatus},
    payment::{Payment, PaymentStatus},
    transaction::{TransactionStatus, TransactionType},
};

/// Pairs our transactions of the day with the bank's day history, per order and operation:
/// - an approved transaction of ours with a bank line of the same amount: `matched`
///   (a cancel matches on its order alone: banks book a void of a captured
///   pre-authorization as one or two lines, of the capture and of the hold);
/// - one left with a bank line of another amount: `amount_mismatch`; with none:
///   `missing_at_bank`;
/// - a bank line left over: `unsettled_here` when ours is still pending or unknown,
///   `state_mismatch` when ours was declined or failed, else `missing_here`;
/// - ours pending or unknown with no bank line: `unsettled_here`.
pub fn match_history(ours: &[DayTransaction], bank: &[BankLine]) -> Vec<Finding> {
    type Key = (String, TransactionType);
    let mut groups: BTreeMap<Key, (Vec<&DayTransaction>, Vec<BankLine>)> = BTreeMap::new();
    for t in ours {
        let key = (t.order_id.clone(), t.transaction.kind);
        groups.entry(key).or_default().0.push(t);
    }
    for l in bank {
        let key = (l.order_id.clone(), l.kind);
        let lines = &mut groups.entry(key).or_default().1;
        if l.kind == TransactionType::Cancel {
            // One cancel, whatever number of void lines: the largest amount stands for it.
            match lines.first_mut() {
                Some(first) if first.amount >= l.amount => {}
                Some(first) => *first = l.clone(),
                None => lines.push(l.clone()),
            }
        } else {
            lines.push(l.clone());
        }
    }
    let mut out = Vec::new();
    for ((_, kind), (ours, mut lines)) in groups {
        let (approved, rest): (Vec<_>, Vec<_>) = ours
            .into_iter()
            .partition(|t| t.transaction.status == TransactionStatus::Approved);
        let (open, negative): (Vec<_>, Vec<_>) = rest.into_iter().partition(|t| {
            matches!(
                t.transaction.status,
                TransactionStatus::Pending | TransactionStatus::Unknown
            )
        });
        let mut unpaired = Vec::new();
        for t in approved {
            let same =
                |l: &BankLine| kind == TransactionType::Cancel || l.amount == t.transaction.amount;
            // The bank's reference first, then any line of the same amount.
            let at = lines
                .iter()
                .position(|l| {
                    same(l) && !t.transaction.rrn.is_empty() && l.rrn == t.transaction.rrn
                })
                .or_else(|| lines.iter().position(same));
            match at {
                Some(i) => {
                    let l = lines.remove(i);
                    out.push(Finding::ours(FindingKind::Matched, t, Some(&l)));
                }
                None => unpaired.push(t),
            }
        }
        for t in unpaired {
            if lines.is_empty() {
                out.push(Finding::ours(FindingKind::MissingAtBank, t, None));
            } else {
                let l = lines.remove(0);
                out.push(Finding::ours(FindingKind::AmountMismatch, t, Some(&l)));
            }
        }
        let mut open = open.into_iter();
        let mut negative = negative.into_iter();
        for l in lines {
            if let Some(t) = open.next() {
                out.push(Finding::ours(FindingKind::UnsettledHere, t, Some(&l)));
            } else if let Some(t) = negative.next() {
                out.push(Finding::ours(FindingKind::StateMismatch, t, Some(&l)));
            } else {
                out.push(Finding::bank_only(FindingKind::MissingHere, &l));
            }
        }
        for t in open {
            out.push(Finding::ours(FindingKind::UnsettledHere, t, None));
        }
    }
    out
}

/// A payment with an operation that day, as the bank's status query shows its order.
#[derive(Debug, Clone)]
pub struct OrderView<'a> {
    pub payment: &'a Payment,
    pub status: &'a BankStatus,
}

/// Compares each payment's order totals with the bank's status answer (families without a
/// history-by-date call). Every transaction of ours that day gets a line:
/// - a capture matches when the bank holds a sale of the captured amount (else
///   `amount_mismatch`, or `missing_at_bank` when the bank shows no sale);
/// - a cancel matches when the bank shows the order cancelled;
/// - a refund matches when the bank's refunded total covers ours;
/// - pending or unknown: `unsettled_here`.
///
/// And per order, what the bank shows beyond ours: more refunded (`missing_here`, the
/// difference as the bank amount) or a cancel we do not have (`missing_here`).
/// An answer that is not conclusive compares nothing: the caller reports it incomplete.
pub fn match_orders(ours: &[DayTransaction], views: &[OrderView<'_>]) -> Vec<Finding> {
    let mut out = Vec::new();
    for v in views {
        let (p, st) = (v.payment, v.status);
        if !st.is_conclusive() {
            continue;
        }
        let sold = st.found
            && matches!(
                st.state,
                BankState::Approved | BankState::Refunded | BankState::PartiallyRefunded
            );
        let cancelled = st.found && st.state == BankState::Cancelled;
        let line = |kind: TransactionType, amount: i64| BankLine {
            order_id: p.order_id.clone(),
            kind,
            amount,
            rrn: st.rrn.clone(),
        };
        let mine = ours.iter().filter(|t| t.transaction.payment_id == p.id);
        let mut open = false;
        for t in mine {
            let x = &t.transaction;
            match x.status {
                TransactionStatus::Pending | TransactionStatus::Unknown => {
                    open = true;
                    out.push(Finding::ours(FindingKind::UnsettledHere, t, None));
                    continue;
                }
                TransactionStatus::Declined | TransactionStatus::Failed => continue,
                TransactionStatus::Approved => {}
            }
            let (kind, bank) = match x.kind {
                TransactionType::Capture if !sold => (FindingKind::MissingAtBank, None),
                TransactionType::Capture if st.amount != p.captured_amount => (
                    FindingKind::AmountMismatch,
                    Some(line(TransactionType::Capture, st.amount)),
                ),
                TransactionType::Capture => (
                    FindingKind::Matched,
                    Some(line(TransactionType::Capture, st.amount)),
                ),
                TransactionType::Cancel if cancelled => (
                    FindingKind::Matched,
                    Some(line(TransactionType::Cancel, st.amount)),
                ),
                TransactionType::Cancel => (FindingKind::MissingAtBank, None),
                TransactionType::Refund if st.refunded_amount >= p.refunded_amount => (
                    FindingKind::Matched,
                    Some(line(TransactionType::Refund, x.amount)),
                ),
                TransactionType::Refund => (FindingKind::MissingAtBank, None),
            };
            out.push(Finding::ours(kind, t, bank.as_ref()));
        }
        if open {
            continue;
        }
        if st.refunded_amount > p.refunded_amount {
            let extra = line(
                TransactionType::Refund,
                st.refunded_amount - p.refunded_amount,
            );
            out.push(Finding::bank_only(FindingKind::MissingHere, &extra).of_payment(p));
        }
        if cancelled && p.status != PaymentStatus::Cancelled {
            let extra = line(TransactionType::Cancel, st.amount);
            out.push(Finding::bank_only(FindingKind::MissingHere, &extra).of_payment(p));
        }
    }
    out
}
