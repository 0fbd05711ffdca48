//! The checker: the gateway against the bank's ledger, and every intent against the money
//! it moved.
//!
//! Per payment: nothing pending or unknown; as many operations applied at the bank as
//! transactions approved; amounts, state and refunds equal to the bank's; one event per
//! approved operation.
//!
//! Per intent (conservation): each approved transaction belongs to the intent that planned
//! it (its id was made inside that intent's request); no intent has more than one approved
//! transaction; and per payment the bank refunded exactly the sum of the distinct approved
//! refund intents. A refund sent twice for one intent is recorded twice on both sides, so
//! only this check sees it.
//!
//! Per reverse intent: one money movement, and an answer that agrees with it
//! (`reversals.rs`).
//!
//! After everything settled, each keyed intent is retried once more: it must get a replayed
//! or final answer and send nothing to the bank.

use std::collections::{BTreeMap, HashMap};

use paygate_bankkit::sim::OrderState;
use paygate_domain::{
    ports::PaymentReader, PaymentId, PaymentStatus, Transaction, TransactionStatus, TransactionType,
};

use crate::{
    client::{next, Intent, Next},
    harness::{Answer, Soak, CLIENT_ID},
    kills::{BankCall, Trace},
    plan::Start,
    reversals,
};

#[derive(Default)]
pub struct Report {
    pub violations: Vec<String>,
    pub approved: usize,
    pub events: usize,
    /// Intents with more than one approved transaction.
    pub double_executions: usize,
    /// Intents that sent more than one transaction to the bank (not a fault by itself).
    pub intents_with_several_bank_transactions: usize,
    /// What the reverse intents became (`crate::reversals`).
    pub reversals: reversals::Figures,
}

/// The whole check, once everything is settled.
pub async fn check(soak: &Soak, payments: &[Start], intents: &[Intent]) -> Report {
    let mut report = Report::default();
    let events = soak.events.list_unsent(100_000).await.unwrap();
    report.events = events.len();
    let mut events_by_payment: HashMap<PaymentId, usize> = HashMap::new();
    for e in &events {
        *events_by_payment.entry(e.payment_id.clone()).or_default() += 1;
    }
    let calls = soak.trace.bank_calls();
    // intent → the transactions it sent to the bank.
    let mut sent: BTreeMap<usize, Vec<&BankCall>> = BTreeMap::new();
    for c in &calls {
        if let Some(i) = soak.trace.intent_of(&c.transaction) {
            sent.entry(i).or_default().push(c);
        }
    }
    report.intents_with_several_bank_transactions = sent
        .values()
        .filter(|cs| {
            let mut txns: Vec<_> = cs.iter().map(|c| &c.transaction).collect();
            txns.sort();
            txns.dedup();
            txns.len() > 1
        })
        .count();
    // intent → every transaction recorded for it.
    let mut recorded: BTreeMap<usize, Vec<Transaction>> = BTreeMap::new();

    for Start { id, .. } in payments {
        let v = &mut report.violations;
        let p = soak.payments.get_payment(id).await.unwrap().unwrap();
        let txns = soak.payments.list_transactions(id).await.unwrap();
        for t in &txns {
            if let Some(i) = soak.trace.intent_of(&t.id) {
                recorded.entry(i).or_default().push(t.clone());
            }
        }
        let ledger = soak.bank.ledger_of(CLIENT_ID, &p.order_id).unwrap();
        if p.pending.is_some() {
            v.push(format!("{id}: still pending {:?}", p.pending));
        }
        for t in txns.iter().filter(|t| !t.status.is_final()) {
            v.push(format!(
                "{id}: transaction {} is {}",
                t.id,
                t.status.as_str()
            ));
        }
        let approved: Vec<&Transaction> = txns
            .iter()
            .filter(|t| t.status == TransactionStatus::Approved)
            .collect();
        report.approved += approved.len();
        // Money operations the bank applied (not the initial sale / pre-authorization).
        let bank_ops = ledger
            .operations
            .iter()
            .filter(|o| matches!(o.kind, "postauth" | "void" | "refund"))
            .count();
        if bank_ops != approved.len() {
            v.push(format!(
                "{id}: the bank applied {bank_ops} operations, the gateway approved {} ({:?})",
                approved.len(),
                ledger
                    .operations
                    .iter()
                    .map(|o| (o.kind, o.amount, o.voided))
                    .collect::<Vec<_>>()
            ));
        }
        if ledger.refunded != p.refunded_amount {
            v.push(format!(
                "{id}: refunded at the bank {}, recorded {}",
                ledger.refunded, p.refunded_amount
            ));
        }
        let expected_state = match p.status {
            PaymentStatus::Authorized => OrderState::Preauth,
            PaymentStatus::Cancelled => OrderState::Voided,
            _ => OrderState::Sale,
        };
        if ledger.state != expected_state {
            v.push(format!(
                "{id}: bank {:?}, recorded {}",
                ledger.state, p.status
            ));
        }
        if matches!(
            p.status,
            PaymentStatus::Captured | PaymentStatus::PartiallyRefunded | PaymentStatus::Refunded
        ) && ledger.amount != p.captured_amount
        {
            v.push(format!(
                "{id}: captured at the bank {}, recorded {}",
                ledger.amount, p.captured_amount
            ));
        }
        let evs = events_by_payment.get(id).copied().unwrap_or(0);
        if evs != approved.len() {
            v.push(format!(
                "{id}: {evs} events for {} approved operations",
                approved.len()
            ));
        }

        // Conservation: approved transactions by intent.
        let mut by_intent: BTreeMap<usize, Vec<&Transaction>> = BTreeMap::new();
        for t in &approved {
            match soak.trace.intent_of(&t.id) {
                Some(i) => by_intent.entry(i).or_default().push(t),
                None => v.push(format!(
                    "{id}: approved transaction {} ({} {}) was planned by no intent",
                    t.id,
                    t.kind.as_str(),
                    t.amount
                )),
            }
        }
        let mut distinct_refunds = 0;
        let mut refund_intents = Vec::new();
        for (i, ts) in &by_intent {
            let intent = &intents[*i];
            if ts.len() > 1 {
                report.double_executions += 1;
                let list = ts
                    .iter()
                    .map(|t| format!("{} {} {}", t.id, t.kind.as_str(), t.amount))
                    .collect::<Vec<_>>()
                    .join(", ");
                v.push(format!(
                    "DOUBLE EXECUTION {}: {} approved transactions ({list}); {}",
                    intent.plan.describe(),
                    ts.len(),
                    story(&soak.trace, intent)
                ));
            }
            if ts[0].kind == TransactionType::Refund {
                distinct_refunds += ts[0].amount;
                refund_intents.push(format!("#{} {}", i, ts[0].amount));
            }
        }
        if ledger.refunded != distinct_refunds {
            v.push(format!(
                "{id}: the bank refunded {}, the distinct approved refund intents sum to {distinct_refunds} ({})",
                ledger.refunded,
                refund_intents.join(", ")
            ));
        }
    }
    report.reversals = reversals::check(
        &soak.trace,
        intents,
        &recorded,
        &calls,
        &mut report.violations,
    );
    report
}

