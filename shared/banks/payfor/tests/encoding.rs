//! Request encoding against the MEWS `PayForPosRequestDataMapperTest` data providers (the
//! QNB test account `085300000009704` / `QNB_API_KULLANICI_3DPAY` / `UcBN0`, MbrId 5) and the
//! serializer's document shape (`<?xml version="1.0" encoding="UTF-8"?>`, root
//! `PayforRequest`, elements in the mapper's order). PayFor API requests carry no hash, so the
//! vectors are the documents themselves; answers are read from the MEWS fixtures.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paygate_bank_payfor::{
    request::{self, CardFields, Request},
    response, status, ApiCredentials,
};
use paygate_bankkit::{BankReply, Order};
use paygate_domain::{BankState, CardDetails, Currency};

const DECL: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";
const ACCOUNT: &str = "<MerchantId>085300000009704</MerchantId><UserCode>QNB_API_KULLANICI_3DPAY</UserCode><UserPass>UcBN0</UserPass><MbrId>5</MbrId>";

fn qnb() -> ApiCredentials {
    ApiCredentials {
        endpoint_url: "https://vpostest.qnbfinansbank.com/Gateway/XMLGate.aspx".into(),
        mbr_id: "5".into(),
        merchant_id: "085300000009704".into(),
        user_code: "QNB_API_KULLANICI_3DPAY".into(),
        user_pass: "UcBN0".into(),
    }
}

fn doc(body: &str) -> String {
    format!("{DECL}<PayforRequest>{ACCOUNT}{body}</PayforRequest>")
}

/// `createNonSecurePostAuthPaymentRequestDataDataProvider` (100.01 TL).
#[test]
fn post_auth() {
    let xml = request::to_xml(
        &qnb(),
        &Request::PostAuth(Order {
            order_id: "2020110828BC",
            amount: 10_001,
            currency: Currency::Try,
        }),
    );
    assert_eq!(xml, doc("<OrgOrderId>2020110828BC</OrgOrderId><SecureType>NonSecure</SecureType><TxnType>PostAuth</TxnType><PurchAmount>100.01</PurchAmount><Currency>949</Currency><Lang>tr</Lang>"));
}

/// `createCancelRequestDataDataProvider`.
#[test]
fn void() {
    let xml = request::to_xml(
        &qnb(),
        &Request::Void(Order {
            order_id: "2020110828BC",
            amount: 0,
            currency: Currency::Try,
        }),
    );
    assert_eq!(xml, doc("<OrgOrderId>2020110828BC</OrgOrderId><SecureType>NonSecure</SecureType><TxnType>Void</TxnType><Currency>949</Currency><Lang>tr</Lang>"));
}

/// `createRefundRequestDataDataProvider` order (`SecureType`, `Lang`, `OrgOrderId`, `TxnType`,
/// `PurchAmount`, `Currency`).
#[test]
fn refund() {
    let xml = request::to_xml(
        &qnb(),
        &Request::Refund(Order {
            order_id: "2020110828BC",
            amount: 5,
            currency: Currency::Try,
        }),
    );
    assert_eq!(xml, doc("<SecureType>NonSecure</SecureType><Lang>tr</Lang><OrgOrderId>2020110828BC</OrgOrderId><TxnType>Refund</TxnType><PurchAmount>0.05</PurchAmount><Currency>949</Currency>"));
}

/// `createStatusRequestDataDataProvider` and `orderHistoryRequestDataProvider`.
#[test]
fn inquiry_and_history() {
    let xml = request::to_xml(
        &qnb(),
        &Request::OrderInquiry {
            order_id: "2020110828BC",
        },
    );
    assert_eq!(xml, doc("<OrgOrderId>2020110828BC</OrgOrderId><SecureType>Inquiry</SecureType><Lang>tr</Lang><TxnType>OrderInquiry</TxnType>"));
    let xml = request::to_xml(
        &qnb(),
        &Request::TxnHistory {
            order_id: "2020110828BC",
        },
    );
    assert_eq!(xml, doc("<SecureType>Report</SecureType><OrderId>2020110828BC</OrderId><TxnType>TxnHistory</TxnType><Lang>tr</Lang>"));
}

