//! Recording what the bank said: the write that follows a bank call.
//!
//! Once the bank has answered, its answer must be recorded — or be known to have been
//! recorded by someone else — before the merchant is told anything. A failed write is
//! therefore never taken at its word: a lost answer may have applied, a
//! `TransactionConflict` or a throttle applied nothing, and a failed condition may be our
//! own earlier attempt. Each failure is resolved by reading the payment back:
//!
//! * our transaction record is there, exactly as we wrote it → it committed (the answer was
//!   lost);
//! * the payment still carries our reservation at the version we reserved → nothing
//!   applied; write again, with backoff;
//! * anything else → someone else settled the operation (a query or the reconciler, after
//!   the reservation went stale): their record is the truth and is what we report.
//!
//! Retries stop after [`COMMIT_ATTEMPTS`]; the reservation then stays (it goes stale and the
//! reconciler settles it from the bank's records), and the caller says so.
//!
//! A keyed operation's answer can ride in the same write ([`record_settlement_answered`]).
//! It counts as stored only when the store said so; after an ambiguous failure (a write
//! found applied by reading back) the caller stores it itself, as without it. If the key
//! refuses it (no longer in flight and bound to this transaction: `KeyClaimLost`, nothing
//! written), the answer is dropped and the settlement written alone — the key never stands
//! in the way of recording what the bank said.

use std::time::Duration;

use paygate_domain::{
    idempotency::KeyAnswer,
    ports::{Expectation, PaymentChange, PaymentReader, PaymentWriter},
    Payment, Settlement, StoreError, Transaction,
};

/// Writes of a bank answer tried before giving up to the reconciler.
pub const COMMIT_ATTEMPTS: u32 = 8;
/// First backoff between commit attempts; doubled each time up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(50);
/// Longest backoff between commit attempts (8 attempts take ≤ ~4 s in all).
pub const MAX_BACKOFF: Duration = Duration::from_secs(1);

/// How a settlement ended up in the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// Our write is in the store (its event with it).
    Ours,
    /// Someone else settled the operation first; this is the payment and our transaction as
    /// they recorded them.
    Theirs {
        payment: Box<Payment>,
        transaction: Box<Transaction>,
    },
}

/// The write could not be confirmed within the attempts; the reservation stays.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the settlement could not be recorded: {last_error}")]
pub struct NotRecorded {
    pub last_error: String,
}

/// What a read-back says about a write we attempted.
enum ReadBack {
    Applied,
    StillReserved,
    SettledElsewhere(Box<Payment>, Box<Transaction>),
}

/// Writes `settlement` over `reserved` (the payment as we reserved it), retrying on any
/// failure for as long as the reservation is still ours, and resolving every ambiguous
/// answer by reading back.
pub async fn record_settlement<S>(
    store: &S,
    reserved: &Payment,
    settlement: &Settlement,
) -> Result<Recorded, NotRecorded>
where
    S: PaymentReader + PaymentWriter + ?Sized,
{
    record_settlement_until(store, reserved, settlement, None).await
}

/// [`record_settlement`], starting no attempt after `until` (the request's deadline less
/// what answering needs); the reservation then stays, as after the last attempt.
pub async fn record_settlement_until<S>(
    store: &S,
    reserved: &Payment,
    settlement: &Settlement,
    until: Option<tokio::time::Instant>,
) -> Result<Recorded, NotRecorded>
where
    S: PaymentReader + PaymentWriter + ?Sized,
{
    record_settlement_answered(store, reserved, settlement, until, None)
        .await
        .map(|(recorded, _)| recorded)
}

/// [`record_settlement_until`], with `answer` (the answer of the `Idempotency-Key` bound to
/// the settled transaction) stored in the same write when the store can. The flag says
/// whether it surely was: `true` only when the store answered that it wrote both.
pub async fn record_settlement_answered<S>(
    store: &S,
    reserved: &Payment,
    settlement: &Settlement,
    until: Option<tokio::time::Instant>,
    mut answer: Option<&KeyAnswer>,
) -> Result<(Recorded, bool), NotRecorded>
where
    S: PaymentReader + PaymentWriter + ?Sized,
{
    let change = PaymentChange {
        payment: settlement.payment.clone(),
        expect: Expectation::over(reserved),
        transaction: Some(settlement.transaction.clone()),
        event: settlement.event.clone(),
    };
    let mut backoff = FIRST_BACKOFF;
    let mut last_error = String::new();
    for attempt in 1..=COMMIT_ATTEMPTS {
        let saved = match answer {
            Some(a) => store.save_answered(change.clone(), a).await,
            None => store.save(change.clone()).await.map(|()| false),
        };
        match saved {
            Ok(answered) => return Ok((Recorded::Ours, answered)),
            Err(StoreError::KeyClaimLost) => {
                // Nothing was written (the key's condition failed in the same write): the
                // settlement goes on alone, at once; the caller stores the answer if it may.
                tracing::warn!(payment_id = %reserved.id, transaction_id = %settlement.transaction.id,
                    "the key's answer could not ride with the commit; recording the bank's answer alone");
                answer = None;
                last_error = StoreError::KeyClaimLost.to_string();
                continue;
            }
            Err(e) => {
                tracing::warn!(payment_id = %reserved.id, transaction_id = %settlement.transaction.id,
                    attempt, error = %e, "recording the bank's answer failed; reading back");
                last_error = e.to_string();
            }
        }
        match read_back(store, reserved, settlement).await {
            // Applied, by an attempt whose answer was lost: the caller stores the key's answer
            // itself (the same answer, written again if the attempt carried it).
            Ok(ReadBack::Applied) => return Ok((Recorded::Ours, false)),
            Ok(ReadBack::SettledElsewhere(payment, transaction)) => {
                return Ok((
                    Recorded::Theirs {
                        payment,
                        transaction,
                    },
                    false,
                ));
            }
            Ok(ReadBack::StillReserved) => {}
            Err(e) => {
                tracing::warn!(payment_id = %reserved.id, error = %e, "read-back failed");
                last_error = e.to_string();
            }
        }
        if attempt < COMMIT_ATTEMPTS {
            if until.is_some_and(|u| tokio::time::Instant::now() + backoff >= u) {
                tracing::warn!(payment_id = %reserved.id, attempt,
                    "no time left for another write of the bank's answer; left to the reconciler");
                break;
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }
    Err(NotRecorded { last_error })
}

async fn read_back<S>(
    store: &S,
    reserved: &Payment,
    settlement: &Settlement,
) -> Result<ReadBack, StoreError>
where
    S: PaymentReader + ?Sized,
{
    let ours = &settlement.transaction;
    let Some(now) = store.get_payment(&reserved.id).await? else {
        return Err(StoreError::Corrupt(format!(
            "payment {} vanished",
            reserved.id
        )));
    };
    let stored_txn = store.get_transaction(&reserved.id, &ours.id).await?;
    if now.version >= settlement.payment.version && stored_txn.as_ref() == Some(ours) {
        return Ok(ReadBack::Applied);
    }
    let still_ours = now.version == reserved.version
        && now
            .pending
            .as_ref()
            .is_some_and(|p| p.transaction_id == ours.id);
    if still_ours {
        return Ok(ReadBack::StillReserved);
    }
    let transaction = stored_txn.ok_or_else(|| {
        StoreError::Corrupt(format!("transaction {} missing after settlement", ours.id))
    })?;
    Ok(ReadBack::SettledElsewhere(
        Box::new(now),
        Box::new(transaction),
    ))
}
