//! Capture, cancel and refund: reserve → bank → commit.

use std::sync::Arc;

use paygate_domain::{
    idempotency::{KeyAnswer, KeyClaim, StoredResponse},
    metrics::{Metric, OperationOutcome},
    ports::{
        BankOperation, Clock, Expectation, IdGenerator, PaymentChange, PaymentReader, PaymentWriter,
    },
    BankOutcome, EventId, Note, Operation, Payment, PaymentId, PendingOperation, PosAccount,
    Settlement, StaleAfter, StoreError, Transaction, TransactionId, TransactionStatus,
    TransactionType,
};

use crate::{
    auth::Principal,
    bank_access::BankAccess,
    commit::{record_settlement_answered, Recorded, FIRST_BACKOFF, MAX_BACKOFF},
    deadline::Deadline,
    error::OpError,
    publish::EventSink,
};

/// How many times a lost reservation race is re-read and re-decided before giving up.
const RESERVE_ATTEMPTS: usize = 4;

/// The ports a money-moving operation needs.
pub struct OperationDeps {
    pub payments: Arc<dyn PaymentStore>,
    /// The payment's POS account and its bank.
    pub banks: BankAccess,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
    /// Where committed events go next (the events queue).
    pub events: EventSink,
    /// How long an operation may stay in flight before it counts as stale (its outcome
    /// unknown, settled from the bank's records).
    pub stale_after: StaleAfter,
    /// How long after its creation a `pending` payment the bank has no record of stays
    /// pending (`PAYGATE_PENDING_NOT_FOUND_GRACE_MS`).
    pub pending_grace: paygate_domain::PendingGrace,
}

/// Read and write access to payments.
pub trait PaymentStore: PaymentReader + PaymentWriter {}
impl<T: PaymentReader + PaymentWriter> PaymentStore for T {}

/// A successful operation: the payment after it and the transaction it produced.
#[derive(Debug)]
pub struct OperationResult {
    pub payment: Payment,
    pub transaction: Transaction,
}

/// Reads a payment the principal may see: its merchant's, in its mode. Anything else is
/// indistinguishable from a payment that does not exist.
pub async fn get_payment(
    payments: &dyn PaymentReader,
    principal: &Principal,
    id: &PaymentId,
) -> Result<Payment, OpError> {
    payments
        .get_payment(id)
        .await?
        .filter(|p| p.merchant_id == principal.merchant_id && p.mode == principal.mode)
        .ok_or(OpError::NotFound("payment"))
}

fn operation_of(kind: TransactionType) -> Operation {
    match kind {
        TransactionType::Capture => Operation::Capture,
        TransactionType::Cancel => Operation::Cancel,
        TransactionType::Refund => Operation::Refund,
    }
}

/// Runs a capture, cancel or refund end to end (a request without an `Idempotency-Key`).
pub async fn run_operation(
    deps: &OperationDeps,
    principal: &Principal,
    id: &PaymentId,
    kind: TransactionType,
    amount: Option<i64>,
) -> Result<OperationResult, OpError> {
    run_keyed_operation(deps, principal, id, kind, amount, RequestScope::default()).await
}

/// What one request brings to an operation besides its content: the `Idempotency-Key` claim
/// its reservation binds, how its answer is stored on the key, and its deadline.
#[derive(Clone, Copy, Default)]
pub struct RequestScope<'a> {
    /// With a key: the reservation binds it to the reserved transaction in the same atomic
    /// write, so that no later request with the key can plan a second movement.
    pub claim: Option<&'a KeyClaim>,
    /// With a key: the answer the operation gives once settled, stored on the key in the
    /// commit's own write (no write of the key's own afterwards) — see [`KeyAnswering`].
    pub answering: Option<&'a dyn KeyAnswering>,
    /// Nothing is reserved or sent unless the time left covers the bank's budget and the
    /// write of its answer (`OpError::NoTimeLeft`), and that write stops retrying in time.
    pub deadline: Option<Deadline>,
    /// What the merchant records on the transaction (a cancel's or refund's reason,
    /// description, metadata): written with the reservation, so the transaction carries it
    /// from its first record on.
    pub note: Option<&'a Note>,
    /// The id the reserved transaction takes instead of a generated one (a reversal's
    /// fall-back refund, found again by its void's id: `paygate_domain::payment::reversal`).
    pub transaction_id: Option<&'a TransactionId>,
}

