//! One operation in progress on one account ([`Session`]): the protocol's settings and its
//! way to the bank, with the steps every flow is made of (send a request, read its answer as
//! an outcome, a status or a points balance) and the shared second step of a cancel
//! ([`Session::release_hold`]).

use std::{future::Future, time::Instant};

use paygate_domain::{
    bank::{BankOutcome, BankStatus, PointsResult},
    ports::BankOperation,
    PosAccount,
};

use crate::{Adapter, BankReply, BankRequest, CallError, Op, Protocol, StepRetry};

/// The answer type of a protocol's request.
pub type ReplyOf<'r, P> = <<P as Protocol>::Request<'r> as BankRequest>::Reply;

/// One operation in progress on one account: the protocol's settings and its way to the bank.
pub struct Session<'a, P: Protocol> {
    pub(crate) adapter: &'a Adapter<P>,
    pub(crate) account: &'a PosAccount,
    pub(crate) cfg: P::Config,
}

impl<'a, P: Protocol> Session<'a, P> {
    pub fn config(&self) -> &P::Config {
        &self.cfg
    }

    pub fn account(&self) -> &PosAccount {
        self.account
    }

    /// The bound on one call (for budgets of multi-step flows).
    pub fn call_timeout(&self) -> std::time::Duration {
        self.adapter.transport.timeout()
    }

    /// Sends one request and reads the answer. Logs the request's kind and how it ended,
    /// never its body.
    pub async fn call<'r>(&self, req: &P::Request<'r>) -> Result<ReplyOf<'r, P>, CallError> {
        let wire = self.adapter.protocol.encode(&self.cfg, req);
        let headers: Vec<(&str, &str)> =
            wire.headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let answer = self
            .adapter
            .transport
            .post_limited(
                &wire.url,
                wire.content_type,
                &headers,
                wire.body,
                wire.max_response,
            )
            .await
            .map_err(CallError::Transport)
            .and_then(|raw| <ReplyOf<'r, P>>::decode(&raw).map_err(CallError::Malformed));
        match &answer {
            Ok(_) => tracing::debug!(provider = P::CODE, account_id = %self.account.id,
                request = req.kind(), "bank answered"),
            Err(e) => tracing::warn!(provider = P::CODE, account_id = %self.account.id,
                request = req.kind(), error = %e.detail(), "bank call without a usable answer"),
        }
        answer
    }

    /// Sends a money-moving request and maps its answer.
    pub async fn send(&self, req: &P::Request<'_>) -> BankOutcome {
        match self.call(req).await {
            Ok(reply) if !req.answered_by(&reply) => {
                tracing::warn!(provider = P::CODE, account_id = %self.account.id,
                    request = req.kind(), "the bank answered about something else");
                BankOutcome::Unknown {
                    reason: "the bank answered for another order".to_owned(),
                }
            }
            Ok(reply) => reply.outcome(),
            Err(e) => e.outcome(),
        }
    }

    /// The single request serving `op`, sent and mapped.
    pub async fn operate(&self, op: Op<'_>) -> BankOutcome {
        match self.adapter.protocol.request(&self.cfg, op) {
            Ok(req) => self.send(&req).await,
            Err(refused) => refused.outcome(),
        }
    }

    /// Sends a read and hands its answer to `read`; a call without a usable answer ends the
    /// read with that failure's status.
    pub async fn read_with<'r, T>(
        &self,
        req: &P::Request<'r>,
        read: impl FnOnce(&ReplyOf<'r, P>) -> Result<T, BankStatus>,
    ) -> Result<T, BankStatus> {
        match self.call(req).await {
            Ok(reply) => read(&reply),
            Err(e) => Err(e.status()),
        }
    }

    /// The order's state from two reads (Nestpay `ORDERSTATUS` + `ORDERHISTORY`, PayFor
    /// `OrderInquiry` + `TxnHistory`): `line` is the first read (the order's line, or the
    /// status that ends the query); when it does not settle the state alone, `history` is
    /// the second request, whose answer `read` turns into entries (or the code of a failed
    /// read: unavailable) and `combine` adds to the line.
    pub async fn status_with_history<'r, L, H>(
        &self,
        line: Result<L, BankStatus>,
        history: Option<P::Request<'r>>,
        read: impl FnOnce(&ReplyOf<'r, P>) -> Result<Vec<H>, String>,
        combine: impl FnOnce(&L, Option<&[H]>) -> BankStatus,
    ) -> BankStatus {
        let line = match line {
            Ok(line) => line,
            Err(st) => return st,
        };
        let Some(req) = history else {
            return combine(&line, None);
        };
        let entries = self
            .read_with(&req, |reply| {
                read(reply).map_err(|code| BankStatus::unavailable(&code))
            })
            .await;
        match entries {
            Ok(entries) => combine(&line, Some(&entries)),
            Err(st) => st,
        }
    }

    /// Sends a status request and reads the order's state.
    pub async fn status_of(&self, req: &P::Request<'_>) -> BankStatus {
        self.read_with(req, |reply| Ok(reply.status()))
            .await
            .unwrap_or_else(|st| st)
    }

    /// Sends a points inquiry and reads the balances.
    pub async fn inquire(&self, req: &P::Request<'_>) -> PointsResult {
        match self.call(req).await {
            Ok(reply) => reply.points(),
            Err(e) => {
                let (code, message) = e.code_and_message();
                PointsResult::Error { code, message }
            }
        }
    }

    /// The points inquiry through the protocol's single request for `op` (`Op::Points`).
    pub async fn inquire_with(&self, op: Op<'_>) -> PointsResult {
        match self.adapter.protocol.request(&self.cfg, op) {
            Ok(req) => self.inquire(&req).await,
            Err(refused) => refused.points(),
        }
    }

    /// The order's state through the protocol's single status request.
    pub async fn read_status(&self, order_id: &str) -> BankStatus {
        match self
            .adapter
            .protocol
            .request(&self.cfg, Op::Status { order_id })
        {
            Ok(req) => self.status_of(&req).await,
            Err(refused) => refused.status(),
        }
    }

    /// The second void of a captured pre-authorization on a protocol whose void reverses
    /// only the order's latest transaction: the first void (`first`, approved) reversed the
    /// capture and the hold is still open. The void is sent again once, if it and a read
    /// still fit the operation's budget (begun at `started`, [`StepRetry`]); its approval
    /// is the outcome. Otherwise `released` (a read of the order) decides: released, the
    /// cancel is done (`first`); not, or not sent, the outcome is unknown (the first void
    /// moved money, so never an error).
    pub async fn release_hold(
        &self,
        op: &BankOperation,
        started: Instant,
        first: BankOutcome,
        released: impl Future<Output = bool>,
    ) -> BankOutcome {
        let half_done = || BankOutcome::Unknown {
            reason: "the capture was reversed; the release of the pre-authorization's hold is \
                     not confirmed"
                .to_owned(),
        };
        if StepRetry::default()
            .wait_before(1, started, self.call_timeout())
            .is_none()
        {
            return half_done();
        }
        match self.operate(Op::Cancel(op)).await {
            approved @ BankOutcome::Approved { .. } => approved,
            _ if released.await => first,
            _ => half_done(),
        }
    }
}
