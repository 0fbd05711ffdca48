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
//! - everything already reversed → `Approved`, nothing sent;
//! - half done (capture reversed, authorization open) → only the authorization's reversal;
//! - step 1 not approved → its outcome (nothing moved);
//! - step 1 approved, step 2 not confirmed → step 2 is retried within
//!   [`StepRetry`](paygate_bankkit::StepRetry), re-reading the order before each retry so a
//!   reversal that went through unseen is not sent again; still not confirmed →
//!   `Unknown`, never `Error`: the capture's reversal moved money.

use paygate_bankkit::Recheck;
use std::time::Instant;

use paygate_domain::{ports::BankOperation, BankOutcome, PosAccount};

use crate::{
    adapter::{Posnet, PosnetProvider},
    codes, request, response,
    status::{self, Entry, Kind, Order},
};

/// What the order read before a reversal gave.
enum Read {
    Order(Order),
    /// The bank's conclusive refusal (no such order): nothing to cancel, nothing moved.
    Refused(BankOutcome),
    Inconclusive(String),
}

impl PosnetProvider {
    async fn read_order(&self, p: &Posnet, order_id: &str) -> Read {
        let xml = request::agreement(p.terminal(), order_id);
        let reply = match self.call(p, "agreement", order_id, &xml).await {
            Ok(r) => r,
            Err(e) => return Read::Inconclusive(e.message()),
        };
        if !reply.is_approved() {
            return if codes::is_not_found(reply.code()) {
                Read::Refused(response::outcome(&reply))
            } else {
                Read::Inconclusive(format!("{}: {}", reply.code(), reply.resp_text))
            };
        }
        match status::order(&reply) {
            Ok(order) => Read::Order(order),
            Err(why) => Read::Inconclusive(why),
        }
    }

    fn reverse_xml(p: &Posnet, e: &Entry) -> String {
        request::reverse(
            p.terminal(),
            e.kind.reversal().unwrap_or(request::Reversal::Sale),
            &e.host_log_key,
            Some(&e.auth_code),
        )
    }

    pub(crate) async fn cancel_order(
        &self,
        account: &PosAccount,
        op: &BankOperation,
    ) -> Result<BankOutcome, BankOutcome> {
        let started = Instant::now();
        let (p, order_id) = self.prepare(account, &op.order_id).await?;
        let correlation = op.transaction_id.as_str();
        let order = match self.read_order(&p, &order_id).await {
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
            let xml = request::reverse_by_order(p.terminal(), request::Reversal::Sale, &order_id);
            return Ok(self.operate(&p, "reverse", correlation, &xml).await);
        };
        let outcome = self
            .operate(&p, "reverse", correlation, &Self::reverse_xml(&p, first))
            .await;
        match (&outcome, rest.first()) {
            (BankOutcome::Approved { .. }, Some(auth)) => Ok(self
                .release_hold(account, &p, &order_id, correlation, auth.clone(), started)
                .await),
            _ => Ok(outcome),
        }
    }

    /// Step 2: the authorization's reversal, retried within the budget.
    async fn release_hold(
        &self,
        account: &PosAccount,
        p: &Posnet,
        order_id: &str,
        correlation: &str,
        auth: Entry,
        started: Instant,
    ) -> BankOutcome {
        let step = |auth: Entry| async move {
            self.operate(p, "reverse", correlation, &Self::reverse_xml(p, &auth))
                .await
        };
        let recheck = || async {
            let Read::Order(order) = self.read_order(p, order_id).await else {
                return Recheck::Unread;
            };
            if is_cancelled(&order) {
                return Recheck::Done(already_cancelled());
            }
            match order.to_reverse().as_slice() {
                [only] if only.kind == Kind::Auth => Recheck::Again((*only).clone()),
                _ => {
                    Recheck::Changed("the order changed while its authorization was being released")
                }
            }
        };
        let timeout = self.transport.timeout();
        match self
            .retry
            .finish_step(timeout, started, auth, step, recheck)
            .await
        {
            Some(outcome) => outcome,
            None => {
                tracing::warn!(provider = crate::PROVIDER_CODE, account_id = %account.id,
                    order_id = %order_id, "capture reversed; the authorization's reversal is not confirmed");
                unknown(
                    "the capture was reversed but the authorization's reversal is not confirmed"
                        .to_owned(),
                )
            }
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