/// What an intent's client saw, and what became of its key's answers.
pub fn story(trace: &Trace, intent: &Intent) -> String {
    let keys = trace.key_log(intent.plan.n);
    if keys.is_empty() {
        format!("answers: {}", intent.history())
    } else {
        format!("answers: {}; key: {}", intent.history(), keys.join(", "))
    }
}

/// What is wrong with the last retries: answers asking for yet another retry, and money
/// the bank may have moved for them (approved, or no answer). A request the bank declined
/// or refused moved nothing: counted in the second value, not a violation (a first answer
/// whose storing failed leaves the key to be taken again after its lease).
pub fn last_retry_violations(
    trace: &Trace,
    intents: &[Intent],
    answers: &[(usize, Answer)],
    calls: &[BankCall],
    phase: &str,
) -> (Vec<String>, usize) {
    let mut v = Vec::new();
    for (i, a) in answers {
        if next(true, a) != Next::Done {
            v.push(format!(
                "{}: the last retry got {}: neither replayed nor final",
                intents[*i].plan.describe(),
                a.label()
            ));
        }
    }
    let mut refused = 0;
    for c in calls.iter().filter(|c| c.phase == phase) {
        if !matches!(c.outcome.as_str(), "approved" | "unknown") {
            refused += 1;
            continue;
        }
        let who = c.sender.map_or_else(
            || "a request of no intent (the reconciler, or a client's query)".to_owned(),
            |i| intents[i].plan.describe(),
        );
        v.push(format!(
            "{who}: the last retry sent a {} of {} to the bank ({}, {}); {}",
            c.kind.as_str(),
            c.amount,
            c.transaction,
            c.outcome,
            c.sender
                .map(|i| story(trace, &intents[i]))
                .unwrap_or_default()
        ));
    }
    (v, refused)
}
