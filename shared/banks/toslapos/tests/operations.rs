//! Adapter ↔ simulator over real HTTP: capture (full, partial), cancel (one void, the whole
//! order; the end-of-day cut), refund (partial, full, same day), the inquiry-based query and
//! no points.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, secret, CLIENT_ID};
use paygate_bankkit::sim::{testing::declined, OrderState};
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState, CardDetails, Currency, Operation, PointsResult,
};

fn approved(o: &BankOutcome) {
    assert!(
        matches!(o, BankOutcome::Approved { code, auth_code: Some(_), rrn: Some(_) } if code == "00"),
        "{o:?}"
    );
}

fn error(o: &BankOutcome) -> &str {
    match o {
        BankOutcome::Error { code, .. } => code,
        other => panic!("expected an error, got {other:?}"),
    }
}

#[tokio::test]
async fn capture_full_and_partial() {
    let b = bank().await;
    b.order("T-PRE", 10_000, TestOrderState::Preauth, false)
        .await;
    let st = b.provider.query(&b.account, "T-PRE").await;
    assert_eq!(
        (st.found, st.state, st.amount),
        (true, BankState::Preauth, 10_000)
    );
    // Above the hold: refused before processing.
    let above = b
        .provider
        .capture(&b.account, &op("T-PRE", 10_001, false))
        .await;
    assert_eq!(error(&above), "998");
    approved(
        &b.provider
            .capture(&b.account, &op("T-PRE", 6_000, false))
            .await,
    );
    let st = b.provider.query(&b.account, "T-PRE").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 6_000));
    // Nothing left to capture.
    let again = b.provider.capture(&b.account, &op("T-PRE", 1, false)).await;
    assert_eq!(declined(&again), ("101", false));

    b.order("T-PRE2", 5_000, TestOrderState::Preauth, false)
        .await;
    approved(
        &b.provider
            .capture(&b.account, &op("T-PRE2", 5_000, true))
            .await,
    );
    let st = b.provider.query(&b.account, "T-PRE2").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 5_000));
}

#[tokio::test]
async fn void_of_a_sale_then_again_and_of_a_captured_preauth() {
    let b = bank().await;
    b.order("T-V", 4_200, TestOrderState::Approved, false).await;
    approved(&b.provider.cancel(&b.account, &op("T-V", 4_200, true)).await);
    assert_eq!(
        b.provider.query(&b.account, "T-V").await.state,
        BankState::Cancelled
    );
    // Again: refused `101`, the inquiry shows it cancelled: done, nothing more voided.
    assert!(matches!(
        b.provider.cancel(&b.account, &op("T-V", 4_200, true)).await,
        BankOutcome::Approved { .. }
    ));
    let voids = |id: &str| {
        b.state
            .book()
            .get(CLIENT_ID, id)
            .unwrap()
            .history
            .iter()
            .filter(|t| t.kind == "void")
            .count()
    };
    assert_eq!(voids("T-V"), 1);

    // A captured pre-authorization: one void cancels the whole order.
    b.order("T-PV", 9_000, TestOrderState::Preauth, false).await;
    approved(
        &b.provider
            .capture(&b.account, &op("T-PV", 7_000, false))
            .await,
    );
    approved(
        &b.provider
            .cancel(&b.account, &op("T-PV", 7_000, true))
            .await,
    );
    let st = b.provider.query(&b.account, "T-PV").await;
    assert_eq!((st.state, st.amount), (BankState::Cancelled, 9_000));
    assert_eq!(
        b.state.book().get(CLIENT_ID, "T-PV").unwrap().state,
        OrderState::Voided
    );
    assert_eq!(voids("T-PV"), 1);

    // An open pre-authorization.
    b.order("T-PO", 3_000, TestOrderState::Preauth, false).await;
    approved(
        &b.provider
            .cancel(&b.account, &op("T-PO", 3_000, true))
            .await,
    );
    assert_eq!(
        b.provider.query(&b.account, "T-PO").await.state,
        BankState::Cancelled
    );
}

/// The end-of-day rule: a void only on the sale's business day; after the cut it is refused
/// (`101`) and, the order being a live sale, flagged `after_cutoff` (refund instead); the
/// refund goes through. A refunded order cannot be voided and is not flagged.
#[tokio::test]
async fn void_after_the_end_of_day_cut_points_to_refund() {
    let b = bank().await;
    b.order("T-OLD", 2_000, TestOrderState::Approved, true)
        .await;
    let out = b
        .provider
        .cancel(&b.account, &op("T-OLD", 2_000, true))
        .await;
    assert_eq!(declined(&out), ("101", true));
    assert_eq!(
        b.state.book().get(CLIENT_ID, "T-OLD").unwrap().state,
        OrderState::Sale
    );
    approved(
        &b.provider
            .refund(&b.account, &op("T-OLD", 2_000, true))
            .await,
    );
    let out = b
        .provider
        .cancel(&b.account, &op("T-OLD", 2_000, true))
        .await;
    assert_eq!(declined(&out), ("101", false));
    assert_eq!(
        b.provider.query(&b.account, "T-OLD").await.state,
        BankState::Refunded
    );
}

