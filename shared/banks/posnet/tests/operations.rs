//! Adapter ↔ simulator over real HTTP: every operation and its bank-side rules.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use paygate_domain::{
    ports::{PosProvider, TestOrder, TestOrderState},
    BankOutcome, BankState, CardDetails, Currency, Operation, PointsBalance, PointsResult,
    StoreError,
};

#[tokio::test]
async fn capture_full_and_partial_then_the_bank_refuses_a_second_one() {
    let bank = Bank::start().await;
    bank.register("PGCAPT1", 10_000, TestOrderState::Preauth, false)
        .await;
    let pre = bank.query("PGCAPT1").await;
    assert_eq!((pre.state, pre.amount), (BankState::Preauth, 10_000));

    let rrn = approved_rrn(&bank.capture("PGCAPT1", 6_000).await);
    assert_eq!(rrn.len(), 18, "Posnet hostlogkey: {rrn}");
    let after = bank.query("PGCAPT1").await;
    assert_eq!(
        (
            after.found,
            after.state,
            after.amount,
            after.refunded_amount
        ),
        (true, BankState::Approved, 6_000, 0)
    );
    assert_eq!(
        after.rrn, pre.rrn,
        "the order keeps the authorization's reference"
    );
    assert_eq!(bank.book_kinds("PGCAPT1"), ["preauth", "postauth"]);
    // Capturing again: GECERSIZ ISLEM.
    assert_eq!(
        declined_code(&bank.capture("PGCAPT1", 1_000).await),
        ("0200", false)
    );

    bank.register("PGCAPT2", 5_000, TestOrderState::Preauth, false)
        .await;
    approved_rrn(&bank.capture("PGCAPT2", 5_000).await);
    assert_eq!(bank.query("PGCAPT2").await.amount, 5_000);
}

