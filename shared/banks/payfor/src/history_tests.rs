use paygate_bankkit::BankReply;
use paygate_domain::TransactionType::{Cancel, Capture, Refund};

use super::*;
use crate::{config::ApiCredentials, request};

fn parse(xml: &str) -> Reply {
    Reply::decode(xml.as_bytes()).unwrap()
}

/// A `TxnHistoryReport` of these lines (each a list of fields), as the bank writes it.
fn report(lines: &[&[(&str, &str)]]) -> Reply {
    let body: String = lines
        .iter()
        .map(|l| {
            let fields: String = l.iter().map(|(k, v)| format!("<{k}>{v}</{k}>")).collect();
            format!("<PaymentRequestExtended><PaymentRequest>{fields}</PaymentRequest></PaymentRequestExtended>")
        })
        .collect();
    parse(&format!("<?xml version=\"1.0\" encoding=\"utf-8\"?><TxnHistoryReport xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:noNamespaceSchemaLocation=\"TxnHistoryReport.xsd\">{body}</TxnHistoryReport>"))
}

fn kinds(lines: &[BankLine]) -> Vec<(&str, paygate_domain::TransactionType, i64, &str)> {
    lines
        .iter()
        .map(|l| (l.order_id.as_str(), l.kind, l.amount, l.rrn.as_str()))
        .collect()
}

/// MEWS `PayForPosRequestDataMapperTest::historyRequestDataProvider` (2022-05-18), in the
/// mapper's order.
#[test]
fn the_request_names_the_day() {
    let day = BusinessDay::parse("2022-05-18").unwrap();
    assert_eq!(req_date(day), "20220518");
    let creds = ApiCredentials {
        endpoint_url: "https://vpostest.qnbfinansbank.com/Gateway/XMLGate.aspx".into(),
        mbr_id: "5".into(),
        merchant_id: "085300000009704".into(),
        user_code: "QNB_API_KULLANICI_3DPAY".into(),
        user_pass: "UcBN0".into(),
    };
    let xml = request::to_xml(
        &creds,
        &Request::DayHistory {
            req_date: req_date(day),
        },
    );
    assert_eq!(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><PayforRequest><MerchantId>085300000009704</MerchantId><UserCode>QNB_API_KULLANICI_3DPAY</UserCode><UserPass>UcBN0</UserPass><MbrId>5</MbrId><SecureType>Report</SecureType><ReqDate>20220518</ReqDate><TxnType>TxnHistory</TxnType><Lang>tr</Lang></PayforRequest>");
    // A day's report is read up to the report limit (a line is ~4.5 KB), an order's
    // history up to an operation's.
    use paygate_bankkit::{
        transport::{MAX_REPORT_BYTES, MAX_RESPONSE_BYTES},
        Protocol,
    };
    let day_req = Request::DayHistory {
        req_date: req_date(day),
    };
    assert_eq!(
        crate::PayFor.encode(&creds, &day_req).max_response,
        MAX_REPORT_BYTES
    );
    let order_req = Request::TxnHistory { order_id: "1" };
    assert_eq!(
        crate::PayFor.encode(&creds, &order_req).max_response,
        MAX_RESPONSE_BYTES
    );
}

/// MEWS `test_data/payfor/history/daily_history.json` (its state fields): two refused sales
/// (`V000`, `TxnStatus N`) and an approved one. Sales are not this gateway's operations.
#[test]
fn the_mews_daily_fixture_has_no_money_operation_of_ours() {
    let refused: &[(&str, &str)] = &[
        ("OrderId", "3450201880"),
        ("PurchAmount", "1"),
        ("Currency", "949"),
        ("TxnType", "Auth"),
        ("TxnStatus", "N"),
        ("ErrMsg", "İşlem tamamlanamadı /devam ediyor"),
        ("TxnResult", "Failed"),
        ("AuthCode", "\r\n   "),
        ("ProcReturnCode", "V000"),
        ("ReqDate", "20240314"),
    ];
    let sale: &[(&str, &str)] = &[
        ("OrderId", "1427731461"),
        ("PurchAmount", "100"),
        ("Currency", "949"),
        ("TxnType", "Auth"),
        ("TxnStatus", "Y"),
        ("ErrMsg", "Onaylandı"),
        ("TxnResult", "Success"),
        ("AuthCode", "S70708"),
        ("ProcReturnCode", "00"),
        ("ReqDate", "20240314"),
    ];
    assert_eq!(read_day(&report(&[refused, refused, sale])), Ok(Vec::new()));
}

/// MEWS `success_pre_pay_post_pay_then_cancel_response.json`: the capture (voided since, but
/// booked) and its void are the day's lines; the pre-authorization is not.
#[test]
fn a_reversed_capture_is_a_capture_and_a_cancel() {
    let line = |txn: &'static str, amount: &'static str, status: &'static str| {
        vec![
            ("OrderId", "2024012107B7"),
            ("PurchAmount", amount),
            ("TxnType", txn),
            ("OrgOrderId", "2024012107B7"),
            ("TxnStatus", status),
            ("TxnResult", "Success"),
            ("HostRefNum", "\r\n    "),
            ("ProcReturnCode", "00"),
            ("ReqDate", "20240121"),
        ]
    };
    let r = report(&[
        &line("PreAuth", "2.01", "Y"),
        &line("PostAuth", "2.03", "V"),
        &line("Void", "2.03", "Y"),
    ]);
    assert_eq!(
        kinds(&read_day(&r).unwrap()),
        vec![
            ("2024012107B7", Capture, 203, ""),
            ("2024012107B7", Cancel, 203, "")
        ]
    );
}

