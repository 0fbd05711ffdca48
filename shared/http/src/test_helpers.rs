//! The body of `POST /v1/test_helpers/payments` (the `test-create-payment` function), read by
//! a pure function so that it can be tested and fuzzed apart from the handler's account
//! lookup and bank call (`fuzz/fuzz_targets/test_helper_bodies.rs`).
//!
//! `{amount, currency, status: authorized|captured|pending|failed, accountId?, bankState?,
//! settled?}`; every refusal is a 400 naming the field (`invalid_amount` for an amount that
//! is not positive, else `invalid_request`).

use paygate_domain::{money::Amount, ports::TestOrderState, AccountId, Currency, PaymentStatus};
use serde_json::{Map, Value};

use crate::{ApiError, Fields};

/// A test payment to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestPayment {
    /// Minor units, positive (`Amount`).
    pub amount: i64,
    pub currency: Currency,
    pub status: PaymentStatus,
    /// The test account to use; the merchant's first that takes test orders when absent.
    pub account_id: Option<AccountId>,
    /// What the bank holds: given only for a pending payment, else implied by the status
    /// (authorized: a pre-authorization, captured: an approved sale, failed: nothing).
    pub bank_state: TestOrderState,
    /// The order is past the bank's end-of-day cut.
    pub settled: bool,
}

/// Reads the body, field by field in this order: unknown fields, `amount`, `currency`,
/// `status`, `bankState`, `accountId`, `settled`.
pub fn test_payment(body: &Map<String, Value>) -> Result<TestPayment, ApiError> {
    let f = Fields::new(body);
    f.only(&[
        "amount",
        "currency",
        "status",
        "accountId",
        "bankState",
        "settled",
    ])?;
    let amount = Amount::new(f.req_i64("amount")?)?.minor();
    let currency = Currency::parse(f.req_str("currency")?)
        .ok_or_else(|| ApiError::invalid("currency", "must be one of TRY, USD, EUR, GBP"))?;
    let status = match f.req_str("status")? {
        "authorized" => PaymentStatus::Authorized,
        "captured" => PaymentStatus::Captured,
        "pending" => PaymentStatus::Pending,
        // A payment that failed before the bank booked anything (the bank holds no record).
        // Not reachable through query quickly: "no record" counts only after a grace period.
        "failed" => PaymentStatus::Failed,
        _ => {
            return Err(ApiError::invalid(
                "status",
                "must be authorized, captured, pending or failed",
            ))
        }
    };
    let bank_state = match (status, f.opt_str("bankState")?) {
        (PaymentStatus::Authorized, None) => TestOrderState::Preauth,
        (PaymentStatus::Captured, None) => TestOrderState::Approved,
        (_, None) => TestOrderState::None,
        (PaymentStatus::Pending, Some(s)) => TestOrderState::parse(s).ok_or_else(|| {
            ApiError::invalid("bankState", "must be approved, preauth, declined or none")
        })?,
        (_, Some(_)) => {
            return Err(ApiError::invalid(
                "bankState",
                "is only for pending payments",
            ))
        }
    };
    let account_id = f
        .opt_str("accountId")?
        .map(|s| {
            AccountId::parse(s).map_err(|_| ApiError::invalid("accountId", "must be an acc_… id"))
        })
        .transpose()?;
    let settled = f.opt_bool("settled")?.unwrap_or(false);
    Ok(TestPayment {
        amount,
        currency,
        status,
        account_id,
        bank_state,
        settled,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn refused(body: Value) -> String {
        let e = test_payment(&obj(body)).unwrap_err();
        assert_eq!(e.status.as_u16(), 400, "{e:?}");
        e.details
            .and_then(|d| d["field"].as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    #[test]
    fn the_bank_state_follows_the_status_unless_pending_names_one() {
        let read = |v: Value| test_payment(&obj(v)).unwrap();
        let p = read(json!({"amount": 1250, "currency": "TRY", "status": "authorized"}));
        assert_eq!(
            (
                p.amount,
                p.currency,
                p.status,
                p.bank_state,
                p.settled,
                p.account_id
            ),
            (
                1250,
                Currency::Try,
                PaymentStatus::Authorized,
                TestOrderState::Preauth,
                false,
                None
            )
        );
        let p =
            read(json!({"amount": 1, "currency": "EUR", "status": "captured", "settled": true}));
        assert_eq!((p.bank_state, p.settled), (TestOrderState::Approved, true));
        let p = read(json!({"amount": 1, "currency": "USD", "status": "failed"}));
        assert_eq!(p.bank_state, TestOrderState::None);
        let p = read(
            json!({"amount": 1, "currency": "GBP", "status": "pending", "bankState": "declined", "accountId": "acc_x1"}),
        );
        assert_eq!(p.bank_state, TestOrderState::Declined);
        assert_eq!(
            p.account_id.map(|a| a.to_string()).as_deref(),
            Some("acc_x1")
        );
    }

    #[test]
    fn every_refusal_names_its_field() {
        let ok = json!({"amount": 1250, "currency": "TRY", "status": "pending"});
        let with = |k: &str, v: Value| {
            let mut b = ok.clone();
            b[k] = v;
            b
        };
        assert_eq!(refused(json!({})), "amount");
        assert_eq!(refused(with("amount", json!(0))), "amount");
        assert_eq!(refused(with("amount", json!(null))), "amount");
        assert_eq!(refused(with("amount", json!(12.5))), "amount");
        assert_eq!(refused(with("currency", json!("TL"))), "currency");
        assert_eq!(refused(with("status", json!("refunded"))), "status");
        assert_eq!(refused(with("bankState", json!("maybe"))), "bankState");
        assert_eq!(refused(with("accountId", json!("pos_1"))), "accountId");
        assert_eq!(refused(with("settled", json!("yes"))), "settled");
        assert_eq!(refused(with("card", json!({}))), "card");
        let captured = with("status", json!("captured"));
        let mut b = captured.clone();
        b["bankState"] = json!("approved");
        assert_eq!(refused(b), "bankState");
    }
}
