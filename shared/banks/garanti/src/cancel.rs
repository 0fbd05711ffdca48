//! Cancel: resumable, safe to repeat, never leaving a pre-authorization's hold open.
//!
//! GVPS voids only the latest transaction of an order, so a captured pre-authorization needs
//! two voids: the `postauth` (the order is a pre-authorization again), then the `preauth`
//! (the hold is released). Every cancel first reads the order history and sends only the
//! voids still missing:
//!
//! - history unreadable or inconclusive → `Unknown`, nothing sent (an earlier attempt may
//!   have moved money; a later cancel or query settles it);
//! - everything already voided → `Approved`, nothing sent;
//! - half done (capture voided, hold open) → only the hold's void;
//! - history of a found order without any sale / pre-auth → `Unknown`, nothing sent
//!   (incomplete: a void without reference could void the capture alone);
//! - step 1 refused as if already voided (`0201`, `0210`: another cancel got there first) →
//!   the history is read again: all voided → `Approved`; only the hold left → its void;
//!   unreadable → `Unknown`;
//! - step 1 not approved otherwise → its outcome (nothing moved);
//! - step 1 approved, step 2 not confirmed → step 2 is retried within
//!   [`StepRetry`](paygate_bankkit::StepRetry) (re-reading the history before each retry,
//!   so a void that went through unseen is not sent again); still not confirmed →
//!   `Unknown`, never `Error`: the capture's void moved money.

use std::time::Instant;

use paygate_bankkit::{Recheck, Session, StepRetry};
use paygate_domain::{ports::BankOperation, BankOutcome};

use crate::{
    read_request,
    request::{Request, TxnType, FIXED_AMOUNT},
    response::Verdict,
    status::{cancel_steps, is_not_found, parse_history, CancelSteps, OrderTxn},
    Garanti, GarantiConfig,
};

/// The history read before a void: the transactions, or the outcome that ends the cancel.
enum History {
    Read(Vec<OrderTxn>),
    /// The bank has no such order: nothing to cancel, nothing moved.
    NotFound(BankOutcome),
    /// No usable answer.
    Inconclusive(String),
}

async fn history(s: &Session<'_, Garanti>, order_id: &str) -> History {
    let req = read_request(s.config(), TxnType::OrderHistoryInq, order_id);
    match s.call(&req).await {
        Ok(r) if r.verdict() == Verdict::Approved => match parse_history(&r) {
            Ok(h) => History::Read(h),
            Err(why) => History::Inconclusive(why),
        },
        Ok(r) if is_not_found(&r) => History::NotFound(BankOutcome::Declined {
            code: r.bank_code(),
            message: r.text(),
            after_cutoff: false,
        }),
        Ok(r) => History::Inconclusive(format!("{}: {}", r.bank_code(), r.text())),
        Err(e) => {
            let (code, message) = e.code_and_message();
            History::Inconclusive(format!("{code}: {message}"))
        }
    }
}

/// A `void` naming `target`'s RRN (none: the bank decides, and refuses if it must).
pub(crate) fn void_request<'a>(
    cfg: &'a GarantiConfig,
    op: &'a BankOperation,
    target: Option<&'a OrderTxn>,
) -> Request<'a> {
    let mut req = cfg.request(
        TxnType::Void,
        &op.order_id,
        FIXED_AMOUNT.to_owned(),
        op.currency,
    );
    req.original_rrn = target.map(|t| t.rrn.as_str()).filter(|r| !r.is_empty());
    req
}

/// One `void`, sent and mapped.
async fn void(
    s: &Session<'_, Garanti>,
    op: &BankOperation,
    target: Option<&OrderTxn>,
) -> BankOutcome {
    match s.send(&void_request(s.config(), op, target)).await {
        BankOutcome::Declined { code, message, .. } => BankOutcome::Declined {
            code,
            message,
            // The history said the target is past the end-of-day cut.
            after_cutoff: target.is_some_and(OrderTxn::settled),
        },
        other => other,
    }
}

