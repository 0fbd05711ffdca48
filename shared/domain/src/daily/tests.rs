use super::*;
use crate::{
    bank::{BankState, BankStatus},
    money::Currency,
    payment::{Payment, PaymentStatus},
    transaction::Metadata,
};

/// 2026-11-26 10:00 Istanbul.
const T0: Timestamp = Timestamp::from_unix_millis(1_795_676_400_000);

fn txn(
    id: &str,
    pay: &str,
    kind: TransactionType,
    amount: i64,
    status: TransactionStatus,
) -> Transaction {
    Transaction {
        id: TransactionId::parse(id).unwrap(),
        payment_id: PaymentId::parse(pay).unwrap(),
        kind,
        amount,
        currency: Currency::Try,
        status,
        bank_code: String::new(),
        bank_message: String::new(),
        auth_code: String::new(),
        rrn: String::new(),
        created_at: T0,
        updated_at: T0,
        reason: None,
        description: None,
        metadata: Metadata::new(),
        origin: Origin::Api,
        settled_at: status.is_final().then_some(T0.plus_millis(800)),
        decline_code: None,
    }
}

fn day(order: &str, t: Transaction) -> DayTransaction {
    DayTransaction {
        order_id: order.into(),
        transaction: t,
    }
}

fn line(order: &str, kind: TransactionType, amount: i64) -> BankLine {
    BankLine {
        order_id: order.into(),
        kind,
        amount,
        rrn: String::new(),
    }
}

use TransactionStatus::{Approved, Declined, Unknown};
use TransactionType::{Cancel, Capture, Refund};

fn kinds(f: &[Finding]) -> Vec<(FindingKind, &str, TransactionType)> {
    let mut v: Vec<_> = f
        .iter()
        .map(|f| (f.kind, f.order_id.as_str(), f.operation))
        .collect();
    v.sort();
    v
}

#[test]
fn business_days_turn_at_midnight_istanbul() {
    let d = BusinessDay::parse("2026-11-26").unwrap();
    assert_eq!(d.to_string(), "2026-11-26");
    assert_eq!(BusinessDay::of(T0), d);
    assert_eq!(d.start().to_iso8601(), "2026-11-25T21:00:00.000Z");
    assert!(d.contains(d.start()) && !d.contains(d.start().plus_millis(-1)));
    assert!(d.next().contains(d.start().plus_millis(86_400_000)));
    assert_eq!(d.previous().to_string(), "2026-11-25");
    assert_eq!(
        BusinessDay::parse("2026-11-01")
            .unwrap()
            .previous()
            .to_string(),
        "2026-10-31"
    );
    for bad in [
        "2026-11-31",
        "2026-1-01",
        "26-11-01",
        "2026-11-01x",
        "",
        "2026/11/01",
    ] {
        assert_eq!(BusinessDay::parse(bad), None, "{bad}");
    }
    let json = serde_json::to_string(&d).unwrap();
    assert_eq!(json, "\"2026-11-26\"");
    assert_eq!(serde_json::from_str::<BusinessDay>(&json).unwrap(), d);
}

#[test]
fn every_kind_of_difference_is_found() {
    let ours = vec![
        day("A", txn("txn_a", "pay_a", Capture, 10_000, Approved)),
        day("B", txn("txn_b", "pay_b", Refund, 2_000, Approved)),
        day("C", txn("txn_c", "pay_c", Refund, 3_000, Approved)),
        day("D", txn("txn_d", "pay_d", Refund, 4_000, Declined)),
        day("E", txn("txn_e", "pay_e", Cancel, 5_000, Unknown)),
        day("G", txn("txn_g", "pay_g", Capture, 7_000, Unknown)),
    ];
    let bank = vec![
        line("A", Capture, 10_000),
        line("B", Refund, 2_500),
        line("D", Refund, 4_000),
        line("E", Cancel, 5_000),
        line("F", Refund, 1_000),
    ];
    let f = match_history(&ours, &bank);
    assert_eq!(
        kinds(&f),
        vec![
            (FindingKind::Matched, "A", Capture),
            (FindingKind::MissingAtBank, "C", Refund),
            (FindingKind::MissingHere, "F", Refund),
            (FindingKind::AmountMismatch, "B", Refund),
            (FindingKind::StateMismatch, "D", Refund),
            (FindingKind::UnsettledHere, "E", Cancel),
            (FindingKind::UnsettledHere, "G", Capture),
        ]
    );
    let b = f.iter().find(|f| f.order_id == "B").unwrap();
    assert_eq!((b.amount, b.bank_amount), (Some(2_000), Some(2_500)));
    let e = f.iter().find(|f| f.order_id == "E").unwrap();
    assert_eq!(e.bank_amount, Some(5_000));
    let g = f.iter().find(|f| f.order_id == "G").unwrap();
    assert_eq!(g.bank_amount, None);
}

