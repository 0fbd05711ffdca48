//! Request bodies against the public vectors (MEWS `PayFlexV4PosRequestDataMapperTest` and
//! `PayFlexV4PosSerializerTest`, account `000000000111111` / `3XTgER89as` / `VP999999`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paygate_bank_payflex::{
    config::MerchantCredentials,
    request::{encode, to_xml, url, Request},
    response::Reply,
    status, PayFlex,
};
use paygate_bankkit::{form::parse_form, AccountCredentials, BankConfig, BankReply, Protocol};
use paygate_domain::{BankState, Currency, Operation};

fn creds() -> MerchantCredentials {
    MerchantCredentials::from_account(&AccountCredentials::new(
        "https://onlineodemetest.vakifbank.com.tr:4443/VposService/v3/Vposreq.aspx",
        [
            ("merchantId".to_owned(), "000000000111111".to_owned()),
            ("password".to_owned(), "3XTgER89as".to_owned()),
            ("terminalNo".to_owned(), "VP999999".to_owned()),
        ],
    ))
    .unwrap()
}

/// `createNonSecurePostAuthPaymentRequestDataDataProvider`: amount 1000, tx123, 127.0.0.1.
#[test]
fn capture_matches_the_mews_vector() {
    let xml = to_xml(
        &creds(),
        &Request::Capture {
            reference: "tx123",
            amount: 100_000,
            currency: Currency::Try,
        },
    );
    assert_eq!(
        xml,
        "<VposRequest><MerchantId>000000000111111</MerchantId><Password>3XTgER89as</Password><TerminalNo>VP999999</TerminalNo><TransactionType>Capture</TransactionType><ReferenceTransactionId>tx123</ReferenceTransactionId><CurrencyAmount>1000.00</CurrencyAmount><CurrencyCode>949</CurrencyCode><ClientIp>127.0.0.1</ClientIp></VposRequest>"
    );
}

/// `createCancelRequestDataDataProvider` and `refundRequestDataProvider` (amount 5).
#[test]
fn cancel_and_refund_match_the_mews_vectors() {
    let c = creds();
    let reference = "7022b92e-3aa1-44fb-86d4-33658c700c80";
    assert_eq!(
        to_xml(&c, &Request::Cancel { reference }),
        format!("<VposRequest><MerchantId>000000000111111</MerchantId><Password>3XTgER89as</Password><TransactionType>Cancel</TransactionType><ReferenceTransactionId>{reference}</ReferenceTransactionId><ClientIp>127.0.0.1</ClientIp></VposRequest>")
    );
    assert_eq!(
        to_xml(&c, &Request::Refund { reference, amount: 500 }),
        format!("<VposRequest><MerchantId>000000000111111</MerchantId><Password>3XTgER89as</Password><TransactionType>Refund</TransactionType><ReferenceTransactionId>{reference}</ReferenceTransactionId><ClientIp>127.0.0.1</ClientIp><CurrencyAmount>5.00</CurrencyAmount></VposRequest>")
    );
}

/// `PayFlexV4PosSerializerTest::encodeDataProvider` `test_status` (the declaration and the
/// empty criteria included).
#[test]
fn search_matches_the_mews_vector_and_goes_to_the_search_service() {
    let c = creds();
    let req = Request::Search {
        order_id: "order222",
    };
    assert_eq!(
        to_xml(&c, &req),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><SearchRequest><MerchantCriteria><HostMerchantId>000000000111111</HostMerchantId><MerchantPassword>3XTgER89as</MerchantPassword></MerchantCriteria><TransactionCriteria><TransactionId></TransactionId><OrderId>order222</OrderId><AuthCode></AuthCode></TransactionCriteria></SearchRequest>"
    );
    assert_eq!(
        url(&c, &req),
        "https://onlineodemetest.vakifbank.com.tr:4443/UIService/Search.aspx"
    );
    assert!(url(&c, &Request::Cancel { reference: "x" }).ends_with("/VposService/v3/Vposreq.aspx"));
}

/// The body is one form field, `prmstr`, holding the XML (MEWS `PayFlexV4Pos::send`).
#[test]
fn the_body_is_a_prmstr_form() {
    let c = creds();
    let req = Request::Cancel { reference: "abc" };
    let body = encode(&c, &req);
    let text = String::from_utf8(body.clone()).unwrap();
    assert!(
        text.starts_with("prmstr=%3CVposRequest%3E%3CMerchantId%3E000000000111111"),
        "{text}"
    );
    let form = parse_form(&body).unwrap();
    assert_eq!(form.fields().len(), 1);
    assert_eq!(form.get("prmstr").unwrap(), to_xml(&c, &req));
}

/// MEWS `statusTestDataProvider` `success_pay`, as the search service writes it.
#[test]
fn the_mews_status_sample_reads_as_approved() {
    let doc = "<?xml version=\"1.0\" encoding=\"utf-8\"?><SearchResponse><ResponseInfo><Status>Success</Status><ResponseCode>0000</ResponseCode><ResponseMessage>Succeeded.</ResponseMessage><ResponseDateTime>2023-05-27T13:58:53.0340773+03:00</ResponseDateTime><IsIdempotent>false</IsIdempotent></ResponseInfo><PageIndex>1</PageIndex><PageSize>10</PageSize><TotalItemCount>1</TotalItemCount><TransactionSearchResultInfo><TransactionSearchResultInfo><MerchantId>655500056</MerchantId><TransactionType>Sale</TransactionType><TransactionId>b2d71cc5-d242-4b01-8479-d56eb8f74d7c</TransactionId><OrderId>z2d71cc5-d242-4b01-8479-d56eb8f74d7</OrderId><ResultCode>0000</ResultCode><ResponseMessage>İŞLEM BAŞARILI</ResponseMessage><HostResultCode>000</HostResultCode><AuthCode>11234</AuthCode><HostDate>1130145930</HostDate><Rrn>201101240006</Rrn><CurrencyAmount>90.50</CurrencyAmount><AmountCode>949</AmountCode><CurrencyCode></CurrencyCode><ThreeDSecureType>1</ThreeDSecureType><GainedPoint>0</GainedPoint><TotalPoint>100</TotalPoint><SurchargeAmount>92.50</SurchargeAmount><Extract>090020304</Extract><IsReversed>false</IsReversed><IsCanceled>false</IsCanceled><IsRefunded>false</IsRefunded><CustomItems><CustomItem><Name>Kontrol1</Name><Value>01</Value></CustomItem></CustomItems></TransactionSearchResultInfo></TransactionSearchResultInfo></SearchResponse>";
    let Reply::Search(s) = Reply::decode(doc.as_bytes()).unwrap() else {
        panic!()
    };
    let st = status::status(&s);
    assert_eq!(
        (st.state, st.amount, st.rrn.as_str()),
        (BankState::Approved, 9_050, "201101240006")
    );
}

#[test]
fn no_points_inquiry_in_the_protocol() {
    let ops = PayFlex.supported();
    assert!(!ops.contains(Operation::PointsInquiry));
    for op in [
        Operation::Capture,
        Operation::Cancel,
        Operation::Refund,
        Operation::Query,
    ] {
        assert!(ops.contains(op), "{op:?}");
    }
}
