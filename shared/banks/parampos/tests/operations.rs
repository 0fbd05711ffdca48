//! Adapter ↔ simulator over real HTTP: capture, cancel (a pre-authorization's release, a
//! sale's whole-amount `IPTAL` on its own day), refund (`IADE` after the day, full or
//! partial) and query, with Param's end-of-day rules.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, secret, CLIENT_CODE, GUID};
use paygate_bankkit::sim::{testing::declined, OrderState};
use paygate_domain::{
    account::Operation,
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState, Currency, PointsResult,
};

fn approved(o: &BankOutcome) -> bool {
    matches!(o, BankOutcome::Approved { code, rrn, .. } if code == "1" && rrn.as_ref().is_some_and(|r| r.len() == 12))
}

#[tokio::test]
async fn capture_closes_a_preauthorization() {
    let b = bank().await;
    b.order("PP-PRE", 10_000, TestOrderState::Preauth, false)
        .await;
    let st = b.provider.query(&b.account, "PP-PRE").await;
    assert_eq!((st.state, st.amount), (BankState::Preauth, 10_000));
    let above = b
        .provider
        .capture(&b.account, &op("PP-PRE", 10_001, false))
        .await;
    assert_eq!(declined(&above).0, "-1");
    let out = b
        .provider
        .capture(&b.account, &op("PP-PRE", 6_000, false))
        .await;
    assert!(approved(&out), "{out:?}");
    let st = b.provider.query(&b.account, "PP-PRE").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 6_000));
    // Nothing left to close.
    let again = b
        .provider
        .capture(&b.account, &op("PP-PRE", 6_000, false))
        .await;
    assert_eq!(declined(&again).0, "-210");
    let unknown = b
        .provider
        .capture(&b.account, &op("PP-NONE", 1_000, true))
        .await;
    assert_eq!(declined(&unknown).0, "-209");
}

#[tokio::test]
async fn cancel_releases_a_hold_on_any_day_and_voids_a_sale_on_its_own_day_only() {
    let b = bank().await;
    b.order("PP-HOLD", 5_000, TestOrderState::Preauth, false)
        .await;
    b.order("PP-OLD", 9_000, TestOrderState::Approved, false)
        .await;
    b.end_of_day().await;
    // The hold is released after the cut too.
    assert!(approved(
        &b.provider
            .cancel(&b.account, &op("PP-HOLD", 5_000, true))
            .await
    ));
    assert_eq!(
        b.provider.query(&b.account, "PP-HOLD").await.state,
        BankState::Cancelled
    );
    // A sale of yesterday: -214, refund instead.
    let late = b
        .provider
        .cancel(&b.account, &op("PP-OLD", 9_000, true))
        .await;
    assert_eq!(declined(&late), ("-214", true));
    assert_eq!(
        b.provider.query(&b.account, "PP-OLD").await.state,
        BankState::Approved
    );
    // Today's sale: IPTAL for the bank's whole amount, whatever amount the operation names.
    b.order("PP-TODAY", 2_500, TestOrderState::Approved, false)
        .await;
    let out = b
        .provider
        .cancel(&b.account, &op("PP-TODAY", 1_000, true))
        .await;
    assert!(approved(&out), "{out:?}");
    let st = b.provider.query(&b.account, "PP-TODAY").await;
    assert_eq!((st.state, st.amount), (BankState::Cancelled, 2_500));
    // A cancelled order is cancelled: approved, nothing sent.
    let before = b.state.ledger_of(CLIENT_CODE, "PP-TODAY").unwrap();
    assert!(matches!(
        b.provider
            .cancel(&b.account, &op("PP-TODAY", 2_500, true))
            .await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(b.state.ledger_of(CLIENT_CODE, "PP-TODAY").unwrap(), before);
    // A pre-authorization closed today: IPTAL of the captured amount voids the order.
    b.order("PP-CAP", 4_000, TestOrderState::Preauth, false)
        .await;
    assert!(approved(
        &b.provider
            .capture(&b.account, &op("PP-CAP", 3_000, false))
            .await
    ));
    assert!(approved(
        &b.provider
            .cancel(&b.account, &op("PP-CAP", 3_000, true))
            .await
    ));
    assert_eq!(
        b.state.book().get(CLIENT_CODE, "PP-CAP").unwrap().state,
        OrderState::Voided
    );
    assert_eq!(
        b.provider.query(&b.account, "PP-CAP").await.state,
        BankState::Cancelled
    );
}

#[tokio::test]
async fn a_partial_iptal_is_refused_and_the_adapter_never_sends_one() {
    let b = bank().await;
    b.order("PP-P", 8_000, TestOrderState::Approved, false)
        .await;
    let partial = format!(
        "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><TP_Islem_Iptal_Iade_Kismi2 xmlns=\"https://turkpos.com.tr/\"><G><CLIENT_CODE>{CLIENT_CODE}</CLIENT_CODE><CLIENT_USERNAME>Test</CLIENT_USERNAME><CLIENT_PASSWORD>Pa55-Test</CLIENT_PASSWORD></G><GUID>{GUID}</GUID><Durum>IPTAL</Durum><Siparis_ID>PP-P</Siparis_ID><Tutar>10.00</Tutar></TP_Islem_Iptal_Iade_Kismi2></soap:Body></soap:Envelope>"
    );
    let r = b.raw(&partial).await;
    assert_eq!(r.sonuc(), "-1");
    assert_eq!(
        b.state.book().get(CLIENT_CODE, "PP-P").unwrap().state,
        OrderState::Sale
    );
    // A comma is not an xs:double: the service faults.
    let r = b.raw(&partial.replace("10.00", "80,00")).await;
    assert!(r.fault.is_some());
    assert!(approved(
        &b.provider
            .cancel(&b.account, &op("PP-P", 3_000, true))
            .await
    ));
}

#[tokio::test]
async fn refunds_wait_for_the_end_of_day_then_go_in_parts() {
    let b = bank().await;
    b.order("PP-R", 10_000, TestOrderState::Approved, false)
        .await;
    let same_day = b
        .provider
        .refund(&b.account, &op("PP-R", 10_000, true))
        .await;
    assert_eq!(declined(&same_day), ("-213", false));
    b.end_of_day().await;
    assert!(approved(
        &b.provider
            .refund(&b.account, &op("PP-R", 2_500, false))
            .await
    ));
    let st = b.provider.query(&b.account, "PP-R").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 10_000, 2_500)
    );
    let above = b
        .provider
        .refund(&b.account, &op("PP-R", 8_000, false))
        .await;
    assert_eq!(declined(&above).0, "-1");
    // A partly refunded order cannot be cancelled: refund instead, nothing sent.
    let c = b
        .provider
        .cancel(&b.account, &op("PP-R", 10_000, true))
        .await;
    assert!(declined(&c).1);
    assert!(approved(
        &b.provider
            .refund(&b.account, &op("PP-R", 7_500, false))
            .await
    ));
    let st = b.provider.query(&b.account, "PP-R").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::Refunded, 10_000)
    );
}