#[test]
fn two_refunds_of_one_order_pair_by_amount_and_a_third_bank_line_is_missing_here() {
    let ours = vec![
        day("A", txn("txn_1", "pay_a", Refund, 1_000, Approved)),
        day("A", txn("txn_2", "pay_a", Refund, 3_000, Approved)),
    ];
    let bank = vec![
        line("A", Refund, 3_000),
        line("A", Refund, 1_000),
        line("A", Refund, 1_000),
    ];
    let f = match_history(&ours, &bank);
    assert_eq!(Counts::of(&f).matched, 2);
    assert_eq!(Counts::of(&f).missing_here, 1);
    // The same refund booked twice at the bank for one request of ours is a finding, not
    // a match: two equal refunds here would pair with both.
    let once = vec![day("A", txn("txn_1", "pay_a", Refund, 1_000, Approved))];
    let twice = vec![line("A", Refund, 1_000), line("A", Refund, 1_000)];
    assert_eq!(Counts::of(&match_history(&once, &twice)).missing_here, 1);
}

#[test]
fn a_cancel_booked_as_two_voids_is_one_match() {
    let ours = vec![day("A", txn("txn_1", "pay_a", Cancel, 9_000, Approved))];
    let bank = vec![line("A", Cancel, 9_000), line("A", Cancel, 10_000)];
    let f = match_history(&ours, &bank);
    assert_eq!(kinds(&f), vec![(FindingKind::Matched, "A", Cancel)]);
    assert_eq!(f[0].bank_amount, Some(10_000));
}

#[test]
fn a_lost_commit_settled_from_the_banks_records_is_marked() {
    let mut late = txn("txn_1", "pay_a", Refund, 1_000, Approved);
    late.settled_at = Some(T0.plus_millis(REQUEST_SETTLES_WITHIN_MS + 1));
    let ours = vec![
        day("A", late),
        day("B", txn("txn_2", "pay_b", Refund, 1_000, Approved)),
    ];
    let bank = vec![line("A", Refund, 1_000), line("B", Refund, 1_000)];
    let f = match_history(&ours, &bank);
    let by = |o: &str| f.iter().find(|f| f.order_id == o).unwrap();
    assert!(by("A").settled_from_bank_records);
    assert!(!by("B").settled_from_bank_records);
    assert_eq!(by("A").kind, FindingKind::Matched);
}

#[test]
fn an_external_refund_recorded_here_matches() {
    let mut ext = txn("txn_1", "pay_a", Refund, 1_000, Approved);
    ext.origin = Origin::External;
    ext.settled_at = Some(T0.plus_millis(3_600_000));
    let f = match_history(&[day("A", ext)], &[line("A", Refund, 1_000)]);
    assert_eq!(f[0].kind, FindingKind::Matched);
    assert_eq!(f[0].origin, Some(Origin::External));
    assert!(!f[0].settled_from_bank_records);
}

fn payment(id: &str, order: &str, status: PaymentStatus, captured: i64, refunded: i64) -> Payment {
    Payment {
        id: PaymentId::parse(id).unwrap(),
        merchant_id: MerchantId::parse("mch_1").unwrap(),
        mode: Mode::Test,
        account_id: AccountId::parse("acc_1").unwrap(),
        order_id: order.into(),
        currency: Currency::Try,
        amount: 10_000,
        captured_amount: captured,
        refunded_amount: refunded,
        status,
        pending: None,
        auth_code: String::new(),
        rrn: String::new(),
        version: 3,
        created_at: T0,
        updated_at: T0,
    }
}

fn status(state: BankState, amount: i64, refunded: i64) -> BankStatus {
    BankStatus {
        found: true,
        state,
        amount,
        refunded_amount: refunded,
        code: "00".into(),
        auth_code: String::new(),
        rrn: String::new(),
    }
}