/// `createCustomQueryRequestDataDataProvider` `without_account_data_point_inquiry`.
#[test]
fn parapuan_inquiry() {
    let card = CardFields::from_card(&CardDetails {
        number: "4155650100416111".into(),
        exp_month: "01".into(),
        exp_year: "2025".into(),
        cvv: "123".into(),
        holder: "x".into(),
    })
    .unwrap();
    let xml = request::to_xml(&qnb(), &Request::ParaPuan { card });
    assert_eq!(xml, doc("<SecureType>Inquiry</SecureType><TxnType>ParaPuanInquiry</TxnType><Pan>4155650100416111</Pan><Expiry>0125</Expiry><Cvv2>123</Cvv2>"));
}

/// MEWS `statusTestDataProvider` `success_pay_then_cancel` (trimmed to the fields read) and
/// the history fixture `success_pay_refund_fail` (a refused same-day refund, `V014`).
#[test]
fn reads_mews_status_and_history_samples() {
    let inq = response::Reply::decode("<?xml version=\"1.0\" encoding=\"utf-8\"?><PayforResponse><OrderId>202401194815</OrderId><PurchAmount>1.01</PurchAmount><Currency>949</Currency><TxnType>Auth</TxnType><OrgOrderId>\r\n  </OrgOrderId><TxnStatus>V</TxnStatus><ErrMsg>Onaylandı</ErrMsg><TxnResult>Success</TxnResult><AuthCode>S29682</AuthCode><HostRefNum></HostRefNum><ProcReturnCode>00</ProcReturnCode><VoidDate>20240119</VoidDate><RefundedAmount>0</RefundedAmount><IsVoided>true</IsVoided><IsRefunded>false</IsRefunded></PayforResponse>".as_bytes()).unwrap();
    let status::Inquiry::Found(line) = status::read_inquiry(&inq) else {
        panic!()
    };
    let st = status::combine(&line, None);
    assert_eq!(
        (st.state, st.amount, st.auth_code.as_str()),
        (BankState::Cancelled, 101, "S29682")
    );

    let hist = response::Reply::decode("<?xml version=\"1.0\" encoding=\"utf-8\"?><TxnHistoryReport xsi:noNamespaceSchemaLocation=\"TxnHistoryReport.xsd\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><PaymentRequestExtended><PaymentRequest xmlns=\"http://ocean.smartway.com/\"><OrderId>202401211C79</OrderId><PurchAmount>1.01</PurchAmount><TxnType>Auth</TxnType><TxnStatus>Y</TxnStatus><ErrMsg>Onaylandı</ErrMsg><TxnResult>Success</TxnResult><AuthCode>S83066</AuthCode><ProcReturnCode>00</ProcReturnCode><RefundedAmount>0</RefundedAmount></PaymentRequest></PaymentRequestExtended><PaymentRequestExtended><PaymentRequest xmlns=\"http://ocean.smartway.com/\"><OrderId>202401211C79</OrderId><PurchAmount>1.01</PurchAmount><TxnType>Refund</TxnType><OrgOrderId>202401211C79</OrgOrderId><TxnStatus>N</TxnStatus><ErrMsg>Bu işlem geri alınamaz, lüften asıl işlemi iptal edin.</ErrMsg><TxnResult>Failed</TxnResult><ProcReturnCode>V014</ProcReturnCode><RefundedAmount>1.01</RefundedAmount></PaymentRequest></PaymentRequestExtended></TxnHistoryReport>".as_bytes()).unwrap();
    let history = status::read_history(&hist).unwrap();
    let sale = history[0].clone();
    let st = status::combine(&sale, Some(&history));
    assert_eq!((st.state, st.refunded_amount), (BankState::Approved, 0));
}
