//! Capture and cancel, which address transactions the order read (`agreement`) finds.
//!
//! Capture: the authorization's `hostlogkey`, then `capt`; a failed read moved no money (an
//! `Error`, or the bank's refusal), never `Unknown`.
//!
//! Cancel: resumable, safe to repeat, never leaving an authorization's hold open unsaid.
//!
//! Posnet reverses one transaction at a time; a captured authorization needs its capture
//! reversed (`reverse` of `capt`: the order is an open authorization again) and then the
//! authorization (`reverse` of `auth`: the hold is released) — the bank refuses the second
//! first with `0788`. Every cancel first reads the order (`agreement`) and sends only the
//! reversals still missing:
//!
//! - order unreadable or the read refused for a technical reason → `Unknown`, nothing sent
//!   (an earlier attempt may have moved money; a later cancel or query settles it);
//! - everything already reversed → `Approved`, nothing sent; a reversal answered `0220`
//!   (already reversed: another cancel came first) → the order is read again, and a fully
//!   reversed order is `Approved` (a half-done one gets its authorization's reversal);
//! - half done (capture reversed, authorization open) → only the authorization's reversal;
//! - step 1 not approved → its outcome (nothing moved);
//! - step 1 approved, step 2 not confirmed → step 2 is retried within
//!   [`StepRetry`](paygate_bankkit::StepRetry), re-reading the order before each retry so a
//!   reversal that went through unseen is not sent again; still not confirmed →
//!   `Unknown`, never `Error`: the capture's reversal moved money.

use std::time::Instant;

use paygate_bankkit::{BankReply, Recheck, Session, StepRetry};
use paygate_domain::{ports::BankOperation, BankOutcome};

use crate::{
    agreement, codes, order_id, request,
    status::{self, Entry, Kind, Order},
    wire, Posnet, Request,
};

/// What the order read before a reversal gave.
enum Read {
    Order(Order),
    /// The bank's conclusive refusal (no such order): nothing to cancel, nothing moved.
    Refused(BankOutcome),
    Inconclusive(String),
}

async fn read_order(s: &Session<'_, Posnet>, wire_order_id: &str) -> Read {
    let reply = match s.call(&agreement(s.config(), wire_order_id)).await {
        Ok(r) => r,
        Err(e) => return Read::Inconclusive(e.describe()),
    };
    if !reply.is_approved() {
        return if codes::is_not_found(reply.code()) {
            Read::Refused(reply.outcome())
        } else {
            Read::Inconclusive(format!("{}: {}", reply.code(), reply.resp_text))
        };
    }
    match status::order(&reply) {
        Ok(order) => Read::Order(order),
        Err(why) => Read::Inconclusive(why),
    }
}

/// The order's transactions, before a capture. A failure here moved no money.
async fn lookup(s: &Session<'_, Posnet>, wire_order_id: &str) -> Result<Order, BankOutcome> {
    let reply = s
        .call(&agreement(s.config(), wire_order_id))
        .await
        .map_err(|e| BankOutcome::Error {
            code: e.code().to_owned(),
            message: format!("order lookup before capture failed: {}", e.describe()),
        })?;
    if !reply.is_approved() {
        // A read moves nothing: a code after which a money request may have acted (`0400`)
        // is only a failed lookup here.
        return Err(if codes::is_unknown(reply.code()) {
            BankOutcome::Error {
                code: reply.code().to_owned(),
                message: format!("order lookup before capture failed: {}", reply.resp_text),
            }
        } else {
            reply.outcome()
        });
    }
    let order = status::order(&reply).map_err(|why| BankOutcome::Error {
        code: "response".to_owned(),
        message: format!("order lookup before capture: {why}"),
    })?;
    if order.entries.is_empty() {
        return Err(BankOutcome::Declined {
            code: codes::NOT_FOUND.to_owned(),
            message: codes::text(codes::NOT_FOUND).to_owned(),
            after_cutoff: false,
        });
    }
    Ok(order)
}

/// `agreement`, then `capt` of the authorization it finds.
pub(crate) async fn capture(
    s: &Session<'_, Posnet>,
    op: &BankOperation,
) -> Result<BankOutcome, BankOutcome> {
    let cfg = s.config();
    let wire_id = order_id(cfg, &op.order_id).map_err(|r| r.outcome())?;
    let order = lookup(s, &wire_id).await?;
    let target = order
        .to_capture()
        .map(|e| e.host_log_key.clone())
        .unwrap_or_default();
    let req = Request {
        what: "capt",
        correlation: op.transaction_id.as_str().to_owned(),
        xml: request::capt(
            cfg.terminal(),
            &target,
            &wire::wire_amount(op.amount),
            cfg.currency(op.currency),
        ),
    };
    Ok(s.send(&req).await)
}

