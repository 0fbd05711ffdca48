use paygate_bankkit::BankReply;
use paygate_domain::TransactionType::{Cancel, Capture, Refund};
use serde_json::json;

use super::*;
use crate::{
    config::ApiCredentials,
    request::{self, Stamp},
};

fn reply(v: Value) -> Reply {
    Reply::decode(v.to_string().as_bytes()).unwrap()
}

fn kinds(lines: &[BankLine]) -> Vec<(&str, TransactionType, i64, &str)> {
    lines
        .iter()
        .map(|l| (l.order_id.as_str(), l.kind, l.amount, l.rrn.as_str()))
        .collect()
}

/// A line as MEWS's fixtures show them, with `extra` fields changed.
fn line(kind: u8, order: &str, amount: i64, extra: Value) -> Value {
    let mut l = json!({
        "TransactionType": kind, "CreateDate": "20231209154644", "OrderId": order,
        "BankResponseCode": "00", "BankResponseMessage": null, "AuthCode": null,
        "HostReferenceNumber": null, "Amount": amount, "Currency": 949, "InstallmentCount": 0,
        "ClientId": 1000000494, "CardNo": "41595600****7732", "RequestStatus": 1,
        "RefundedAmount": 0, "PostAuthedAmount": 0, "TransactionId": 2000000000032597u64,
        "TransactionDate": 20231209, "Code": 0, "Message": "Başarılı"
    });
    if let (Some(l), Value::Object(e)) = (l.as_object_mut(), extra) {
        l.extend(e);
    }
    l
}

/// The body of a day's page: MEWS `orderHistoryRequestDataProvider`'s keys (its account, its
/// stamp and so its hash), with an empty `orderId` and the date as a number.
#[test]
fn the_request_names_the_day_and_the_page() {
    let day = BusinessDay::parse("2023-12-09").unwrap();
    assert_eq!(transaction_date(day), 20_231_209);
    let creds = ApiCredentials {
        endpoint_url: "https://entegrasyon.tosla.com/api/Payment".into(),
        client_id: "1000000494".into(),
        api_user: "POS_ENT_Test_001".into(),
        api_pass: "POS_ENT_Test_001!*!*".into(),
    };
    let stamp = Stamp {
        rnd: "rand-123".into(),
        time_span: "20231209215355".into(),
    };
    let req = Request::History {
        transaction_date: transaction_date(day),
        page: 2,
        page_size: 5,
    };
    assert_eq!(req.path(), "history");
    let body: Value = serde_json::from_str(&request::to_json(&creds, &req, &stamp)).unwrap();
    assert_eq!(
        body,
        json!({
            "clientId": 1000000494u64, "apiUser": "POS_ENT_Test_001", "orderId": "",
            "transactionDate": 20231209, "page": 2, "pageSize": 5, "rnd": "rand-123",
            "timeSpan": "20231209215355",
            "hash": "csrJh00U/nYGim8jPp9uddRdRvEWZf8pYu9Elss5RtA9JQt6DRkXxrTTY4iYQt5iABp5bj+/RYhlnTflyD9eBw=="
        })
    );
}

/// MEWS `orderHistoryDataProvider`: `success_multiple_transactions` (a sale and its cancel:
/// the cancel is ours, referenced by its `TransactionId`), `success_no_order_found`,
/// `fail_validation`, `fail_when_no_hash_value_sent`.
#[test]
fn the_mews_fixtures() {
    let both = reply(json!({
        "Count": 2, "Code": 0, "Message": "Başarılı",
        "Transactions": [
            line(1, "20231209C3AE", 101, json!({"RequestStatus": 2, "TransactionId": "2000000000032596", "NetAmount": "101", "ClientId": "1000000494", "TransactionDate": "20231209"})),
            line(4, "20231209C3AE", 101, json!({})),
        ]
    }));
    let p = read_page(&both).unwrap();
    assert_eq!((p.count, p.entries), (Some(2), 2));
    assert_eq!(
        kinds(&p.lines),
        vec![("20231209C3AE", Cancel, 101, "2000000000032597")]
    );
    let none = reply(json!({"Count": 0, "Transactions": [], "Code": 0, "Message": "Başarılı"}));
    assert_eq!(
        read_page(&none).unwrap(),
        Page {
            count: Some(0),
            entries: 0,
            lines: vec![]
        }
    );
    let invalid = reply(json!({"Code": 998, "message": "Validasyon Hatası",
        "ValidationErrors": ["Could not convert string to integer: 20231209123936. Path 'transactionDate', line 1, position 113.'"]}));
    let why = read_page(&invalid).unwrap_err();
    assert!(why.contains("998") && !why.contains("Validasyon"), "{why}");
    let general =
        reply(json!({"Count": 0, "Transactions": null, "Code": 999, "Message": "Genel Hata"}));
    assert!(read_page(&general).is_err());
}

