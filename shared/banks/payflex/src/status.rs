//! The order's state from the search service's answer, and the transaction a back-office
//! request must reference.
//!
//! The answer lists the order's transactions (`TransactionSearchResultInfo`): the original
//! `Sale` or `Auth` carries `IsCanceled`, `IsReversed`, `IsRefunded` (MEWS mapper) and, per the
//! ANP README, `IsCaptured` and `TotalRefundAmount`; a `Capture` line closes an `Auth`,
//! `Refund` lines carry each refunded amount. Amounts are decimal TL (`90.50`).
//!
//! | answer | state |
//! |---|---|
//! | `ResponseCode` ≠ `0000` (credentials, service error) | unavailable (the query failed) |
//! | `0000`, no line | not found |
//! | a line without `ResultCode`, or with a code after which the bank may have acted (`9998`, `1074` …), unreadable amounts, flags that contradict the lines | unavailable (never a guess) |
//! | no approved `Sale`/`Auth`, a refused one | `declined` |
//! | `IsCanceled` or `IsReversed` | `cancelled` |
//! | `Auth` not captured | `preauth` (held amount) |
//! | `Sale`, or `Auth` + approved `Capture` | `approved`, `partially_refunded` or `refunded` by the refunded total |

use paygate_bankkit::amount;
use paygate_domain::{BankState, BankStatus};

use crate::response::{classify_code, SearchLine, SearchReply, Verdict, APPROVED};

/// What the search answer says about an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// The query failed (its code).
    Failed(String),
    NotFound,
    /// The order's lines are not readable as one state (why).
    Unreadable(String),
    Found(Order<'a>),
}

/// An order's transactions, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order<'a> {
    /// The approved `Sale` or `Auth`, if any.
    pub original: Option<&'a SearchLine>,
    /// The approved, live `Capture` of an `Auth`.
    pub capture: Option<&'a SearchLine>,
    pub refused: Option<&'a SearchLine>,
    pub refunded: i64,
}

fn money(s: &str) -> Option<i64> {
    amount::parse_decimal(s)
}

/// Reads a search answer.
pub fn lookup(reply: &SearchReply) -> Lookup<'_> {
    if reply.response_code.trim() != APPROVED {
        let code = reply.response_code.trim();
        return Lookup::Failed(if code.is_empty() { "search" } else { code }.to_owned());
    }
    if reply.lines.is_empty() {
        return Lookup::NotFound;
    }
    if reply.lines.iter().any(|l| l.result_code.trim().is_empty()) {
        return Lookup::Unreadable("a transaction without a result".into());
    }
    // A transaction whose code says the bank may have acted is not a settled fact.
    if let Some(l) = reply
        .lines
        .iter()
        .find(|l| classify_code(&l.result_code) == Verdict::Unknown)
    {
        return Lookup::Unreadable(format!(
            "a transaction whose outcome is not known ({})",
            l.result_code.trim()
        ));
    }
    let is_original = |l: &&SearchLine| matches!(l.transaction_type.as_str(), "Sale" | "Auth");
    let original = reply
        .lines
        .iter()
        .filter(is_original)
        .find(|l| l.approved());
    let refused = reply
        .lines
        .iter()
        .filter(is_original)
        .find(|l| !l.approved());
    let capture = reply.lines.iter().find(|l| {
        l.transaction_type == "Capture" && l.approved() && !SearchLine::flag(&l.is_canceled)
    });
    let mut refunded = 0i64;
    for l in reply.lines.iter().filter(|l| {
        l.transaction_type == "Refund" && l.approved() && !SearchLine::flag(&l.is_canceled)
    }) {
        let Some(a) = money(&l.currency_amount) else {
            return Lookup::Unreadable("a refund amount".into());
        };
        refunded = refunded.saturating_add(a);
    }
    if let Some(o) = original {
        let total = o.total_refund_amount.trim();
        if !total.is_empty() {
            match money(total) {
                // Without refund lines the total is the only figure; with them they must agree.
                Some(t) if refunded == 0 => refunded = t,
                Some(t) if t == refunded => {}
                _ => return Lookup::Unreadable("TotalRefundAmount".into()),
            }
        }
    }
    Lookup::Found(Order {
        original,
        capture,
        refused,
        refunded,
    })
}