impl std::fmt::Debug for RequestScope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestScope")
            .field("claim", &self.claim)
            .field("answering", &self.answering.is_some())
            .field("deadline", &self.deadline)
            .field("note", &self.note.is_some())
            .field("transaction_id", &self.transaction_id)
            .finish()
    }
}

/// The edge's side of storing a keyed operation's answer in its commit: what the answer to
/// a settled operation is, as the edge would send and store it.
pub trait KeyAnswering: Send + Sync {
    /// The answer to store for `result` (what [`settled_answer`] says the operation answers
    /// when its commit is ours); `None` when it is not stored (it leaves the operation
    /// unsettled, or it is an answer that releases the key).
    fn render(&self, result: &Result<OperationResult, OpError>) -> Option<StoredResponse>;
    /// Called once the commit stored the rendered answer on the key: the edge must not
    /// store an answer of its own for this request.
    fn stored(&self);
}

/// Runs a capture, cancel or refund end to end within the request's `scope`.
pub async fn run_keyed_operation(
    deps: &OperationDeps,
    principal: &Principal,
    id: &PaymentId,
    kind: TransactionType,
    amount: Option<i64>,
    scope: RequestScope<'_>,
) -> Result<OperationResult, OpError> {
    let (reserved, txn, account) = reserve(deps, principal, id, kind, amount, scope).await?;
    let op = reserved
        .pending
        .as_ref()
        .ok_or_else(|| OpError::Internal("reservation lost".into()))?;
    let provider = deps.banks.provider(&account)?;
    let request = bank_request(&reserved, &txn, op);
    let outcome = match kind {
        TransactionType::Capture => provider.capture(&account, &request).await,
        TransactionType::Cancel => provider.cancel(&account, &request).await,
        TransactionType::Refund => provider.refund(&account, &request).await,
    };
    tracing::info!(
        payment_id = %reserved.id,
        transaction_id = %txn.id,
        operation = kind.as_str(),
        amount = op.amount,
        outcome = outcome_name(&outcome),
        "bank answered"
    );
    let mut settlement = reserved.settle(
        &txn,
        &outcome,
        EventId::generate(deps.ids.as_ref()),
        deps.clock.now(),
    )?;
    settlement.transaction = settlement
        .transaction
        .with_decline_code(provider.decline_code(&outcome));
    // A keyed request's answer, if ours commits, rides in the commit's write.
    let key_answer = match (scope.claim, scope.answering) {
        (Some(claim), Some(answering)) => answering
            .render(&settled_answer(
                settlement.payment.clone(),
                settlement.transaction.clone(),
                &outcome,
            ))
            .map(|response| KeyAnswer {
                key: claim.key.clone(),
                transaction_id: txn.id.clone(),
                response,
            }),
        _ => None,
    };
    // Boxed: the commit's retry loop is a large future; kept off the polling stack.
    let result = Box::pin(commit_answered(
        deps,
        &reserved,
        settlement,
        scope.deadline,
        key_answer.as_ref(),
    ))
    .await
    .and_then(|((payment, transaction), stored)| {
        if stored {
            if let Some(answering) = scope.answering {
                answering.stored();
            }
        }
        settled_answer(payment, transaction, &outcome)
    });
    report(deps, kind.as_str(), &result, |_| OperationOutcome::Approved);
    result
}

