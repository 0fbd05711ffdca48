use super::*;
use crate::response::Reply;

fn parse(body: &[u8]) -> Result<Reply, String> {
    <Reply as paygate_bankkit::BankReply>::decode(body)
}

fn search(lines: &str) -> SearchReply {
    let doc = format!("<SearchResponse><ResponseInfo><Status>Success</Status><ResponseCode>0000</ResponseCode><ResponseMessage>Succeeded.</ResponseMessage></ResponseInfo><TransactionSearchResultInfo>{lines}</TransactionSearchResultInfo></SearchResponse>");
    match parse(doc.as_bytes()).unwrap() {
        Reply::Search(s) => s,
        other => panic!("{other:?}"),
    }
}

fn line(kind: &str, id: &str, code: &str, amount: &str, flags: &str) -> String {
    format!("<TransactionSearchResultInfo><TransactionType>{kind}</TransactionType><TransactionId>{id}</TransactionId><OrderId>O1</OrderId><ResultCode>{code}</ResultCode><AuthCode>A{id}</AuthCode><Rrn>R{id}</Rrn><CurrencyAmount>{amount}</CurrencyAmount>{flags}</TransactionSearchResultInfo>")
}

const OPEN: &str =
    "<IsReversed>false</IsReversed><IsCanceled>false</IsCanceled><IsRefunded>false</IsRefunded>";

/// MEWS `statusTestDataProvider` `success_pay` (abridged).
#[test]
fn the_mews_sale_is_approved() {
    let s = search("<TransactionSearchResultInfo><MerchantId>655500056</MerchantId><TransactionType>Sale</TransactionType><TransactionId>b2d71cc5-d242-4b01-8479-d56eb8f74d7c</TransactionId><OrderId>z2d71cc5-d242-4b01-8479-d56eb8f74d7</OrderId><ResultCode>0000</ResultCode><ResponseMessage>İŞLEM BAŞARILI</ResponseMessage><HostResultCode>000</HostResultCode><AuthCode>11234</AuthCode><HostDate>1130145930</HostDate><Rrn>201101240006</Rrn><CurrencyAmount>90.50</CurrencyAmount><AmountCode>949</AmountCode><GainedPoint>0</GainedPoint><TotalPoint>100</TotalPoint><IsReversed>false</IsReversed><IsCanceled>false</IsCanceled><IsRefunded>false</IsRefunded></TransactionSearchResultInfo>");
    let st = status(&s);
    assert_eq!(
        (st.state, st.amount, st.auth_code.as_str(), st.rrn.as_str()),
        (BankState::Approved, 9_050, "11234", "201101240006")
    );
}

/// MEWS `fail1`: the merchant is unknown → the query failed, never "no record".
#[test]
fn a_failed_search_is_unavailable() {
    let r = parse("<SearchResponse><ResponseInfo><Status>Error</Status><ResponseCode>9065</ResponseCode><ResponseMessage>Üye isyeri bulunamadi</ResponseMessage></ResponseInfo></SearchResponse>".as_bytes()).unwrap();
    let Reply::Search(s) = r else { panic!() };
    let st = status(&s);
    assert!(
        st.found && !st.is_conclusive() && st.code == "9065",
        "{st:?}"
    );
    let none = search("");
    assert!(!status(&none).found);
}

