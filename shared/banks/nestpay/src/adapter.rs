//! The Nestpay [`PosProvider`]: capture = `PostAuth`, cancel = `Void`, refund = `Credit`,
//! query = `ORDERSTATUS` (+ `ORDERHISTORY`), points = `MAXIPUANSORGU` where the account's
//! `pointsInquiry` flag allows it.
//!
//! Logging: operation kind, account, order id and the outcome class only — never a request
//! or response body (they hold the API password, and for points the card).

use std::sync::Arc;

use async_trait::async_trait;
use paygate_bankkit::{BankTransport, CallError, CredentialStore, TransportError};
use paygate_domain::{
    bank::{BankOutcome, BankState, BankStatus, CardDetails, PointsBalance, PointsResult},
    ports::{BankOperation, PosProvider, TestOrder, TestOrders},
    Currency, PosAccount, StoreError,
};

use crate::{
    credentials::{ApiCredentials, PointsInquiry},
    request::{self, CardFields, Request},
    response::{self, Reply, Verdict},
    status::{self, StatusAnswer},
    PROVIDER_CODE,
};

/// The code a `Void` refusal carries for "no sale eligible for void"; after the end-of-day
/// cut Nestpay refuses a void of a live sale the same way.
const NO_ELIGIBLE_SALE: &str = "CORE-2008";

/// Speaks Nestpay's `CC5Request` API for every account whose provider code is `nestpay`.
pub struct NestpayProvider {
    transport: BankTransport,
    creds: Arc<dyn CredentialStore>,
}

impl NestpayProvider {
    pub fn new(transport: BankTransport, creds: Arc<dyn CredentialStore>) -> Self {
        Self { transport, creds }
    }

    async fn credentials(&self, account: &PosAccount) -> Result<ApiCredentials, CallError> {
        let parse = ApiCredentials::from_account;
        paygate_bankkit::account_config(self.creds.as_ref(), &account.id, parse).await
    }

    /// Sends one request and reads the answer.
    async fn call(
        &self,
        creds: &ApiCredentials,
        account: &PosAccount,
        req: &Request<'_>,
    ) -> Result<Reply, CallError> {
        let body = request::encode(creds, req);
        let raw = self
            .transport
            .post(&creds.endpoint_url, request::CONTENT_TYPE, body)
            .await
            .map_err(|e| {
                tracing::warn!(provider = PROVIDER_CODE, account_id = %account.id, request = req.kind(),
                    error = %e, "nestpay call failed");
                CallError::Transport(e)
            })?;
        response::parse(&raw).map_err(|e| {
            tracing::warn!(provider = PROVIDER_CODE, account_id = %account.id, request = req.kind(),
                error = %e, "nestpay answer unreadable");
            CallError::Malformed(e)
        })
    }

    /// Runs a money-moving request and maps its answer.
    async fn operate(
        &self,
        account: &PosAccount,
        op: &BankOperation,
        req: &Request<'_>,
    ) -> BankOutcome {
        let creds = match self.credentials(account).await {
            Ok(c) => c,
            Err(e) => return call_error_outcome(e),
        };
        let outcome = match self.call(&creds, account, req).await {
            Ok(reply) => outcome_of(&reply),
            Err(e) => call_error_outcome(e),
        };
        tracing::info!(provider = PROVIDER_CODE, account_id = %account.id, order_id = %op.order_id,
            request = req.kind(), outcome = outcome_kind(&outcome), "nestpay operation");
        outcome
    }

    /// The full query: `ORDERSTATUS`, then `ORDERHISTORY` for sold or refunded orders.
    async fn status(
        &self,
        creds: &ApiCredentials,
        account: &PosAccount,
        order_id: &str,
    ) -> BankStatus {
        let reply = match self
            .call(creds, account, &Request::OrderStatus { order_id })
            .await
        {
            Ok(r) => r,
            Err(e) => return call_error_status(e),
        };
        let line = match status::read_status(&reply) {
            StatusAnswer::NotFound { code } => return BankStatus::not_found(&code),
            StatusAnswer::Failed { code } => return BankStatus::unavailable(&code),
            StatusAnswer::Found(line) => line,
        };
        if !status::needs_history(&line) {
            return status::combine(&line, None);
        }
        let reply = match self
            .call(creds, account, &Request::OrderHistory { order_id })
            .await
        {
            Ok(r) => r,
            Err(e) => return call_error_status(e),
        };
        match status::read_history(&reply) {
            Ok(history) => status::combine(&line, Some(&history)),
            Err(code) => BankStatus::unavailable(&code),
        }
    }
}

/// Maps an answer to a money-moving request.
fn outcome_of(reply: &Reply) -> BankOutcome {
    let code = reply.bank_code();
    let message = reply.message();
    match response::classify(reply) {
        Verdict::Approved => BankOutcome::Approved {
            code: reply.proc_return_code.trim().to_owned(),
            auth_code: non_empty(&reply.auth_code),
            rrn: non_empty(&reply.host_ref_num),
        },
        Verdict::Declined => BankOutcome::Declined {
            code,
            message,
            after_cutoff: false,
        },
        Verdict::Error => BankOutcome::Error { code, message },
        Verdict::Unknown => BankOutcome::Unknown {
            reason: format!("the bank's answer does not settle the outcome ({code}: {message})"),
        },
    }
}

fn call_error_outcome(e: CallError) -> BankOutcome {
    e.outcome()
}

fn call_error_status(e: CallError) -> BankStatus {
    e.status()
}

fn outcome_kind(o: &BankOutcome) -> &'static str {
    match o {
        BankOutcome::Approved { .. } => "approved",
        BankOutcome::Declined { .. } => "declined",
        BankOutcome::Error { .. } => "error",
        BankOutcome::Unknown { .. } => "unknown",
    }
}