#[test]
fn order_totals_find_external_refunds_and_missing_operations() {
    let a = payment(
        "pay_a",
        "A",
        PaymentStatus::PartiallyRefunded,
        10_000,
        2_000,
    );
    let b = payment("pay_b", "B", PaymentStatus::Cancelled, 0, 0);
    let c = payment("pay_c", "C", PaymentStatus::Captured, 10_000, 0);
    let d = payment("pay_d", "D", PaymentStatus::Captured, 10_000, 0);
    let ours = vec![
        day("A", txn("txn_a", "pay_a", Refund, 2_000, Approved)),
        day("B", txn("txn_b", "pay_b", Cancel, 10_000, Approved)),
        day("C", txn("txn_c", "pay_c", Capture, 10_000, Approved)),
        day("D", txn("txn_d", "pay_d", Capture, 10_000, Approved)),
    ];
    // A: the bank refunded 5 000 (3 000 in its own panel); B: the bank still shows the sale;
    // C: the bank captured 9 000; D: as ours.
    let sa = status(BankState::PartiallyRefunded, 10_000, 5_000);
    let sb = status(BankState::Approved, 10_000, 0);
    let sc = status(BankState::Approved, 9_000, 0);
    let sd = status(BankState::Approved, 10_000, 0);
    let views = [
        OrderView {
            payment: &a,
            status: &sa,
        },
        OrderView {
            payment: &b,
            status: &sb,
        },
        OrderView {
            payment: &c,
            status: &sc,
        },
        OrderView {
            payment: &d,
            status: &sd,
        },
    ];
    let f = match_orders(&ours, &views);
    assert_eq!(
        kinds(&f),
        vec![
            (FindingKind::Matched, "A", Refund),
            (FindingKind::Matched, "D", Capture),
            (FindingKind::MissingAtBank, "B", Cancel),
            (FindingKind::MissingHere, "A", Refund),
            (FindingKind::AmountMismatch, "C", Capture),
        ]
    );
    let extra = f
        .iter()
        .find(|f| f.kind == FindingKind::MissingHere)
        .unwrap();
    assert_eq!(extra.bank_amount, Some(3_000));
    assert_eq!(extra.payment_id.as_ref().map(|p| p.as_str()), Some("pay_a"));
}

#[test]
fn an_inconclusive_answer_or_an_open_operation_concludes_nothing_about_the_order() {
    let a = payment("pay_a", "A", PaymentStatus::Captured, 10_000, 0);
    let ours = vec![day("A", txn("txn_a", "pay_a", Refund, 2_000, Unknown))];
    // The refund is unknown here and done at the bank: not an external refund.
    let done = status(BankState::PartiallyRefunded, 10_000, 2_000);
    let f = match_orders(
        &ours,
        &[OrderView {
            payment: &a,
            status: &done,
        }],
    );
    assert_eq!(kinds(&f), vec![(FindingKind::UnsettledHere, "A", Refund)]);
    // "Could not tell": nothing at all.
    let unread = BankStatus::unavailable("99");
    assert!(match_orders(
        &ours,
        &[OrderView {
            payment: &a,
            status: &unread
        }]
    )
    .is_empty());
}

#[test]
fn a_report_sorts_mismatches_first_counts_and_caps() {
    let merchant = MerchantId::parse("mch_1").unwrap();
    let account = AccountId::parse("acc_1").unwrap();
    let d = BusinessDay::of(T0);
    let mut ours = Vec::new();
    let mut bank = Vec::new();
    for i in 0..MAX_STORED_FINDINGS + 5 {
        let order = format!("O{i:05}");
        ours.push(day(
            &order,
            txn(&format!("txn_{i}"), "pay_a", Refund, 100, Approved),
        ));
        bank.push(line(&order, Refund, 100));
    }
    bank.push(line("ZZZ", Refund, 1));
    let f = match_history(&ours, &bank);
    let r = DayReport::new(
        merchant.clone(),
        account.clone(),
        Mode::Live,
        d,
        Source::History,
        None,
        f,
        T0,
    );
    assert_eq!(r.status, ReportStatus::Mismatches);
    assert_eq!(r.counts.matched as usize, MAX_STORED_FINDINGS + 5);
    assert_eq!(r.counts.missing_here, 1);
    assert_eq!(r.counts.mismatches(), 1);
    assert!(r.truncated);
    assert_eq!(r.findings.len(), MAX_STORED_FINDINGS);
    assert_eq!(r.findings[0].order_id, "ZZZ");
    let clean = DayReport::new(
        merchant.clone(),
        account.clone(),
        Mode::Live,
        d,
        Source::Query,
        None,
        vec![],
        T0,
    );
    assert_eq!(
        (clean.status, clean.truncated),
        (ReportStatus::Clean, false)
    );
    let incomplete = DayReport::new(
        merchant,
        account,
        Mode::Live,
        d,
        Source::History,
        Some("bank unavailable".into()),
        vec![],
        T0,
    );
    assert_eq!(incomplete.status, ReportStatus::Incomplete);
    let json = serde_json::to_value(&incomplete).unwrap();
    assert_eq!(json["date"], "2026-11-26");
    assert_eq!(json["status"], "incomplete");
    assert_eq!(json["counts"]["missingAtBank"], 0);
    let back: DayReport = serde_json::from_value(json).unwrap();
    assert_eq!(back, incomplete);
}

#[test]
fn findings_speak_the_apis_words() {
    let f = match_history(&[], &[line("A", Refund, 100)]);
    let json = serde_json::to_value(&f[0]).unwrap();
    assert_eq!(json["operation"], "refund");
    assert_eq!(json["kind"], "missing_here");
    assert_eq!(json["bankAmount"], 100);
}