/// Refunds on the sale's own day (MEWS's functional test refunds right after paying),
/// partial then the rest; above what is left is refused before processing.
#[tokio::test]
async fn refunds_partial_then_full_the_same_day() {
    let b = bank().await;
    b.order("T-R", 10_000, TestOrderState::Approved, false)
        .await;
    approved(
        &b.provider
            .refund(&b.account, &op("T-R", 2_500, false))
            .await,
    );
    let st = b.provider.query(&b.account, "T-R").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 10_000, 2_500)
    );
    assert_eq!(
        error(
            &b.provider
                .refund(&b.account, &op("T-R", 7_501, false))
                .await
        ),
        "998"
    );
    approved(
        &b.provider
            .refund(&b.account, &op("T-R", 7_500, false))
            .await,
    );
    let st = b.provider.query(&b.account, "T-R").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::Refunded, 10_000)
    );
    assert_eq!(
        declined(&b.provider.refund(&b.account, &op("T-R", 1, false)).await).0,
        "101"
    );
    // A partly captured pre-authorization refunds from its capture.
    b.order("T-RP", 9_000, TestOrderState::Preauth, false).await;
    approved(
        &b.provider
            .capture(&b.account, &op("T-RP", 6_000, false))
            .await,
    );
    approved(
        &b.provider
            .refund(&b.account, &op("T-RP", 1_000, false))
            .await,
    );
    let st = b.provider.query(&b.account, "T-RP").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 6_000, 1_000)
    );
}

#[tokio::test]
async fn query_of_unknown_declined_and_with_a_wrong_password() {
    let b = bank().await;
    let st = b.provider.query(&b.account, "T-NONE").await;
    assert!(!st.found && st.is_conclusive(), "{st:?}");
    b.order("T-DEC", 1_000, TestOrderState::Declined, false)
        .await;
    let st = b.provider.query(&b.account, "T-DEC").await;
    assert_eq!((st.state, st.code.as_str()), (BankState::Declined, "05"));
    // A wrong password: every request is refused before processing.
    let bad = b.other_account("acc_bad", secret(&b.endpoint(), "wrong"));
    b.order("T-W", 1_000, TestOrderState::Preauth, false).await;
    assert_eq!(
        error(&b.provider.capture(&bad, &op("T-W", 1_000, true)).await),
        "997"
    );
    assert!(!b.provider.query(&bad, "T-W").await.is_conclusive());
    assert_eq!(
        b.provider.query(&b.account, "T-W").await.state,
        BankState::Preauth
    );
}

#[tokio::test]
async fn points_are_not_supported() {
    let b = bank().await;
    assert!(!b.provider.supported().contains(Operation::PointsInquiry));
    assert!(b.provider.supported().contains(Operation::Query));
    let card = CardDetails {
        number: "4159560047417732".into(),
        exp_month: "08".into(),
        exp_year: "2030".into(),
        cvv: "123".into(),
        holder: "x".into(),
    };
    let res = b
        .provider
        .points_inquiry(&b.account, &card, Currency::Try)
        .await;
    assert!(matches!(res, PointsResult::Error { code, .. } if code == "operation_not_supported"));
}

/// The shared day-history case: `history` by `transactionDate`, every page.
#[tokio::test]
async fn the_day_history_lists_what_the_bank_booked() {
    bank()
        .await
        .the_day_history_lists_what_the_bank_booked("T-DAY-CAP", "T-DAY-VOID", true)
        .await;
}

/// A day of eight lines, two to a page (`sim::HISTORY_PAGE_CAP`): every page is read, sales
/// and pre-authorizations are left out, another client's day is not this one's.
#[tokio::test]
async fn the_day_history_reads_every_page() {
    use paygate_domain::{
        daily::{BusinessDay, DayHistory},
        TransactionType::{Cancel, Capture, Refund},
    };
    let b = bank().await;
    let d = BusinessDay::parse("2026-11-20").unwrap();
    b.state.book().pin_date(d);
    b.order("T-A", 10_000, TestOrderState::Preauth, false).await;
    approved(
        &b.provider
            .capture(&b.account, &op("T-A", 6_000, false))
            .await,
    );
    b.order("T-B", 5_000, TestOrderState::Approved, false).await;
    for amount in [1_000, 2_000] {
        approved(
            &b.provider
                .refund(&b.account, &op("T-B", amount, false))
                .await,
        );
    }
    b.order("T-C", 3_000, TestOrderState::Preauth, false).await;
    approved(
        &b.provider
            .capture(&b.account, &op("T-C", 3_000, true))
            .await,
    );
    approved(&b.provider.cancel(&b.account, &op("T-C", 3_000, true)).await);
    let other = b.other_account(
        "acc_other",
        paygate_bankkit::AccountCredentials::new(
            b.endpoint(),
            [
                ("clientId".to_owned(), "1000000777".to_owned()),
                ("apiUser".to_owned(), "OTHER".to_owned()),
                ("apiPass".to_owned(), "other-pass".to_owned()),
            ],
        ),
    );
    paygate_bankkit::sim::testing::register_order(
        &b.provider,
        &other,
        "T-X",
        900,
        TestOrderState::Approved,
        false,
    )
    .await
    .unwrap();
    approved(&b.provider.cancel(&other, &op("T-X", 900, true)).await);
    assert!(
        b.state.book().booked_on(CLIENT_ID, d).len()
            > 2 * paygate_bank_toslapos::sim::HISTORY_PAGE_CAP
    );
    let DayHistory::Lines(lines) = b.provider.day_history(&b.account, d).await else {
        panic!("expected the day's lines");
    };
    let mut got: Vec<_> = lines
        .iter()
        .map(|l| (l.order_id.as_str(), l.kind, l.amount))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("T-A", Capture, 6_000),
            ("T-B", Refund, 1_000),
            ("T-B", Refund, 2_000),
            ("T-C", Capture, 3_000),
            ("T-C", Cancel, 3_000)
        ]
    );
    assert!(lines.iter().all(|l| !l.rrn.is_empty()));
    let DayHistory::Lines(theirs) = b.provider.day_history(&other, d).await else {
        panic!("expected the other client's day");
    };
    assert_eq!(theirs.len(), 1);
}
