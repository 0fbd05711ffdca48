//! Adapter ↔ simulator over real HTTP: capture, cancel (incl. a captured pre-authorization,
//! which takes two voids), refund and query, with PayFor's end-of-day rules.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, op, MERCHANT_ID};
use paygate_bankkit::sim::OrderState;
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState,
};

fn declined(o: &BankOutcome) -> (&str, &str, bool) {
    match o {
        BankOutcome::Declined {
            code,
            message,
            after_cutoff,
        } => (code, message, *after_cutoff),
        other => panic!("expected a decline, got {other:?}"),
    }
}

fn approved(o: &BankOutcome) -> (&str, Option<&str>, Option<&str>) {
    match o {
        BankOutcome::Approved {
            code,
            auth_code,
            rrn,
        } => (code, auth_code.as_deref(), rrn.as_deref()),
        other => panic!("expected an approval, got {other:?}"),
    }
}

#[tokio::test]
async fn full_and_partial_capture() {
    let b = bank().await;
    b.order("PF-PRE", 10_000, TestOrderState::Preauth, false)
        .await;
    let st = b.provider.query(&b.account, "PF-PRE").await;
    assert_eq!(
        (st.found, st.state, st.amount),
        (true, BankState::Preauth, 10_000)
    );
    let above = b
        .provider
        .capture(&b.account, &op("PF-PRE", 10_001, false))
        .await;
    assert_eq!(declined(&above).0, "M012");
    let out = b
        .provider
        .capture(&b.account, &op("PF-PRE", 6_000, false))
        .await;
    let (code, auth, rrn) = approved(&out);
    assert_eq!(code, "00");
    assert!(
        auth.is_some() && rrn.is_some_and(|r| r.len() == 12),
        "{out:?}"
    );
    let st = b.provider.query(&b.account, "PF-PRE").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::Approved, 6_000, 0)
    );
    // No open pre-authorization any more.
    let again = b
        .provider
        .capture(&b.account, &op("PF-PRE", 1_000, false))
        .await;
    assert_eq!(
        declined(&again),
        ("V013", "Seçili İşlem Bulunamadı!", false)
    );
}

#[tokio::test]
async fn void_of_a_sale_then_again() {
    let b = bank().await;
    b.order("PF-V", 4_200, TestOrderState::Approved, false)
        .await;
    approved(
        &b.provider
            .cancel(&b.account, &op("PF-V", 4_200, true))
            .await,
    );
    let st = b.provider.query(&b.account, "PF-V").await;
    assert_eq!((st.state, st.amount), (BankState::Cancelled, 4_200));
    // Again: the order reads voided, so the cancel is done and no second void is sent.
    let ops = || {
        b.state
            .ledger_of(MERCHANT_ID, "PF-V")
            .unwrap()
            .operations
            .len()
    };
    let before = ops();
    let twice = b
        .provider
        .cancel(&b.account, &op("PF-V", 4_200, true))
        .await;
    assert_eq!(approved(&twice).0, "00");
    assert_eq!(ops(), before, "no void was sent");
}

/// PayFor's void reverses the capture only; the adapter sends the second void that releases
/// the hold, so the whole order is cancelled at the bank.
#[tokio::test]
async fn cancel_of_a_captured_preauth_releases_the_hold_too() {
    let b = bank().await;
    b.order("PF-CAP", 3_000, TestOrderState::Preauth, false)
        .await;
    approved(
        &b.provider
            .capture(&b.account, &op("PF-CAP", 3_000, true))
            .await,
    );
    approved(
        &b.provider
            .cancel(&b.account, &op("PF-CAP", 3_000, true))
            .await,
    );
    let ledger = b.state.ledger_of(MERCHANT_ID, "PF-CAP").unwrap();
    assert_eq!(ledger.state, OrderState::Voided);
    let voids = ledger
        .operations
        .iter()
        .filter(|t| t.kind == "void")
        .count();
    assert_eq!(voids, 2, "{ledger:?}");
    assert_eq!(
        b.provider.query(&b.account, "PF-CAP").await.state,
        BankState::Cancelled
    );
}

