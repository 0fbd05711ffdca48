//! Adapter ↔ simulator over real HTTP: capture (by the authorization's reference), cancel
//! (two reverses for a captured pre-authorization), refund (after the end of day only), the
//! inquiry-based query (partial refunds) and no points.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, secret, ENC_KEY, TERMINAL};
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

#[tokio::test]
async fn capture_full_and_partial_by_the_authorizations_reference() {
    let b = bank().await;
    b.order("AL1", 20_000, TestOrderState::Preauth, false).await;
    b.order("AL2", 20_000, TestOrderState::Preauth, false).await;
    approved(
        &b.provider
            .capture(&b.account, &op("AL1", 12_000, false))
            .await,
    );
    let st = b.provider.query(&b.account, "AL1").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 12_000));
    approved(
        &b.provider
            .capture(&b.account, &op("AL2", 20_000, true))
            .await,
    );
    assert_eq!(b.kinds("AL2"), ["preauth", "postauth"]);
    // A second capture, or one above the hold: nothing to capture / refused by the bank.
    let again = b.provider.capture(&b.account, &op("AL2", 1, false)).await;
    assert_eq!(declined(&again), ("no_open_preauth", false));
    b.order("AL3", 1_000, TestOrderState::Preauth, false).await;
    let above = b
        .provider
        .capture(&b.account, &op("AL3", 1_001, true))
        .await;
    assert_eq!(declined(&above), ("0205", false));
    // A sale has no authorization to close: nothing is sent.
    b.order("AL4", 1_000, TestOrderState::Approved, false).await;
    let sale = b
        .provider
        .capture(&b.account, &op("AL4", 1_000, true))
        .await;
    assert_eq!(declined(&sale), ("no_open_preauth", false));
    assert_eq!(b.kinds("AL4"), ["sale"]);
}

#[tokio::test]
async fn refunds_only_after_the_end_of_day_partial_then_full() {
    let b = bank().await;
    b.order("AL5", 20_000, TestOrderState::Approved, false)
        .await;
    let early = b
        .provider
        .refund(&b.account, &op("AL5", 5_000, false))
        .await;
    assert_eq!(declined(&early), ("0411", false));
    b.state.book().end_of_day();
    approved(
        &b.provider
            .refund(&b.account, &op("AL5", 5_000, false))
            .await,
    );
    let st = b.provider.query(&b.account, "AL5").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 20_000, 5_000)
    );
    let over = b
        .provider
        .refund(&b.account, &op("AL5", 15_001, false))
        .await;
    assert_eq!(declined(&over), ("0205", false));
    approved(
        &b.provider
            .refund(&b.account, &op("AL5", 15_000, true))
            .await,
    );
    let st = b.provider.query(&b.account, "AL5").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::Refunded, 20_000)
    );
    // A captured pre-authorization is refunded through its capture.
    b.order("AL6", 9_000, TestOrderState::Preauth, false).await;
    approved(
        &b.provider
            .capture(&b.account, &op("AL6", 8_000, false))
            .await,
    );
    b.state.book().end_of_day();
    approved(
        &b.provider
            .refund(&b.account, &op("AL6", 3_000, false))
            .await,
    );
    let st = b.provider.query(&b.account, "AL6").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 8_000, 3_000)
    );
    // An open pre-authorization has nothing to refund: nothing is sent.
    b.order("AL7", 1_000, TestOrderState::Preauth, false).await;
    let open = b.provider.refund(&b.account, &op("AL7", 1_000, true)).await;
    assert_eq!(declined(&open), ("nothing_to_refund", false));
}

