//! The reverse intents' oracle. A reversal moves money once: a void, or a refund, or (the
//! fall-back) a void declined for the bank's end-of-day cut and then one refund whose id is
//! derived from the void's — never a void and a refund that both moved money, never two
//! refunds, whatever was killed or failed between the two steps and however often the
//! client retried. And what the merchant was told last agrees with the money: a success
//! carries the one transaction that moved it (as `cancel`, `refund`, or `refund` after
//! settlement), a final refusal comes with none moved.

use std::collections::BTreeMap;

use paygate_domain::{
    payment::reversal::{fallback_refund_id, falls_back},
    Transaction, TransactionStatus, TransactionType,
};

use crate::{
    checker::story,
    client::{next, Intent, Next},
    harness::Answer,
    kills::{BankCall, Trace},
    plan::Op,
};

/// What the reverse intents became.
#[derive(Default, Debug)]
pub struct Figures {
    pub intents: usize,
    pub keyed: usize,
    /// Moved money as a void.
    pub voided: usize,
    /// Moved money as a refund (the first step).
    pub refunded: usize,
    /// A void declined for the cut, then the fall-back refund moved the money.
    pub fell_back: usize,
    /// A void declined for the cut and no refund approved behind it.
    pub cut_without_refund: usize,
    /// Moved nothing otherwise (refused, declined, or ended before the bank).
    pub moved_nothing: usize,
    /// Intents whose money moved more than once (violations).
    pub moved_twice: usize,
}

impl std::fmt::Display for Figures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({} keyed): voided {}, refunded {}, void refused for the cut then refunded {}, \
             void refused for the cut and nothing refunded {}, moved nothing {}; moved twice {}",
            self.intents,
            self.keyed,
            self.voided,
            self.refunded,
            self.fell_back,
            self.cut_without_refund,
            self.moved_nothing,
            self.moved_twice
        )
    }
}