/// Reports how an operation that reached the bank ended (`Metric::Operation`): `ok` names
/// a success's outcome; a refusal before the bank (404, validation) is not an operation.
pub(crate) fn report<T>(
    deps: &OperationDeps,
    operation: &'static str,
    result: &Result<T, OpError>,
    ok: impl Fn(&T) -> OperationOutcome,
) {
    let outcome = match result {
        Ok(v) => ok(v),
        Err(OpError::Declined { .. }) => OperationOutcome::Declined,
        Err(OpError::Provider { transaction, .. })
            if transaction.status == TransactionStatus::Unknown =>
        {
            OperationOutcome::Unknown
        }
        Err(OpError::NotRecorded { .. }) => OperationOutcome::NotRecorded,
        Err(OpError::Provider { .. } | OpError::Internal(_)) => OperationOutcome::Error,
        Err(_) => return,
    };
    deps.banks
        .providers
        .metrics()
        .emit(Metric::Operation { operation, outcome });
}

/// What the bank is asked to do for the operation reserved on `reserved`.
pub(crate) fn bank_request(
    reserved: &Payment,
    txn: &Transaction,
    op: &PendingOperation,
) -> BankOperation {
    BankOperation {
        order_id: reserved.order_id.clone(),
        transaction_id: txn.id.clone(),
        amount: op.amount,
        currency: reserved.currency,
        full: reserved.is_full(op.kind, op.amount),
    }
}

/// Records the bank's answer (retried until known) and hands its event to the queue.
/// Returns the payment and transaction as recorded — ours, or, when someone else settled
/// the operation first, theirs.
pub(crate) async fn commit(
    deps: &OperationDeps,
    reserved: &Payment,
    settlement: Settlement,
    deadline: Option<Deadline>,
) -> Result<(Payment, Transaction), OpError> {
    commit_answered(deps, reserved, settlement, deadline, None)
        .await
        .map(|(recorded, _)| recorded)
}

/// [`commit`], with a keyed request's `answer` stored in the same write when the store can;
/// the flag says whether it was (see [`record_settlement_answered`]).
async fn commit_answered(
    deps: &OperationDeps,
    reserved: &Payment,
    settlement: Settlement,
    deadline: Option<Deadline>,
    answer: Option<&KeyAnswer>,
) -> Result<((Payment, Transaction), bool), OpError> {
    let until = deadline.map(|d| d.commit_until());
    let recorded =
        record_settlement_answered(deps.payments.as_ref(), reserved, &settlement, until, answer)
            .await;
    match recorded {
        Ok((Recorded::Ours, stored)) => {
            if let Some(event) = &settlement.event {
                deps.events.after_commit(event).await;
            }
            Ok(((settlement.payment, settlement.transaction), stored))
        }
        Ok((
            Recorded::Theirs {
                payment,
                transaction,
            },
            _,
        )) => {
            tracing::info!(payment_id = %reserved.id, transaction_id = %transaction.id,
                status = transaction.status.as_str(), "the operation was settled by another request");
            Ok(((*payment, *transaction), false))
        }
        Err(e) => {
            // The bank has answered but the answer could not be recorded. The reservation
            // stays; once stale the reconciler settles it from the bank's records.
            tracing::error!(payment_id = %reserved.id, transaction_id = %settlement.transaction.id,
                error = %e, "could not record the bank's answer; left to the reconciler");
            Err(OpError::NotRecorded {
                transaction_id: settlement.transaction.id,
            })
        }
    }
}

/// The merchant's answer from the recorded transaction. When someone else recorded it, their
/// record decides; otherwise the bank's answer (the two agree on the status).
pub fn settled_answer(
    payment: Payment,
    transaction: Transaction,
    outcome: &BankOutcome,
) -> Result<OperationResult, OpError> {
    let after_cutoff = matches!(
        outcome,
        BankOutcome::Declined {
            after_cutoff: true,
            ..
        }
    );
    match transaction.status {
        TransactionStatus::Approved => Ok(OperationResult {
            payment,
            transaction,
        }),
        TransactionStatus::Declined => Err(OpError::Declined {
            payment: Box::new(payment),
            transaction: Box::new(transaction),
            after_cutoff,
        }),
        TransactionStatus::Failed | TransactionStatus::Unknown | TransactionStatus::Pending => {
            Err(OpError::Provider {
                payment: Box::new(payment),
                transaction: Box::new(transaction),
            })
        }
    }
}

