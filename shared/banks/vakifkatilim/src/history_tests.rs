//! `SelectOrder` pages read for a day: entries of the MEWS fixture
//! `test_data/vakifkatilimpos/history/success_history.json` (as the XML they came from), and
//! the lines that make a day unavailable.

use paygate_bankkit::BankReply;
use paygate_domain::TransactionType::{Cancel, Capture, Refund};

use super::*;

fn day(s: &str) -> BusinessDay {
    BusinessDay::parse(s).unwrap()
}

/// One `OrderContract` entry with the fixture's fields.
fn entry(order: &str, (status, tx, code): (&str, &str, &str), at: &str, amount: &str) -> String {
    format!(
        "<OrderContract><OrderId>6373591</OrderId><MerchantOrderId>{order}</MerchantOrderId>\
         <MerchantId>1</MerchantId><OrderStatus>{status}</OrderStatus>\
         <TransactionStatus>{tx}</TransactionStatus><LastOrderStatus>6</LastOrderStatus>\
         <EndOfDayStatus>1</EndOfDayStatus><FEC>0949</FEC><OrderDate>{at}</OrderDate>\
         <FirstAmount>10.01</FirstAmount><TranAmount>{amount}</TranAmount>\
         <CancelAmount>10.01</CancelAmount><DrawbackAmount>0.00</DrawbackAmount>\
         <ClosedAmount>0.00</ClosedAmount><ResponseCode>{code}</ResponseCode>\
         <ProvNumber>668468</ProvNumber><RRN>418315149569</RRN><Stan>435384</Stan></OrderContract>"
    )
}

fn page(body: &str) -> Reply {
    let doc = format!(
        "<?xml version=\"1.0\" encoding=\"utf-16\"?><VPosOrderDataResponseContract \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">{body}</VPosOrderDataResponseContract>"
    );
    Reply::decode(doc.as_bytes()).unwrap()
}

fn data(entries: &[String]) -> Reply {
    page(&format!(
        "<VPosOrderData>{}</VPosOrderData><ResponseCode>00</ResponseCode><ResponseMessage />",
        entries.concat()
    ))
}

/// The fixture's 2024-07-01: order `20240701CF44` sold and reversed four times (four
/// approved `6` entries), `202407019FDB` sold and reversed, a declined sale (`2`, `58`) and an
/// unfinished one (`0`, no code). The day lists the five reversals, nothing else; the next
/// day none of them.
#[test]
fn the_fixture_s_reversals_are_the_day_s_cancels() {
    let ok = ("1", "1", "00");
    let reversal = ("6", "1", "00");
    let reply = data(&[
        entry("202407019FDB", ok, "2024-07-01T15:21:28.123", "10.01"),
        entry("202407019FDB", reversal, "2024-07-01T15:22:24.463", "10.01"),
        entry("20240701CF44", ok, "2024-07-01T15:03:32.4", "10.01"),
        entry("20240701CF44", reversal, "2024-07-01T15:03:46.62", "10.01"),
        entry("20240701CF44", reversal, "2024-07-01T15:03:58.357", "10.01"),
        entry("20240701CF44", reversal, "2024-07-01T15:04:05.17", "10.01"),
        entry("20240701CF44", reversal, "2024-07-01T15:04:23.253", "10.01"),
        entry(
            "202407018F7D",
            ("1", "2", "58"),
            "2024-07-01T14:24:29.903",
            "10.01",
        ),
        entry(
            "202407017191",
            ("1", "0", ""),
            "2024-07-01T13:57:56.907",
            "10.01",
        ),
    ]);
    let p = read_page(&reply, day("2024-07-01")).unwrap();
    assert_eq!(p.entries, 9);
    let seen: Vec<_> = p
        .lines
        .iter()
        .map(|l| (l.order_id.as_str(), l.kind, l.amount, l.rrn.as_str()))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("202407019FDB", Cancel, 1_001, "418315149569"),
            ("20240701CF44", Cancel, 1_001, "418315149569"),
            ("20240701CF44", Cancel, 1_001, "418315149569"),
            ("20240701CF44", Cancel, 1_001, "418315149569"),
            ("20240701CF44", Cancel, 1_001, "418315149569"),
        ]
    );
    let next = read_page(&reply, day("2024-07-02")).unwrap();
    assert_eq!((next.entries, next.lines.len()), (9, 0));
}

