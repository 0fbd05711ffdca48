//! Adapter ↔ simulator over real HTTP: capture, cancel (two voids for a captured
//! pre-authorization), refund, the history-based query (partial refunds) and no points.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, secret, SECRET, TERMINAL};
use paygate_bankkit::sim::{testing::declined, OrderState};
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState, CardDetails, Currency, Operation, PointsResult,
};

fn approved(o: &BankOutcome) {
    assert!(
        matches!(o, BankOutcome::Approved { code, auth_code: Some(_), rrn: Some(_) } if code == "VPS-0000"),
        "{o:?}"
    );
}

#[tokio::test]
async fn capture_full_and_partial() {
    let b = bank().await;
    b.order("AK-PRE", 10_000, TestOrderState::Preauth, false)
        .await;
    let st = b.provider.query(&b.account, "AK-PRE").await;
    assert_eq!(
        (st.found, st.state, st.amount),
        (true, BankState::Preauth, 10_000)
    );
    assert_eq!(
        declined(
            &b.provider
                .capture(&b.account, &op("AK-PRE", 10_001, false))
                .await
        )
        .0,
        "VPS-1999"
    );
    approved(
        &b.provider
            .capture(&b.account, &op("AK-PRE", 6_000, false))
            .await,
    );
    let st = b.provider.query(&b.account, "AK-PRE").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 6_000));
    assert_eq!(
        declined(
            &b.provider
                .capture(&b.account, &op("AK-PRE", 1, false))
                .await
        )
        .0,
        "VPS-1007"
    );
}

#[tokio::test]
async fn void_of_a_sale_then_again() {
    let b = bank().await;
    b.order("AK-V", 4_200, TestOrderState::Approved, false)
        .await;
    approved(
        &b.provider
            .cancel(&b.account, &op("AK-V", 4_200, true))
            .await,
    );
    assert_eq!(
        b.provider.query(&b.account, "AK-V").await.state,
        BankState::Cancelled
    );
    // Cancelled again: the history shows it voided, so nothing is sent and the cancel has
    // taken effect (not the bank's "already cancelled" refusal read as a decline).
    let sent = b.state.fault_plan().counts().money_requests;
    assert!(matches!(
        b.provider
            .cancel(&b.account, &op("AK-V", 4_200, true))
            .await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(b.state.fault_plan().counts().money_requests, sent);
    assert_eq!(voids(&b, "AK-V"), 1);
}

fn voids(b: &common::Bank, order: &str) -> usize {
    let ledger = b.state.ledger_of(TERMINAL, order).unwrap();
    ledger
        .operations
        .iter()
        .filter(|t| t.kind == "void")
        .count()
}

/// Two cancels of the same sale at once (a query and the reconciler resuming it): both read
/// it live, one void is approved, the other meets `VPS-1008`, reads the history again and
/// finds the order voided. Both are approved; the bank voided once.
#[tokio::test]
async fn concurrent_cancels_both_end_approved_and_void_once() {
    let b = bank().await;
    b.order("AK-VV", 4_200, TestOrderState::Approved, false)
        .await;
    // Every answer waits 100 ms after processing: both reads are served before either void.
    b.faults(paygate_bankkit::sim::Faults {
        latency: std::time::Duration::from_millis(100),
        ..Default::default()
    });
    let cancel = op("AK-VV", 4_200, true);
    let (one, two) = tokio::join!(
        b.provider.cancel(&b.account, &cancel),
        b.provider.cancel(&b.account, &cancel),
    );
    for outcome in [&one, &two] {
        assert!(
            matches!(outcome, BankOutcome::Approved { .. }),
            "{one:?} / {two:?}"
        );
    }
    assert_eq!(voids(&b, "AK-VV"), 1);
}

#[tokio::test]
async fn cancel_of_a_captured_preauth_releases_the_hold_too() {
    let b = bank().await;
    b.order("AK-CAP", 3_000, TestOrderState::Preauth, false)
        .await;
    approved(
        &b.provider
            .capture(&b.account, &op("AK-CAP", 3_000, true))
            .await,
    );
    approved(
        &b.provider
            .cancel(&b.account, &op("AK-CAP", 3_000, true))
            .await,
    );
    let ledger = b.state.ledger_of(TERMINAL, "AK-CAP").unwrap();
    assert_eq!(ledger.state, OrderState::Voided);
    assert_eq!(
        ledger
            .operations
            .iter()
            .filter(|t| t.kind == "void")
            .count(),
        2
    );
    assert_eq!(
        b.provider.query(&b.account, "AK-CAP").await.state,
        BankState::Cancelled
    );
}

#[tokio::test]
async fn void_after_the_end_of_day_cut_points_to_refund() {
    let b = bank().await;
    b.order("AK-EOD", 7_000, TestOrderState::Approved, false)
        .await;
    b.admin("/_sim/end-of-day", "{}").await.unwrap();
    assert_eq!(
        declined(
            &b.provider
                .cancel(&b.account, &op("AK-EOD", 7_000, true))
                .await
        ),
        ("VPS-1007", true)
    );
    approved(
        &b.provider
            .refund(&b.account, &op("AK-EOD", 7_000, true))
            .await,
    );
    let st = b.provider.query(&b.account, "AK-EOD").await;
    assert_eq!((st.state, st.refunded_amount), (BankState::Refunded, 7_000));
}

/// The live query derives partial refunds from the history.
#[tokio::test]
async fn partial_refunds_are_visible_in_query() {
    let b = bank().await;
    b.order("AK-R", 10_000, TestOrderState::Approved, true)
        .await;
    approved(
        &b.provider
            .refund(&b.account, &op("AK-R", 2_500, false))
            .await,
    );
    let st = b.provider.query(&b.account, "AK-R").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 10_000, 2_500)
    );
    assert_eq!(
        declined(
            &b.provider
                .refund(&b.account, &op("AK-R", 7_501, false))
                .await
        )
        .0,
        "VPS-1999"
    );
    assert_eq!(
        b.provider.query(&b.account, "AK-R").await.refunded_amount,
        2_500
    );
    // A cancel after a refund is refused and not the cut's doing.
    assert!(
        !declined(
            &b.provider
                .cancel(&b.account, &op("AK-R", 10_000, true))
                .await
        )
        .1
    );
    approved(
        &b.provider
            .refund(&b.account, &op("AK-R", 7_500, true))
            .await,
    );
    let st = b.provider.query(&b.account, "AK-R").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::Refunded, 10_000)
    );
}

