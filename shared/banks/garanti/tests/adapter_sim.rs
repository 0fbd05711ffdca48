//! The adapter against the simulator, over real HTTP on loopback: every operation and every
//! mapped outcome.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, bank_with_timeout, op};
use paygate_bank_garanti::{
    request::{TxnType, CONTENT_TYPE, FIXED_AMOUNT},
    sim::TEST_BONUS_CARD,
};
use paygate_bankkit::{sim::Faults, TransportError};
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState, Currency, PointsBalance, PointsResult,
};

fn approved(o: &BankOutcome) -> bool {
    matches!(o, BankOutcome::Approved { code, auth_code: Some(a), rrn: Some(r) }
        if code == "00" && a.len() == 6 && r.len() == 12)
}

fn declined(o: &BankOutcome, want: &str, cutoff: bool) {
    match o {
        BankOutcome::Declined {
            code,
            message,
            after_cutoff,
        } => {
            assert_eq!(code, want, "{o:?}");
            assert!(!message.is_empty(), "{o:?}");
            assert_eq!(*after_cutoff, cutoff, "{o:?}");
        }
        other => panic!("expected a decline {want}, got {other:?}"),
    }
}

#[tokio::test]
async fn capture_full_and_partial() {
    let b = bank().await;
    b.register("PA1", 10_000, TestOrderState::Preauth, false)
        .await;
    b.register("PA2", 10_000, TestOrderState::Preauth, false)
        .await;
    let st = b.query("PA1").await;
    assert_eq!(
        (st.found, st.state, st.amount),
        (true, BankState::Preauth, 10_000)
    );
    assert!(approved(
        &b.provider.capture(&b.account, &op("PA1", 10_000)).await
    ));
    let st = b.query("PA1").await;
    assert_eq!(
        (st.state, st.amount, st.code.as_str()),
        (BankState::Approved, 10_000, "00")
    );
    assert_eq!((st.auth_code.len(), st.rrn.len()), (6, 12));
    assert!(approved(
        &b.provider.capture(&b.account, &op("PA2", 6_000)).await
    ));
    let st = b.query("PA2").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 6_000));
}

#[tokio::test]
async fn capture_above_the_preauth_or_of_a_sale_is_declined() {
    let b = bank().await;
    b.register("PA1", 10_000, TestOrderState::Preauth, false)
        .await;
    b.register("S1", 10_000, TestOrderState::Approved, false)
        .await;
    declined(
        &b.provider.capture(&b.account, &op("PA1", 10_001)).await,
        "0209",
        false,
    );
    declined(
        &b.provider.capture(&b.account, &op("S1", 5_000)).await,
        "0209",
        false,
    );
    assert_eq!(b.query("PA1").await.state, BankState::Preauth);
}