#[tokio::test]
async fn capture_refusals_carry_the_bank_code_and_text() {
    let bank = Bank::start().await;
    bank.register("PGCAPT3", 10_000, TestOrderState::Preauth, false)
        .await;
    match bank.capture("PGCAPT3", 10_001).await {
        BankOutcome::Declined {
            code,
            message,
            after_cutoff,
        } => {
            assert_eq!(
                (code.as_str(), message.as_str(), after_cutoff),
                ("0205", "GECERSIZ TUTAR", false)
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        bank.query("PGCAPT3").await.state,
        BankState::Preauth,
        "nothing moved"
    );
    bank.register("PGSALE1", 10_000, TestOrderState::Approved, false)
        .await;
    assert_eq!(
        declined_code(&bank.capture("PGSALE1", 10_000).await).0,
        "0200"
    );
    // No such order: the lookup finds nothing, the bank's not-found code.
    assert_eq!(declined_code(&bank.capture("PGNONE1", 100).await).0, "0123");
    // A reversed authorization cannot be captured.
    bank.register("PGCAPT4", 1_000, TestOrderState::Preauth, false)
        .await;
    approved_rrn(&bank.cancel("PGCAPT4").await);
    assert_eq!(
        declined_code(&bank.capture("PGCAPT4", 1_000).await).0,
        "0015"
    );
}

#[tokio::test]
async fn cancel_same_day_reverses_the_sale_and_a_second_cancel_is_refused() {
    let bank = Bank::start().await;
    bank.register("PGVOID1", 4_000, TestOrderState::Approved, false)
        .await;
    approved_rrn(&bank.cancel("PGVOID1").await);
    let st = bank.query("PGVOID1").await;
    assert_eq!((st.state, st.amount), (BankState::Cancelled, 4_000));
    // The bank would refuse a second reversal (0220); a repeated cancel sends none and
    // reports the cancel as done.
    let before = bank.book_kinds("PGVOID1");
    assert!(matches!(
        bank.cancel("PGVOID1").await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(bank.book_kinds("PGVOID1"), before);
    // A reversed sale cannot be refunded either.
    bank.end_of_day().await;
    assert_eq!(declined_code(&bank.refund("PGVOID1", 100).await).0, "0123");
}

#[tokio::test]
async fn cancel_after_the_end_of_day_cut_is_declined_as_after_cutoff() {
    let bank = Bank::start().await;
    bank.register("PGEOD1", 4_000, TestOrderState::Approved, true)
        .await;
    assert_eq!(declined_code(&bank.cancel("PGEOD1").await), ("0211", true));
    bank.register("PGEOD2", 4_000, TestOrderState::Approved, false)
        .await;
    bank.end_of_day().await;
    match bank.cancel("PGEOD2").await {
        BankOutcome::Declined {
            code,
            message,
            after_cutoff: true,
        } => {
            assert_eq!(
                (code.as_str(), message.as_str()),
                ("0211", "GRUP KAPAMA YAPILMIS")
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(bank.query("PGEOD2").await.state, BankState::Approved);
    // A captured authorization after the cut: the capture stands.
    bank.register("PGEOD3", 4_000, TestOrderState::Preauth, false)
        .await;
    approved_rrn(&bank.capture("PGEOD3", 3_000).await);
    bank.end_of_day().await;
    assert_eq!(declined_code(&bank.cancel("PGEOD3").await), ("0211", true));
}

#[tokio::test]
async fn cancel_of_an_authorization_and_of_a_captured_one() {
    let bank = Bank::start().await;
    bank.register("PGAUTH1", 7_000, TestOrderState::Preauth, false)
        .await;
    approved_rrn(&bank.cancel("PGAUTH1").await);
    assert_eq!(bank.query("PGAUTH1").await.state, BankState::Cancelled);

    // Captured: the capture is reversed first, then the authorization (0788 otherwise).
    bank.register("PGAUTH2", 7_000, TestOrderState::Preauth, false)
        .await;
    approved_rrn(&bank.capture("PGAUTH2", 5_000).await);
    approved_rrn(&bank.cancel("PGAUTH2").await);
    assert_eq!(
        bank.book_kinds("PGAUTH2"),
        ["preauth", "postauth", "void", "void"]
    );
    let st = bank.query("PGAUTH2").await;
    assert_eq!((st.state, st.amount), (BankState::Cancelled, 7_000));

    // An authorization may still be reversed after the cut (the bank allows a week).
    bank.register("PGAUTH3", 2_000, TestOrderState::Preauth, true)
        .await;
    approved_rrn(&bank.cancel("PGAUTH3").await);
}

#[tokio::test]
async fn refunds_need_the_end_of_day_and_partial_refunds_show_in_the_query() {
    let bank = Bank::start().await;
    bank.register("PGRFND1", 10_000, TestOrderState::Approved, false)
        .await;
    match bank.refund("PGRFND1", 3_000).await {
        BankOutcome::Declined {
            code,
            message,
            after_cutoff: false,
        } => {
            assert_eq!(
                (code.as_str(), message.as_str()),
                ("0411", "ISLEM HENUZ FINANSALLASMAMIS")
            );
        }
        other => panic!("{other:?}"),
    }
    bank.end_of_day().await;
    approved_rrn(&bank.refund("PGRFND1", 3_000).await);
    let part = bank.query("PGRFND1").await;
    assert_eq!(
        (part.state, part.amount, part.refunded_amount),
        (BankState::PartiallyRefunded, 10_000, 3_000)
    );
    assert_eq!(
        declined_code(&bank.refund("PGRFND1", 7_001).await).0,
        "0205"
    );
    approved_rrn(&bank.refund("PGRFND1", 2_500).await);
    assert_eq!(bank.query("PGRFND1").await.refunded_amount, 5_500);
    approved_rrn(&bank.refund("PGRFND1", 4_500).await);
    let full = bank.query("PGRFND1").await;
    assert_eq!(
        (full.state, full.refunded_amount),
        (BankState::Refunded, 10_000)
    );
    assert_eq!(declined_code(&bank.refund("PGRFND1", 1).await).0, "0205");
    assert_eq!(declined_code(&bank.cancel("PGRFND1").await), ("0211", true));

    // A capture refunds only after its own day's cut.
    bank.register("PGRFND2", 10_000, TestOrderState::Preauth, false)
        .await;
    assert_eq!(
        declined_code(&bank.refund("PGRFND2", 100).await).0,
        "0200",
        "open authorization"
    );
    approved_rrn(&bank.capture("PGRFND2", 8_000).await);
    assert_eq!(declined_code(&bank.refund("PGRFND2", 100).await).0, "0411");
    bank.end_of_day().await;
    approved_rrn(&bank.refund("PGRFND2", 8_000).await);
    assert_eq!(bank.query("PGRFND2").await.state, BankState::Refunded);
    assert_eq!(declined_code(&bank.refund("PGNONE2", 100).await).0, "0123");
}

#[tokio::test]
async fn query_tells_not_found_declined_and_each_state() {
    let bank = Bank::start().await;
    let nf = bank.query("PGNONE3").await;
    assert_eq!(
        (nf.found, nf.state, nf.code.as_str()),
        (false, BankState::Unknown, "0123")
    );
    assert!(nf.is_conclusive());
    bank.register("PGNONE4", 1_000, TestOrderState::None, false)
        .await;
    assert!(!bank.query("PGNONE4").await.found);
    bank.register("PGDECL1", 1_000, TestOrderState::Declined, false)
        .await;
    let d = bank.query("PGDECL1").await;
    assert_eq!(
        (d.found, d.state, d.amount),
        (true, BankState::Declined, 1_000)
    );
    bank.register("PGSALE2", 123_456, TestOrderState::Approved, false)
        .await;
    let s = bank.query("PGSALE2").await;
    assert_eq!(
        (s.state, s.amount, s.code.as_str()),
        (BankState::Approved, 123_456, "1")
    );
    assert_eq!(s.rrn.len(), 18);
    assert_eq!(s.auth_code.len(), 6);
}

#[tokio::test]
async fn points_inquiry_reads_worldpuan_and_the_bank_declines_other_cards() {
    let bank = Bank::start().await;
    let card = |number: &str, month: &str, year: &str| CardDetails {
        number: number.into(),
        exp_month: month.into(),
        exp_year: year.into(),
        cvv: "000".into(),
        holder: "Ayşe Yılmaz".into(),
    };
    // 1 WorldPuan = half a kuruş: tail 005263 → 2 × (5263 + 100) points = 5363 kuruş.
    assert_eq!(
        bank.provider
            .points_inquiry(
                &bank.account,
                &card(WORLD_CARD, "12", "2030"),
                Currency::Try
            )
            .await,
        PointsResult::Ok {
            balances: vec![PointsBalance {
                name: "WorldPuan".into(),
                value: "53.63".into(),
                amount_minor: 5_363
            }]
        }
    );
    match bank
        .provider
        .points_inquiry(
            &bank.account,
            &card(OTHER_CARD, "12", "2030"),
            Currency::Try,
        )
        .await
    {
        PointsResult::Declined { code, message } => assert_eq!(
            (code.as_str(), message.as_str()),
            ("0012", "RED-GECERSIZ ISLEM")
        ),
        other => panic!("{other:?}"),
    }
    // Not sendable (month 13): refused before the bank.
    assert!(matches!(
        bank.provider.points_inquiry(&bank.account, &card(WORLD_CARD, "13", "2030"), Currency::Try).await,
        PointsResult::Error { code, .. } if code == "card"
    ));
}

#[tokio::test]
async fn wrong_credentials_get_the_bank_auth_error_as_error() {
    let bank = Bank::start().await;
    bank.register("PGCRED1", 1_000, TestOrderState::Approved, false)
        .await;
    let wrong = bank.account_with("acc_wrong1", &[("mid", "6706598321"), ("tid", TID)]);
    let op = op("PGCRED1", 1_000);
    // A cancel reads the order first; a refused read tells nothing about the order, so the
    // cancel is unknown (nothing was sent).
    assert!(matches!(
        bank.provider.cancel(&wrong, &op).await,
        BankOutcome::Unknown { reason } if reason.contains("0148")
    ));
    for outcome in [
        bank.provider.capture(&wrong, &op).await,
        bank.provider.refund(&wrong, &op).await,
    ] {
        match outcome {
            BankOutcome::Error { code, message } => {
                assert_eq!(code, "0148");
                assert_eq!(
                    message, "INVALID MID TID IP. Hatalı IP:127.0.0.1",
                    "ISO-8859-9 text decoded"
                );
            }
            other => panic!("{other:?}"),
        }
    }
    let q = bank.provider.query(&wrong, "PGCRED1").await;
    assert_eq!(
        (q.found, q.state, q.code.as_str()),
        (true, BankState::Unknown, "0148")
    );
    let card = CardDetails {
        number: WORLD_CARD.into(),
        exp_month: "12".into(),
        exp_year: "30".into(),
        cvv: "000".into(),
        holder: String::new(),
    };
    assert!(matches!(
        bank.provider.points_inquiry(&wrong, &card, Currency::Try).await,
        PointsResult::Error { code, .. } if code == "0148"
    ));
    // Missing credentials: stopped before sending.
    let empty = bank.account_with("acc_empty1", &[("mid", MID)]);
    assert!(
        matches!(bank.provider.refund(&empty, &op).await, BankOutcome::Error { code, .. } if code == "config")
    );
    // The sale was untouched by all of it.
    assert_eq!(bank.query("PGCRED1").await.state, BankState::Approved);
}

#[tokio::test]
async fn order_ids_are_formatted_per_account_and_never_truncated() {
    let bank = Bank::start().await;
    // A 3-D Secure account: TDSC + zero-padded id.
    let tds = bank.account_with(
        "acc_tds1",
        &[("mid", MID), ("tid", TID), ("orderIdPrefix", "TDSC")],
    );
    let order = TestOrder {
        order_id: "2020110828BC".into(),
        amount: 5_000,
        currency: Currency::Try,
        state: TestOrderState::Approved,
        settled: true,
    };
    bank.provider
        .test_orders()
        .unwrap()
        .register(&tds, &order)
        .await
        .unwrap();
    assert!(bank
        .state
        .book()
        .get(MID, "TDSC000000002020110828BC")
        .is_some());
    assert_eq!(
        bank.provider.query(&tds, "2020110828BC").await.state,
        BankState::Approved
    );
    approved_rrn(&bank.provider.refund(&tds, &op("2020110828BC", 5_000)).await);
    // The same id without the prefix is another order.
    assert!(!bank.query("2020110828BC").await.found);
    // 22 characters do not fit after TDSC: refused, nothing sent.
    assert!(matches!(
        bank.provider.refund(&tds, &op("PG01HZX3K9QW2E4R5T6Y7U", 100)).await,
        BankOutcome::Error { code, .. } if code == "order_id"
    ));
    // An old terminal spelling TRY as YT.
    let yt = bank.account_with(
        "acc_yt1",
        &[("mid", MID), ("tid", TID), ("currencyCodeTry", "YT")],
    );
    bank.register("PGYT1", 3_000, TestOrderState::Approved, true)
        .await;
    approved_rrn(&bank.provider.refund(&yt, &op("PGYT1", 1_000)).await);
    let bad = bank.account_with(
        "acc_ytl1",
        &[("mid", MID), ("tid", TID), ("currencyCodeTry", "YTL")],
    );
    assert!(
        matches!(bank.provider.refund(&bad, &op("PGYT1", 1_000)).await, BankOutcome::Error { code, .. } if code == "config")
    );
}

#[tokio::test]
async fn duplicate_order_ids_are_refused() {
    let bank = Bank::start().await;
    bank.register("PGDUP1", 1_000, TestOrderState::Approved, false)
        .await;
    let again = TestOrder {
        order_id: "PGDUP1".into(),
        amount: 1_000,
        currency: Currency::Try,
        state: TestOrderState::Approved,
        settled: false,
    };
    assert!(matches!(
        bank.provider
            .test_orders()
            .unwrap()
            .register(&bank.account, &again)
            .await,
        Err(StoreError::AlreadyExists)
    ));
}

#[tokio::test]
async fn the_test_order_helper_fails_against_a_real_bank() {
    let bank = Bank::start().await;
    // A "bank" whose service has no admin route (here: a path the simulator does not serve).
    let real = account("acc_real1");
    bank.creds.insert(
        real.id.clone(),
        paygate_bankkit::AccountCredentials::new(
            format!("{}/real/PosnetWebService/XML", bank.server.url),
            [
                ("mid".to_owned(), MID.to_owned()),
                ("tid".to_owned(), TID.to_owned()),
            ],
        ),
    );
    let order = TestOrder {
        order_id: "PGREAL1".into(),
        amount: 1_000,
        currency: Currency::Try,
        state: TestOrderState::Approved,
        settled: false,
    };
    match bank
        .provider
        .test_orders()
        .unwrap()
        .register(&real, &order)
        .await
    {
        Err(StoreError::Unavailable(msg)) => {
            assert!(msg.contains("simulator") && msg.contains("404"), "{msg}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_support_matrix_is_all_five_operations() {
    let provider = paygate_bank_posnet::PosnetProvider::new(
        paygate_bank_posnet::Posnet::default(),
        paygate_bankkit::BankTransport::new(std::time::Duration::from_secs(1)),
        std::sync::Arc::new(paygate_bankkit::MemoryCredentials::default()),
    );
    assert_eq!(provider.code(), "posnet");
    for op in Operation::ALL {
        assert!(provider.supported().contains(op), "{op:?}");
    }
}
