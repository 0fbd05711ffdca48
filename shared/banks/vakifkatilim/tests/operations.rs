//! Adapter ↔ simulator over real HTTP: capture (whole and partial close), cancel (a
//! pre-authorization, a sale, a closed pre-authorization, past the cut), refunds (only after
//! the cut; whole and partial), the query, the paged history, and no points inquiry.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, secret, MERCHANT};
use paygate_bank_vakifkatilim::{history, CANCEL_AFTER_CUT, REFUND_BEFORE_CUT};
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
async fn capture_whole_and_partial() {
    let b = bank().await;
    b.order("VK-PRE", 10_000, TestOrderState::Preauth, false)
        .await;
    b.order("VK-PRE2", 10_000, TestOrderState::Preauth, false)
        .await;
    let st = b.provider.query(&b.account, "VK-PRE").await;
    assert_eq!(
        (st.found, st.state, st.amount),
        (true, BankState::Preauth, 10_000)
    );
    // Above the hold: refused, nothing sent.
    let above = b
        .provider
        .capture(&b.account, &op("VK-PRE", 10_001, false))
        .await;
    assert_eq!(declined(&above).0, "amount_above_preauthorization");
    // A partial close, confirmed by a read.
    approved(
        &b.provider
            .capture(&b.account, &op("VK-PRE", 6_000, false))
            .await,
    );
    let st = b.provider.query(&b.account, "VK-PRE").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 6_000));
    // Closed already: nothing to close.
    let again = b
        .provider
        .capture(&b.account, &op("VK-PRE", 1, false))
        .await;
    assert_eq!(declined(&again).0, "no_open_preauthorization");
    // The whole hold, without an amount.
    approved(
        &b.provider
            .capture(&b.account, &op("VK-PRE2", 10_000, true))
            .await,
    );
    let order = b.state.book().get(MERCHANT, "VK-PRE2").cloned().unwrap();
    assert_eq!((order.state, order.amount), (OrderState::Sale, 10_000));
}

/// A bank that closed more than the partial close asked for: the approval is not taken for
/// the partial capture (unknown), and the query reads what the bank closed.
#[tokio::test]
async fn a_partial_close_is_confirmed_by_a_read() {
    use paygate_bank_vakifkatilim::{sim, VakifKatilim, VakifKatilimProvider};
    let creds = sim::SimCredentials::default()
        .with(MERCHANT, common::CUSTOMER, common::USER, common::PASSWORD)
        .closing_whole_holds();
    let (server, state) = sim::start(creds).await.unwrap();
    let store = std::sync::Arc::new(paygate_bankkit::MemoryCredentials::default());
    let account = common::account("acc_whole");
    let endpoint = format!("{}{}", server.url, paygate_bank_vakifkatilim::API_PATH);
    store.insert(account.id.clone(), secret(&endpoint, common::PASSWORD));
    let provider = VakifKatilimProvider::new(
        VakifKatilim,
        paygate_bankkit::BankTransport::new(common::TIMEOUT),
        store,
    );
    paygate_bankkit::sim::testing::register_order(
        &provider,
        &account,
        "VK-W",
        10_000,
        TestOrderState::Preauth,
        false,
    )
    .await
    .unwrap();
    let out = provider.capture(&account, &op("VK-W", 6_000, false)).await;
    assert!(
        matches!(&out, BankOutcome::Unknown { reason } if reason.contains("closed amount")),
        "{out:?}"
    );
    let st = provider.query(&account, "VK-W").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 10_000));
    assert_eq!(state.book().get(MERCHANT, "VK-W").unwrap().amount, 10_000);
}