/// Checks every reverse intent against the transactions recorded for it (`txns`, all
/// statuses, by intent) and the money calls the bank answered (`calls`).
pub fn check(
    trace: &Trace,
    intents: &[Intent],
    txns: &BTreeMap<usize, Vec<Transaction>>,
    calls: &[BankCall],
    v: &mut Vec<String>,
) -> Figures {
    let mut figures = Figures::default();
    let none = Vec::new();
    for intent in intents {
        if !matches!(intent.plan.op, Op::Reverse(_)) {
            continue;
        }
        figures.intents += 1;
        figures.keyed += usize::from(intent.plan.key.is_some());
        let n = intent.plan.n;
        let ts = txns.get(&n).unwrap_or(&none);
        let who = || format!("{}; {}", intent.plan.describe(), story(trace, intent));
        // A refund is the fall-back of the intent's void it derives its id from.
        let void_of = |t: &Transaction| {
            ts.iter().find(|c| {
                c.kind == TransactionType::Cancel
                    && fallback_refund_id(&c.id).as_ref() == Some(&t.id)
            })
        };
        for t in ts.iter().filter(|t| t.kind == TransactionType::Refund) {
            if let Some(void) = void_of(t).filter(|void| !falls_back(void)) {
                v.push(format!(
                    "REVERSAL {}: refund {} sent after void {} ({}), which was not declined for the cut; {}",
                    t.id,
                    t.status.as_str(),
                    void.id,
                    void.status.as_str(),
                    who()
                ));
            }
        }

        // Money moved: approved as recorded, or as the bank answered.
        let mut moved: Vec<String> = ts
            .iter()
            .filter(|t| t.status == TransactionStatus::Approved)
            .map(|t| format!("{} {} {}", t.kind.as_str(), t.id, t.amount))
            .collect();
        for c in calls
            .iter()
            .filter(|c| c.outcome == "approved" && trace.intent_of(&c.transaction) == Some(n))
        {
            let line = format!("{} {} {}", c.kind.as_str(), c.transaction, c.amount);
            if !moved.contains(&line) {
                moved.push(line);
            }
        }
        if moved.len() > 1 {
            figures.moved_twice += 1;
            v.push(format!(
                "REVERSAL MOVED MONEY {} TIMES ({}): {}",
                moved.len(),
                moved.join(", "),
                who()
            ));
        }

        let approved = ts.iter().find(|t| t.status == TransactionStatus::Approved);
        let fell_back = approved.is_some_and(|t| void_of(t).is_some());
        match approved {
            Some(t) if t.kind == TransactionType::Cancel => figures.voided += 1,
            Some(_) if fell_back => figures.fell_back += 1,
            Some(_) => figures.refunded += 1,
            None if ts.iter().any(falls_back) => figures.cut_without_refund += 1,
            None => figures.moved_nothing += 1,
        }

        // The last answer the merchant got, if final.
        let last = intent
            .answers
            .lock()
            .unwrap()
            .last()
            .map(|(_, a)| a.clone());
        let Some(a) = last else {
            continue;
        };
        let Answer::Http {
            status,
            transaction,
            reversal,
            ..
        } = &a
        else {
            continue;
        };
        let status = *status;
        let keyed = intent.plan.key.is_some();
        // Not final, or the operation left unsettled (its outcome unknown).
        let unsettled = transaction
            .as_ref()
            .is_some_and(|(_, s)| matches!(s.as_str(), "unknown" | "pending"));
        if next(keyed, &a) != Next::Done || status == 429 || status >= 500 || unsettled {
            continue;
        }
        match approved {
            _ if (200..300).contains(&status) => {
                let expected = approved.map(|t| {
                    let kind = if t.kind == TransactionType::Cancel {
                        "cancel"
                    } else {
                        "refund"
                    };
                    (t.id.to_string(), (kind.to_owned(), fell_back))
                });
                let told = transaction
                    .as_ref()
                    .map(|(id, _)| id.clone())
                    .zip(reversal.clone());
                if told != expected {
                    v.push(format!(
                        "REVERSAL ANSWER {}: told {told:?}, the money moved as {expected:?}; {}",
                        a.label(),
                        who()
                    ));
                }
            }
            Some(t) => v.push(format!(
                "REVERSAL ANSWER {}: told nothing moved, but {} {} {} was approved; {}",
                a.label(),
                t.kind.as_str(),
                t.id,
                t.amount,
                who()
            )),
            None => {}
        }
    }
    figures
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use paygate_domain::{
        decline::DeclineCode, ports::IdGenerator, Currency, PaymentId, TransactionId,
    };

    use super::*;
    use crate::{
        harness::T0,
        kills::{killable, Ids},
        plan::IntentPlan,
    };

    const CUT: Option<DeclineCode> = Some(DeclineCode::AfterEndOfDay);
    type Txn = (
        &'static str,
        TransactionType,
        TransactionStatus,
        Option<DeclineCode>,
    );

    fn answer(status: u16, code: &str, txn: &str, reversal: Option<(&str, bool)>) -> Answer {
        Answer::Http {
            status,
            code: code.to_owned(),
            replayed: false,
            transaction: Some((txn.to_owned(), "approved".to_owned())),
            reversal: reversal.map(|(k, a)| (k.to_owned(), a)),
        }
    }

    /// The oracle over one keyed full reverse (#0, whose requests made `txn_s0` and
    /// `txn_s1`) with `recorded` transactions and `last` answer.
    async fn oracle(recorded: &[Txn], last: Answer) -> (Figures, Vec<String>) {
        let trace = Arc::new(Trace::default());
        let ids = Ids::new(trace.clone());
        killable(Some(0), None, async {
            ids.opaque();
            ids.opaque();
        })
        .await
        .unwrap();
        let payment = PaymentId::parse("pay_soak1").unwrap();
        let intent = Intent::new(IntentPlan {
            n: 0,
            payment: payment.clone(),
            op: Op::Reverse(None),
            key: Some("k".to_owned()),
            kill: None,
            resend: false,
        });
        intent.answers.lock().unwrap().push(("phase 1", last));
        let txns = recorded
            .iter()
            .map(|(id, kind, status, code)| {
                let mut t = Transaction::pending(
                    TransactionId::parse(id).unwrap(),
                    payment.clone(),
                    *kind,
                    100_000,
                    Currency::Try,
                    T0,
                );
                t.status = *status;
                t.with_decline_code(*code)
            })
            .collect();
        let mut v = Vec::new();
        let figures = check(&trace, &[intent], &BTreeMap::from([(0, txns)]), &[], &mut v);
        (figures, v)
    }

    #[tokio::test]
    async fn the_oracle_sees_a_reversal_that_moved_money_twice_or_said_it_did_not() {
        use TransactionStatus::{Approved, Declined};
        use TransactionType::{Cancel, Refund};
        let void_cut = ("txn_s0", Cancel, Declined, CUT);
        let fallback = ("txn_s0R", Refund, Approved, None);
        let ok = answer(200, "", "txn_s0R", Some(("refund", true)));
        // (recorded, last answer, the violations' starts; none: a sound reversal)
        let cases: [(Vec<Txn>, Answer, &[&str]); 6] = [
            (vec![void_cut, fallback], ok.clone(), &[]),
            (
                vec![("txn_s0", Cancel, Approved, None)],
                answer(200, "", "txn_s0", Some(("cancel", false))),
                &[],
            ),
            // A void and a refund that both moved money.
            (
                vec![("txn_s0", Cancel, Approved, None), fallback],
                ok.clone(),
                &["REVERSAL txn_s0R", "REVERSAL MOVED MONEY 2 TIMES"],
            ),
            // Two refunds for one intent.
            (
                vec![void_cut, fallback, ("txn_s1", Refund, Approved, None)],
                ok.clone(),
                &["REVERSAL MOVED MONEY 2 TIMES"],
            ),
            // A refund after a void declined for another reason than the cut.
            (
                vec![("txn_s0", Cancel, Declined, None), fallback],
                ok.clone(),
                &["REVERSAL txn_s0R"],
            ),
            // Told nothing moved (the void refused, no refund behind it) while it did.
            (
                vec![void_cut, fallback],
                answer(409, "invalid_state", "txn_s0", None),
                &["REVERSAL ANSWER 409 invalid_state: told nothing moved"],
            ),
        ];
        for (recorded, last, expected) in cases {
            let (figures, v) = oracle(&recorded, last).await;
            assert_eq!(v.is_empty(), expected.is_empty(), "{recorded:?}: {v:#?}");
            for want in expected {
                assert!(
                    v.iter().any(|got| got.starts_with(want)),
                    "{recorded:?}: {want} not in {v:#?}"
                );
            }
            let twice = expected.iter().any(|w| w.contains("MOVED MONEY"));
            assert_eq!(figures.moved_twice, usize::from(twice), "{recorded:?}");
        }
    }
}