/// Decides and reserves, re-reading after a lost race. A reservation whose answer was lost
/// is found by reading back (nothing has moved yet, so trying again is safe).
async fn reserve(
    deps: &OperationDeps,
    principal: &Principal,
    id: &PaymentId,
    kind: TransactionType,
    amount: Option<i64>,
    scope: RequestScope<'_>,
) -> Result<(Payment, Transaction, PosAccount), OpError> {
    let mut payment = get_payment(deps.payments.as_ref(), principal, id).await?;
    let account = deps.banks.account_for_payment(&payment).await?;
    let operation = operation_of(kind);
    deps.banks.ensure_supports(&account, operation)?;
    deps.banks.ensure_time_for_bank(scope.deadline)?;
    if !deps.banks.supports(&account, Operation::Query) {
        // An operation the bank leaves unanswered could never be settled on this account.
        return Err(OpError::NotSettleable {
            operation,
            account_id: account.id.to_string(),
        });
    }
    let mut backoff = FIRST_BACKOFF;
    for _ in 0..RESERVE_ATTEMPTS {
        let now = deps.clock.now();
        let planned = payment.plan(kind, amount, now, deps.stale_after)?;
        let txn_id = scope
            .transaction_id
            .cloned()
            .unwrap_or_else(|| TransactionId::generate(deps.ids.as_ref()));
        let reserved = payment.reserve(planned, txn_id.clone(), now);
        let mut txn = Transaction::pending(
            txn_id,
            payment.id.clone(),
            kind,
            planned.amount,
            payment.currency,
            now,
        );
        if let Some(note) = scope.note {
            txn = txn.with_note(note);
        }
        let expect = Expectation::Version {
            version: payment.version,
            status: payment.status,
            no_pending: true,
            min_refundable: (kind == TransactionType::Refund).then_some(planned.amount),
        };
        let change = PaymentChange {
            payment: reserved.clone(),
            expect,
            transaction: Some(txn.clone()),
            event: None,
        };
        let saved = match scope.claim {
            Some(claim) => deps.payments.save_bound(change, claim).await,
            None => deps.payments.save(change).await,
        };
        let stored = match saved {
            Ok(()) => return Ok((reserved, txn, account)),
            // Another request took the key over: nothing was written, nothing moved.
            Err(StoreError::KeyClaimLost) => return Err(OpError::KeyTakenOver),
            Err(StoreError::Conflict {
                current: Some(now_stored),
            }) => *now_stored,
            Err(StoreError::Conflict { current: None }) => {
                get_payment(deps.payments.as_ref(), principal, id).await?
            }
            Err(e @ StoreError::Unavailable(_)) => {
                tracing::warn!(payment_id = %id, error = %e, "reservation failed; reading back");
                let stored = get_payment(deps.payments.as_ref(), principal, id).await?;
                if stored.version == payment.version {
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
                stored
            }
            Err(e) => return Err(e.into()),
        };
        if stored.version == reserved.version && stored.pending == reserved.pending {
            // Our reservation applied; its answer was lost (or a retry of it then failed
            // its own condition).
            return Ok((stored, txn, account));
        }
        payment = stored;
    }
    Err(OpError::Contended)
}

fn outcome_name(o: &BankOutcome) -> &'static str {
    match o {
        BankOutcome::Approved { .. } => "approved",
        BankOutcome::Declined { .. } => "declined",
        BankOutcome::Error { .. } => "error",
        BankOutcome::Unknown { .. } => "unknown",
    }
}

#[cfg(test)]
mod tests;