#[tokio::test]
async fn cancel_before_and_after_the_cut() {
    let b = bank().await;
    b.order("VK-C1", 4_200, TestOrderState::Preauth, false)
        .await;
    b.order("VK-C2", 4_200, TestOrderState::Approved, false)
        .await;
    b.order("VK-C3", 4_200, TestOrderState::Preauth, false)
        .await;
    b.order("VK-C4", 4_200, TestOrderState::Approved, false)
        .await;
    approved(
        &b.provider
            .capture(&b.account, &op("VK-C3", 3_000, false))
            .await,
    );
    for id in ["VK-C1", "VK-C2", "VK-C3"] {
        approved(&b.provider.cancel(&b.account, &op(id, 4_200, true)).await);
        assert_eq!(
            b.provider.query(&b.account, id).await.state,
            BankState::Cancelled,
            "{id}"
        );
        let order = b.state.book().get(MERCHANT, id).cloned().unwrap();
        assert_eq!(order.state, OrderState::Voided, "{id}");
        // Cancelled already: approved, nothing sent.
        let again = b.provider.cancel(&b.account, &op(id, 4_200, true)).await;
        assert!(matches!(again, BankOutcome::Approved { .. }), "{again:?}");
    }
    let voids = |id: &str| {
        b.state
            .book()
            .get(MERCHANT, id)
            .unwrap()
            .history
            .iter()
            .filter(|t| t.kind == "void")
            .count()
    };
    assert_eq!(voids("VK-C2"), 1);
    // Past the cut: refund instead, nothing sent.
    b.end_of_day();
    let late = b
        .provider
        .cancel(&b.account, &op("VK-C4", 4_200, true))
        .await;
    assert_eq!(declined(&late), (CANCEL_AFTER_CUT, true));
    assert_eq!(voids("VK-C4"), 0);
    approved(
        &b.provider
            .refund(&b.account, &op("VK-C4", 4_200, true))
            .await,
    );
    assert_eq!(
        b.provider.query(&b.account, "VK-C4").await.state,
        BankState::Refunded
    );
}

#[tokio::test]
async fn refunds_only_after_the_cut_partial_then_the_rest() {
    let b = bank().await;
    b.order("VK-R", 10_000, TestOrderState::Approved, false)
        .await;
    let early = b
        .provider
        .refund(&b.account, &op("VK-R", 2_500, false))
        .await;
    assert_eq!(declined(&early), (REFUND_BEFORE_CUT, false));
    assert_eq!(b.state.book().get(MERCHANT, "VK-R").unwrap().refunded, 0);
    b.end_of_day();
    approved(
        &b.provider
            .refund(&b.account, &op("VK-R", 2_500, false))
            .await,
    );
    let st = b.provider.query(&b.account, "VK-R").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 10_000, 2_500)
    );
    let above = b
        .provider
        .refund(&b.account, &op("VK-R", 7_501, false))
        .await;
    assert_eq!(declined(&above).0, "amount_above_remaining");
    approved(
        &b.provider
            .refund(&b.account, &op("VK-R", 7_500, false))
            .await,
    );
    let st = b.provider.query(&b.account, "VK-R").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::Refunded, 10_000)
    );
    let more = b.provider.refund(&b.account, &op("VK-R", 1, false)).await;
    assert_eq!(declined(&more).0, "not_refundable");
}

#[tokio::test]
async fn query_not_found_declined_and_bad_credentials() {
    let b = bank().await;
    let st = b.provider.query(&b.account, "VK-NONE").await;
    assert!(
        !st.found && st.is_conclusive() && st.code == "NonResult",
        "{st:?}"
    );
    b.order("VK-D", 1_000, TestOrderState::Declined, false)
        .await;
    let st = b.provider.query(&b.account, "VK-D").await;
    assert_eq!((st.state, st.code.as_str()), (BankState::Declined, "51"));
    // A money request on an order the bank does not know: refused, nothing sent.
    let out = b
        .provider
        .cancel(&b.account, &op("VK-NONE", 1_000, true))
        .await;
    assert_eq!(declined(&out).0, "NonResult");
    // A wrong password: the read fails (never "not found"), the refund is not sent.
    let bad = b.other_account("acc_bad", secret(&b.endpoint(), "wrong"));
    let st = b.provider.query(&bad, "VK-D").await;
    assert!(!st.is_conclusive() && st.code == "HashDataError", "{st:?}");
    let out = b.provider.refund(&bad, &op("VK-D", 1_000, true)).await;
    assert!(matches!(out, BankOutcome::Error { .. }), "{out:?}");
}