/// The cancel: the history, then only the voids still missing.
pub(crate) async fn cancel_order(
    s: &Session<'_, Garanti>,
    retry: StepRetry,
    op: &BankOperation,
) -> BankOutcome {
    let started = Instant::now();
    let history = match history(s, &op.order_id).await {
        History::Read(h) => h,
        History::NotFound(outcome) => return outcome,
        History::Inconclusive(why) => {
            return unknown(format!(
                "the order history before the void could not be read ({why}); nothing was sent"
            ))
        }
    };
    let steps = match cancel_steps(&history) {
        CancelSteps::AlreadyCancelled => return already_cancelled(),
        CancelSteps::NothingLive => return void(s, op, None).await,
        CancelSteps::Incomplete => {
            return unknown(
                "the order history shows no sale or pre-authorization of a found order; \
                 nothing was sent"
                    .to_owned(),
            )
        }
        CancelSteps::Voids(steps) => steps,
    };
    let Some(target) = steps.first().map(|t| (*t).clone()) else {
        return void(s, op, None).await;
    };
    let hold = steps.get(1).map(|t| (*t).clone());
    match (void(s, op, Some(&target)).await, hold) {
        (BankOutcome::Approved { .. }, Some(hold)) => {
            release_hold(s, retry, op, hold, started).await
        }
        (refusal @ BankOutcome::Declined { .. }, _) if maybe_already_voided(&refusal) => {
            after_refusal(s, retry, op, &target, refusal, started).await
        }
        (outcome, _) => outcome,
    }
}

/// GVPS refusals of a void that can mean "already voided" (another cancel of the same order
/// got there between the read and the void): `0201` nothing to void, `0210` the transaction
/// is not voidable (also the answer past the end-of-day cut).
const MAYBE_ALREADY_VOIDED: &[&str] = &["0201", "0210"];

fn maybe_already_voided(outcome: &BankOutcome) -> bool {
    matches!(outcome, BankOutcome::Declined { code, .. } if MAYBE_ALREADY_VOIDED.contains(&code.as_str()))
}

/// Step 1 was refused as if its target were voided already: the history, read again, says
/// what is left. Everything voided → done (`Approved`: "already voided" is the cancel taking
/// effect); the target voided meanwhile and only the hold left → the hold's void; history
/// unreadable → `Unknown` (another cancel may have moved money); the target still live → the
/// refusal stands (e.g. past the cut).
async fn after_refusal(
    s: &Session<'_, Garanti>,
    retry: StepRetry,
    op: &BankOperation,
    tried: &OrderTxn,
    refusal: BankOutcome,
    started: Instant,
) -> BankOutcome {
    let history = match history(s, &op.order_id).await {
        History::Read(h) => h,
        History::NotFound(_) | History::Inconclusive(_) => {
            return unknown(
                "the void was refused as already voided and the order history could not be \
                 read again"
                    .to_owned(),
            )
        }
    };
    match cancel_steps(&history) {
        CancelSteps::AlreadyCancelled => already_cancelled(),
        CancelSteps::Voids(steps)
            if steps.len() == 1 && steps[0].kind == "preauth" && steps[0].rrn != tried.rrn =>
        {
            let hold = steps[0].clone();
            release_hold(s, retry, op, hold, started).await
        }
        _ => refusal,
    }
}

/// Step 2: the pre-authorization's void, retried within the budget.
async fn release_hold(
    s: &Session<'_, Garanti>,
    retry: StepRetry,
    op: &BankOperation,
    hold: OrderTxn,
    started: Instant,
) -> BankOutcome {
    let step = |hold: OrderTxn| async move { void(s, op, Some(&hold)).await };
    let recheck = || async {
        let History::Read(h) = history(s, &op.order_id).await else {
            return Recheck::Unread;
        };
        match cancel_steps(&h) {
            CancelSteps::AlreadyCancelled => Recheck::Done(already_cancelled()),
            CancelSteps::Voids(steps) if steps.len() == 1 && steps[0].kind == "preauth" => {
                Recheck::Again(steps[0].clone())
            }
            _ => {
                Recheck::Changed("the order changed while its pre-authorization was being released")
            }
        }
    };
    match retry
        .finish_step(s.call_timeout(), started, hold, step, recheck)
        .await
    {
        Some(outcome) => outcome,
        None => {
            tracing::warn!(provider = crate::PROVIDER_CODE, account_id = %s.account().id,
                order_id = %op.order_id, "capture voided; the pre-authorization's void is not confirmed");
            unknown(
                "the capture was voided but the pre-authorization's void is not confirmed"
                    .to_owned(),
            )
        }
    }
}

fn unknown(reason: String) -> BankOutcome {
    BankOutcome::Unknown { reason }
}

/// The order is already fully voided: the cancel has taken effect (nothing sent now).
fn already_cancelled() -> BankOutcome {
    BankOutcome::Approved {
        code: "00".to_owned(),
        auth_code: None,
        rrn: None,
    }
}