impl Order<'_> {
    /// Whether the original sale or pre-authorization itself is cancelled (or reversed):
    /// nothing of the order stands.
    pub fn cancelled(&self) -> bool {
        self.original
            .is_some_and(|o| SearchLine::flag(&o.is_canceled) || SearchLine::flag(&o.is_reversed))
    }

    /// Whether the order is a pre-authorization with a live capture.
    pub fn captured_auth(&self) -> bool {
        self.capture.is_some() && self.original.is_some_and(|o| o.transaction_type == "Auth")
    }

    /// The open pre-authorization's transaction (not cancelled, no live capture): what is
    /// left to cancel once a capture was cancelled alone.
    pub fn open_auth(&self) -> Option<&str> {
        if self.cancelled() || self.capture.is_some() {
            return None;
        }
        self.to_capture()
    }

    /// The transaction a capture references: the open `Auth`.
    pub fn to_capture(&self) -> Option<&str> {
        self.original
            .filter(|o| o.transaction_type == "Auth")
            .map(|o| o.transaction_id.as_str())
    }

    /// The transaction a cancel references: the live capture, else the original.
    pub fn to_cancel(&self) -> Option<&str> {
        self.capture
            .or(self.original)
            .map(|l| l.transaction_id.as_str())
    }

    /// The transaction a refund references: the capture, else the sale.
    pub fn to_refund(&self) -> Option<&str> {
        self.to_cancel()
    }
}

fn unavailable(code: &str) -> BankStatus {
    BankStatus::unavailable(code)
}

/// The order's state (see the module table).
pub fn status(reply: &SearchReply) -> BankStatus {
    let order = match lookup(reply) {
        Lookup::Failed(code) => return unavailable(&code),
        Lookup::NotFound => return BankStatus::not_found(APPROVED),
        Lookup::Unreadable(why) => return unavailable(&format!("search:{why}")),
        Lookup::Found(o) => o,
    };
    let found = |state, line: &SearchLine, amount, refunded, code: &str| BankStatus {
        found: true,
        state,
        amount,
        refunded_amount: refunded,
        code: code.to_owned(),
        auth_code: line.auth_code.clone(),
        rrn: line.rrn.clone(),
    };
    let Some(original) = order.original else {
        return match order.refused {
            Some(r) => found(
                BankState::Declined,
                r,
                money(&r.currency_amount).unwrap_or(0),
                0,
                &r.result_code,
            ),
            // Only cancels or refunds without their original: not a state to act on.
            None => unavailable("search:no original transaction"),
        };
    };
    let Some(held) = money(&original.currency_amount) else {
        return unavailable("search:amount");
    };
    if SearchLine::flag(&original.is_canceled) || SearchLine::flag(&original.is_reversed) {
        return found(BankState::Cancelled, original, held, 0, APPROVED);
    }
    let captured = SearchLine::flag(&original.is_captured);
    let amount = match (original.transaction_type.as_str(), order.capture) {
        ("Sale", _) => held,
        ("Auth", Some(c)) => match money(&c.currency_amount) {
            Some(a) => a,
            None => return unavailable("search:capture amount"),
        },
        // Captured per the flag, but no capture line to tell the amount.
        (_, None) if captured => return unavailable("search:capture"),
        _ => {
            if order.refunded > 0 {
                return unavailable("search:refund of an open pre-authorization");
            }
            return found(BankState::Preauth, original, held, 0, APPROVED);
        }
    };
    let fully = SearchLine::flag(&original.is_refunded);
    let state = match order.refunded {
        r if r >= amount && r > 0 => BankState::Refunded,
        r if r > 0 => BankState::PartiallyRefunded,
        _ => BankState::Approved,
    };
    // `IsRefunded` marks a full refund (ANP: a partly refunded sale stays paid).
    if fully != (state == BankState::Refunded) {
        return unavailable("search:IsRefunded");
    }
    found(state, original, amount, order.refunded, APPROVED)
}

#[cfg(test)]
#[path = "status_tests.rs"]
mod tests;
