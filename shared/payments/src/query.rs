//! Live query at the bank: reports both states, settles an unknown operation and finalizes
//! a pending payment (see [`crate::reconcile`]).

use paygate_domain::{metrics::OperationOutcome, BankState, BankStatus, Payment, PaymentId};

use crate::{
    auth::Principal,
    error::OpError,
    operate::{get_payment, report, OperationDeps},
    reconcile::reconcile_payment_until,
};

#[derive(Debug)]
pub struct QueryResult {
    pub payment: Payment,
    pub bank: BankStatus,
}

pub async fn query_payment(
    deps: &OperationDeps,
    principal: &Principal,
    id: &PaymentId,
) -> Result<QueryResult, OpError> {
    query_payment_until(deps, principal, id, None).await
}

/// [`query_payment`] within the request's `deadline` (a resumed cancel needs time).
pub async fn query_payment_until(
    deps: &OperationDeps,
    principal: &Principal,
    id: &PaymentId,
    deadline: Option<crate::Deadline>,
) -> Result<QueryResult, OpError> {
    let payment = get_payment(deps.payments.as_ref(), principal, id).await?;
    let result = reconcile_payment_until(deps, payment, deadline)
        .await
        .map(|r| QueryResult {
            payment: r.payment,
            bank: r.bank,
        });
    report(deps, "query", &result, |r| {
        if r.bank.found && r.bank.state == BankState::Unknown {
            OperationOutcome::Unknown
        } else {
            OperationOutcome::Approved
        }
    });
    result
}
