//! The adapter against the simulator: Kuveyt Türk's reversal and refund rules, the query's
//! states, and the operations it does not have.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, MERCHANT_ID};
use paygate_domain::{
    account::Operation,
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState,
};

fn declined(o: &BankOutcome) -> (&str, bool) {
    match o {
        BankOutcome::Declined {
            code, after_cutoff, ..
        } => (code.as_str(), *after_cutoff),
        other => panic!("not declined: {other:?}"),
    }
}

fn approved(o: &BankOutcome) {
    assert!(matches!(o, BankOutcome::Approved { .. }), "{o:?}");
}

#[tokio::test]
async fn reversal_on_the_sales_day_then_again_sends_nothing() {
    let b = bank().await;
    b.order("KT1", 1_001, TestOrderState::Approved, false).await;
    let st = b.provider.query(&b.account, "KT1").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 1_001));
    approved(&b.provider.cancel(&b.account, &op("KT1", 1_001, true)).await);
    assert_eq!(b.voids("KT1"), 1);
    let st = b.provider.query(&b.account, "KT1").await;
    assert_eq!(st.state, BankState::Cancelled);
    // A second cancel reads the order reversed and sends nothing.
    approved(&b.provider.cancel(&b.account, &op("KT1", 1_001, true)).await);
    assert_eq!(b.voids("KT1"), 1);
    // A refund of the reversed sale: `28` "İptal Edilen İşlem İade Yapılamaz".
    let r = b.provider.refund(&b.account, &op("KT1", 500, false)).await;
    assert_eq!(declined(&r), ("28", false));
}

#[tokio::test]
async fn a_reversal_past_the_sales_day_points_to_a_refund() {
    let b = bank().await;
    b.order("KT2", 20_000, TestOrderState::Approved, false)
        .await;
    b.state.book().end_of_day();
    let c = b
        .provider
        .cancel(&b.account, &op("KT2", 20_000, true))
        .await;
    assert_eq!(declined(&c), ("InvalidRequestError", true));
    // Refunded in part, the sale is no longer "live and unrefunded": a refused reversal is
    // not the cut's to explain.
    approved(
        &b.provider
            .refund(&b.account, &op("KT2", 5_000, false))
            .await,
    );
    let c = b
        .provider
        .cancel(&b.account, &op("KT2", 20_000, true))
        .await;
    assert_eq!(declined(&c), ("InvalidRequestError", false));
    // The whole rest, after the cut, through PartialDrawback.
    approved(
        &b.provider
            .refund(&b.account, &op("KT2", 15_000, false))
            .await,
    );
    let st = b.provider.query(&b.account, "KT2").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::Refunded, 20_000)
    );
}

/// The same-day rules: `DrawBack` refused, a `PartialDrawback` of part of the sale allowed,
/// of the whole sale refused (both `DbLayerError` business refusals); after the cut a
/// `DrawBack` refunds the whole sale.
#[tokio::test]
async fn refunds_on_the_sales_day_and_after() {
    let b = bank().await;
    b.order("KT3", 20_000, TestOrderState::Approved, false)
        .await;
    let full = b
        .provider
        .refund(&b.account, &op("KT3", 20_000, true))
        .await;
    assert_eq!(declined(&full), ("DbLayerError", false));
    let whole = b
        .provider
        .refund(&b.account, &op("KT3", 20_000, false))
        .await;
    assert_eq!(declined(&whole), ("DbLayerError", false));
    assert_eq!(b.refunded("KT3"), 0);
    approved(
        &b.provider
            .refund(&b.account, &op("KT3", 5_000, false))
            .await,
    );
    let st = b.provider.query(&b.account, "KT3").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 20_000, 5_000)
    );

    b.order("KT4", 7_256, TestOrderState::Approved, true).await;
    approved(&b.provider.refund(&b.account, &op("KT4", 7_256, true)).await);
    let st = b.provider.query(&b.account, "KT4").await;
    assert_eq!((st.state, st.refunded_amount), (BankState::Refunded, 7_256));
    // After a partial refund a DrawBack is not of the sale's amount any more.
    b.order("KT5", 10_000, TestOrderState::Approved, true).await;
    approved(
        &b.provider
            .refund(&b.account, &op("KT5", 1_000, false))
            .await,
    );
    let r = b
        .provider
        .refund(&b.account, &op("KT5", 10_000, true))
        .await;
    assert_eq!(declined(&r), ("TransactionAmountMismatchException", false));
}

/// No pre-authorization: capture and points are refused explicitly, nothing reaches the
/// bank, and the simulator books no pre-authorization.
#[tokio::test]
async fn capture_and_points_are_not_supported() {
    let b = bank().await;
    let supported = b.provider.supported();
    assert!(!supported.contains(Operation::Capture));
    assert!(!supported.contains(Operation::PointsInquiry));
    assert!(supported.contains(Operation::Cancel) && supported.contains(Operation::Refund));
    b.order("KT6", 1_000, TestOrderState::Approved, false).await;
    let c = b
        .provider
        .capture(&b.account, &op("KT6", 1_000, true))
        .await;
    assert!(
        matches!(&c, BankOutcome::Error { code, .. } if code == "operation_not_supported"),
        "{c:?}"
    );
    let pre = paygate_bankkit::sim::testing::register_order(
        &b.provider,
        &b.account,
        "KT7",
        1_000,
        TestOrderState::Preauth,
        false,
    )
    .await;
    assert!(pre.is_err(), "{pre:?}");
    assert!(b.state.book().get(MERCHANT_ID, "KT7").is_none());
}

#[tokio::test]
async fn unknown_orders() {
    let b = bank().await;
    let st = b.provider.query(&b.account, "NOPE").await;
    assert!(!st.found && st.is_conclusive(), "{st:?}");
    // A cancel that finds no order sends nothing but cannot call it done or refused: an
    // earlier reversal may still be booking.
    let c = b
        .provider
        .cancel(&b.account, &op("NOPE", 1_000, true))
        .await;
    assert!(matches!(c, BankOutcome::Unknown { .. }), "{c:?}");
    let r = b
        .provider
        .refund(&b.account, &op("NOPE", 1_000, false))
        .await;
    assert_eq!(declined(&r).0, "NoOrderContract");
    // A declined sale reads as declined.
    b.order("KT8", 1_000, TestOrderState::Declined, false).await;
    let st = b.provider.query(&b.account, "KT8").await;
    assert_eq!((st.found, st.state), (true, BankState::Declined));
}

#[tokio::test]
async fn wrong_credentials_are_refused_before_anything_moves() {
    let b = bank().await;
    b.order("KT9", 1_000, TestOrderState::Approved, false).await;
    let bad = b.other_account(
        "acc_bad",
        common::secret(&b.endpoint(), common::USER_NAME, "wrong"),
    );
    let st = b.provider.query(&bad, "KT9").await;
    assert!(!st.is_conclusive() && st.code == "HashDataError", "{st:?}");
    let r = b.provider.refund(&bad, &op("KT9", 100, false)).await;
    assert!(
        matches!(&r, BankOutcome::Error { code, .. } if code == "HashDataError"),
        "{r:?}"
    );
    let nobody = b.other_account(
        "acc_nobody",
        common::secret(&b.endpoint(), "someone", common::PASSWORD),
    );
    let st = b.provider.query(&nobody, "KT9").await;
    assert_eq!(st.code, "ApiUserNotDefined");
    assert_eq!(b.refunded("KT9"), 0);
}
