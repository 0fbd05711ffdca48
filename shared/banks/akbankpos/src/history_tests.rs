use paygate_bankkit::Protocol;
use serde_json::json;

use super::*;
use crate::{config::ApiCredentials, request::Stamp};

fn day(s: &str) -> BusinessDay {
    BusinessDay::parse(s).unwrap()
}

fn creds() -> ApiCredentials {
    ApiCredentials {
        endpoint_url: "https://apipre.akbank.com/api/v1/payment/virtualpos".into(),
        merchant_safe_id: "2023090417500272654BD9A49CF07574".into(),
        terminal_safe_id: "2023090417500284633D137A249DBBEB".into(),
        secret_key: "key".into(),
        customer_ip: Some("127.0.0.1".into()),
    }
}

/// MEWS `historyRequestDataProvider` `with_date_range` (a 24-hour range), for a business
/// day: terminal, random number and range only, to the report path.
#[test]
fn the_report_request_is_the_mews_document() {
    let stamp = Stamp::new(1_713_610_082_000, &[0xAB; 64]);
    let body = crate::request::to_json(&creds(), &day_request(day("2024-04-13")), &stamp);
    assert_eq!(
        body,
        format!(
            concat!(
                r#"{{"terminal":{{"merchantSafeId":"2023090417500272654BD9A49CF07574","#,
                r#""terminalSafeId":"2023090417500284633D137A249DBBEB"}},"randomNumber":"{}","#,
                r#""report":{{"startDateTime":"2024-04-13T00:00:00.000","#,
                r#""endDateTime":"2024-04-14T00:00:00.000"}}}}"#
            ),
            "AB".repeat(64)
        )
    );
    struct Clock;
    impl paygate_domain::ports::Clock for Clock {
        fn now(&self) -> paygate_domain::Timestamp {
            paygate_domain::Timestamp::from_unix_millis(1_713_610_082_000)
        }
    }
    let wire = AkbankPos::new(std::sync::Arc::new(Clock))
        .encode(&creds(), &day_request(day("2024-12-31")));
    assert_eq!(
        wire.url,
        "https://apipre.akbank.com/api/v1/payment/virtualpos/portal/report/transaction"
    );
    let body: Value = serde_json::from_slice(&wire.body).unwrap();
    assert_eq!(
        text(&body, &["report", "endDateTime"]),
        "2025-01-01T00:00:00.000"
    );
    assert!(wire.headers.iter().any(|(n, _)| *n == crate::hash::HEADER));
}

fn mews_raw() -> Reply {
    Reply(serde_json::from_str(include_str!("../testdata/mews_daily_history_raw.json")).unwrap())
}

/// MEWS `history/daily_history_raw.json`, as the bank sent it: 525 lines of 2024-04-24
/// (dynamic-Huffman gzip), two approved sales and the rest refused or reversed: no capture,
/// cancel or refund.
#[test]
fn the_mews_raw_report_inflates_and_holds_no_operation_of_ours() {
    let data = data_of(&mews_raw()).unwrap();
    let list = data["txnDetailList"].as_array().unwrap();
    assert_eq!(list.len(), 525);
    assert_eq!(
        text(&list[0], &["orderId"]),
        "6c365160-797e-4cb2-8614-b5cac5e97f31"
    );
    assert_eq!(
        text(&list[524], &["orderId"]),
        "27abf870-3322-4e05-931e-366c2091fa1c"
    );
    assert_eq!(parse_report(&mews_raw(), day("2024-04-24")), Ok(vec![]));
    // A damaged list is no list.
    let mut damaged = mews_raw();
    let b64 = damaged.0["data"].as_str().unwrap().to_owned();
    let mut bytes = base64::engine::general_purpose::STANDARD
        .decode(&b64)
        .unwrap();
    bytes[200] ^= 0x01;
    damaged.0["data"] = base64::engine::general_purpose::STANDARD
        .encode(bytes)
        .into();
    assert!(parse_report(&damaged, day("2024-04-24")).is_err());
}

fn tx(code: &str, response: Option<&str>, status: &str, at: &str, order: &str) -> Value {
    let mut v = json!({
        "txnCode": code, "txnStatus": status, "txnDateTime": at, "orderId": order,
        "orgOrderId": order, "amount": 10.01, "rrn": 411424361004u64, "currencyCode": 949,
    });
    if let Some(r) = response {
        v["responseCode"] = r.into();
        v["hostResponseCode"] = if r == APPROVED { "00" } else { "05" }.into();
    }
    v
}

fn report(lines: Vec<Value>) -> Reply {
    Reply(json!({
        "data": {"txnDateTime": "2024-04-23T10:00:00.000", "txnDetailList": lines},
        "responseCode": "VPS-0000", "responseMessage": "SUCCESSFUL",
    }))
}

