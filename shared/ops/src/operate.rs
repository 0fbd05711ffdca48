//! Capture, cancel and refund: reserve → bank → commit.

use std::sync::Arc;

use paygate_domain::{
    ports::{
        AccountLookup, BankOperation, Clock, Expectation, IdGenerator, PaymentChange,
        PaymentReader, PaymentWriter,
    },
    BankOutcome, EventId, Operation, Payment, PaymentId, PosAccount, StoreError, Transaction,
    TransactionId, TransactionType,
};

use crate::{auth::Principal, error::OpError, providers::Providers, publish::EventSink};

/// How many times a lost reservation race is re-read and re-decided before giving up.
const RESERVE_ATTEMPTS: usize = 4;

/// The ports a money-moving operation needs.
pub struct OperationDeps {
    pub payments: Arc<dyn PaymentStore>,
    pub accounts: Arc<dyn AccountLookup>,
    pub providers: Providers,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
    /// Where committed events go next (the events queue).
    pub events: EventSink,
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

/// The payment's POS account, of the payment's mode (else 404 `not_found`, logged).
pub(crate) async fn account_of(
    accounts: &dyn AccountLookup,
    payment: &Payment,
) -> Result<PosAccount, OpError> {
    crate::accounts::account_for_payment(accounts, payment).await
}

fn operation_of(kind: TransactionType) -> Operation {
    match kind {
        TransactionType::Capture => Operation::Capture,
        TransactionType::Cancel => Operation::Cancel,
        TransactionType::Refund => Operation::Refund,
    }
}

/// Runs a capture, cancel or refund end to end.
pub async fn run_operation(
    deps: &OperationDeps,
    principal: &Principal,
    id: &PaymentId,
    kind: TransactionType,
    amount: Option<i64>,
) -> Result<OperationResult, OpError> {
    let (reserved, txn, account) = reserve(deps, principal, id, kind, amount).await?;
    let op = reserved
        .pending
        .as_ref()
        .ok_or_else(|| OpError::Internal("reservation lost".into()))?;
    let provider = deps
        .providers
        .get(&account.provider_code)
        .ok_or_else(|| OpError::Internal("provider missing".into()))?;
    let request = BankOperation {
        order_id: reserved.order_id.clone(),
        transaction_id: txn.id.clone(),
        amount: op.amount,
        currency: reserved.currency,
        full: match kind {
            TransactionType::Capture => op.amount == reserved.amount,
            TransactionType::Cancel => true,
            TransactionType::Refund => op.amount == reserved.captured_amount,
        },
    };
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
    let now = deps.clock.now();
    let settlement = reserved.settle(&txn, &outcome, EventId::generate(deps.ids.as_ref()), now)?;
    let change = PaymentChange {
        payment: settlement.payment.clone(),
        expect: Expectation::over(&reserved),
        transaction: Some(settlement.transaction.clone()),
        event: settlement.event.clone(),
    };
    if let Err(e) = deps.payments.save(change).await {
        // The bank has answered but the answer is not recorded. The reservation stays; once
        // stale it is treated as unknown and `query` settles it from the bank's records.
        tracing::error!(payment_id = %reserved.id, transaction_id = %txn.id, error = %e,
            "could not record the bank's answer; left for query to settle");
        return Err(match e {
            StoreError::Conflict { .. } => OpError::Contended,
            other => OpError::from(other),
        });
    }
    if let Some(event) = &settlement.event {
        deps.events.after_commit(event).await;
    }
    let payment = Box::new(settlement.payment);
    let transaction = Box::new(settlement.transaction);
    match outcome {
        BankOutcome::Approved { .. } => Ok(OperationResult {
            payment: *payment,
            transaction: *transaction,
        }),
        BankOutcome::Declined { after_cutoff, .. } => Err(OpError::Declined {
            payment,
            transaction,
            after_cutoff,
        }),
        BankOutcome::Error { .. } | BankOutcome::Unknown { .. } => Err(OpError::Provider {
            payment,
            transaction,
        }),
    }
}

/// Decides and reserves, re-reading after a lost race.
async fn reserve(
    deps: &OperationDeps,
    principal: &Principal,
    id: &PaymentId,
    kind: TransactionType,
    amount: Option<i64>,
) -> Result<(Payment, Transaction, PosAccount), OpError> {
    let mut payment = get_payment(deps.payments.as_ref(), principal, id).await?;
    let account = account_of(deps.accounts.as_ref(), &payment).await?;
    let operation = operation_of(kind);
    if !deps.providers.supports(&account, operation) {
        return Err(OpError::Unsupported {
            operation,
            account_id: account.id.to_string(),
        });
    }
    for _ in 0..RESERVE_ATTEMPTS {
        let now = deps.clock.now();
        let planned = payment.plan(kind, amount, now)?;
        let txn_id = TransactionId::generate(deps.ids.as_ref());
        let reserved = payment.reserve(planned, txn_id.clone(), now);
        let txn = Transaction::pending(
            txn_id,
            payment.id.clone(),
            kind,
            planned.amount,
            payment.currency,
            now,
        );
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
        match deps.payments.save(change).await {
            Ok(()) => return Ok((reserved, txn, account)),
            Err(StoreError::Conflict {
                current: Some(now_stored),
            }) => payment = *now_stored,
            Err(StoreError::Conflict { current: None }) => {
                payment = get_payment(deps.payments.as_ref(), principal, id).await?;
            }
            Err(e) => return Err(e.into()),
        }
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