#[tokio::test]
async fn cancel_a_same_day_sale_and_a_preauth() {
    let b = bank().await;
    b.register("S1", 7_000, TestOrderState::Approved, false)
        .await;
    b.register("PA1", 3_000, TestOrderState::Preauth, false)
        .await;
    assert!(approved(
        &b.provider.cancel(&b.account, &op("S1", 7_000)).await
    ));
    let st = b.query("S1").await;
    assert_eq!((st.state, st.amount), (BankState::Cancelled, 7_000));
    assert!(approved(
        &b.provider.cancel(&b.account, &op("PA1", 3_000)).await
    ));
    assert_eq!(b.query("PA1").await.state, BankState::Cancelled);
    // The bank refuses a second void (nothing left to void) ...
    let raw = b.raw_void("S1", None).await;
    assert_eq!(raw.reason_code, "0210");
    // ... so a repeated cancel sends none and reports the cancel as done.
    let before = b.state.ledger_of(common::TERMINAL, "S1").unwrap();
    assert!(matches!(
        b.provider.cancel(&b.account, &op("S1", 7_000)).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(b.state.ledger_of(common::TERMINAL, "S1").unwrap(), before);
}

#[tokio::test]
async fn cancel_after_a_capture_names_the_postauth() {
    let b = bank().await;
    b.register("PA1", 9_000, TestOrderState::Preauth, false)
        .await;
    assert!(approved(
        &b.provider.capture(&b.account, &op("PA1", 9_000)).await
    ));
    // Two voidable transactions now: the bank wants the rrn (0202 without it).
    let raw = b.raw_void("PA1", None).await;
    assert_eq!(
        (raw.code.as_str(), raw.reason_code.as_str()),
        ("92", "0202")
    );
    assert!(approved(
        &b.provider.cancel(&b.account, &op("PA1", 9_000)).await
    ));
    assert_eq!(b.query("PA1").await.state, BankState::Cancelled);
}

#[tokio::test]
async fn cancel_after_the_end_of_day_is_declined_after_cutoff() {
    let b = bank().await;
    b.register("OLD", 5_000, TestOrderState::Approved, true)
        .await;
    b.register("S1", 5_000, TestOrderState::Approved, false)
        .await;
    declined(
        &b.provider.cancel(&b.account, &op("OLD", 5_000)).await,
        "0210",
        true,
    );
    b.end_of_day().await;
    declined(
        &b.provider.cancel(&b.account, &op("S1", 5_000)).await,
        "0210",
        true,
    );
    // A refund is the way after the cut.
    assert!(approved(
        &b.provider.refund(&b.account, &op("S1", 5_000)).await
    ));
    let st = b.query("S1").await;
    assert_eq!((st.state, st.refunded_amount), (BankState::Refunded, 5_000));
}

#[tokio::test]
async fn cancel_after_a_refund_is_declined() {
    let b = bank().await;
    b.register("S1", 5_000, TestOrderState::Approved, false)
        .await;
    assert!(approved(
        &b.provider.refund(&b.account, &op("S1", 1_000)).await
    ));
    declined(
        &b.provider.cancel(&b.account, &op("S1", 5_000)).await,
        "0207",
        false,
    );
    assert_eq!(b.query("S1").await.state, BankState::PartiallyRefunded);
}

#[tokio::test]
async fn same_day_full_refund_is_allowed() {
    let b = bank().await;
    b.register("S1", 12_345, TestOrderState::Approved, false)
        .await;
    assert!(approved(
        &b.provider.refund(&b.account, &op("S1", 12_345)).await
    ));
    let st = b.query("S1").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::Refunded, 12_345, 12_345)
    );
    declined(
        &b.provider.refund(&b.account, &op("S1", 1)).await,
        "0208",
        false,
    );
}

#[tokio::test]
async fn partial_refunds_are_visible_in_query() {
    let b = bank().await;
    b.register("S1", 10_000, TestOrderState::Approved, false)
        .await;
    assert!(approved(
        &b.provider.refund(&b.account, &op("S1", 2_500)).await
    ));
    let st = b.query("S1").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 10_000, 2_500)
    );
    assert!(approved(
        &b.provider.refund(&b.account, &op("S1", 1_500)).await
    ));
    assert_eq!(b.query("S1").await.refunded_amount, 4_000);
    // Above the remaining 6 000: the bank's own rule, message decoded from ISO-8859-9.
    match b.provider.refund(&b.account, &op("S1", 6_001)).await {
        BankOutcome::Declined { code, message, .. } => {
            assert_eq!(code, "0214");
            assert_eq!(message, "İade tutarı, satış tutarından büyük olamaz");
        }
        other => panic!("{other:?}"),
    }
    assert!(approved(
        &b.provider.refund(&b.account, &op("S1", 6_000)).await
    ));
    let st = b.query("S1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::Refunded, 10_000)
    );
}

#[tokio::test]
async fn unknown_orders() {
    let b = bank().await;
    declined(
        &b.provider.capture(&b.account, &op("NOPE", 100)).await,
        "0102",
        false,
    );
    declined(
        &b.provider.cancel(&b.account, &op("NOPE", 100)).await,
        "0108",
        false,
    );
    declined(
        &b.provider.refund(&b.account, &op("NOPE", 100)).await,
        "0103",
        false,
    );
    let st = b.query("NOPE").await;
    assert_eq!(
        (st.found, st.state, st.code.as_str()),
        (false, BankState::Unknown, "0110")
    );
    assert!(st.is_conclusive());
}

#[tokio::test]
async fn a_declined_order_shows_as_declined() {
    let b = bank().await;
    b.register("D1", 4_000, TestOrderState::Declined, false)
        .await;
    let st = b.query("D1").await;
    assert_eq!((st.found, st.state), (true, BankState::Declined));
    declined(
        &b.provider.refund(&b.account, &op("D1", 4_000)).await,
        "0208",
        false,
    );
}