const OK: Option<&str> = Some(APPROVED);

/// The lines of MEWS `history/daily_history_2.json` (2024-04-22) that matter, plus a refund:
/// a capture whose `orderId` is its own (`orgOrderId` is the order's), a voided sale, an
/// approved pre-auth and refused or next-day lines.
#[test]
fn captures_refunds_and_voided_lines_are_the_days_lines() {
    let d = "2024-04-22T21:14:39.542";
    let mut capture = tx(txn::POST_AUTH, OK, "Başarılı", d, "6ffd5c2a-423f-4d4c");
    capture["orgOrderId"] = "20240422039A".into();
    capture["amount"] = 30.into();
    let lines = vec![
        tx(
            txn::SALE,
            Some("VPS-1005"),
            "Başarısız",
            "2024-04-23T00:00:51.656",
            "A",
        ),
        tx(txn::PRE_AUTH, OK, "Başarılı", d, "20240422039A"),
        capture,
        tx(
            txn::SALE,
            OK,
            "İptal",
            "2024-04-22T21:14:35.961",
            "202404228323",
        ),
        tx(txn::SALE, None, "Teknik İptal", d, "T"),
        tx(txn::REFUND, OK, "Başarılı", d, "R1"),
        // The next day's first line (the range's end) is not this day's.
        tx(txn::REFUND, OK, "Başarılı", "2024-04-23T00:00:00.000", "R2"),
    ];
    let got: Vec<_> = parse_report(&report(lines), day("2024-04-22"))
        .unwrap()
        .into_iter()
        .map(|l| (l.order_id, l.kind, l.amount))
        .collect();
    assert_eq!(
        got,
        [
            ("20240422039A".to_owned(), TransactionType::Capture, 3_000),
            ("202404228323".to_owned(), TransactionType::Cancel, 1_001),
            ("R1".to_owned(), TransactionType::Refund, 1_001),
        ]
    );
    // A voided capture is the day's capture and a cancel; a void line is a cancel.
    let voided = vec![
        tx(txn::POST_AUTH, OK, "İptal", d, "C1"),
        tx(txn::VOID, OK, "Başarılı", d, "C1"),
    ];
    let kinds: Vec<_> = parse_report(&report(voided), day("2024-04-22"))
        .unwrap()
        .into_iter()
        .map(|l| l.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            TransactionType::Capture,
            TransactionType::Cancel,
            TransactionType::Cancel
        ]
    );
}

/// An approved line that cannot be read, or a refused one that says it succeeded, makes the
/// report unusable: never a shorter day.
#[test]
fn an_unreadable_line_is_an_error() {
    let d = "2024-04-22T10:00:00.000";
    let ok = || tx(txn::REFUND, OK, "Başarılı", d, "O1");
    let with = |key: &str, value: Value| {
        let mut v = ok();
        v[key] = value;
        v
    };
    let mut no_order = ok();
    no_order["orderId"] = "".into();
    no_order["orgOrderId"] = Value::Null;
    for (line, why) in [
        (with("txnCode", "1013".into()), "unknown txnCode"),
        (with("amount", "on".into()), "unreadable amount"),
        (with("amount", Value::Null), "unreadable amount"),
        (with("txnStatus", "Beklemede".into()), "another txnStatus"),
        (with("txnDateTime", "22.04.2024".into()), "txnDateTime"),
        (with("hostResponseCode", "91".into()), "contradicts"),
        (no_order, "orderId"),
        (
            tx(txn::REFUND, Some("VPS-1005"), "Başarılı", d, "O1"),
            "refused line",
        ),
    ] {
        let err = parse_report(&report(vec![line.clone()]), day("2024-04-22")).unwrap_err();
        assert!(err.contains(why), "{line}: {err}");
    }
}

#[test]
fn an_answer_without_its_list_is_an_error() {
    let d = day("2024-04-22");
    let mut r = report(vec![]);
    assert_eq!(parse_report(&r, d), Ok(vec![]));
    r.0["totalCount"] = 3.into();
    assert!(parse_report(&r, d).is_err());
    for data in [
        Value::Null,
        json!("not base64!"),
        json!("aGVsbG8="),
        json!({"txnDateTime": "x"}),
    ] {
        let mut r = report(vec![]);
        r.0["data"] = data.clone();
        assert!(parse_report(&r, d).is_err(), "{data}");
    }
    // The simulator's form: a stored gzip member.
    let inner =
        json!({"txnDetailList": [tx(txn::REFUND, OK, "Başarılı", "2024-04-22T10:00:00.000", "Z")]});
    let mut r = report(vec![]);
    r.0["data"] = base64::engine::general_purpose::STANDARD
        .encode(gzip::gzip(inner.to_string().as_bytes()))
        .into();
    assert_eq!(parse_report(&r, d).unwrap().len(), 1);
}