/// MEWS `success_pay_refund_fail_response.json`: a refund refused (`V014`, `TxnStatus N`) is
/// no line; an approved one is, with its reference.
#[test]
fn refused_lines_are_left_out() {
    let refund = |code: &'static str, status: &'static str, amount: &'static str| {
        vec![
            ("OrderId", "202401211C79"),
            ("PurchAmount", amount),
            ("TxnType", "Refund"),
            ("OrgOrderId", "202401211C79"),
            ("TxnStatus", status),
            ("HostRefNum", "402110123456"),
            ("ProcReturnCode", code),
        ]
    };
    let r = report(&[
        &[
            ("OrderId", "202401211C79"),
            ("TxnType", "Auth"),
            ("PurchAmount", "1.01"),
            ("TxnStatus", "Y"),
            ("ProcReturnCode", "00"),
        ],
        &refund("V014", "N", "1.01"),
        &refund("00", "Y", "0.50"),
    ]);
    assert_eq!(
        kinds(&read_day(&r).unwrap()),
        vec![("202401211C79", Refund, 50, "402110123456")]
    );
}

/// Whatever the day cannot be told from makes it unavailable, never a shorter day.
#[test]
fn a_line_that_cannot_be_read_makes_the_day_unavailable() {
    let base = [
        ("OrderId", "O1"),
        ("TxnType", "Refund"),
        ("PurchAmount", "1.00"),
        ("TxnStatus", "Y"),
        ("ProcReturnCode", "00"),
    ];
    let with = |key: &str, value: &'static str| -> Vec<(&'static str, &'static str)> {
        base.iter()
            .map(|&(k, v)| (k, if k == key { value } else { v }))
            .collect()
    };
    let ok: &[(&str, &str)] = &base;
    assert_eq!(read_day(&report(&[ok])).unwrap().len(), 1);
    for (key, value) in [
        ("TxnType", "Sale"),        // unknown type
        ("TxnType", ""),            // no type
        ("PurchAmount", "1.005"),   // unreadable amount
        ("PurchAmount", "-1.00"),   // unreadable amount
        ("PurchAmount", ""),        // no amount
        ("TxnStatus", "P"),         // in progress
        ("TxnStatus", ""),          // no state
        ("ProcReturnCode", "V036"), // may have acted
        ("ProcReturnCode", ""),     // no code
        ("OrderId", ""),            // no order
    ] {
        let bad = with(key, value);
        let r = read_day(&report(&[ok, &bad]));
        assert!(r.is_err(), "{key}={value:?}: {r:?}");
    }
    // Refused with a code after which the bank may have acted: not a refusal to skip.
    let unsure = [
        ("OrderId", "O1"),
        ("TxnType", "Void"),
        ("PurchAmount", "1.00"),
        ("TxnStatus", "N"),
        ("ProcReturnCode", "V036"),
    ];
    assert!(read_day(&report(&[&unsure])).is_err());
    // A missing order id falls back to OrgOrderId.
    let org = [
        ("OrgOrderId", "O2"),
        ("TxnType", "PostAuth"),
        ("PurchAmount", "3"),
        ("TxnStatus", "Y"),
        ("ProcReturnCode", "00"),
    ];
    assert_eq!(
        kinds(&read_day(&report(&[&org])).unwrap()),
        vec![("O2", Capture, 300, "")]
    );
}

/// The error answers: nothing found is an empty day (`fail_order_not_found_response.json`
/// shape), any other refusal or a flat answer unavailable.
#[test]
fn error_answers() {
    let error = |code: &'static str| {
        report(&[&[
            ("TxnType", "TxnHistory"),
            ("TxnStatus", "P"),
            ("ErrMsg", "Seçili İşlem Bulunamadı!"),
            ("ProcReturnCode", code),
        ]])
    };
    assert_eq!(read_day(&error("V013")), Ok(Vec::new()));
    assert!(read_day(&error("V001")).is_err());
    assert!(read_day(&error("V036")).is_err());
    let flat = parse("<PayforResponse><ProcReturnCode>V036</ProcReturnCode><ErrMsg>Sistem hatası</ErrMsg></PayforResponse>");
    let why = read_day(&flat).unwrap_err();
    assert!(why.contains("V036") && !why.contains("Sistem"), "{why}");
    assert_eq!(read_day(&report(&[])), Ok(Vec::new()));
}