#[tokio::test]
async fn cancel_same_day_after_the_cut_and_of_a_captured_preauth() {
    let b = bank().await;
    b.order("AL8", 10_000, TestOrderState::Approved, false)
        .await;
    b.order("AL9", 10_000, TestOrderState::Preauth, false).await;
    b.order("AL10", 10_000, TestOrderState::Preauth, false)
        .await;
    for id in ["AL8", "AL9"] {
        approved(&b.provider.cancel(&b.account, &op(id, 10_000, true)).await);
        assert_eq!(
            b.provider.query(&b.account, id).await.state,
            BankState::Cancelled
        );
    }
    // Cancelled already: approved, nothing sent.
    approved_plain(
        &b.provider
            .cancel(&b.account, &op("AL8", 10_000, true))
            .await,
    );
    assert_eq!(b.kinds("AL8"), ["sale", "void"]);
    // A captured pre-authorization: the capture's reverse, then the authorization's.
    approved(
        &b.provider
            .capture(&b.account, &op("AL10", 6_000, false))
            .await,
    );
    approved(
        &b.provider
            .cancel(&b.account, &op("AL10", 6_000, true))
            .await,
    );
    assert_eq!(b.kinds("AL10"), ["preauth", "postauth", "void", "void"]);
    let led = b.state.ledger_of(TERMINAL, "AL10").unwrap();
    assert_eq!(led.state, OrderState::Voided);
    assert_eq!(
        b.provider.query(&b.account, "AL10").await.state,
        BankState::Cancelled
    );
    // After the cut the bank refuses the reverse (0211): refund instead.
    b.order("AL11", 10_000, TestOrderState::Approved, false)
        .await;
    b.state.book().end_of_day();
    let late = b
        .provider
        .cancel(&b.account, &op("AL11", 10_000, true))
        .await;
    assert_eq!(declined(&late), ("0211", true));
    approved(
        &b.provider
            .refund(&b.account, &op("AL11", 10_000, true))
            .await,
    );
}

fn approved_plain(o: &BankOutcome) {
    assert!(
        matches!(o, BankOutcome::Approved { code, .. } if code == "00"),
        "{o:?}"
    );
}

#[tokio::test]
async fn the_query_reads_not_found_and_never_guesses() {
    let b = bank().await;
    let nf = b.provider.query(&b.account, "ALNONE").await;
    assert!(!nf.found && nf.is_conclusive() && nf.code == "E219");
    b.order("AL12", 1_000, TestOrderState::Declined, false)
        .await;
    assert!(!b.provider.query(&b.account, "AL12").await.found);
    // An order id that cannot be the bank's 24 characters is refused before sending.
    let long = "A".repeat(25);
    let st = b.provider.query(&b.account, &long).await;
    assert!(!st.is_conclusive() && st.code == "order_id", "{st:?}");
    let out = b.provider.capture(&b.account, &op(&long, 1, true)).await;
    assert!(
        matches!(&out, BankOutcome::Error { code, .. } if code == "order_id"),
        "{out:?}"
    );
    // A wrong key: the bank refuses the inquiry (0150), so a capture sends nothing and a
    // cancel cannot tell.
    b.order("AL13", 1_000, TestOrderState::Preauth, false).await;
    let bad = b.other_account("acc_bad", secret(&b.endpoint(), TERMINAL, "wrong-key"));
    let st = b.provider.query(&bad, "AL13").await;
    assert!(!st.is_conclusive() && st.code == "0150", "{st:?}");
    let out = b.provider.capture(&bad, &op("AL13", 1_000, true)).await;
    assert!(
        matches!(&out, BankOutcome::Error { code, .. } if code == "0150"),
        "{out:?}"
    );
    let out = b.provider.cancel(&bad, &op("AL13", 1_000, true)).await;
    assert!(
        matches!(&out, BankOutcome::Unknown { reason } if reason.contains("nothing was sent")),
        "{out:?}"
    );
    assert_eq!(b.kinds("AL13"), ["preauth"]);
    let good = b.other_account("acc_good", secret(&b.endpoint(), TERMINAL, ENC_KEY));
    assert_eq!(
        b.provider.query(&good, "AL13").await.state,
        BankState::Preauth
    );
}

#[tokio::test]
async fn points_are_not_supported() {
    let b = bank().await;
    assert!(!b.provider.supported().contains(Operation::PointsInquiry));
    assert!(b.provider.supported().contains(Operation::Query));
    let card = CardDetails {
        number: "5400619360964581".into(),
        exp_month: "01".into(),
        exp_year: "2030".into(),
        cvv: "056".into(),
        holder: "x".into(),
    };
    let res = b
        .provider
        .points_inquiry(&b.account, &card, Currency::Try)
        .await;
    assert!(matches!(res, PointsResult::Error { code, .. } if code == "operation_not_supported"));
}
