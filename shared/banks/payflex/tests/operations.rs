//! Adapter ↔ simulator over real HTTP: capture, cancel, refund (full and partial), query,
//! the end-of-day rule and the missing points inquiry.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, bank_with, card, op, secret, MERCHANT_ID, PASSWORD, TERMINAL};
use paygate_bankkit::sim::{Fault, OrderState};
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState, Currency, PointsResult,
};

fn approved(o: &BankOutcome) -> bool {
    matches!(o, BankOutcome::Approved { code, auth_code: Some(_), rrn: Some(_) } if code == "0000")
}

#[tokio::test]
async fn capture_full_and_partial() {
    let b = bank().await;
    b.order("PF-C1", 20_000, TestOrderState::Preauth, false)
        .await;
    assert_eq!(
        b.provider.query(&b.account, "PF-C1").await.state,
        BankState::Preauth
    );
    let out = b
        .provider
        .capture(&b.account, &op("PF-C1", 15_000, false))
        .await;
    assert!(approved(&out), "{out:?}");
    let st = b.provider.query(&b.account, "PF-C1").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 15_000));
    // A second capture has no open pre-authorization.
    match b
        .provider
        .capture(&b.account, &op("PF-C1", 5_000, false))
        .await
    {
        BankOutcome::Declined { code, .. } => assert_eq!(code, "1085"),
        other => panic!("{other:?}"),
    }
    // Above the pre-authorization.
    b.order("PF-C2", 1_000, TestOrderState::Preauth, false)
        .await;
    match b
        .provider
        .capture(&b.account, &op("PF-C2", 1_001, false))
        .await
    {
        BankOutcome::Declined { code, .. } => assert_eq!(code, "1086"),
        other => panic!("{other:?}"),
    }
    assert!(approved(
        &b.provider
            .capture(&b.account, &op("PF-C2", 1_000, true))
            .await
    ));
    // A sale has nothing to capture: refused before a Capture is sent.
    b.order("PF-C3", 1_000, TestOrderState::Approved, false)
        .await;
    match b
        .provider
        .capture(&b.account, &op("PF-C3", 1_000, true))
        .await
    {
        BankOutcome::Declined { code, .. } => assert_eq!(code, "no_reference"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn cancel_same_day_then_after_the_cut() {
    let b = bank().await;
    b.order("PF-V1", 5_000, TestOrderState::Approved, false)
        .await;
    assert!(approved(
        &b.provider
            .cancel(&b.account, &op("PF-V1", 5_000, true))
            .await
    ));
    assert_eq!(
        b.provider.query(&b.account, "PF-V1").await.state,
        BankState::Cancelled
    );
    // Again: the search shows it cancelled, so the cancel is done and nothing is sent (the
    // bank would answer `1083`).
    let ops = || {
        b.state
            .ledger_of(MERCHANT_ID, "PF-V1")
            .unwrap()
            .operations
            .len()
    };
    let before = ops();
    let again = b
        .provider
        .cancel(&b.account, &op("PF-V1", 5_000, true))
        .await;
    assert!(matches!(again, BankOutcome::Approved { .. }), "{again:?}");
    assert_eq!(ops(), before, "no second cancel was sent");
    // A captured pre-authorization is cancelled through its capture.
    b.order("PF-V2", 7_000, TestOrderState::Preauth, false)
        .await;
    assert!(approved(
        &b.provider
            .capture(&b.account, &op("PF-V2", 7_000, true))
            .await
    ));
    assert!(approved(
        &b.provider
            .cancel(&b.account, &op("PF-V2", 7_000, true))
            .await
    ));
    assert_eq!(
        b.provider.query(&b.account, "PF-V2").await.state,
        BankState::Cancelled
    );
    // After the end-of-day cut: declined with after_cutoff, and the sale stands.
    b.order("PF-V3", 3_000, TestOrderState::Approved, false)
        .await;
    b.state.book().end_of_day();
    match b
        .provider
        .cancel(&b.account, &op("PF-V3", 3_000, true))
        .await
    {
        BankOutcome::Declined {
            code, after_cutoff, ..
        } => {
            assert_eq!((code.as_str(), after_cutoff), ("1082", true));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        b.provider.query(&b.account, "PF-V3").await.state,
        BankState::Approved
    );
    // Unknown order: the lookup finds nothing and nothing is sent.
    match b.provider.cancel(&b.account, &op("PF-NONE", 1, true)).await {
        BankOutcome::Declined { code, .. } => assert_eq!(code, "order_not_found"),
        other => panic!("{other:?}"),
    }
}

/// A bank whose cancel of a capture leaves the pre-authorization open (variant): the cancel
/// reads the order back and releases the hold too; when that cannot be confirmed the
/// outcome is unknown, never "approved" over an open hold. On the default bank one cancel
/// is enough and is confirmed.
#[tokio::test]
async fn a_captured_preauthorization_is_cancelled_only_once_its_hold_is_released() {
    for (alone, faults, outcome, state) in [
        (false, vec![], "approved", OrderState::Voided),
        (true, vec![], "approved", OrderState::Voided),
        // The second cancel meets a technical error: the hold is still open.
        (
            true,
            vec![Fault::Pass, Fault::TechnicalError],
            "unknown",
            OrderState::Preauth,
        ),
    ] {
        let b = bank_with(|c| {
            if alone {
                c.cancelling_captures_alone()
            } else {
                c
            }
        })
        .await;
        b.order("PF-CC", 7_000, TestOrderState::Preauth, false)
            .await;
        let captured = b
            .provider
            .capture(&b.account, &op("PF-CC", 6_000, false))
            .await;
        assert!(approved(&captured), "{captured:?}");
        b.state.fault_plan().script(faults);
        let got = b
            .provider
            .cancel(&b.account, &op("PF-CC", 6_000, true))
            .await;
        let class = match got {
            BankOutcome::Approved { .. } => "approved",
            BankOutcome::Unknown { .. } => "unknown",
            _ => "other",
        };
        let bank_state = b.state.ledger_of(MERCHANT_ID, "PF-CC").unwrap().state;
        assert_eq!(
            (class, bank_state),
            (outcome, state),
            "alone {alone}: {got:?}"
        );
    }
}

#[tokio::test]
async fn refunds_partial_then_full_the_same_day() {
    let b = bank().await;
    b.order("PF-R1", 10_000, TestOrderState::Approved, false)
        .await;
    assert!(approved(
        &b.provider
            .refund(&b.account, &op("PF-R1", 2_500, false))
            .await
    ));
    let st = b.provider.query(&b.account, "PF-R1").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 10_000, 2_500)
    );
    match b
        .provider
        .refund(&b.account, &op("PF-R1", 8_000, false))
        .await
    {
        BankOutcome::Declined { code, .. } => assert_eq!(code, "1087"),
        other => panic!("{other:?}"),
    }
    assert!(approved(
        &b.provider
            .refund(&b.account, &op("PF-R1", 7_500, false))
            .await
    ));
    let st = b.provider.query(&b.account, "PF-R1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::Refunded, 10_000)
    );
    match b.provider.refund(&b.account, &op("PF-R1", 1, false)).await {
        BankOutcome::Declined { code, .. } => assert_eq!(code, "1059"),
        other => panic!("{other:?}"),
    }
    // A refunded sale cannot be cancelled.
    b.order("PF-R2", 4_000, TestOrderState::Approved, false)
        .await;
    assert!(approved(
        &b.provider
            .refund(&b.account, &op("PF-R2", 1_000, false))
            .await
    ));
    match b
        .provider
        .cancel(&b.account, &op("PF-R2", 4_000, true))
        .await
    {
        BankOutcome::Declined { code, .. } => assert_eq!(code, "1084"),
        other => panic!("{other:?}"),
    }
    // A captured pre-authorization is refunded through its capture, after the cut too.
    b.order("PF-R3", 9_000, TestOrderState::Preauth, false)
        .await;
    assert!(approved(
        &b.provider
            .capture(&b.account, &op("PF-R3", 6_000, false))
            .await
    ));
    b.state.book().end_of_day();
    assert!(approved(
        &b.provider
            .refund(&b.account, &op("PF-R3", 6_000, true))
            .await
    ));
    let st = b.provider.query(&b.account, "PF-R3").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::Refunded, 6_000, 6_000)
    );
    let ledger = b.state.ledger_of(MERCHANT_ID, "PF-R3").unwrap();
    assert_eq!((ledger.state, ledger.refunded), (OrderState::Sale, 6_000));
}

