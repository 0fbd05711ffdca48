//! A keyed money operation's answer: as its commit stores it on the key ([`CommitAnswer`]),
//! and as a later request with the key bound to its transaction is answered from the records
//! ([`bound_answer`]).

use lambda_http::{http::StatusCode, Request};
use paygate_domain::{idempotency::Binding, payment::reversal::Reversal, Lang, Transaction};
use paygate_payments::{
    operate::get_payment, KeyAnswering, OpError, OperationDeps, OperationResult,
};

use super::{caller, operation_response, request_lang, OperationBody, OperationError};
use crate::{
    error::ApiError,
    idempotency::{stored_answer, BoundAnswer},
    respond::respond,
};

/// A keyed operation's answer as its commit stores it on the key: rendered exactly as
/// [`keyed_money_operation`] answers, and stored under the same rule (`stored_answer`).
/// (`.1`: the request's language, as its live answer is given; `.2`: a reverse's step, what
/// it answers as and whether a void declined for the cut falls back, `crate::reverse`.)
#[derive(Default)]
pub(crate) struct CommitAnswer(
    pub(crate) std::sync::atomic::AtomicBool,
    pub(crate) Lang,
    pub(crate) std::sync::Mutex<Option<(Reversal, bool)>>,
);

impl CommitAnswer {
    pub(crate) fn new(lang: Lang) -> Self {
        Self(Default::default(), lang, Default::default())
    }

    pub(crate) fn was_stored(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn reverse_step(&self) -> Option<(Reversal, bool)> {
        *self
            .2
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl paygate_payments::ReverseAnswering for CommitAnswer {
    fn step(&self, reversal: Reversal, fallback: bool) {
        *self
            .2
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some((reversal, fallback));
    }
}

impl KeyAnswering for CommitAnswer {
    fn render(
        &self,
        result: &Result<OperationResult, OpError>,
    ) -> Option<paygate_domain::idempotency::StoredResponse> {
        let step = self.reverse_step();
        if let (
            Some((_, true)),
            Err(OpError::Declined {
                transaction,
                after_cutoff,
                ..
            }),
        ) = (step, result)
        {
            // A reverse's void refused for the cut: the fall-back refund answers the request.
            if *after_cutoff || paygate_domain::payment::reversal::falls_back(transaction) {
                return None;
            }
        }
        let owned = match result {
            Ok(r) => Ok(OperationBody {
                payment: r.payment.view(),
                transaction: r.transaction.clone(),
                reversal: step.map(|(r, _)| r),
            }),
            // What a settled commit answers besides success (`settled_answer`).
            Err(OpError::Declined {
                payment,
                transaction,
                after_cutoff,
            }) => Err(OpError::Declined {
                payment: payment.clone(),
                transaction: transaction.clone(),
                after_cutoff: *after_cutoff,
            }),
            Err(OpError::Provider {
                payment,
                transaction,
            }) => Err(OpError::Provider {
                payment: payment.clone(),
                transaction: transaction.clone(),
            }),
            Err(_) => return None,
        };
        let unsettled = matches!(&owned, Err(e) if e.leaves_unsettled());
        if unsettled {
            return None;
        }
        stored_answer(&operation_response(owned.map_err(|e| OperationError {
            unsettled: false,
            error: ApiError::from(e).localized(self.1),
        })))
    }

    fn stored(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The answer to a request whose `Idempotency-Key` is bound to the transaction an earlier
/// request with it reserved: that transaction's answer once it is settled (as the first
/// request would have answered), `409` while it is pending or its outcome unknown. Nothing
/// is sent to the bank.
pub async fn bound_answer(ops: &OperationDeps, req: &Request, binding: Binding) -> BoundAnswer {
    match bound_answer_inner(ops, req, &binding).await {
        Ok(answer) => answer,
        Err(e) => BoundAnswer::Open(e.into_response()),
    }
}

async fn bound_answer_inner(
    ops: &OperationDeps,
    req: &Request,
    binding: &Binding,
) -> Result<BoundAnswer, ApiError> {
    let (payment, transaction) = bound_transaction(ops, req, binding).await?;
    Ok(transaction_answer(ops, req, payment, transaction, None))
}

/// The payment and the transaction a key is bound to.
pub(crate) async fn bound_transaction(
    ops: &OperationDeps,
    req: &Request,
    binding: &Binding,
) -> Result<(paygate_domain::Payment, Transaction), ApiError> {
    let who = caller(req)?;
    let payment = get_payment(ops.payments.as_ref(), &who, &binding.payment_id).await?;
    let transaction = ops
        .payments
        .get_transaction(&payment.id, &binding.transaction_id)
        .await
        .map_err(OpError::from)?
        .ok_or_else(|| OpError::Internal("a bound transaction is missing".into()))?;
    Ok((payment, transaction))
}

/// The answer a settled `transaction` gives (as its request would have answered, with a
/// reverse's `reversal`), or `409` while it is pending or unknown.
pub(crate) fn transaction_answer(
    ops: &OperationDeps,
    req: &Request,
    payment: paygate_domain::Payment,
    transaction: Transaction,
    reversal: Option<Reversal>,
) -> BoundAnswer {
    use paygate_domain::TransactionStatus as S;
    let lang = request_lang(req);
    let settled = |r: Result<OperationBody, ApiError>| {
        let r = r.map_err(|e| e.localized(lang));
        BoundAnswer::Settled(respond(StatusCode::OK, r))
    };
    match transaction.status {
        S::Approved => settled(Ok(OperationBody {
            payment: payment.view(),
            transaction,
            reversal,
        })),
        S::Declined => settled(Err(OpError::Declined {
            payment: Box::new(payment),
            transaction: Box::new(transaction),
            after_cutoff: false,
        }
        .into())),
        S::Failed => settled(Err(OpError::Provider {
            payment: Box::new(payment),
            transaction: Box::new(transaction),
        }
        .into())),
        S::Pending | S::Unknown => {
            let unknown = transaction.status == S::Unknown
                || payment
                    .unsettled(ops.clock.now(), ops.stale_after)
                    .is_some_and(|p| p.transaction_id == transaction.id);
            BoundAnswer::Open(ApiError::bound_unsettled(&transaction.id, unknown).into_response())
        }
    }
}
