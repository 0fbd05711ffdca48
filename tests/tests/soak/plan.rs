//! What the merchants ask for: a seeded generator, the operations, and the intents — one per
//! `Idempotency-Key`, or one unkeyed request (with the retries its client makes only after
//! answers saying nothing happened) — each with the point where the harness kills its
//! handler, if any.

use paygate_domain::{PaymentId, PaymentStatus};
use serde_json::{json, Value};

/// A sale's amount (kuruş).
pub const SALE: i64 = 100_000;
/// A pre-authorization's amount (kuruş).
pub const PREAUTH: i64 = 50_000;

/// A tiny deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn amount_up_to(&mut self, max: i64) -> i64 {
        1 + i64::try_from(self.below(u64::try_from(max).unwrap())).unwrap()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Capture(Option<i64>),
    Cancel,
    Refund(Option<i64>),
    /// `POST …/reverse`: a void or a refund, as the gateway decides (absent: all of it).
    Reverse(Option<i64>),
    Query,
}

impl Op {
    pub fn path(self) -> &'static str {
        match self {
            Op::Capture(_) => "capture",
            Op::Cancel => "cancel",
            Op::Refund(_) => "refund",
            Op::Reverse(_) => "reverse",
            Op::Query => "query",
        }
    }

    pub fn body(self) -> Value {
        match self {
            Op::Capture(Some(a)) | Op::Refund(Some(a)) | Op::Reverse(Some(a)) => {
                json!({ "amount": a })
            }
            _ => json!({}),
        }
    }

    pub fn describe(self) -> String {
        match self {
            Op::Capture(Some(a)) | Op::Refund(Some(a)) | Op::Reverse(Some(a)) => {
                format!("{} {a}", self.path())
            }
            Op::Capture(None) | Op::Refund(None) | Op::Reverse(None) => {
                format!("{} (full)", self.path())
            }
            Op::Cancel | Op::Query => self.path().to_owned(),
        }
    }
}

/// Where the harness drops a handler's future (its Lambda dies): the client sees a time-out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum KillPoint {
    /// The bank's answer to the capture, cancel or refund has come back.
    AfterBank,
    /// The write recording a final transaction has applied.
    AfterCommit,
    /// The idempotency store is about to store the answer.
    BeforeComplete,
    /// The idempotency store has stored the answer.
    AfterComplete,
    /// The bank has answered a reverse's second call (the refund after its void was refused
    /// for the cut).
    AfterFallbackBank,
    /// A reverse's second final transaction (the fall-back refund's) has been recorded.
    AfterFallbackCommit,
}

impl KillPoint {
    pub fn name(self) -> &'static str {
        match self {
            KillPoint::AfterBank => "after the bank call",
            KillPoint::AfterCommit => "after the commit",
            KillPoint::BeforeComplete => "before complete",
            KillPoint::AfterComplete => "after complete",
            KillPoint::AfterFallbackBank => "after the fall-back's bank call",
            KillPoint::AfterFallbackCommit => "after the fall-back's commit",
        }
    }
}

/// One intent, as planned.
#[derive(Debug, Clone)]
pub struct IntentPlan {
    pub n: usize,
    pub payment: PaymentId,
    pub op: Op,
    pub key: Option<String>,
    pub kill: Option<KillPoint>,
    /// The client sends the request again after its first final answer, as if that answer
    /// was lost (keyed intents only: without a key that would be another intent).
    pub resend: bool,
}

impl IntentPlan {
    pub fn describe(&self) -> String {
        let key = self
            .key
            .as_deref()
            .map_or_else(|| "no key".to_owned(), |k| format!("key {k}"));
        format!(
            "intent #{} ({} on {}, {key})",
            self.n,
            self.op.describe(),
            self.payment
        )
    }
}

/// A payment the soak starts with: a sale (captured) or a pre-authorization (authorized),
/// and whether the bank's end-of-day cut has passed for it (a void refused, a refund taken)
/// or not (a void taken, a refund refused).
#[derive(Debug, Clone)]
pub struct Start {
    pub id: PaymentId,
    pub status: PaymentStatus,
    pub past_cut: bool,
    /// Mostly reversed (most of them in full) rather than refunded.
    pub reverses: bool,
}

/// `n_ops` intents over `payments`: 10 % queries; on a pre-authorization half captures
/// (full or partial), 10 % reverses (full, or partial: refused), the rest refunds (which
/// the bank refuses before the capture); on a sale past the cut 5 % cancels, 10 % reverses
/// (a third full: a void refused for the cut and its fall-back refund, or the refund of
/// what is left; the others partial refunds), the rest refunds (5 % of them full) — or, on
/// the sales marked `reverses`, 80 % reverses (three in four full); on today's sale half
/// reverses (half full: a void; half partial: a refund the bank refuses before the cut),
/// 10 % cancels, the rest refunds. Half carry a key. About one money intent in six is killed
/// somewhere; one reverse in six more between its two steps' bank calls or records (where
/// it has two).
pub fn intents(rng: &mut Rng, seed: u64, payments: &[Start], n_ops: usize) -> Vec<IntentPlan> {
    let mut plan = Vec::with_capacity(n_ops);
    for n in 0..n_ops {
        let start = &payments[usize::try_from(rng.below(payments.len() as u64)).unwrap()];
        let payment = start.id.clone();
        let roll = rng.below(100);
        let op = match (start.status, start.past_cut, roll) {
            (_, _, 0..=9) => Op::Query,
            (PaymentStatus::Authorized, _, 10..=59) => {
                Op::Capture((rng.below(2) == 0).then(|| rng.amount_up_to(PREAUTH)))
            }
            (PaymentStatus::Authorized, _, 60..=69) => Op::Reverse(match rng.below(4) {
                0 => Some(PREAUTH),
                1 => Some(rng.amount_up_to(PREAUTH - 1)),
                _ => None,
            }),
            (_, _, 10..=89) if start.reverses => Op::Reverse(match rng.below(4) {
                0 => Some(SALE),
                1 => Some(rng.amount_up_to(6_000)),
                _ => None,
            }),
            (_, true, 10..=14) | (_, false, 60..=69) => Op::Cancel,
            (_, true, 15..=24) | (_, false, 10..=59) => {
                let full = rng.below(if start.past_cut { 3 } else { 2 }) == 0;
                Op::Reverse(match (full, rng.below(2)) {
                    (true, 0) => Some(SALE),
                    (true, _) => None,
                    (false, _) => Some(rng.amount_up_to(6_000)),
                })
            }
            _ => Op::Refund((rng.below(20) != 0).then(|| rng.amount_up_to(6_000))),
        };
        let key = (rng.below(2) == 0).then(|| format!("idem-{seed}-{n}"));
        let resend = key.is_some() && rng.below(10) == 0;
        let kill_roll = rng.below(100);
        let kill = match (op, key.is_some(), kill_roll) {
            (Op::Query, _, _) => None,
            (_, _, 0..=4) => Some(KillPoint::AfterBank),
            (_, _, 5..=9) => Some(KillPoint::AfterCommit),
            // Without a key nothing is stored: there is no `complete` to die in.
            (_, true, 10..=12) => Some(KillPoint::BeforeComplete),
            (_, true, 13..=15) => Some(KillPoint::AfterComplete),
            (Op::Reverse(_), _, 16..=23) => Some(KillPoint::AfterFallbackBank),
            (Op::Reverse(_), _, 24..=31) => Some(KillPoint::AfterFallbackCommit),
            _ => None,
        };
        plan.push(IntentPlan {
            n,
            payment,
            op,
            key,
            kill,
            resend,
        });
    }
    plan
}