#[test]
fn money_lines_and_what_is_left_out() {
    let page = reply(json!({"Count": 6, "Code": 0, "Transactions": [
        line(2, "P1", 10_000, json!({})),
        line(3, "P1", 9_000, json!({"HostReferenceNumber": "402110123456"})),
        line(5, "P1", 1_000, json!({"TransactionId": "2000000000000042"})),
        // A host refusal and a refusal of the declined class move nothing.
        line(5, "P1", 500, json!({"BankResponseCode": "05", "BankResponseMessage": "Red"})),
        line(4, "P2", 700, json!({"Code": 101, "Message": "Orjinal Kayıt Bulunamadı", "BankResponseCode": null})),
        // A sale, whatever its state.
        line(1, "P3", 300, json!({"Code": 999, "BankResponseCode": null})),
    ]}));
    assert_eq!(
        kinds(&read_page(&page).unwrap().lines),
        vec![
            ("P1", Capture, 9_000, "402110123456"),
            ("P1", Refund, 1_000, "2000000000000042")
        ]
    );
}

/// A line that cannot be told makes the page (and so the day) unavailable.
#[test]
fn a_line_that_cannot_be_read_makes_the_page_unreadable() {
    for (why, extra) in [
        ("unknown type", json!({"TransactionType": 7})),
        ("no type", json!({"TransactionType": 0})),
        ("unreadable amount", json!({"Amount": "1.01"})),
        ("negative amount", json!({"Amount": -5})),
        ("no amount", json!({"Amount": null})),
        ("no order", json!({"OrderId": null})),
        (
            "general error",
            json!({"Code": 999, "BankResponseCode": null}),
        ),
        ("no code", json!({"Code": null})),
        ("handled, no host code", json!({"BankResponseCode": null})),
        ("host may have acted", json!({"BankResponseCode": "96"})),
        (
            "system error",
            json!({"BankResponseCode": "05", "BankResponseMessage": "Sistem hatası"}),
        ),
    ] {
        let page = reply(json!({"Count": 2, "Code": 0, "Transactions": [
            line(4, "OK", 100, json!({})),
            line(5, "BAD", 100, extra),
        ]}));
        assert!(read_page(&page).is_err(), "{why}");
    }
    for bad in [
        json!({"Count": "x", "Code": 0, "Transactions": []}),
        json!({"Count": 1, "Code": 0, "Transactions": null}),
        json!({"Count": 1, "Code": 0}),
        json!({"Transactions": []}),
    ] {
        assert!(read_page(&reply(bad.clone())).is_err(), "{bad}");
    }
}

fn page(count: Option<u64>, lines: &[(&str, i64)]) -> Page {
    Page {
        count,
        entries: lines.len() as u64,
        lines: lines
            .iter()
            .map(|(o, a)| BankLine {
                order_id: (*o).to_owned(),
                kind: Refund,
                amount: *a,
                rrn: String::new(),
            })
            .collect(),
    }
}

/// Pages served from a list (page `n` is `pages[n - 1]`; past the end: empty), counting the
/// calls.
async fn serve(pages: Vec<Result<Page, String>>) -> (Result<Vec<BankLine>, String>, u32) {
    let calls = std::cell::Cell::new(0);
    let pages = &pages;
    let calls_ref = &calls;
    let out = all_pages(|n| async move {
        calls_ref.set(calls_ref.get() + 1);
        pages
            .get(usize::try_from(n).unwrap() - 1)
            .cloned()
            .unwrap_or_else(|| Ok(page(Some(0), &[])))
    })
    .await;
    (out, calls.get())
}

#[tokio::test]
async fn paging_reads_every_page() {
    // `Count` the day's total: read until it is reached.
    let (out, calls) = serve(vec![
        Ok(page(Some(3), &[("A", 1), ("B", 2)])),
        Ok(page(Some(3), &[("C", 3)])),
    ])
    .await;
    assert_eq!(out.unwrap().len(), 3);
    assert_eq!(calls, 2);
    // `Count` the page's own length (or absent): read until an empty page.
    let (out, calls) = serve(vec![
        Ok(page(Some(2), &[("A", 1), ("B", 2)])),
        Ok(page(None, &[("C", 3)])),
    ])
    .await;
    assert_eq!(out.unwrap().len(), 3);
    assert_eq!(calls, 3);
    // An empty day.
    let (out, calls) = serve(vec![]).await;
    assert_eq!((out, calls), (Ok(vec![]), 1));
}

#[tokio::test]
async fn a_missing_or_failed_page_makes_the_day_unavailable() {
    // The second page fails.
    let (out, _) = serve(vec![
        Ok(page(Some(2), &[("A", 1), ("B", 2)])),
        Err("page 2 could not be read (timeout)".into()),
    ])
    .await;
    assert!(out.is_err());
    // A page missing: the total counted is never reached.
    let (out, _) = serve(vec![Ok(page(Some(5), &[("A", 1), ("B", 2)]))]).await;
    assert!(out.unwrap_err().contains("2 lines read of the 5"));
    // More lines than counted (a page served twice).
    let twice = page(Some(3), &[("A", 1), ("B", 2)]);
    let (out, _) = serve(vec![Ok(twice.clone()), Ok(twice)]).await;
    assert!(out.is_err());
    // A page longer than its own count.
    let (out, _) = serve(vec![Ok(page(Some(1), &[("A", 1), ("B", 2)]))]).await;
    assert!(out.is_err());
    // A bank that never ends its pages.
    let (out, calls) = serve(
        (0..=MAX_PAGES)
            .map(|_| Ok(page(None, &[("A", 1)])))
            .collect(),
    )
    .await;
    assert!(out.is_err());
    assert_eq!(calls, MAX_PAGES);
}
