//! `GET /admin/v1/merchants/{merchantId}/payments/{paymentId}`: one payment of the merchant,
//! either mode, with its transactions (each declined or failed one with its stable
//! `declineCode`): the dashboard's payment page. The answer is the merchant API's
//! `GET /v1/payments/{id}` body ([`crate::handlers::PaymentBody`]).

use paygate_domain::PaymentId;

use crate::{
    admin::{deliveries::DeliveriesDeps, merchant, store_error},
    handlers::PaymentBody,
    ApiError,
};

/// The payment of the path with its transactions, oldest first. A payment of another
/// merchant, or an id that does not parse, is the same 404 as an unknown one.
pub async fn show(
    deps: &DeliveriesDeps,
    merchant_raw: &str,
    payment_raw: &str,
) -> Result<PaymentBody, ApiError> {
    let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
    let not_found = || ApiError::not_found("payment");
    let id = PaymentId::parse(payment_raw).map_err(|_| not_found())?;
    let payment = deps
        .payments
        .get_payment(&id)
        .await
        .map_err(store_error)?
        .filter(|p| p.merchant_id == merchant_id)
        .ok_or_else(not_found)?;
    let transactions = deps
        .payments
        .list_transactions(&payment.id)
        .await
        .map_err(store_error)?;
    Ok(PaymentBody {
        payment: payment.view(),
        transactions,
    })
}