#[tokio::test]
async fn void_after_the_end_of_day_cut_points_to_refund() {
    let b = bank().await;
    b.order("PF-EOD", 7_000, TestOrderState::Approved, false)
        .await;
    b.admin("/_sim/end-of-day", "{}").await.unwrap();
    let out = b
        .provider
        .cancel(&b.account, &op("PF-EOD", 7_000, true))
        .await;
    let (code, _, after_cutoff) = declined(&out);
    assert_eq!(code, "V013");
    assert!(after_cutoff, "{out:?}");
    assert_eq!(
        b.provider.query(&b.account, "PF-EOD").await.state,
        BankState::Approved
    );
    approved(
        &b.provider
            .refund(&b.account, &op("PF-EOD", 7_000, true))
            .await,
    );
    let st = b.provider.query(&b.account, "PF-EOD").await;
    assert_eq!((st.state, st.refunded_amount), (BankState::Refunded, 7_000));
}

#[tokio::test]
async fn refund_before_the_end_of_day_is_refused() {
    let b = bank().await;
    b.order("PF-SAME", 3_000, TestOrderState::Approved, false)
        .await;
    let out = b
        .provider
        .refund(&b.account, &op("PF-SAME", 1_000, false))
        .await;
    assert_eq!(
        declined(&out),
        (
            "V014",
            "Bu işlem geri alınamaz, lütfen asıl işlemi iptal edin.",
            false
        )
    );
    let st = b.provider.query(&b.account, "PF-SAME").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::Approved, 0),
        "the refused refund must not count"
    );
}

#[tokio::test]
async fn partial_refunds_are_visible_in_query() {
    let b = bank().await;
    b.order("PF-R", 10_000, TestOrderState::Approved, true)
        .await;
    approved(
        &b.provider
            .refund(&b.account, &op("PF-R", 2_500, false))
            .await,
    );
    let st = b.provider.query(&b.account, "PF-R").await;
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 10_000, 2_500)
    );
    let too_much = b
        .provider
        .refund(&b.account, &op("PF-R", 7_501, false))
        .await;
    assert_eq!(declined(&too_much).0, "M012");
    // The refused refund shows in the history (failed line) and is not counted.
    assert_eq!(
        b.provider.query(&b.account, "PF-R").await.refunded_amount,
        2_500
    );
    // A cancel after a refund is refused, and it is not the end-of-day cut's doing.
    let refused = b
        .provider
        .cancel(&b.account, &op("PF-R", 10_000, true))
        .await;
    assert!(!declined(&refused).2);
    approved(
        &b.provider
            .refund(&b.account, &op("PF-R", 7_500, true))
            .await,
    );
    let st = b.provider.query(&b.account, "PF-R").await;
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
    assert_eq!(st.code, "V013");
    assert_eq!(
        declined(&b.provider.capture(&b.account, &op("NOPE", 1, true)).await).0,
        "V013"
    );
    assert_eq!(
        declined(&b.provider.refund(&b.account, &op("NOPE", 1, true)).await).0,
        "V013"
    );
    let refused = b.provider.cancel(&b.account, &op("NOPE", 1, true)).await;
    assert_eq!(
        declined(&refused),
        ("V013", "Seçili İşlem Bulunamadı!", false)
    );
    b.order("PF-D", 1_000, TestOrderState::Declined, false)
        .await;
    let st = b.provider.query(&b.account, "PF-D").await;
    assert_eq!(
        (st.found, st.state, st.code.as_str()),
        (true, BankState::Declined, "05")
    );
}

