//! Settling a payment from the bank's records: an operation whose outcome is unknown (or
//! whose reservation went stale), a half-done two-step cancel, and a `pending` payment. The
//! merchant's `query` and the scheduled reconciler both come here, so they settle alike.

use paygate_domain::{
    metrics::Metric,
    payment::resumed_cancel_outcome,
    ports::{Expectation, PaymentChange, PosProvider},
    BankStatus, EventId, ExternalVerdict, Operation, Payment, PosAccount, StatusVerdict,
    StoreError, TransactionType,
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
    reconcile_payment_until(deps, payment, None).await
}

/// [`reconcile_payment`] within `deadline`: a half-done cancel is resumed at the bank only
/// when the time left covers the call and its commit (otherwise it stays for the next try).
pub async fn reconcile_payment_until(
    deps: &OperationDeps,
    payment: Payment,
    deadline: Option<crate::Deadline>,
) -> Result<Reconciled, OpError> {
    let account = deps.banks.account_for_payment(&payment).await?;
    deps.banks.ensure_supports(&account, Operation::Query)?;
    let provider = deps.banks.provider(&account)?;
    let bank = provider.query(&account, &payment.order_id).await;
    let now = deps.clock.now();
    let (payment, resumed) = if payment.unsettled(now, deps.stale_after).is_some() {
        settle_operation(deps, provider.as_ref(), &account, payment, &bank, deadline).await?
    } else if payment.status == paygate_domain::PaymentStatus::Pending {
        (finalize(deps, payment, &bank).await?, false)
    } else {
        // Nothing of ours to settle: a refund or cancel made at the bank without us is
        // recorded (an operation of ours in flight records nothing: `external_from_status`).
        // Boxed: kept off the polling stack (money-path futures are large).
        (
            Box::pin(record_external(deps, payment, &bank)).await?,
            false,
        )
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
    deadline: Option<crate::Deadline>,
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
            // The capture is reversed, the authorization still held: finish the cancel. Only
            // the holder of a claim written on the payment sends the missing step, so a query
            // and the reconciler never both do; the adapters' cancel reads the order first
            // and sends only what is missing.
            if deps.banks.ensure_time_for_bank(deadline).is_err() {
                return Ok((payment, false));
            }
            let Some(claimed) = claim_resume(deps, &payment).await? else {
                return Ok((payment, false));
            };
            let outcome = provider
                .cancel(account, &bank_request(&claimed, &txn, &op))
                .await;
            tracing::info!(payment_id = %payment.id, transaction_id = %txn.id,
                approved = matches!(outcome, paygate_domain::BankOutcome::Approved { .. }),
                "resumed a half-done cancel");
            // Anything but an approval leaves the cancel unknown, never "not done".
            let outcome = resumed_cancel_outcome(outcome);
            let settlement = claimed.settle(&txn, &outcome, event_id, deps.clock.now())?;
            let (payment, _) = commit(deps, &claimed, settlement, deadline).await?;
            return Ok((payment, true));
        }
    };
    let (settlement, resumed) = settlement;
    tracing::info!(payment_id = %payment.id, transaction_id = %txn.id,
        status = settlement.transaction.status.as_str(), "settled an unknown operation");
    let (payment, _) = commit(deps, &payment, settlement, deadline).await?;
    Ok((payment, resumed))
}

/// Writes the claim to resume `payment`'s half-done cancel, conditionally on its version.
/// `None` when another claim holds, someone else changed the payment first, or the write's
/// outcome is unknown (a lost answer's claim simply runs out; the next try resumes).
async fn claim_resume(deps: &OperationDeps, payment: &Payment) -> Result<Option<Payment>, OpError> {
    let Some(claimed) = payment.claim_resume(deps.clock.now()) else {
        tracing::info!(payment_id = %payment.id, "another query or the reconciler is resuming this cancel");
        return Ok(None);
    };
    let change = PaymentChange {
        payment: claimed.clone(),
        expect: Expectation::over(payment),
        transaction: None,
        event: None,
    };
    match deps.payments.save(change).await {
        Ok(()) => Ok(Some(claimed)),
        Err(e) => {
            tracing::info!(payment_id = %payment.id, error = %e, "the claim to resume a cancel was not taken");
            Ok(None)
        }
    }
}

/// Records what `bank` shows refunded or cancelled at the bank beyond what `payment` records
/// (an `external` transaction, its event in the outbox), in one write conditional on the
/// version read before the bank was asked, with no operation reserved and the refundable
/// amount still covering it. A lost answer is resolved by reading back; anyone else's change
/// first (an operation reserved meanwhile, another query recording the same) means nothing is
/// recorded now: the next query decides again over the new record.
async fn record_external(
    deps: &OperationDeps,
    payment: Payment,
    bank: &BankStatus,
) -> Result<Payment, OpError> {
    let settlement = match payment.external_from_status(bank, deps.ids.as_ref(), deps.clock.now()) {
        ExternalVerdict::Record(s) => *s,
        ExternalVerdict::Inconsistent => {
            deps.banks
                .providers
                .metrics()
                .emit(Metric::ExternalOperation {
                    operation: if bank.state == paygate_domain::BankState::Cancelled {
                        "cancel"
                    } else {
                        "refund"
                    },
                    recorded: false,
                });
            tracing::warn!(payment_id = %payment.id, bank_state = ?bank.state,
                bank_refunded = bank.refunded_amount, refunded = payment.refunded_amount,
                "the bank shows a refund or cancel this service cannot record; left to reconciliation");
            return Ok(payment);
        }
        ExternalVerdict::Agrees | ExternalVerdict::Wait => return Ok(payment),
    };
    let Some(event) = settlement.event.clone() else {
        return Ok(payment);
    };
    let next = settlement.payment.clone();
    let recorded = || {
        deps.banks
            .providers
            .metrics()
            .emit(Metric::ExternalOperation {
                operation: settlement.transaction.kind.as_str(),
                recorded: true,
            });
    };
    let change = PaymentChange {
        payment: next.clone(),
        expect: Expectation::Version {
            version: payment.version,
            status: payment.status,
            no_pending: true,
            min_refundable: (settlement.transaction.kind == TransactionType::Refund)
                .then_some(settlement.transaction.amount),
        },
        transaction: Some(settlement.transaction.clone()),
        event: Some(event.clone()),
    };
    let mut backoff = FIRST_BACKOFF;
    for _ in 0..FINALIZE_ATTEMPTS {
        let failed = match deps.payments.save(change.clone()).await {
            Ok(()) => {
                tracing::info!(payment_id = %payment.id, transaction_id = %settlement.transaction.id,
                    operation = settlement.transaction.kind.as_str(), amount = settlement.transaction.amount,
                    "recorded an operation made at the bank without us");
                recorded();
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
            recorded();
            deps.events.after_commit(&event).await;
            return Ok(next);
        }
        if stored.version != payment.version {
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
    // Nothing known to be recorded; the next query or reconciliation looks again.
    Ok(payment)
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