#[tokio::test]
async fn unknown_and_declined_orders() {
    let b = bank().await;
    let st = b.provider.query(&b.account, "NOPE").await;
    assert!(!st.found && st.is_conclusive());
    assert_eq!(st.code, "VPS-1123");
    assert_eq!(
        declined(&b.provider.refund(&b.account, &op("NOPE", 1, true)).await).0,
        "VPS-1007"
    );
    b.order("AK-D", 1_000, TestOrderState::Declined, false)
        .await;
    let st = b.provider.query(&b.account, "AK-D").await;
    assert_eq!(
        (st.found, st.state, st.code.as_str()),
        (true, BankState::Declined, "VPS-1005")
    );
}

/// The simulator checks the `auth-hash`: a wrong secret key is refused before processing.
#[tokio::test]
async fn a_wrong_auth_hash_is_refused_and_moves_nothing() {
    let b = bank().await;
    b.order("AK-H", 1_000, TestOrderState::Preauth, false).await;
    let bad = b.other_account("acc_badkey", secret(&b.endpoint(), TERMINAL, "not-the-key"));
    match b.provider.capture(&bad, &op("AK-H", 1_000, true)).await {
        BankOutcome::Error { code, message } => {
            assert!(code == "transport" && message.contains("400"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert!(!b.provider.query(&bad, "AK-H").await.is_conclusive());
    assert_eq!(
        b.provider.query(&b.account, "AK-H").await.state,
        BankState::Preauth
    );
    let good = b.other_account("acc_good", secret(&b.endpoint(), TERMINAL, SECRET));
    assert_eq!(
        b.provider.query(&good, "AK-H").await.state,
        BankState::Preauth
    );
}

#[tokio::test]
async fn points_are_not_supported() {
    let b = bank().await;
    assert!(!b.provider.supported().contains(Operation::PointsInquiry));
    assert!(b.provider.supported().contains(Operation::Query));
    let card = CardDetails {
        number: "5218076007402834".into(),
        exp_month: "12".into(),
        exp_year: "2030".into(),
        cvv: "000".into(),
        holder: "x".into(),
    };
    let res = b
        .provider
        .points_inquiry(&b.account, &card, Currency::Try)
        .await;
    assert!(matches!(res, PointsResult::Error { code, .. } if code == "operation_not_supported"));
}

/// The kit's day-history case over the date-range report (a gzip-compressed list).
#[tokio::test]
async fn the_day_history_lists_what_the_bank_booked() {
    let b = bank().await;
    b.the_day_history_lists_what_the_bank_booked("DH-CAP", "DH-VOID", true)
        .await;
}
