use paygate_bankkit::xml;

use super::*;
use crate::{
    hash::{hash_data, HashInput},
    response::parse_response,
    Terminal,
};

fn day(s: &str) -> BusinessDay {
    BusinessDay::parse(s).unwrap()
}

fn mews_config() -> GarantiConfig {
    GarantiConfig {
        endpoint_url: "https://sanalposprovtest.garantibbva.com.tr".into(),
        mode: "TEST".into(),
        terminal: Terminal {
            terminal_id: "30691298".into(),
            merchant_id: "7000679".into(),
            prov_user_id: "PROVAUT".into(),
            prov_password: "123qweASD/".into(),
            refund_user_id: "PROVRFN".into(),
            refund_password: "123qweASD/".into(),
        },
        ip_address: "127.0.0.1".into(),
    }
}

/// MEWS `historyRequestDataProvider` (2022-05-18, page 1), element for element; the end is
/// the next midnight here (MEWS's sample ends at 23:59), the hash the `512` rule over an
/// empty order id and the fixed amount.
#[test]
fn the_list_request_is_the_mews_history_document() {
    let cfg = mews_config();
    let hash = hash_data(
        &HashInput {
            order_id: "",
            terminal_id: "30691298",
            card_number: "",
            amount: "100",
            currency_code: "949",
        },
        "123qweASD/",
    );
    let expected = [
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
        "<GVPSRequest><Mode>TEST</Mode><Version>512</Version>",
        "<Terminal><ProvUserID>PROVAUT</ProvUserID><UserID>PROVAUT</UserID>",
        &format!("<HashData>{hash}</HashData>"),
        "<ID>30691298</ID><MerchantID>7000679</MerchantID></Terminal>",
        "<Customer><IPAddress>127.0.0.1</IPAddress></Customer>",
        "<Order><OrderID></OrderID><GroupID></GroupID><Description></Description>",
        "<StartDate>18/05/2022 00:00</StartDate><EndDate>19/05/2022 00:00</EndDate>",
        "<ListPageNum>1</ListPageNum></Order>",
        "<Transaction><Type>orderlistinq</Type><Amount>100</Amount>",
        "<CurrencyCode>949</CurrencyCode><CardholderPresentCode>0</CardholderPresentCode>",
        "<MotoInd>N</MotoInd></Transaction></GVPSRequest>",
    ]
    .concat();
    assert_eq!(list_request(&cfg, day("2022-05-18"), 1).to_xml(), expected);
    // The last day of a month ends at the first of the next; later pages are numbered.
    let doc = xml::parse(&list_request(&cfg, day("2026-11-30"), 3).to_xml()).unwrap();
    assert_eq!(
        doc.text_at(&["Order", "StartDate"]),
        Some("30/11/2026 00:00")
    );
    assert_eq!(doc.text_at(&["Order", "EndDate"]), Some("01/12/2026 00:00"));
    assert_eq!(doc.text_at(&["Order", "ListPageNum"]), Some("3"));
}

/// `(Id, LastTrxDate, TrxType, OrderID, RetrefNum, Status, AuthAmount, ResponseCode)`.
type Row<'a> = (
    &'a str,
    &'a str,
    &'a str,
    &'a str,
    &'a str,
    &'a str,
    &'a str,
    &'a str,
);

/// The five transactions of MEWS `history/date_range_history.json` (2024-06-03).
const MEWS_ROWS: [Row<'static>; 5] = [
    (
        "1",
        "2024-06-03 14:04:19",
        "Satis",
        "202406033030",
        "415501676495",
        "Basarili",
        "1001",
        "00",
    ),
    (
        "2",
        "2024-06-03 14:04:29",
        "Iade",
        "202406033030",
        "415501676496",
        "Basarisiz",
        "801",
        "05",
    ),
    (
        "3",
        "2024-06-03 14:20:59",
        "Satis",
        "__lwyvqzf9_____65848",
        "415501676585",
        "Basarili",
        "490317",
        "00",
    ),
    (
        "4",
        "2024-06-03 14:50:07",
        "Satis",
        "00000093877E202406031450",
        "415501676711",
        "Basarili",
        "27600",
        "00",
    ),
    (
        "5",
        "2024-06-03 15:09:57",
        "On Otorizasyon",
        "202406038F95",
        "415501676775",
        "Basarisiz",
        "1001",
        "14",
    ),
];