/// Closes are captures, `4` and `5` refunds (their own `TranAmount`); a declined reversal
/// (`TransactionStatus 2`, a code) is left out.
#[test]
fn closes_and_refunds() {
    let d = day("2026-11-26");
    let at = "2026-11-26T12:00:00";
    let read = |e: (&str, &str, &str), amount: &str| {
        read_entry(&data(&[entry("O", e, at, amount)]).orders[0], d)
    };
    let line = |kind, amount| {
        Ok(Entry::Line(BankLine {
            order_id: "O".into(),
            kind,
            amount,
            rrn: "418315149569".into(),
        }))
    };
    assert_eq!(read(("3", "1", "00"), "90.00"), line(Capture, 9_000));
    assert_eq!(read(("4", "1", "00"), "10.01"), line(Refund, 1_001));
    assert_eq!(read(("5", "1", "00"), "2.50"), line(Refund, 250));
    assert_eq!(read(("6", "2", "58"), "10.01"), Ok(Entry::Other));
    assert_eq!(read(("2", "1", "00"), "10.01"), Ok(Entry::Other));
}

/// A line of unknown type, an unreadable or zero amount, an unreadable date, a result that
/// is neither approved nor declined, or a line without its order: the page is unavailable.
#[test]
fn unreadable_lines_make_the_page_unavailable() {
    let d = day("2026-11-26");
    let at = "2026-11-26T12:00:00";
    let fails = |e: String| read_page(&data(&[e]), d).unwrap_err();
    let ok = ("6", "1", "00");
    assert!(fails(entry("O", ("9", "1", "00"), at, "1.00")).contains("OrderStatus"));
    for bad in ["", "1,0x", "0.00", "-1.00", "1.001"] {
        assert!(
            fails(entry("O", ok, at, bad)).contains("TranAmount"),
            "{bad}"
        );
    }
    for bad in ["", "26.11.2026 12:00", "2026-11"] {
        assert!(
            fails(entry("O", ok, bad, "1.00")).contains("OrderDate"),
            "{bad}"
        );
    }
    for unclear in [
        ("6", "0", ""),
        ("6", "1", "58"),
        ("6", "2", "00"),
        ("6", "2", ""),
    ] {
        assert!(
            fails(entry("O", unclear, at, "1.00")).contains("result"),
            "{unclear:?}"
        );
    }
    assert!(fails(entry("", ok, at, "1.00")).contains("MerchantOrderId"));
}

/// `NonResult` is the empty page past the last entry; `00` without `VPosOrderData`, another
/// code or a money answer is unavailable, never an empty day.
#[test]
fn pages() {
    let d = day("2026-11-26");
    assert_eq!(
        read_page(&page("<ResponseCode>NonResult</ResponseCode>"), d),
        Ok(Page::default())
    );
    assert_eq!(
        read_page(&page("<VPosOrderData /><ResponseCode>00</ResponseCode>"), d),
        Ok(Page::default())
    );
    assert!(read_page(&page("<ResponseCode>00</ResponseCode>"), d)
        .unwrap_err()
        .contains("VPosOrderData"));
    let refused = read_page(&page("<ResponseCode>SystemError</ResponseCode>"), d).unwrap_err();
    assert!(refused.contains("SystemError"), "{refused}");
}

/// The range covers the day whatever the bank's `EndDate` means.
#[test]
fn the_range_is_the_day_and_the_next() {
    assert_eq!(
        range(day("2026-12-31")),
        ("2026-12-31".to_owned(), "2027-01-01".to_owned())
    );
}