/// At the bank's own level: `OrderInquiry` shows the main transaction with the refunded
/// total, `TxnHistory` every transaction (the failed refund as `TxnStatus N`).
#[tokio::test]
async fn inquiry_and_history_documents() {
    let b = bank().await;
    b.order("PF-H", 10_000, TestOrderState::Approved, true)
        .await;
    approved(
        &b.provider
            .refund(&b.account, &op("PF-H", 4_000, false))
            .await,
    );
    let _ = b
        .provider
        .refund(&b.account, &op("PF-H", 9_000, false))
        .await;
    let account = format!(
        "<MerchantId>{MERCHANT_ID}</MerchantId><UserCode>{}</UserCode><UserPass>{}</UserPass><MbrId>5</MbrId>",
        common::USER_CODE,
        common::USER_PASS
    );
    let inq = b
        .raw(&format!("<PayforRequest>{account}<OrgOrderId>PF-H</OrgOrderId><SecureType>Inquiry</SecureType><Lang>tr</Lang><TxnType>OrderInquiry</TxnType></PayforRequest>"))
        .await;
    assert_eq!(
        (
            inq.fields.get("TxnType"),
            inq.fields.get("RefundedAmount"),
            inq.fields.get("IsRefunded")
        ),
        ("Auth", "40.00", "false")
    );
    let h = b
        .raw(&format!("<PayforRequest>{account}<SecureType>Report</SecureType><OrderId>PF-H</OrderId><TxnType>TxnHistory</TxnType><Lang>tr</Lang></PayforRequest>"))
        .await;
    let lines: Vec<(&str, &str, &str)> = h
        .history
        .iter()
        .map(|f| (f.get("TxnType"), f.get("TxnStatus"), f.get("PurchAmount")))
        .collect();
    assert_eq!(
        lines,
        [
            ("Auth", "Y", "100.00"),
            ("Refund", "Y", "40.00"),
            ("Refund", "N", "90.00")
        ]
    );
}

/// The shared day-history case: `TxnHistory` by `ReqDate`.
#[tokio::test]
async fn the_day_history_lists_what_the_bank_booked() {
    bank()
        .await
        .the_day_history_lists_what_the_bank_booked("PF-DAY-CAP", "PF-DAY-VOID", true)
        .await;
}

/// PayFor's own day: a captured pre-authorization cancelled takes two voids (the capture's
/// and the hold's, both `Cancel` lines), a refused refund is listed by the bank (`TxnStatus
/// N`) but is no line of ours, and another store's orders are not this store's day.
#[tokio::test]
async fn the_day_history_of_two_voids_and_a_refused_refund() {
    use paygate_domain::{
        daily::{BusinessDay, DayHistory},
        TransactionType::{Cancel, Capture},
    };
    let b = bank().await;
    let d = BusinessDay::parse("2026-11-20").unwrap();
    b.state.book().pin_date(d);
    b.order("PF-D1", 10_000, TestOrderState::Preauth, false)
        .await;
    approved(
        &b.provider
            .capture(&b.account, &op("PF-D1", 9_000, false))
            .await,
    );
    approved(
        &b.provider
            .cancel(&b.account, &op("PF-D1", 9_000, true))
            .await,
    );
    b.order("PF-D2", 3_000, TestOrderState::Approved, false)
        .await;
    let refused = b
        .provider
        .refund(&b.account, &op("PF-D2", 3_000, false))
        .await;
    assert_eq!(declined(&refused).0, "V014");
    let other = b.other_account(
        "acc_other",
        common::secret(&b.endpoint(), "085300000009999", "OTHER_API", "other"),
    );
    b.provider
        .test_orders()
        .unwrap()
        .register(
            &other,
            &paygate_domain::ports::TestOrder {
                order_id: "PF-D3".into(),
                amount: 1_000,
                currency: paygate_domain::Currency::Try,
                state: TestOrderState::Approved,
                settled: false,
            },
        )
        .await
        .unwrap();
    approved(&b.provider.cancel(&other, &op("PF-D3", 1_000, true)).await);
    let DayHistory::Lines(lines) = b.provider.day_history(&b.account, d).await else {
        panic!("expected the day's lines");
    };
    let got: Vec<_> = lines
        .iter()
        .map(|l| (l.order_id.as_str(), l.kind, l.amount, l.rrn.len()))
        .collect();
    assert_eq!(
        got,
        [
            ("PF-D1", Capture, 9_000, 12),
            ("PF-D1", Cancel, 9_000, 12),
            ("PF-D1", Cancel, 10_000, 12)
        ]
    );
    // An unreadable date is refused by the bank: unavailable, not an empty day.
    let account = format!(
        "<MerchantId>{MERCHANT_ID}</MerchantId><UserCode>{}</UserCode><UserPass>{}</UserPass><MbrId>5</MbrId>",
        common::USER_CODE,
        common::USER_PASS
    );
    let bad = b
        .raw(&format!("<PayforRequest>{account}<SecureType>Report</SecureType><ReqDate>2026-11-20</ReqDate><TxnType>TxnHistory</TxnType><Lang>tr</Lang></PayforRequest>"))
        .await;
    assert!(paygate_bank_payfor::history::read_day(&bad).is_err());
}
