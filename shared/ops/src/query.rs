//! Live query at the bank: reports both states, settles an unknown operation and finalizes
//! a pending payment.

use paygate_domain::{
    ports::{Expectation, PaymentChange},
    BankStatus, EventId, Operation, Payment, PaymentId, StoreError,
};

use crate::{
    auth::Principal,
    error::OpError,
    operate::{account_of, get_payment, OperationDeps},
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
    let payment = get_payment(deps.payments.as_ref(), principal, id).await?;
    let account = account_of(deps.accounts.as_ref(), &payment).await?;
    if !deps.providers.supports(&account, Operation::Query) {
        return Err(OpError::Unsupported {
            operation: Operation::Query,
            account_id: account.id.to_string(),
        });
    }
    let provider = deps
        .providers
        .get(&account.provider_code)
        .ok_or_else(|| OpError::Internal("provider missing".into()))?;
    let bank = provider.query(&account, &payment.order_id).await;
    let now = deps.clock.now();
    let event_id = EventId::generate(deps.ids.as_ref());

    let change = if let Some(op) = payment.unsettled(now) {
        let txn = deps
            .payments
            .get_transaction(&payment.id, &op.transaction_id)
            .await?
            .ok_or_else(|| OpError::Internal("pending transaction missing".into()))?;
        match payment.settle_from_status(&txn, &bank, event_id, now) {
            Some(settled) => {
                let s = settled?;
                tracing::info!(payment_id = %payment.id, transaction_id = %txn.id,
                    status = s.transaction.status.as_str(), "query settled an unknown operation");
                Some(PaymentChange {
                    payment: s.payment,
                    expect: Expectation::over(&payment),
                    transaction: Some(s.transaction),
                    event: s.event,
                })
            }
            None => None,
        }
    } else {
        payment
            .finalize_pending(&bank, event_id, now)
            .map(|(next, event)| PaymentChange {
                payment: next,
                expect: Expectation::over(&payment),
                transaction: None,
                event: Some(event),
            })
    };

    let payment = match change {
        None => payment,
        Some(change) => {
            let next = change.payment.clone();
            let event = change.event.clone();
            match deps.payments.save(change).await {
                Ok(()) => {
                    if let Some(event) = &event {
                        deps.events.after_commit(event).await;
                    }
                    next
                }
                // Someone else changed it first (another query, or the operation's own
                // commit): report the payment as it is now.
                Err(StoreError::Conflict { .. }) => {
                    get_payment(deps.payments.as_ref(), principal, id).await?
                }
                Err(e) => return Err(e.into()),
            }
        }
    };
    Ok(QueryResult { payment, bank })
}