fn non_empty(s: &str) -> Option<String> {
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_owned())
}

#[async_trait]
/// Supports every operation (the default); points inquiry additionally needs the account's
/// `pointsInquiry` flag.
impl PosProvider for NestpayProvider {
    fn code(&self) -> &'static str {
        PROVIDER_CODE
    }

    async fn capture(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let req = Request::PostAuth {
            order_id: &op.order_id,
            amount: op.amount,
        };
        self.operate(account, op, &req).await
    }

    async fn cancel(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let req = Request::Void {
            order_id: &op.order_id,
        };
        let outcome = self.operate(account, op, &req).await;
        // Nestpay answers a void after the end-of-day cut like any ineligible void; when
        // the order still holds a live, unrefunded sale, the cut is why (refund instead).
        match outcome {
            BankOutcome::Declined { code, message, .. } if code == NO_ELIGIBLE_SALE => {
                let after_cutoff = match self.credentials(account).await {
                    Ok(creds) => {
                        let st = self.status(&creds, account, &op.order_id).await;
                        st.found && st.state == BankState::Approved
                    }
                    Err(_) => false,
                };
                BankOutcome::Declined {
                    code,
                    message,
                    after_cutoff,
                }
            }
            other => other,
        }
    }

    async fn refund(&self, account: &PosAccount, op: &BankOperation) -> BankOutcome {
        let req = Request::Credit {
            order_id: &op.order_id,
            amount: op.amount,
            currency: op.currency,
        };
        self.operate(account, op, &req).await
    }

    async fn query(&self, account: &PosAccount, order_id: &str) -> BankStatus {
        let creds = match self.credentials(account).await {
            Ok(c) => c,
            Err(e) => return call_error_status(e),
        };
        let st = self.status(&creds, account, order_id).await;
        tracing::info!(provider = PROVIDER_CODE, account_id = %account.id, order_id = %order_id,
            found = st.found, state = st.state.as_str(), code = %st.code, "nestpay query");
        st
    }

    async fn points_inquiry(
        &self,
        account: &PosAccount,
        card: &CardDetails,
        currency: Currency,
    ) -> PointsResult {
        let creds = match self.credentials(account).await {
            Ok(c) => c,
            Err(e) => {
                return PointsResult::Error {
                    code: "config".to_owned(),
                    message: e.describe(),
                }
            }
        };
        let Some(PointsInquiry::MaxiPuan) = creds.points_inquiry() else {
            return PointsResult::Error {
                code: "points_inquiry_not_enabled".to_owned(),
                message: "this Nestpay account is not enabled for a points inquiry (credential `pointsInquiry`)"
                    .to_owned(),
            };
        };
        let Some(fields) = CardFields::from_card(card) else {
            return PointsResult::Declined {
                code: "invalid_card".to_owned(),
                message: "the card's expiry is not a valid month and year".to_owned(),
            };
        };
        let reply = match self
            .call(
                &creds,
                account,
                &Request::MaxiPuan {
                    card: &fields,
                    currency,
                },
            )
            .await
        {
            Ok(r) => r,
            Err(e) => {
                return PointsResult::Error {
                    code: "transport".to_owned(),
                    message: e.describe(),
                };
            }
        };
        let result = points_of(&reply);
        tracing::info!(provider = PROVIDER_CODE, account_id = %account.id, card = %card.masked(),
            ok = matches!(result, PointsResult::Ok { .. }), "nestpay points inquiry");
        result
    }

    fn test_orders(&self) -> Option<&dyn TestOrders> {
        Some(self)
    }
}

/// Maps a `MAXIPUANSORGU` answer.
fn points_of(reply: &Reply) -> PointsResult {
    match response::classify(reply) {
        Verdict::Approved => match response::maxipuan_minor(reply) {
            Some(minor) => PointsResult::Ok {
                balances: vec![PointsBalance {
                    name: "Maximum".to_owned(),
                    value: paygate_bankkit::amount::to_decimal(minor),
                    amount_minor: minor,
                }],
            },
            None => PointsResult::Error {
                code: "malformed".to_owned(),
                message: "approved answer without a MAXIPUAN balance".to_owned(),
            },
        },
        Verdict::Declined => PointsResult::Declined {
            code: reply.bank_code(),
            message: reply.message(),
        },
        Verdict::Error | Verdict::Unknown => PointsResult::Error {
            code: reply.bank_code(),
            message: reply.message(),
        },
    }
}

/// The simulator's admin route: `POST <endpointUrl>/_sim/orders` with the order and the
/// account's client id. A real bank has no such route; the failure is reported.
#[async_trait]
impl TestOrders for NestpayProvider {
    async fn register(&self, account: &PosAccount, order: &TestOrder) -> Result<(), StoreError> {
        let creds = self
            .credentials(account)
            .await
            .map_err(|_| StoreError::Corrupt("nestpay credentials unavailable".to_owned()))?;
        let mut body = serde_json::to_value(order)
            .map_err(|e| StoreError::Corrupt(format!("test order: {e}")))?;
        if let Some(map) = body.as_object_mut() {
            map.insert("clientId".to_owned(), creds.client_id.clone().into());
        }
        let url = format!("{}/_sim/orders", creds.endpoint_url.trim_end_matches('/'));
        let bytes = serde_json::to_vec(&body).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        match self.transport.post(&url, "application/json", bytes).await {
            Ok(_) => Ok(()),
            Err(TransportError::Http(409)) => Err(StoreError::AlreadyExists),
            Err(e) => Err(StoreError::Unavailable(format!(
                "the bank did not accept the test order (no simulator admin route?): {e}"
            ))),
        }
    }
}