#[tokio::test]
async fn technical_errors_are_errors() {
    let b = bank().await;
    b.register("PA1", 10_000, TestOrderState::Preauth, false)
        .await;
    b.set_faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    match b.provider.capture(&b.account, &op("PA1", 10_000)).await {
        BankOutcome::Error { code, message } => {
            assert_eq!(code, "90");
            assert!(
                message.starts_with("İşleminizi gerçekleştiremiyoruz"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        b.query("PA1").await.state,
        BankState::Preauth,
        "nothing moved"
    );
    b.set_faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    let st = b.query("PA1").await;
    assert!(!st.is_conclusive());
    assert_eq!(st.code, "90");
    b.set_faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    let card = common::card(TEST_BONUS_CARD);
    assert!(matches!(
        b.provider.points_inquiry(&b.account, &card, Currency::Try).await,
        PointsResult::Error { code, .. } if code == "90"
    ));
}

/// `orderinq` finds the order but its history lags (`0108`, or an empty list): the query is
/// unavailable, never "approved, nothing refunded" (the refund could be sent again).
#[tokio::test]
async fn a_history_lagging_behind_the_inquiry_is_unavailable() {
    let b = bank().await;
    b.register("S1", 10_000, TestOrderState::Approved, false)
        .await;
    assert!(approved(
        &b.provider.refund(&b.account, &op("S1", 2_000)).await
    ));
    for answer in ["notFound", "empty"] {
        let lag = format!(r#"{{"orderId":"S1","answer":"{answer}"}}"#);
        b.admin("/_sim/history-lag", lag.into_bytes()).await;
        let st = b.query("S1").await;
        assert!(!st.is_conclusive(), "{answer}: {st:?}");
    }
    let st = b.query("S1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 2_000)
    );
}

#[tokio::test]
async fn a_timeout_is_unknown() {
    let b = bank_with_timeout(300).await;
    b.register("S1", 10_000, TestOrderState::Approved, false)
        .await;
    b.set_faults(Faults {
        latency: std::time::Duration::from_millis(1_000),
        ..Faults::default()
    });
    assert!(matches!(
        b.provider.refund(&b.account, &op("S1", 1_000)).await,
        BankOutcome::Unknown { .. }
    ));
    // A query that times out is not conclusive either.
    let st = b.query("S1").await;
    assert_eq!(
        (st.found, st.state, st.code.as_str()),
        (true, BankState::Unknown, "timeout")
    );
}

#[tokio::test]
async fn dropped_after_processing_is_unknown_and_the_query_shows_it_applied() {
    let b = bank().await;
    b.register("PA1", 8_000, TestOrderState::Preauth, false)
        .await;
    b.set_faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    assert!(matches!(
        b.provider.capture(&b.account, &op("PA1", 8_000)).await,
        BankOutcome::Unknown { .. }
    ));
    let st = b.query("PA1").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 8_000));
    b.set_faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    assert!(matches!(
        b.provider.refund(&b.account, &op("PA1", 3_000)).await,
        BankOutcome::Unknown { .. }
    ));
    let st = b.query("PA1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
}

#[tokio::test]
async fn a_void_whose_answer_was_lost_shows_as_cancelled() {
    let b = bank().await;
    b.register("S1", 8_000, TestOrderState::Approved, false)
        .await;
    b.set_faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    let void = b
        .request("PROVRFN", TxnType::Void, "S1", FIXED_AMOUNT)
        .to_xml()
        .into_bytes();
    let sent = b
        .transport
        .post(&format!("{}/VPServlet", b.server.url), CONTENT_TYPE, void)
        .await;
    assert_eq!(sent, Err(TransportError::Broken));
    let st = b.query("S1").await;
    assert_eq!((st.found, st.state), (true, BankState::Cancelled));
}

#[tokio::test]
async fn dropped_before_processing_is_unknown_and_nothing_applied() {
    let b = bank().await;
    b.register("S1", 8_000, TestOrderState::Approved, false)
        .await;
    b.set_faults(Faults {
        drop_before_processing: 1,
        ..Faults::default()
    });
    assert!(matches!(
        b.provider.refund(&b.account, &op("S1", 8_000)).await,
        BankOutcome::Unknown { .. }
    ));
    let st = b.query("S1").await;
    assert_eq!((st.state, st.refunded_amount), (BankState::Approved, 0));
}

#[tokio::test]
async fn a_cancel_whose_history_read_fails_sends_no_void() {
    let b = bank().await;
    b.register("S1", 8_000, TestOrderState::Approved, false)
        .await;
    b.set_faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    // The read failed, so the void was never sent; but an earlier cancel attempt may have
    // moved money, so the outcome is unknown (settled by a query), not "nothing moved".
    assert!(matches!(
        b.provider.cancel(&b.account, &op("S1", 8_000)).await,
        BankOutcome::Unknown { .. }
    ));
    assert_eq!(b.query("S1").await.state, BankState::Approved);
}

#[tokio::test]
async fn points_balances_and_a_declined_card() {
    let b = bank().await;
    let card = common::card(TEST_BONUS_CARD);
    assert_eq!(
        b.provider
            .points_inquiry(&b.account, &card, Currency::Try)
            .await,
        PointsResult::Ok {
            balances: vec![
                PointsBalance {
                    name: "Bonus".into(),
                    value: "12.35".into(),
                    amount_minor: 1235
                },
                PointsBalance {
                    name: "FirmBonus".into(),
                    value: "5.00".into(),
                    amount_minor: 500
                },
            ]
        }
    );
    let other = common::card("4543600299100712");
    assert!(matches!(
        b.provider.points_inquiry(&b.account, &other, Currency::Try).await,
        PointsResult::Declined { code, message } if code == "05" && message.starts_with("İşleminizi")
    ));
    b.set_rewards("4543600299100712", &[("BNS", 99_999)]).await;
    assert!(matches!(
        b.provider.points_inquiry(&b.account, &other, Currency::Try).await,
        PointsResult::Ok { balances } if balances.len() == 1 && balances[0].value == "999.99"
    ));
}

#[tokio::test]
async fn wrong_credentials_are_errors() {
    let b = bank().await;
    b.register("S1", 5_000, TestOrderState::Approved, false)
        .await;
    b.register("PA1", 5_000, TestOrderState::Preauth, false)
        .await;
    b.set_credential("refundPassword", "wrong");
    match b.provider.refund(&b.account, &op("S1", 1_000)).await {
        BankOutcome::Error { code, message } => {
            assert_eq!(code, "0651");
            assert_eq!(message, "Kullanıcı şifresi hatalı.");
        }
        other => panic!("{other:?}"),
    }
    // PROVAUT's password still works for captures and queries.
    assert!(approved(
        &b.provider.capture(&b.account, &op("PA1", 5_000)).await
    ));
    b.set_credential("provPassword", "wrong");
    let st = b.query("S1").await;
    assert_eq!(
        (st.found, st.state, st.code.as_str()),
        (true, BankState::Unknown, "0651")
    );
    assert!(matches!(
        b.provider.points_inquiry(&b.account, &common::card(TEST_BONUS_CARD), Currency::Try).await,
        PointsResult::Error { code, .. } if code == "0651"
    ));
    b.set_credential("provPassword", "123qweASD/");
    b.set_credential("terminalId", "30691297");
    assert!(matches!(
        b.provider.capture(&b.account, &op("PA1", 5_000)).await,
        BankOutcome::Error { code, .. } if code == "0752"
    ));
    assert_eq!(
        b.query("S1").await.refunded_amount,
        0,
        "nothing was refunded"
    );
}

#[tokio::test]
async fn foreign_currency_orders() {
    let b = bank().await;
    b.register_in("E1", 2_000, Currency::Eur, TestOrderState::Preauth)
        .await;
    let mut o = op("E1", 2_000);
    o.currency = Currency::Eur;
    assert!(approved(&b.provider.capture(&b.account, &o).await));
    o.amount = 500;
    assert!(approved(&b.provider.refund(&b.account, &o).await));
    // The order's currency is checked.
    let try_refund = op("E1", 500);
    declined_or_error_code(&b.provider.refund(&b.account, &try_refund).await, "0002");
    assert_eq!(b.query("E1").await.refunded_amount, 500);
}

fn declined_or_error_code(o: &BankOutcome, want: &str) {
    match o {
        BankOutcome::Declined { code, .. } | BankOutcome::Error { code, .. } => {
            assert_eq!(code, want)
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_provider_supports_everything_garanti_offers() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let b = rt.block_on(bank());
    assert_eq!(b.provider.code(), "garanti");
    for op in paygate_domain::Operation::ALL {
        assert!(b.provider.supported().contains(op), "{op:?}");
    }
    assert!(b.provider.test_orders().is_some());
}

/// The kit's day-history case over `orderlistinq` (three lines a simulator page: D's four
/// transactions take two pages).
#[tokio::test]
async fn the_day_history_lists_what_the_bank_booked() {
    use paygate_bank_garanti::{sim, Garanti, GarantiProvider};
    use paygate_bankkit::{sim::testing::TestBank, BankTransport};
    let creds = sim::SimCredentials::garanti_test();
    let b = TestBank::new(
        sim::start(creds.clone()).await.unwrap(),
        common::account_with_id,
        "acc_garanti",
        "",
        |endpoint| creds.account_credentials(endpoint),
        |store| {
            GarantiProvider::new(
                Garanti::with_step_retry(common::quick_retry()),
                BankTransport::new(std::time::Duration::from_secs(3)),
                store,
            )
        },
    );
    b.the_day_history_lists_what_the_bank_booked("DH-CAP", "DH-VOID", true)
        .await;
}