/// An approved `orderlistinq` answer in the fixture's layout.
fn answer(total: &str, pages: &str, act: &str, rows: &[Row<'_>]) -> GvpsResponse {
    let mut doc = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><GVPSResponse><Mode></Mode>\
         <Order><OrderID></OrderID><GroupID></GroupID><OrderListInqResult><OrderTxnList>",
    );
    doc.push_str(&format!(
        "<TotalTxnCount>{total}</TotalTxnCount><TotalPageCount>{pages}</TotalPageCount>\
         <ActPageNum>{act}</ActPageNum>"
    ));
    for (id, date, trx, order, rrn, status, amount, code) in rows {
        doc.push_str(&format!(
            "<OrderTxn><Id>{id}</Id><LastTrxDate>{date}</LastTrxDate><TrxType>{trx}</TrxType>\
             <OrderID>{order}</OrderID><CardNumberMasked>42822090****8015</CardNumberMasked>\
             <BatchNum>576200</BatchNum><AuthCode>304919</AuthCode><RetrefNum>{rrn}</RetrefNum>\
             <InstallmentCnt>Pesin</InstallmentCnt><Status>{status}</Status>\
             <AuthAmount>{amount}</AuthAmount><CurrencyCode>TL</CurrencyCode>\
             <Settlement>N</Settlement><ResponseCode>{code}</ResponseCode><SysErrMsg></SysErrMsg>\
             </OrderTxn>"
        ));
    }
    doc.push_str(
        "</OrderTxnList></OrderListInqResult></Order><Transaction><Response><Source>GVPS</Source>\
         <Code>00</Code><ReasonCode></ReasonCode><Message>Approved</Message><ErrorMsg></ErrorMsg>\
         <SysErrMsg></SysErrMsg></Response><RetrefNum></RetrefNum></Transaction></GVPSResponse>",
    );
    parse_response(doc.as_bytes()).unwrap()
}

fn mews_day() -> BusinessDay {
    day("2024-06-03")
}

/// The MEWS fixture holds three approved sales and two declined lines: no money operation
/// of ours; read as the fixture's counts say.
#[test]
fn the_mews_fixture_has_no_capture_cancel_or_refund() {
    let p = parse_page(&answer("5", "1", "1", &MEWS_ROWS), mews_day(), 1).unwrap();
    assert_eq!((p.total_txns, p.total_pages, p.count), (5, 1, 5));
    assert!(p.lines.is_empty(), "{:?}", p.lines);
}

#[test]
fn approved_captures_cancels_and_refunds_are_the_days_lines() {
    let mut rows = MEWS_ROWS.to_vec();
    // The refund approved; a capture, and a void later (the capture's Status is `Iptal`).
    rows[1].5 = "Basarili";
    rows[1].7 = "00";
    rows.push((
        "6",
        "2024-06-03 16:00:00",
        "On Otorizasyon Kapama",
        "PA1",
        "415501676800",
        "Iptal",
        "9000",
        "00",
    ));
    rows.push((
        "7",
        "2024-06-03 16:05:00",
        "İptal",
        "PA1",
        "415501676801",
        "Basarili",
        "9000",
        "00",
    ));
    // The first minute of the next day (the range's end) is not this day's.
    rows.push((
        "8",
        "2024-06-04 00:00:30",
        "Iade",
        "X",
        "415501676900",
        "Basarili",
        "100",
        "00",
    ));
    let p = parse_page(&answer("8", "1", "1", &rows), mews_day(), 1).unwrap();
    let got: Vec<_> = p
        .lines
        .iter()
        .map(|l| (l.order_id.as_str(), l.kind, l.amount, l.rrn.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("202406033030", TransactionType::Refund, 801, "415501676496"),
            ("PA1", TransactionType::Capture, 9_000, "415501676800"),
            ("PA1", TransactionType::Cancel, 9_000, "415501676801"),
        ]
    );
    assert_eq!(p.count, 8);
}

