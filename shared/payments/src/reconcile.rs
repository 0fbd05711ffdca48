//! Settling a payment from the bank's records: an operation whose outcome is unknown (or
//! whose reservation went stale), a half-done two-step cancel, and a `pending` payment. The
//! merchant's `query` and the scheduled reconciler both come here, so they settle alike.

use paygate_domain::{
    ports::{Expectation, PaymentChange, PosProvider},
    BankStatus, EventId, Operation, Payment, PosAccount, StatusVerdict, StoreError,
};

use crate::{
    commit::{FIRST_BACKOFF, MAX_BACKOFF},
    error::OpError,
    operate::{bank_request, commit, OperationDeps},
};

/// Writes of a finalized pending payment tried before giving up until the next query.
const FINALIZE_ATTEMPTS: u32 = 4;

/// What reconciling one payment found and did.
#[derive(Debug)]
pub struct Reconciled {
    /// The payment as it is now.
    pub payment: Payment,
    /// The bank's answer to the status query.
    pub bank: BankStatus,
    /// Whether the payment still needs settling (the answer was not conclusive yet).
    pub unsettled: bool,
}

/// Whether `payment` is something the reconciler has to settle at `now` (an operation in
/// flight only once `stale`).
pub fn needs_settling(
    payment: &Payment,
    now: paygate_domain::Timestamp,
    stale: paygate_domain::StaleAfter,
) -> bool {
    payment.unsettled(now, stale).is_some()
        || (payment.status == paygate_domain::PaymentStatus::Pending && payment.pending.is_none())
}

/// Queries the bank for `payment` and settles what the answer settles.
pub async fn reconcile_payment(
    deps: &OperationDeps,
    payment: Payment,
) -> Result<Reconciled, OpError> {
    let account = deps.banks.account_for_payment(&payment).await?;
    deps.banks.ensure_supports(&account, Operation::Query)?;
    let provider = deps.banks.provider(&account)?;
    let bank = provider.query(&account, &payment.order_id).await;
    let now = deps.clock.now();
    let (payment, resumed) = if payment.unsettled(now, deps.stale_after).is_some() {
        settle_operation(deps, provider.as_ref(), &account, payment, &bank).await?
    } else {
        (finalize(deps, payment, &bank).await?, false)
    };
    // A resumed cancel changed the order at the bank after the read above: the answer shows
    // a fresh read (the first one stays when the bank cannot be read now).
    let bank = if resumed {
        let again = provider.query(&account, &payment.order_id).await;
        if again.is_conclusive() {
            again
        } else {
            bank
        }
    } else {
        bank
    };
    let unsettled = needs_settling(&payment, deps.clock.now(), deps.stale_after);
    Ok(Reconciled {
        payment,
        bank,
        unsettled,
    })
}

async fn settle_operation(
    deps: &OperationDeps,
    provider: &dyn PosProvider,
    account: &PosAccount,
    payment: Payment,
    bank: &BankStatus,
) -> Result<(Payment, bool), OpError> {
    let Some(op) = payment.pending.clone() else {
        return Ok((payment, false));
    };
    let txn = deps
        .payments
        .get_transaction(&payment.id, &op.transaction_id)
        .await?
        .ok_or_else(|| OpError::Internal("pending transaction missing".into()))?;
    let event_id = EventId::generate(deps.ids.as_ref());
    let now = deps.clock.now();
    let settlement = match payment.settle_from_status(&txn, bank, event_id.clone(), now)? {
        StatusVerdict::Wait => return Ok((payment, false)),
        StatusVerdict::Settled(s) => (*s, false),
        StatusVerdict::ResumeCancel => {
            // The capture is reversed, the authorization still held: finish the cancel. The
            // adapters' cancel reads the order first and sends only the missing reversal.
            let outcome = provider
                .cancel(account, &bank_request(&payment, &txn, &op))
                .await;
            tracing::info!(payment_id = %payment.id, transaction_id = %txn.id,
                "resumed a half-done cancel");
            (
                payment.settle(&txn, &outcome, event_id, deps.clock.now())?,
                true,
            )
        }
    };
    let (settlement, resumed) = settlement;
    tracing::info!(payment_id = %payment.id, transaction_id = %txn.id,
        status = settlement.transaction.status.as_str(), "settled an unknown operation");
    let (payment, _) = commit(deps, &payment, settlement).await?;
    Ok((payment, resumed))
}

/// Finalizes a pending payment; a lost answer or a race is resolved by reading back.
async fn finalize(
    deps: &OperationDeps,
    payment: Payment,
    bank: &BankStatus,
) -> Result<Payment, OpError> {
    let event_id = EventId::generate(deps.ids.as_ref());
    let Some((next, event)) =
        payment.finalize_pending(bank, event_id, deps.clock.now(), deps.pending_grace)
    else {
        return Ok(payment);
    };
    let change = PaymentChange {
        payment: next.clone(),
        expect: Expectation::over(&payment),
        transaction: None,
        event: Some(event.clone()),
    };
    let mut backoff = FIRST_BACKOFF;
    for _ in 0..FINALIZE_ATTEMPTS {
        let failed = match deps.payments.save(change.clone()).await {
            Ok(()) => {
                deps.events.after_commit(&event).await;
                return Ok(next);
            }
            Err(e) => e,
        };
        let stored = deps
            .payments
            .get_payment(&payment.id)
            .await?
            .ok_or(OpError::NotFound("payment"))?;
        if stored == next {
            // Ours applied; the answer was lost. The event is in the outbox with it.
            deps.events.after_commit(&event).await;
            return Ok(next);
        }
        if stored.version != payment.version {
            // Someone else (another query, the reconciler) changed it first.
            return Ok(stored);
        }
        if !matches!(
            failed,
            StoreError::Unavailable(_) | StoreError::Conflict { .. }
        ) {
            return Err(failed.into());
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
    Err(OpError::Internal(
        "could not record a finalized pending payment".into(),
    ))
}
