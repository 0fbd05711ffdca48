#![allow(clippy::unwrap_used)]

use super::*;
use crate::{
    account::Mode,
    ids::{AccountId, MerchantId, PaymentId},
    money::Currency,
    time::Timestamp,
};

const T0: Timestamp = Timestamp::from_unix_millis(1_795_000_000_000);

fn payment(status: PaymentStatus, captured: i64, refunded: i64) -> Payment {
    Payment {
        id: PaymentId::parse("pay_1").unwrap(),
        merchant_id: MerchantId::parse("mch_1").unwrap(),
        mode: Mode::Test,
        account_id: AccountId::parse("acc_1").unwrap(),
        order_id: "ORD1".into(),
        currency: Currency::Try,
        amount: 10_000,
        captured_amount: captured,
        refunded_amount: refunded,
        status,
        pending: None,
        auth_code: String::new(),
        rrn: String::new(),
        version: 1,
        created_at: T0,
        updated_at: T0,
    }
}

const VOID_ONCE: ReversalPlan = ReversalPlan::Void { fallback: false };
const VOID_OR_REFUND: ReversalPlan = ReversalPlan::Void { fallback: true };

#[test]
fn an_authorized_payment_is_voided_whole_and_never_refunded() {
    let p = payment(PaymentStatus::Authorized, 0, 0);
    assert_eq!(plan_reversal(&p, None, true), Ok(VOID_ONCE));
    assert_eq!(plan_reversal(&p, Some(10_000), true), Ok(VOID_ONCE));
    assert!(matches!(
        plan_reversal(&p, Some(4_000), true),
        Err(DomainError::InvalidState { .. })
    ));
}

#[test]
fn a_full_reversal_of_a_captured_sale_is_a_void_that_may_fall_back() {
    let p = payment(PaymentStatus::Captured, 10_000, 0);
    assert_eq!(plan_reversal(&p, None, true), Ok(VOID_OR_REFUND));
    assert_eq!(plan_reversal(&p, Some(10_000), true), Ok(VOID_OR_REFUND));
}

#[test]
fn a_partial_amount_a_partly_refunded_payment_or_no_void_is_a_refund() {
    let captured = payment(PaymentStatus::Captured, 10_000, 0);
    assert_eq!(
        plan_reversal(&captured, Some(2_500), true),
        Ok(ReversalPlan::Refund {
            amount: Some(2_500)
        })
    );
    assert_eq!(
        plan_reversal(&captured, None, false),
        Ok(ReversalPlan::Refund { amount: None })
    );
    let partly = payment(PaymentStatus::PartiallyRefunded, 10_000, 2_500);
    assert_eq!(
        plan_reversal(&partly, None, true),
        Ok(ReversalPlan::Refund { amount: None })
    );
    // states the table refuses are the refund's to refuse (invalid_state)
    let cancelled = payment(PaymentStatus::Cancelled, 0, 0);
    assert_eq!(
        plan_reversal(&cancelled, None, true),
        Ok(ReversalPlan::Refund { amount: None })
    );
}

fn void(status: TransactionStatus, code: Option<DeclineCode>) -> Transaction {
    let mut t = Transaction::pending(
        TransactionId::parse("txn_v1").unwrap(),
        PaymentId::parse("pay_1").unwrap(),
        TransactionType::Cancel,
        10_000,
        Currency::Try,
        T0,
    );
    t.status = status;
    t.decline_code = code;
    t
}

#[test]
fn only_a_void_declined_for_the_cut_falls_back() {
    use TransactionStatus as S;
    assert!(falls_back(&void(
        S::Declined,
        Some(DeclineCode::AfterEndOfDay)
    )));
    assert!(!falls_back(&void(
        S::Declined,
        Some(DeclineCode::DoNotHonor)
    )));
    assert!(!falls_back(&void(S::Declined, None)));
    // nothing is known to have not moved: never a refund on top
    assert!(!falls_back(&void(
        S::Unknown,
        Some(DeclineCode::AfterEndOfDay)
    )));
    assert!(!falls_back(&void(S::Pending, None)));
    assert!(!falls_back(&void(S::Failed, None)));
    assert!(!falls_back(&void(S::Approved, None)));
}

#[test]
fn the_fallback_refund_id_is_derived_and_never_a_generated_one() {
    let v = TransactionId::parse("txn_0123456789abcdefghjkmnpqrs").unwrap();
    let r = fallback_refund_id(&v).unwrap();
    assert_eq!(r.as_str(), "txn_0123456789abcdefghjkmnpqrsR");
    assert_eq!(fallback_refund_id(&v), Some(r.clone()));
    // generated opaque parts are lowercase base-32: the suffix is never one of them
    assert!(r.as_str().bytes().any(|b| b.is_ascii_uppercase()));
}