fn reverse(s: &Session<'_, Posnet>, correlation: &str, e: &Entry) -> Request {
    Request {
        what: "reverse",
        correlation: correlation.to_owned(),
        xml: request::reverse(
            s.config().terminal(),
            e.kind.reversal().unwrap_or(request::Reversal::Sale),
            &e.host_log_key,
            Some(&e.auth_code),
        ),
    }
}

pub(crate) async fn cancel_order(
    s: &Session<'_, Posnet>,
    retry: StepRetry,
    op: &BankOperation,
) -> Result<BankOutcome, BankOutcome> {
    let started = Instant::now();
    let wire_id = order_id(s.config(), &op.order_id).map_err(|r| r.outcome())?;
    let correlation = op.transaction_id.as_str();
    let order = match read_order(s, &wire_id).await {
        Read::Order(o) => o,
        Read::Refused(outcome) => return Ok(outcome),
        Read::Inconclusive(why) => {
            return Ok(unknown(format!(
                "the order could not be read before the reversal ({why}); nothing was sent"
            )))
        }
    };
    if is_cancelled(&order) {
        return Ok(already_cancelled());
    }
    let targets: Vec<Entry> = order.to_reverse().into_iter().cloned().collect();
    let Some((first, rest)) = targets.split_first() else {
        // Nothing approved to reverse (only failed attempts): the bank's own refusal.
        let req = Request {
            what: "reverse",
            correlation: correlation.to_owned(),
            xml: request::reverse_by_order(
                s.config().terminal(),
                request::Reversal::Sale,
                &wire_id,
            ),
        };
        return Ok(s.send(&req).await);
    };
    let outcome = s.send(&reverse(s, correlation, first)).await;
    match (&outcome, rest.first()) {
        (BankOutcome::Approved { .. }, Some(auth)) => {
            Ok(release_hold(s, retry, &wire_id, correlation, auth.clone(), started).await)
        }
        (BankOutcome::Declined { code, .. }, _) if code == codes::ALREADY_REVERSED => {
            Ok(already_reversed(s, retry, &wire_id, correlation, started, outcome).await)
        }
        _ => Ok(outcome),
    }
}

/// A reversal answered `0220 IPTAL ISLEMI YAPILMIS`: another cancel reversed it first. The
/// order is read again: fully reversed → done; half done (capture reversed, authorization
/// open) → the authorization's reversal; anything else → the refusal as it came.
async fn already_reversed(
    s: &Session<'_, Posnet>,
    retry: StepRetry,
    wire_order_id: &str,
    correlation: &str,
    started: Instant,
    refused: BankOutcome,
) -> BankOutcome {
    let Read::Order(order) = read_order(s, wire_order_id).await else {
        return refused;
    };
    if is_cancelled(&order) {
        return already_cancelled();
    }
    match order.to_reverse().as_slice() {
        [only] if only.kind == Kind::Auth && order.entries.iter().any(|e| e.kind == Kind::Capt) => {
            let auth = (*only).clone();
            release_hold(s, retry, wire_order_id, correlation, auth, started).await
        }
        _ => refused,
    }
}

/// Step 2: the authorization's reversal, retried within the budget.
async fn release_hold(
    s: &Session<'_, Posnet>,
    retry: StepRetry,
    wire_order_id: &str,
    correlation: &str,
    auth: Entry,
    started: Instant,
) -> BankOutcome {
    let step = |auth: Entry| async move { s.send(&reverse(s, correlation, &auth)).await };
    let recheck = || async {
        let Read::Order(order) = read_order(s, wire_order_id).await else {
            return Recheck::Unread;
        };
        if is_cancelled(&order) {
            return Recheck::Done(already_cancelled());
        }
        match order.to_reverse().as_slice() {
            [only] if only.kind == Kind::Auth => Recheck::Again((*only).clone()),
            _ => Recheck::Changed("the order changed while its authorization was being released"),
        }
    };
    match retry
        .finish_step(s.call_timeout(), started, auth, step, recheck)
        .await
    {
        Some(outcome) => outcome,
        None => {
            tracing::warn!(provider = crate::PROVIDER_CODE, account_id = %s.account().id,
                order_id = %wire_order_id, "capture reversed; the authorization's reversal is not confirmed");
            unknown(
                "the capture was reversed but the authorization's reversal is not confirmed"
                    .to_owned(),
            )
        }
    }
}
/// Approved once, nothing live now, nothing refunded: fully reversed.
fn is_cancelled(order: &Order) -> bool {
    order.original.is_some() && order.live.is_empty() && order.refunded == 0
}

fn unknown(reason: String) -> BankOutcome {
    BankOutcome::Unknown { reason }
}

/// The order is already fully reversed: the cancel has taken effect (nothing sent now).
fn already_cancelled() -> BankOutcome {
    BankOutcome::Approved {
        code: codes::APPROVED.to_owned(),
        auth_code: None,
        rrn: None,
    }
}
