//! `POST /v1/payments/{id}/reverse` (`{amount?, reason?, description?, metadata?}`, the
//! refund's body): a void or a refund, as `paygate_payments::run_reverse` decides and runs
//! it. The answer is the operation's (`payment`, `transaction`) plus `reversal`.
//!
//! Under an `Idempotency-Key` the key is bound to the first step's transaction. A later
//! request with the key is answered from it (`bound_reverse`): from the void, or — when the
//! void was declined and a fall-back refund (by the id derived from the void's) exists —
//! from that refund. A void refused for the cut with no refund behind it (the request ended
//! between the two steps: nothing moved) is refused with `409 invalid_state`, never refunded
//! by the retry: the merchant sends the reverse again with a new key.

use lambda_http::{http::StatusCode, Body, Request, Response};
use paygate_domain::{
    error::code,
    idempotency::{Binding, KeyClaim},
    payment::reversal::{fallback_refund_id, falls_back, Reversal},
    TransactionStatus, TransactionType,
};
use paygate_payments::{run_reverse, OpError, OperationDeps, RequestScope, ReverseAnswering};

use crate::{
    error::ApiError,
    handlers::{
        answered_response, bound_transaction, caller, operation_body, path_payment_id,
        request_deadline, request_lang, transaction_answer, CommitAnswer, OperationBody,
        OperationError,
    },
    idempotency::BoundAnswer,
};

/// The route key of the reverse (the HTTP API's `routeKey`).
pub const REVERSE_ROUTE: &str = "POST /v1/payments/{id}/reverse";

/// Whether `req` is a reverse rather than a refund (both are served by the refund function):
/// by the HTTP API's route key, or without one by the path.
pub fn is_reverse_request(req: &Request) -> bool {
    use lambda_http::{request::RequestContext, RequestExt};
    match req.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(ctx)) if ctx.route_key.is_some() => {
            ctx.route_key.as_deref() == Some(REVERSE_ROUTE)
        }
        _ => req.uri().path().ends_with("/reverse"),
    }
}

async fn reverse_inner(
    ops: &OperationDeps,
    req: &Request,
    claim: Option<&KeyClaim>,
    answering: Option<&CommitAnswer>,
) -> Result<OperationBody, OperationError> {
    let who = caller(req)?;
    let id = path_payment_id(req)?;
    let (amount, note) = operation_body(req, TransactionType::Refund)?;
    let scope = RequestScope {
        claim,
        answering: None,
        deadline: request_deadline(req, ops.clock.as_ref()),
        note: Some(&note),
        transaction_id: None,
    };
    let unsettled = |e: OpError| OperationError {
        unsettled: e.leaves_unsettled(),
        error: e.into(),
    };
    let reversed = run_reverse(
        ops,
        &who,
        &id,
        amount,
        scope,
        answering.map(|a| a as &dyn ReverseAnswering),
    )
    .await
    .map_err(unsettled)?;
    let r = reversed.result.map_err(unsettled)?;
    Ok(OperationBody {
        payment: r.payment.view(),
        transaction: r.transaction,
        reversal: Some(reversed.reversal),
    })
}

/// `POST /v1/payments/{id}/reverse`; with `claim`, the first step's reservation binds the
/// request's `Idempotency-Key`.
pub async fn keyed_reverse(
    ops: &OperationDeps,
    req: &Request,
    claim: Option<KeyClaim>,
) -> Response<Body> {
    let lang = request_lang(req);
    let answering = claim.as_ref().map(|_| CommitAnswer::new(lang));
    let result = reverse_inner(ops, req, claim.as_ref(), answering.as_ref()).await;
    answered_response(result, lang, answering.as_ref())
}

/// The answer to a reverse whose `Idempotency-Key` is bound to its first step's transaction.
/// Nothing is sent to the bank.
pub async fn bound_reverse(ops: &OperationDeps, req: &Request, binding: Binding) -> BoundAnswer {
    match bound_reverse_inner(ops, req, &binding).await {
        Ok(answer) => answer,
        Err(e) => BoundAnswer::Open(e.localized(request_lang(req)).into_response()),
    }
}

async fn bound_reverse_inner(
    ops: &OperationDeps,
    req: &Request,
    binding: &Binding,
) -> Result<BoundAnswer, ApiError> {
    let (payment, first) = bound_transaction(ops, req, binding).await?;
    if first.kind == TransactionType::Refund {
        return Ok(transaction_answer(
            ops,
            req,
            payment,
            first,
            Some(Reversal::REFUND),
        ));
    }
    let declined = matches!(
        first.status,
        TransactionStatus::Declined | TransactionStatus::Failed
    );
    if declined {
        // The fall-back refund, if the request got as far as reserving it.
        if let Some(refund_id) = fallback_refund_id(&first.id) {
            let refund = ops
                .payments
                .get_transaction(&payment.id, &refund_id)
                .await
                .map_err(OpError::from)?;
            if let Some(refund) = refund {
                let reversal = Some(Reversal::REFUND_AFTER_CUT);
                return Ok(transaction_answer(ops, req, payment, refund, reversal));
            }
        }
        if falls_back(&first) {
            let answer = incomplete().localized(request_lang(req));
            return Ok(BoundAnswer::Open(answer.into_response()));
        }
    }
    Ok(transaction_answer(
        ops,
        req,
        payment,
        first,
        Some(Reversal::VOID),
    ))
}

/// The void was refused past the cut and its request ended before the refund was reserved.
pub(crate) fn incomplete() -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        code::INVALID_STATE,
        "This reversal's void was declined past the bank's end-of-day cut and no refund of it \
         had been started (nothing moved). Send the reverse again with a new Idempotency-Key.",
    )
    .with_turkish(
        "Bu iadenin iptal adımı banka gün sonu kesiminden sonra olduğu için reddedildi ve \
         henüz iade başlatılmadı (para hareketi yok). İsteği yeni bir Idempotency-Key ile \
         tekrar gönderin.",
    )
}

#[cfg(test)]
mod tests {
    use paygate_domain::Lang;

    #[test]
    fn the_incomplete_reversal_speaks_turkish_when_asked() {
        let en = super::incomplete().localized(Lang::En);
        assert!(en.message.contains("new Idempotency-Key"), "{}", en.message);
        let tr = super::incomplete().localized(Lang::Tr);
        assert!(
            tr.message.contains("yeni bir Idempotency-Key"),
            "{}",
            tr.message
        );
        assert_eq!((tr.status, tr.code), (en.status, en.code));
    }
}
