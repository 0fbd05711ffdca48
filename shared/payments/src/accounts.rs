//! Which POS account a request may use. An account serves one mode: a test key or test
//! payment only ever reaches test accounts (the bank's test endpoint or the simulator), a
//! live one only live accounts. An account of the other mode is treated like one that does
//! not exist: `404 not_found` ("No such account."), nothing sent to any bank.

use paygate_domain::{ports::AccountLookup, AccountId, MerchantId, Mode, Payment, PosAccount};

use crate::error::OpError;

/// The payment's POS account, provided it serves the payment's mode. A missing account or
/// one of the other mode is a misconfiguration: logged, and refused as `NotFound("account")`.
pub(crate) async fn account_for_payment(
    accounts: &dyn AccountLookup,
    payment: &Payment,
) -> Result<PosAccount, OpError> {
    let found = accounts
        .get_account(&payment.merchant_id, &payment.account_id)
        .await?;
    match found {
        Some(a) if a.serves(payment.mode) => Ok(a),
        Some(a) => {
            tracing::error!(payment_id = %payment.id, account_id = %a.id,
                payment_mode = payment.mode.as_str(), account_mode = a.mode.as_str(),
                "the payment's POS account is of the other mode; refused, nothing sent to the bank");
            Err(OpError::NotFound("account"))
        }
        None => {
            tracing::error!(payment_id = %payment.id, account_id = %payment.account_id,
                "the payment's POS account does not exist; refused");
            Err(OpError::NotFound("account"))
        }
    }
}

/// A merchant's account by id, for a caller of `mode`: another mode's account is absent.
pub async fn account_in_mode(
    accounts: &dyn AccountLookup,
    merchant: &MerchantId,
    mode: Mode,
    id: &AccountId,
) -> Result<Option<PosAccount>, OpError> {
    Ok(accounts
        .get_account(merchant, id)
        .await?
        .filter(|a| a.serves(mode)))
}

/// A merchant's accounts that serve `mode`, ordered by id.
pub async fn accounts_in_mode(
    accounts: &dyn AccountLookup,
    merchant: &MerchantId,
    mode: Mode,
) -> Result<Vec<PosAccount>, OpError> {
    Ok(accounts
        .list_accounts(merchant)
        .await?
        .into_iter()
        .filter(|a| a.serves(mode))
        .collect())
}
