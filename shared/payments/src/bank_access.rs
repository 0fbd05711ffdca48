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
    /// The longest one operation's bank calls can take (every call and step retry of it).
    pub bank_budget: std::time::Duration,
}

/// [`BankAccess::bank_budget`] unless configured: three calls of the transport's default
/// 8 s timeout.
pub const DEFAULT_BANK_BUDGET: std::time::Duration = std::time::Duration::from_secs(24);

impl BankAccess {
    pub fn new(accounts: Arc<dyn AccountLookup>, providers: Providers) -> Self {
        Self {
            accounts,
            providers,
            bank_budget: DEFAULT_BANK_BUDGET,
        }
    }

    /// Refuses (`OpError::NoTimeLeft`) a bank call the time left before `deadline` cannot
    /// cover together with the write of its answer.
    pub fn ensure_time_for_bank(&self, deadline: Option<crate::Deadline>) -> Result<(), OpError> {
        match deadline {
            Some(d) if !d.covers_bank_call(self.bank_budget) => {
                tracing::warn!(
                    remaining_ms = u64::try_from(d.remaining().as_millis()).unwrap_or(u64::MAX),
                    "not enough time left for a bank call and its commit; nothing sent"
                );
                Err(OpError::NoTimeLeft)
            }
            _ => Ok(()),
        }
    }

    /// With `budget` as the longest an operation's bank calls can take.
    pub fn with_bank_budget(mut self, budget: std::time::Duration) -> Self {
        self.bank_budget = budget;
        self
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

#[cfg(test)]
mod tests {
    use paygate_bank_simulator::{MemoryLedger, SimBank, PROVIDER_CODE};
    use paygate_domain::{
        payment::CreatedPayment,
        testkit::{ManualClock, MemoryAccounts, T0},
        Currency, OperationSet, PaymentId, PaymentStatus,
    };

    use super::*;

    fn merchant() -> MerchantId {
        MerchantId::parse("mch_a").unwrap()
    }

    fn account(id: &str, provider: &str, mode: Mode, supported: OperationSet) -> PosAccount {
        PosAccount {
            id: AccountId::parse(id).unwrap(),
            merchant_id: merchant(),
            provider_code: provider.into(),
            bank_code: "0064".into(),
            bank_name: "Türkiye İş Bankası".into(),
            supported,
            label: String::new(),
            mode,
        }
    }

    fn payment_on(account: &str, mode: Mode) -> Payment {
        Payment::created(
            CreatedPayment {
                id: PaymentId::parse("pay_1").unwrap(),
                merchant_id: merchant(),
                mode,
                account_id: AccountId::parse(account).unwrap(),
                order_id: "ORD1".into(),
                currency: Currency::Try,
                amount: 1_000,
                status: PaymentStatus::Authorized,
            },
            T0,
        )
    }

    /// The simulator registered; accounts: a test one that can capture only, a test one on
    /// a provider nobody registered, and a live one.
    fn banks() -> BankAccess {
        let accounts = Arc::new(MemoryAccounts::default());
        let capture_only = OperationSet::of(&[Operation::Capture]);
        accounts.insert(account("acc_sim", PROVIDER_CODE, Mode::Test, capture_only));
        accounts.insert(account(
            "acc_gone",
            "retired",
            Mode::Test,
            OperationSet::all(),
        ));
        accounts.insert(account(
            "acc_live",
            "nestpay",
            Mode::Live,
            OperationSet::all(),
        ));
        let sim = SimBank::new(
            Arc::new(MemoryLedger::default()),
            Arc::new(ManualClock::at(T0)),
        );
        BankAccess::new(accounts, Providers::new().register(Arc::new(sim)))
    }

    #[tokio::test]
    async fn an_operation_the_account_cannot_do_is_refused_naming_it_and_the_account() {
        let banks = banks();
        let sim = banks
            .account_for_payment(&payment_on("acc_sim", Mode::Test))
            .await
            .unwrap();
        assert!(banks.ensure_supports(&sim, Operation::Capture).is_ok());
        assert!(matches!(
            banks.ensure_supports(&sim, Operation::Cancel),
            Err(OpError::Unsupported { operation: Operation::Cancel, account_id })
                if account_id == "acc_sim"
        ));
        assert_eq!(banks.provider(&sim).unwrap().code(), PROVIDER_CODE);
    }

    #[tokio::test]
    async fn an_account_on_an_unregistered_provider_supports_nothing_and_has_no_provider() {
        let banks = banks();
        let gone = banks
            .account_for_payment(&payment_on("acc_gone", Mode::Test))
            .await
            .unwrap();
        assert!(!banks.supports(&gone, Operation::Query));
        assert!(matches!(
            banks.ensure_supports(&gone, Operation::Query),
            Err(OpError::Unsupported { .. })
        ));
        assert!(matches!(banks.provider(&gone), Err(OpError::Internal(_))));
    }

    #[tokio::test]
    async fn another_modes_account_is_as_absent_as_a_missing_one() {
        let banks = banks();
        for (account, mode) in [("acc_live", Mode::Test), ("acc_sim", Mode::Live)] {
            assert!(matches!(
                banks.account_for_payment(&payment_on(account, mode)).await,
                Err(OpError::NotFound("account"))
            ));
        }
        assert!(matches!(
            banks
                .account_for_payment(&payment_on("acc_none", Mode::Test))
                .await,
            Err(OpError::NotFound("account"))
        ));
        let live = AccountId::parse("acc_live").unwrap();
        let m = merchant();
        assert!(banks
            .account_in_mode(&m, Mode::Test, &live)
            .await
            .unwrap()
            .is_none());
        assert!(banks
            .account_in_mode(&m, Mode::Live, &live)
            .await
            .unwrap()
            .is_some());
        let ids = |v: Vec<PosAccount>| v.into_iter().map(|a| a.id.to_string()).collect::<Vec<_>>();
        assert_eq!(
            ids(banks.accounts_in_mode(&m, Mode::Test).await.unwrap()),
            ["acc_gone", "acc_sim"]
        );
        assert_eq!(
            ids(banks.accounts_in_mode(&m, Mode::Live).await.unwrap()),
            ["acc_live"]
        );
    }
}