/// An approved line that cannot be read makes the page unusable; a declined one is skipped
/// whatever it holds.
#[test]
fn an_unreadable_approved_line_is_an_error() {
    let refund = |trx: &'static str, status: &'static str, amount: &'static str| -> Row<'static> {
        (
            "1",
            "2024-06-03 10:00:00",
            trx,
            "O1",
            "1",
            status,
            amount,
            "00",
        )
    };
    for (row, why) in [
        (
            refund("Puan Kullanim", "Basarili", "100"),
            "unknown TrxType",
        ),
        (refund("Iade", "Basarili", "1.00"), "unreadable AuthAmount"),
        (refund("Iade", "Basarili", ""), "unreadable AuthAmount"),
        (refund("Iade", "Basarisiz", "100"), "another Status"),
        (
            (
                "1",
                "03/06/2024",
                "Iade",
                "O1",
                "1",
                "Basarili",
                "100",
                "00",
            ),
            "LastTrxDate",
        ),
        (
            (
                "1",
                "2024-06-03 10:00:00",
                "Iade",
                "",
                "1",
                "Basarili",
                "100",
                "00",
            ),
            "OrderID",
        ),
        (
            (
                "1",
                "2024-06-03 10:00:00",
                "Iade",
                "O1",
                "1",
                "Basarili",
                "100",
                "",
            ),
            "ResponseCode",
        ),
    ] {
        let err = parse_page(&answer("1", "1", "1", &[row]), mews_day(), 1).unwrap_err();
        assert!(err.contains(why), "{row:?}: {err}");
    }
    let mut declined = refund("Puan Kullanim", "Basarisiz", "x");
    declined.7 = "05";
    let p = parse_page(&answer("1", "1", "1", &[declined]), mews_day(), 1).unwrap();
    assert!(p.lines.is_empty());
}

#[test]
fn a_page_must_be_the_one_asked_and_carry_its_counts() {
    let rows = &MEWS_ROWS[..1];
    assert!(parse_page(&answer("1", "1", "2", rows), mews_day(), 1).is_err());
    assert!(parse_page(&answer("", "1", "1", rows), mews_day(), 1).is_err());
    assert!(parse_page(&answer("1", "x", "1", rows), mews_day(), 1).is_err());
    // An answer without a list is not an empty day.
    let mut r = answer("0", "0", "1", &[]);
    r.root = xml::parse("<GVPSResponse><Order></Order></GVPSResponse>").unwrap();
    assert!(parse_page(&r, mews_day(), 1).is_err());
    // An empty day.
    let p = parse_page(&answer("0", "0", "", &[]), mews_day(), 1).unwrap();
    assert_eq!((p.total_txns, p.count), (0, 0));
}

fn listed(total: u64, pages: u32, count: u64) -> ListedPage {
    ListedPage {
        total_txns: total,
        total_pages: pages,
        count,
        lines: vec![BankLine {
            order_id: format!("O{count}"),
            kind: TransactionType::Refund,
            amount: 1,
            rrn: String::new(),
        }],
    }
}

#[test]
fn every_page_is_read_and_the_lines_add_up() {
    let mut p = Pages::default();
    assert_eq!(p.take(1, listed(1_001, 3, 500)), Ok(Some(2)));
    assert_eq!(p.take(2, listed(1_001, 3, 500)), Ok(Some(3)));
    assert_eq!(p.take(3, listed(1_001, 3, 1)), Ok(None));
    assert_eq!(p.finish().unwrap().len(), 3);
    // A page short of lines: the day is not complete.
    let mut p = Pages::default();
    assert_eq!(p.take(1, listed(1_001, 3, 500)), Ok(Some(2)));
    assert_eq!(p.take(2, listed(1_001, 3, 499)), Ok(Some(3)));
    assert_eq!(p.take(3, listed(1_001, 3, 1)), Ok(None));
    assert!(p.finish().is_err());
    // The counts moved under the reader.
    let mut p = Pages::default();
    assert_eq!(p.take(1, listed(1_001, 3, 500)), Ok(Some(2)));
    assert!(p.take(2, listed(1_002, 3, 500)).is_err());
    // More pages than a day can hold are refused, not cut.
    let mut p = Pages::default();
    assert!(p.take(1, listed(1, MAX_PAGES + 1, 500)).is_err());
    // An empty day: one page, no lines.
    let mut p = Pages::default();
    let mut empty = listed(0, 0, 0);
    empty.lines.clear();
    assert_eq!(p.take(1, empty), Ok(None));
    assert_eq!(p.finish(), Ok(vec![]));
}
