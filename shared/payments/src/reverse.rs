//! `POST /v1/payments/{id}/reverse`: one reversal that is a void or a refund, as
//! `paygate_domain::payment::reversal` decides from the payment and whether its account can
//! void. A void of a captured sale that the bank refuses as past its end-of-day cut falls
//! back, in the same request and once, to a full refund; nothing else does (an unknown void
//! ends the request unsettled, as any unknown operation), so money never moves twice.
//!
//! Each step is an ordinary operation (`run_keyed_operation`): reserved, sent, committed.
//! With an `Idempotency-Key`, the first step's reservation binds the key (to the void, or to
//! the refund when that is the only step). The fall-back refund cannot bind the key again; it
//! takes the id derived from the void's (`fallback_refund_id`), so a later request with the
//! key, bound to the void, finds it and is answered from it.

use paygate_domain::{
    payment::reversal::{fallback_refund_id, falls_back, plan_reversal, Reversal, ReversalPlan},
    Operation, PaymentId, TransactionType,
};

use crate::{
    auth::Principal,
    error::OpError,
    operate::{get_payment, run_keyed_operation, KeyAnswering, OperationDeps, OperationResult},
    RequestScope,
};

/// The edge's side of storing a keyed reversal's answer in its commit: a [`KeyAnswering`]
/// told, before each step, what the step answers as.
pub trait ReverseAnswering: KeyAnswering {
    /// The step about to run answers as `reversal`. With `fallback`, a void declined for the
    /// cut is not the request's answer (the refund's will be): nothing is rendered for it.
    fn step(&self, reversal: Reversal, fallback: bool);
}

/// A reversal's result: the last step's, and what the reversal became.
#[derive(Debug)]
pub struct Reversed {
    pub result: Result<OperationResult, OpError>,
    pub reversal: Reversal,
}

/// Runs a reversal of `amount` (absent: all of it) within the request's `scope`.
/// `Err`: refused before any step reached the bank.
pub async fn run_reverse(
    deps: &OperationDeps,
    principal: &Principal,
    id: &PaymentId,
    amount: Option<i64>,
    scope: RequestScope<'_>,
    answering: Option<&dyn ReverseAnswering>,
) -> Result<Reversed, OpError> {
    let payment = get_payment(deps.payments.as_ref(), principal, id).await?;
    let account = deps.banks.account_for_payment(&payment).await?;
    let can_void = deps.banks.supports(&account, Operation::Cancel);
    let plan = plan_reversal(&payment, amount, can_void)?;
    let keyed = RequestScope {
        answering: answering.map(|a| a as &dyn KeyAnswering),
        ..scope
    };
    let fallback = match plan {
        ReversalPlan::Refund { amount } => {
            let reversal = Reversal::REFUND;
            if let Some(a) = answering {
                a.step(reversal, false);
            }
            let result = Box::pin(run_keyed_operation(
                deps,
                principal,
                id,
                TransactionType::Refund,
                amount,
                keyed,
            ))
            .await;
            return Ok(Reversed { result, reversal });
        }
        ReversalPlan::Void { fallback } => fallback,
    };
    if let Some(a) = answering {
        a.step(Reversal::VOID, fallback);
    }
    let void = Box::pin(run_keyed_operation(
        deps,
        principal,
        id,
        TransactionType::Cancel,
        None,
        keyed,
    ))
    .await;
    // Only a void conclusively declined for the cut (nothing moved) goes on to a refund.
    let void_id = match &void {
        Err(OpError::Declined {
            transaction,
            after_cutoff,
            ..
        }) if fallback && (*after_cutoff || falls_back(transaction)) => transaction.id.clone(),
        _ => {
            return Ok(Reversed {
                result: void,
                reversal: Reversal::VOID,
            })
        }
    };
    let refund_id = fallback_refund_id(&void_id)
        .ok_or_else(|| OpError::Internal("no fall-back refund id".into()))?;
    tracing::info!(payment_id = %id, transaction_id = %void_id, refund_id = %refund_id,
        "void refused past the end-of-day cut; refunding instead");
    let reversal = Reversal::REFUND_AFTER_CUT;
    if let Some(a) = answering {
        a.step(reversal, false);
    }
    // The key is bound to the void: this step binds nothing and stores nothing in its
    // commit; the edge stores the request's answer (and a later request finds the refund by
    // its derived id).
    let refund_scope = RequestScope {
        claim: None,
        answering: None,
        transaction_id: Some(&refund_id),
        ..scope
    };
    let result = Box::pin(run_keyed_operation(
        deps,
        principal,
        id,
        TransactionType::Refund,
        // The full captured amount as read: if anything was refunded meanwhile, the refund
        // is refused rather than made smaller.
        Some(payment.captured_amount),
        refund_scope,
    ))
    .await;
    Ok(Reversed { result, reversal })
}
