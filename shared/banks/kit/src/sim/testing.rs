#![allow(clippy::expect_used)] // test support: every id here is a valid literal
//! What every protocol crate's adapter ↔ simulator tests build the same way: a test account,
//! an operation, a card, and a test order registered through the adapter's test-order route.

use paygate_domain::{
    ports::{BankOperation, PosProvider, TestOrder, TestOrderState},
    AccountId, CardDetails, Currency, MerchantId, Mode, OperationSet, PosAccount, StoreError,
    TransactionId,
};

/// A test-mode account of merchant `mch_a` at `provider_code`'s bank, supporting everything.
pub fn test_account(id: &str, provider_code: &str, bank_code: &str, bank_name: &str) -> PosAccount {
    PosAccount {
        id: AccountId::parse(id).expect("an acc_… id"),
        merchant_id: MerchantId::parse("mch_a").expect("a merchant id"),
        provider_code: provider_code.into(),
        bank_code: bank_code.into(),
        bank_name: bank_name.into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    }
}

/// A money operation on `order_id` in TRY, transaction `txn_t1`.
pub fn op(order_id: &str, amount: i64, full: bool) -> BankOperation {
    BankOperation {
        order_id: order_id.into(),
        transaction_id: TransactionId::parse("txn_t1").expect("a txn_… id"),
        amount,
        currency: Currency::Try,
        full,
    }
}

/// A card expiring 12/2030.
pub fn card(number: &str) -> CardDetails {
    CardDetails {
        number: number.into(),
        exp_month: "12".into(),
        exp_year: "2030".into(),
        cvv: "735".into(),
        holder: "Ayşe Yılmaz".into(),
    }
}

/// Registers a TRY order at the account's simulator through the adapter's test-order route.
pub async fn register_order(
    provider: &dyn PosProvider,
    account: &PosAccount,
    order_id: &str,
    amount: i64,
    state: TestOrderState,
    settled: bool,
) -> Result<(), StoreError> {
    let orders = provider
        .test_orders()
        .ok_or_else(|| StoreError::Unavailable("no test-order route".into()))?;
    let order = TestOrder {
        order_id: order_id.into(),
        amount,
        currency: Currency::Try,
        state,
        settled,
    };
    orders.register(account, &order).await
}