/// `SelectOrder` pages hold one entry per transaction: page 2 holds `VK-H3`'s sale and its
/// reversal, which this list of orders reads as one cancelled order.
#[tokio::test]
async fn history_pages() {
    let b = bank().await;
    b.state
        .book()
        .pin_date(paygate_domain::daily::BusinessDay::parse("2026-11-26").unwrap());
    for (id, state) in [
        ("VK-H1", TestOrderState::Approved),
        ("VK-H2", TestOrderState::Preauth),
        ("VK-H3", TestOrderState::Approved),
    ] {
        b.order(id, 1_000, state, false).await;
    }
    approved(
        &b.provider
            .cancel(&b.account, &op("VK-H3", 1_000, true))
            .await,
    );
    let s = b.provider.session(&b.account).await.unwrap();
    let range = ("2026-11-26", "2026-11-26");
    let first = history(&s, range, 1, 2).await.unwrap();
    let states: Vec<(&str, BankState)> = first
        .iter()
        .map(|(id, st)| (id.as_str(), st.state))
        .collect();
    assert_eq!(
        states,
        [
            ("VK-H1", BankState::Approved),
            ("VK-H2", BankState::Preauth)
        ]
    );
    let second = history(&s, range, 2, 2).await.unwrap();
    assert_eq!(second.len(), 1);
    assert_eq!(
        (second[0].0.as_str(), second[0].1.state),
        ("VK-H3", BankState::Cancelled)
    );
    assert!(history(&s, range, 3, 2).await.unwrap().is_empty());
}

#[tokio::test]
async fn no_points_inquiry() {
    let b = bank().await;
    assert!(!b.provider.supported().contains(Operation::PointsInquiry));
    let card = CardDetails {
        number: "4155650100416111".into(),
        exp_month: "01".into(),
        exp_year: "2030".into(),
        cvv: "123".into(),
        holder: "John Doe".into(),
    };
    let out = b
        .provider
        .points_inquiry(&b.account, &card, Currency::Try)
        .await;
    assert!(
        matches!(&out, PointsResult::Error { code, .. } if code == "operation_not_supported"),
        "{out:?}"
    );
}

/// The kit's shared case: `SelectOrder` over the day (every page: the simulator gives at
/// most three entries a page), the close a capture, the reversal a cancel, the next day's
/// partial refund a refund; a technical error is unavailable.
#[tokio::test]
async fn the_day_history_lists_what_the_bank_booked() {
    bank()
        .await
        .the_day_history_lists_what_the_bank_booked("VK-DH1", "VK-DH2", true)
        .await;
}

/// A day of more entries than a page holds is read to its end: seven sales reversed (fourteen
/// entries, five pages of three) give the seven cancels.
#[tokio::test]
async fn the_day_history_reads_every_page() {
    use paygate_domain::daily::{BusinessDay, DayHistory};
    let b = bank().await;
    let d = BusinessDay::parse("2026-11-26").unwrap();
    b.state.book().pin_date(d);
    for i in 0..7 {
        let id = format!("VK-P{i}");
        b.order(&id, 1_000 + i, TestOrderState::Approved, false)
            .await;
        approved(
            &b.provider
                .cancel(&b.account, &op(&id, 1_000 + i, true))
                .await,
        );
    }
    let DayHistory::Lines(lines) = b.provider.day_history(&b.account, d).await else {
        panic!("expected the day's lines");
    };
    let mut seen: Vec<i64> = lines.iter().map(|l| l.amount).collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..7).map(|i| 1_000 + i).collect::<Vec<_>>());
}