#[test]
fn preauth_capture_cancel_and_refunds() {
    let auth = line("Auth", "T1", "0000", "200.00", OPEN);
    let s = search(&auth);
    assert_eq!(status(&s).state, BankState::Preauth);
    let o = match lookup(&s) {
        Lookup::Found(o) => o,
        other => panic!("{other:?}"),
    };
    assert_eq!((o.to_capture(), o.to_cancel()), (Some("T1"), Some("T1")));

    let captured = format!(
        "{}{}",
        line(
            "Auth",
            "T1",
            "0000",
            "200.00",
            "<IsCaptured>true</IsCaptured><IsRefunded>false</IsRefunded>"
        ),
        line("Capture", "T2", "0000", "150.00", "")
    );
    let st = status(&search(&captured));
    assert_eq!((st.state, st.amount), (BankState::Approved, 15_000));
    let s = search(&captured);
    let Lookup::Found(o) = lookup(&s) else {
        panic!()
    };
    assert_eq!(o.to_refund(), Some("T2"));

    let partly = format!(
        "{}{}",
        line("Sale", "T1", "0000", "100.00", OPEN),
        line("Refund", "T3", "0000", "25.00", "")
    );
    let st = status(&search(&partly));
    assert_eq!(
        (st.state, st.amount, st.refunded_amount),
        (BankState::PartiallyRefunded, 10_000, 2_500)
    );
    // A refused refund never counts.
    let refused = format!("{partly}{}", line("Refund", "T4", "1059", "75.00", ""));
    assert_eq!(status(&search(&refused)).refunded_amount, 2_500);

    let full = format!(
        "{}{}",
        line(
            "Sale",
            "T1",
            "0000",
            "100.00",
            "<IsRefunded>true</IsRefunded>"
        ),
        line("Refund", "T3", "0000", "100.00", "")
    );
    assert_eq!(status(&search(&full)).state, BankState::Refunded);

    let cancelled = line(
        "Sale",
        "T1",
        "0000",
        "100.00",
        "<IsCanceled>true</IsCanceled>",
    );
    assert_eq!(status(&search(&cancelled)).state, BankState::Cancelled);
    let declined = line("Sale", "T1", "0312", "100.00", OPEN);
    let st = status(&search(&declined));
    assert_eq!((st.state, st.code.as_str()), (BankState::Declined, "0312"));
}

#[test]
fn contradictions_and_lines_in_progress_are_not_conclusive() {
    for lines in [
        // IsRefunded without the refunds to show it.
        line(
            "Sale",
            "T1",
            "0000",
            "100.00",
            "<IsRefunded>true</IsRefunded>",
        ),
        // A full refund without the flag.
        format!(
            "{}{}",
            line("Sale", "T1", "0000", "100.00", OPEN),
            line("Refund", "T2", "0000", "100.00", "")
        ),
        // A line without its result.
        format!(
            "{}{}",
            line("Sale", "T1", "0000", "100.00", OPEN),
            line("Refund", "T2", "", "10.00", "")
        ),
        // TotalRefundAmount disagreeing with the refund lines.
        format!(
            "{}{}",
            line(
                "Sale",
                "T1",
                "0000",
                "100.00",
                "<TotalRefundAmount>30.00</TotalRefundAmount>"
            ),
            line("Refund", "T2", "0000", "10.00", "")
        ),
        // Captured per the flag, no capture line.
        line(
            "Auth",
            "T1",
            "0000",
            "100.00",
            "<IsCaptured>true</IsCaptured>",
        ),
        // A refund with no original.
        line("Refund", "T2", "0000", "10.00", ""),
        line("Sale", "T1", "0000", "1,2,3", OPEN),
    ] {
        assert!(!status(&search(&lines)).is_conclusive(), "{lines}");
    }
    // TotalRefundAmount alone (no refund lines) is read.
    let total = line(
        "Sale",
        "T1",
        "0000",
        "100.00",
        "<TotalRefundAmount>30.00</TotalRefundAmount><IsRefunded>false</IsRefunded>",
    );
    let st = status(&search(&total));
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
}

/// A transaction whose code says the bank may have acted (`9998`, `1074` "not finished
/// yet") is not a settled fact: the whole read is unavailable, never "nothing refunded".
#[test]
fn a_line_whose_outcome_is_not_known_makes_the_read_unavailable() {
    for code in ["9998", "1074", "1001"] {
        let lines = format!(
            "{}{}",
            line("Sale", "T1", "0000", "100.00", OPEN),
            line("Refund", "T2", code, "40.00", "")
        );
        let st = status(&search(&lines));
        assert!(!st.is_conclusive(), "{code}: {st:?}");
    }
    // A refund the bank refused on its merits is a settled fact: not counted.
    let lines = format!(
        "{}{}",
        line("Sale", "T1", "0000", "100.00", OPEN),
        line("Refund", "T2", "1087", "40.00", "")
    );
    let st = status(&search(&lines));
    assert_eq!((st.state, st.refunded_amount), (BankState::Approved, 0));
}