#[tokio::test]
async fn wrong_credentials_unknown_orders_and_no_points() {
    let b = bank().await;
    let wrong = b.other_account(
        "acc_wrong",
        secret(&b.endpoint(), CLIENT_CODE, "nope", GUID),
    );
    b.order("PP-W", 1_000, TestOrderState::Approved, true).await;
    let out = b.provider.refund(&wrong, &op("PP-W", 1_000, true)).await;
    assert!(
        matches!(out, BankOutcome::Error { ref code, .. } if code == "-100"),
        "{out:?}"
    );
    let st = b.provider.query(&wrong, "PP-W").await;
    assert!(st.found && !st.is_conclusive(), "{st:?}");
    let nf = b.provider.query(&b.account, "PP-NOPE").await;
    assert!(!nf.found && nf.is_conclusive());
    // Cancel of an order the bank does not show: nothing sent, unknown.
    assert!(matches!(
        b.provider
            .cancel(&b.account, &op("PP-NOPE", 1_000, true))
            .await,
        BankOutcome::Unknown { .. }
    ));
    assert!(!b.provider.supported().contains(Operation::PointsInquiry));
    let card = paygate_bankkit::sim::testing::card("4111111111111111");
    assert!(matches!(
        b.provider.points_inquiry(&b.account, &card, Currency::Try).await,
        PointsResult::Error { ref code, .. } if code == "operation_not_supported"
    ));
}

/// `TP_Islem_Izleme` through the simulator: every line of the account, newest first, cancels
/// and refunds negative; a time in another form is refused without a call.
#[tokio::test]
async fn date_range_monitoring_lists_the_account_s_transactions() {
    let b = bank().await;
    b.order("PP-H1", 10_000, TestOrderState::Approved, false)
        .await;
    b.end_of_day().await;
    assert!(approved(
        &b.provider
            .refund(&b.account, &op("PP-H1", 2_500, false))
            .await
    ));
    b.order("PP-H2", 4_000, TestOrderState::Approved, false)
        .await;
    assert!(approved(
        &b.provider
            .cancel(&b.account, &op("PP-H2", 4_000, true))
            .await
    ));
    let s = b.provider.session(&b.account).await.unwrap();
    let range = ("01.01.2026 00:00:00", "31.12.2026 23:59:59");
    let lines = paygate_bank_parampos::history(&s, range).await.unwrap();
    let of = |order: &str| -> Vec<(String, i64)> {
        lines
            .iter()
            .filter(|l| l.order_id == order)
            .map(|l| (l.kind.clone(), l.amount))
            .collect()
    };
    assert_eq!(
        of("PP-H1"),
        vec![("İade".to_owned(), -2_500), ("Satış".to_owned(), 10_000)]
    );
    assert_eq!(
        of("PP-H2"),
        vec![("İptal".to_owned(), -4_000), ("Satış".to_owned(), 4_000)]
    );
    assert!(lines
        .iter()
        .all(|l| l.net.is_some() && l.sonuc == "1" && l.outcome == "Başarılı"));
    let ledger = b.state.ledger();
    let bad = paygate_bank_parampos::history(&s, ("2026-01-01", "2026-12-31")).await;
    assert!(bad.is_err_and(|st| !st.is_conclusive()));
    assert_eq!(b.state.ledger(), ledger);
}

/// Param's monitoring lists `Satış`, `İptal` and `İade` lines only: a pre-authorization
/// close (the gateway's capture) has no type of its own, so a day read from it would leave
/// the captures out. The family keeps the per-payment query (README, "Daily
/// reconciliation").
#[tokio::test]
async fn the_day_history_is_left_to_the_per_payment_query() {
    use paygate_domain::daily::{BusinessDay, DayHistory};
    let b = bank().await;
    let d = BusinessDay::parse("2026-11-26").unwrap();
    let ledger = b.state.ledger();
    assert_eq!(
        b.provider.day_history(&b.account, d).await,
        DayHistory::Unsupported
    );
    assert_eq!(b.state.ledger(), ledger);
}