#[tokio::test]
async fn query_states() {
    let b = bank().await;
    assert!(!b.provider.query(&b.account, "PF-Q0").await.found);
    b.order("PF-Q1", 1_000, TestOrderState::Declined, false)
        .await;
    assert_eq!(
        b.provider.query(&b.account, "PF-Q1").await.state,
        BankState::Declined
    );
    // Another merchant sees none of this merchant's orders; wrong passwords fail the query.
    let other = b.other_account(
        "acc_other",
        secret(&b.endpoint(), "000100000013506", "OTHER01", "VP000579"),
    );
    assert!(!b.provider.query(&other, "PF-Q1").await.found);
    let bad = b.other_account(
        "acc_bad",
        secret(&b.endpoint(), MERCHANT_ID, "wrong", TERMINAL),
    );
    let st = b.provider.query(&bad, "PF-Q1").await;
    assert!(
        st.found && !st.is_conclusive() && st.code == "9065",
        "{st:?}"
    );
    match b.provider.refund(&bad, &op("PF-Q1", 1, true)).await {
        BankOutcome::Error { code, .. } => assert_eq!(code, "9065"),
        other => panic!("{other:?}"),
    }
    let _ = PASSWORD;
}

#[tokio::test]
async fn points_are_not_supported_and_nothing_is_sent() {
    let b = bank().await;
    assert!(!b
        .provider
        .supported()
        .contains(paygate_domain::Operation::PointsInquiry));
    match b
        .provider
        .points_inquiry(&b.account, &card("4111111111111111"), Currency::Try)
        .await
    {
        PointsResult::Error { code, .. } => assert_eq!(code, "operation_not_supported"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn wire_strictness() {
    let b = bank().await;
    let form = "application/x-www-form-urlencoded";
    // Raw XML instead of the form.
    let raw = b
        .raw(
            paygate_bank_payflex::VPOS_PATH,
            "text/xml",
            b"<VposRequest/>".to_vec(),
        )
        .await;
    assert!(raw.contains("<ResultCode>9001</ResultCode>"), "{raw}");
    // Malformed XML in prmstr.
    let body = paygate_bankkit::form::Form::new()
        .field("prmstr", "<VposRequest>")
        .encode();
    let raw = b.raw(paygate_bank_payflex::VPOS_PATH, form, body).await;
    assert!(raw.contains("<ResultCode>9001</ResultCode>"), "{raw}");
    // Unknown merchant.
    let body = paygate_bankkit::form::Form::new()
        .field("prmstr", "<VposRequest><MerchantId>1</MerchantId><Password>x</Password><TransactionType>Cancel</TransactionType></VposRequest>")
        .encode();
    let raw = b.raw(paygate_bank_payflex::VPOS_PATH, form, body).await;
    assert!(raw.contains("<ResultCode>9039</ResultCode>"), "{raw}");
    // Comma decimals are refused.
    b.order("PF-W1", 1_000, TestOrderState::Approved, false)
        .await;
    let reference = {
        let book = b.state.book();
        paygate_bank_payflex::sim::transaction_id(
            &book.get(MERCHANT_ID, "PF-W1").unwrap().history[0],
        )
    };
    let body = paygate_bankkit::form::Form::new()
        .field("prmstr", format!("<VposRequest><MerchantId>{MERCHANT_ID}</MerchantId><Password>{PASSWORD}</Password><TransactionType>Refund</TransactionType><ReferenceTransactionId>{reference}</ReferenceTransactionId><CurrencyAmount>1,00</CurrencyAmount></VposRequest>"))
        .encode();
    let raw = b.raw(paygate_bank_payflex::VPOS_PATH, form, body).await;
    assert!(raw.contains("<ResultCode>1088</ResultCode>"), "{raw}");
}
