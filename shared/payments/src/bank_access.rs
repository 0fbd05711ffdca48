//! How a request reaches a merchant's bank: the merchant's POS accounts and the provider
//! registry, together, with the rules for picking an account and its provider in one place.
//!
//! An account serves one mode: a test key or test payment only ever reaches test accounts
//! (the bank's test endpoint or the simulator), a live one only live accounts. An account of
//! the other mode is treated like one that does not exist: `404 not_found` ("No such
//! account."), nothing sent to any bank.

use std::sync::Arc;

use paygate_domain::{
    ports::{AccountLookup, PosProvider},
    AccountId, MerchantId, Mode, Operation, Payment, PosAccount,
};

use crate::{error::OpError, providers::Providers};

/// A merchant's POS accounts and the providers that speak to their banks.
#[derive(Clone)]
pub struct BankAccess {
    pub accounts: Arc<dyn AccountLookup>,
    pub providers: Providers,
}

impl BankAccess {
    pub fn new(accounts: Arc<dyn AccountLookup>, providers: Providers) -> Self {
        Self {
            accounts,
            providers,
        }
    }

    /// The payment's POS account, provided it serves the payment's mode. A missing account
    /// or one of the other mode is a misconfiguration: logged, and refused as
    /// `NotFound("account")`.
    pub async fn account_for_payment(&self, payment: &Payment) -> Result<PosAccount, OpError> {
        let found = self
            .accounts
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
        &self,
        merchant: &MerchantId,
        mode: Mode,
        id: &AccountId,
    ) -> Result<Option<PosAccount>, OpError> {
        Ok(self
            .accounts
            .get_account(merchant, id)
            .await?
            .filter(|a| a.serves(mode)))
    }

    /// A merchant's accounts that serve `mode`, ordered by id.
    pub async fn accounts_in_mode(
        &self,
        merchant: &MerchantId,
        mode: Mode,
    ) -> Result<Vec<PosAccount>, OpError> {
        Ok(self
            .accounts
            .list_accounts(merchant)
            .await?
            .into_iter()
            .filter(|a| a.serves(mode))
            .collect())
    }

    /// Whether `account` can do `op`: the bank enabled it for the account and its provider
    /// speaks it.
    pub fn supports(&self, account: &PosAccount, op: Operation) -> bool {
        self.providers.supports(account, op)
    }

    /// `Ok` when `account` can do `op`; else `Unsupported`, before anything is sent.
    pub fn ensure_supports(&self, account: &PosAccount, op: Operation) -> Result<(), OpError> {
        if self.supports(account, op) {
            Ok(())
        } else {
            Err(OpError::Unsupported {
                operation: op,
                account_id: account.id.to_string(),
            })
        }
    }

    /// The provider of `account`'s bank. An account naming a provider that is not
    /// registered is an internal error (the account table and the code disagree).
    pub fn provider(&self, account: &PosAccount) -> Result<Arc<dyn PosProvider>, OpError> {
        self.providers
            .get(&account.provider_code)
            .cloned()
            .ok_or_else(|| OpError::Internal("provider missing".into()))
    }
}
