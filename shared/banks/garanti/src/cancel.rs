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
//! - step 1 not approved → its outcome (nothing moved);
//! - step 1 approved, step 2 not confirmed → step 2 is retried within
//!   [`StepRetry`](paygate_bankkit::StepRetry) (re-reading the history before each retry,
//!   so a void that went through unseen is not sent again); still not confirmed →
//!   `Unknown`, never `Error`: the capture's void moved money.

use paygate_bankkit::Recheck;
use std::time::Instant;

use paygate_domain::{ports::BankOperation, BankOutcome, PosAccount};

use crate::{
    adapter::{log_outcome, GarantiConfig, GarantiProvider},
    request::{TxnType, FIXED_AMOUNT},
    response::Verdict,
    status::{cancel_steps, is_not_found, parse_history, CancelSteps, OrderTxn},
};

/// The history read before a void: the transactions, or the outcome that ends the cancel.
enum History {
    Read(Vec<OrderTxn>),
    /// The bank has no such order: nothing to cancel, nothing moved.
    NotFound(BankOutcome),
    /// No usable answer.
    Inconclusive(String),
}

impl GarantiProvider {
    async fn history(&self, cfg: &GarantiConfig, order_id: &str) -> History {
        match self.read(cfg, TxnType::OrderHistoryInq, order_id).await {
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
            Err((code, message)) => History::Inconclusive(format!("{code}: {message}")),
        }
    }

    /// One `void` naming `rrn` (none: the bank decides, and refuses if it must).
    async fn void(
        &self,
        account: &PosAccount,
        cfg: &GarantiConfig,
        op: &BankOperation,
        target: Option<&OrderTxn>,
    ) -> BankOutcome {
        let mut req = cfg.request(
            TxnType::Void,
            &op.order_id,
            FIXED_AMOUNT.to_owned(),
            op.currency,
        );
        req.original_rrn = target.map(|t| t.rrn.as_str()).filter(|r| !r.is_empty());
        match self.money(account, cfg, req).await {
            BankOutcome::Declined { code, message, .. } => BankOutcome::Declined {
                code,
                message,
                // The history said the target is past the end-of-day cut.
                after_cutoff: target.is_some_and(OrderTxn::settled),
            },
            other => other,
        }
    }

    pub(crate) async fn cancel_order(
        &self,
        account: &PosAccount,
        cfg: &GarantiConfig,
        op: &BankOperation,
    ) -> BankOutcome {
        let started = Instant::now();
        let history = match self.history(cfg, &op.order_id).await {
            History::Read(h) => h,
            History::NotFound(outcome) => {
                log_outcome(account, &op.order_id, TxnType::Void, &outcome);
                return outcome;
            }
            History::Inconclusive(why) => {
                return unknown(format!(
                    "the order history before the void could not be read ({why}); nothing was sent"
                ))
            }
        };
        let steps = match cancel_steps(&history) {
            CancelSteps::AlreadyCancelled => {
                let outcome = already_cancelled();
                log_outcome(account, &op.order_id, TxnType::Void, &outcome);
                return outcome;
            }
            CancelSteps::NothingLive => return self.void(account, cfg, op, None).await,
            CancelSteps::Voids(steps) => steps,
        };
        let first = self.void(account, cfg, op, steps.first().copied()).await;
        match (first, steps.get(1)) {
            (BankOutcome::Approved { .. }, Some(hold)) => {
                let hold = (*hold).clone();
                self.release_hold(account, cfg, op, hold, started).await
            }
            (outcome, _) => outcome,
        }
    }

    /// Step 2: the pre-authorization's void, retried within the budget.
    async fn release_hold(
        &self,
        account: &PosAccount,
        cfg: &GarantiConfig,
        op: &BankOperation,
        hold: OrderTxn,
        started: Instant,
    ) -> BankOutcome {
        let step = |hold: OrderTxn| async move { self.void(account, cfg, op, Some(&hold)).await };
        let recheck = || async {
            let History::Read(h) = self.history(cfg, &op.order_id).await else {
                return Recheck::Unread;
            };
            match cancel_steps(&h) {
                CancelSteps::AlreadyCancelled => Recheck::Done(already_cancelled()),
                CancelSteps::Voids(steps) if steps.len() == 1 && steps[0].kind == "preauth" => {
                    Recheck::Again(steps[0].clone())
                }
                _ => Recheck::Changed(
                    "the order changed while its pre-authorization was being released",
                ),
            }
        };
        let timeout = self.transport.timeout();
        match self
            .retry
            .finish_step(timeout, started, hold, step, recheck)
            .await
        {
            Some(outcome) => outcome,
            None => {
                tracing::warn!(provider = crate::PROVIDER_CODE, account_id = %account.id,
                    order_id = %op.order_id, "capture voided; the pre-authorization's void is not confirmed");
                unknown(
                    "the capture was voided but the pre-authorization's void is not confirmed"
                        .to_owned(),
                )
            }
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
