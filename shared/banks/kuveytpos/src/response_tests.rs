//! Answers of the bank's test environment (MEWS `KuveytPosResponseDataMapperTest` and
//! `KuveytPosSerializerTest` fixtures), decoded and classified.

use paygate_bankkit::{BankReply, Verdict};
use paygate_domain::{BankOutcome, BankState};

use super::*;

fn envelope(inner: &str) -> Vec<u8> {
    format!(
        "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">{inner}</s:Body></s:Envelope>"
    )
    .into_bytes()
}

fn result(method: &str, results: &str, success: &str, value: &str) -> Reply {
    let body = envelope(&format!(
        "<{method}Response xmlns=\"http://boa.net/BOA.Integration.VirtualPos/Service\">\
         <{method}Result><Results>{results}</Results><Success>{success}</Success>\
         <Value>{value}</Value></{method}Result></{method}Response>"
    ));
    Reply::decode(&body).unwrap()
}

const REFUSED_VALUE: &str = "<IsEnrolled>false</IsEnrolled><IsVirtual>false</IsVirtual>\
    <ResponseCode>DbLayerError</ResponseCode><OrderId>0</OrderId>\
    <TransactionTime>0001-01-01T00:00:00</TransactionTime><MerchantId xsi:nil=\"true\"/>\
    <BusinessKey>0</BusinessKey>";

fn business(code: &str, message: &str) -> String {
    let code = if code.is_empty() {
        String::new()
    } else {
        format!("<ErrorCode>{code}</ErrorCode>")
    };
    format!(
        "<Result><ErrorMessage>{message}</ErrorMessage>{code}<IsFriendly>true</IsFriendly>\
         <Severity>BusinessError</Severity></Result>"
    )
}

/// `cancelTestDataProvider` `success1`.
#[test]
fn an_approved_reversal() {
    let r = result(
        "SaleReversal",
        "",
        "true",
        "<ProvisionNumber>241839</ProvisionNumber><RRN>318923298433</RRN><Stan>298433</Stan>\
         <ResponseCode>00</ResponseCode><ResponseMessage>OTORİZASYON VERİLDİ</ResponseMessage>\
         <OrderId>114293600</OrderId><MerchantOrderId>2023070849CD</MerchantOrderId>\
         <CurrencyCode>0949</CurrencyCode>",
    );
    assert_eq!(r.method, "SaleReversal");
    assert_eq!(
        r.outcome(),
        BankOutcome::Approved {
            code: "00".into(),
            auth_code: Some("241839".into()),
            rrn: Some("318923298433".into()),
        }
    );
}

/// `tdv2_fail_already_cancelled` and the serializer test's reversal past the sale's day.
#[test]
fn refused_reversals_are_declined_with_the_results_code() {
    let r = result(
        "SaleReversal",
        &business("21", "İşlem daha önce iptal edilmiştir."),
        "false",
        REFUSED_VALUE,
    );
    assert!(matches!(r.outcome(), BankOutcome::Declined { code, .. } if code == "21"));
    let r = result(
        "SaleReversal",
        &business(
            "InvalidRequestError",
            "İptal işlemi satışla aynı gün yapılmalıdır. Geçmiş tarihli işlem için iade yapınız.",
        ),
        "false",
        REFUSED_VALUE,
    );
    assert!(matches!(
        r.outcome(),
        BankOutcome::Declined { code, message, after_cutoff: false }
            if code == "InvalidRequestError" && message.starts_with("İptal işlemi")
    ));
}

/// `tdv2_fail_partial_refund_not_allowed`: a business rule without an `ErrorCode`.
#[test]
fn a_same_day_refund_rule_is_declined_as_db_layer_error() {
    let r = result(
        "PartialDrawback",
        &business(
            "",
            "Kısmi iade işlemi, satışla aynı gün içerisindeyse tutarın tamamı için yapılamaz.",
        ),
        "false",
        REFUSED_VALUE,
    );
    assert!(matches!(r.outcome(), BankOutcome::Declined { code, .. } if code == "DbLayerError"));
}

/// `fail1` (refund): `ResponseCode 28`, "İptal Edilen İşlem İade Yapılamaz"; `fail2`: a
/// value with no code at all — the bank said nothing, so it is unknown.
#[test]
fn value_codes_and_silent_answers() {
    let r = result(
        "PartialDrawback",
        "",
        "",
        "<RRN>319013298460</RRN><Stan>298460</Stan><ResponseCode>28</ResponseCode>\
         <ResponseMessage>İptal Edilen İşlem İade Yapılamaz</ResponseMessage>\
         <OrderId>114293625</OrderId><MerchantOrderId>202307093C2D</MerchantOrderId>",
    );
    assert!(matches!(r.outcome(), BankOutcome::Declined { code, .. } if code == "28"));
    let silent = result(
        "PartialDrawback",
        "",
        "",
        "<OrderId>0</OrderId><TransactionTime>0001-01-01T00:00:00</TransactionTime>",
    );
    assert!(matches!(silent.outcome(), BankOutcome::Unknown { .. }));
}

/// The serializer test's `ServiceUnavailable` ("IsoProxyFactoryServiceResponseWasNull"),
/// though marked `BusinessError`: the host's answer was lost, so the refund is unknown.
#[test]
fn a_lost_host_answer_is_unknown() {
    let r = result(
        "PartialDrawback",
        &business(
            "ServiceUnavailable",
            "IsoProxyFactoryServiceResponseWasNull",
        ),
        "false",
        REFUSED_VALUE,
    );
    assert!(matches!(r.outcome(), BankOutcome::Unknown { .. }));
    let fault = Reply::decode(&envelope(
        "<s:Fault><faultcode>s:Client</faultcode><faultstring>Bad request</faultstring></s:Fault>",
    ))
    .unwrap();
    assert_eq!(fault.fault.as_deref(), Some("Bad request"));
    assert!(matches!(fault.outcome(), BankOutcome::Unknown { .. }));
    assert!(!fault.status().is_conclusive());
}

#[test]
fn the_code_table() {
    for (code, business, want) in [
        ("00", false, Verdict::Approved),
        ("HashDataError", true, Verdict::Error),
        ("ApiUserNotDefined", false, Verdict::Error),
        ("21", true, Verdict::Declined),
        (
            "TransactionAmountMismatchException",
            true,
            Verdict::Declined,
        ),
        ("05", false, Verdict::Declined),
        ("DbLayerError", true, Verdict::Declined),
        ("DbLayerError", false, Verdict::Unknown),
        ("IntegrationFatalException", false, Verdict::Unknown),
        ("96", false, Verdict::Unknown),
        ("", false, Verdict::Unknown),
    ] {
        assert_eq!(classify(code, business), want, "{code}");
    }
}

/// `tdv2_success_tx_pay_then_refund` through the whole reader.
#[test]
fn an_order_detail_answer() {
    let r = result(
        "GetMerchantOrderDetail",
        "",
        "true",
        "<OrderContract><OrderId>155768298</OrderId><MerchantOrderId>202404240DEE</MerchantOrderId>\
         <LastOrderStatus>4</LastOrderStatus><FirstAmount>10.01</FirstAmount>\
         <CancelAmount>0.00</CancelAmount><DrawbackAmount>10.01</DrawbackAmount>\
         <ResponseCode>00</ResponseCode><ProvNumber>051004</ProvNumber><RRN>411516539788</RRN>\
         <Stan>539788</Stan><EndOfDayDate>2024-04-24T17:08:46.15</EndOfDayDate></OrderContract>",
    );
    let st = r.status();
    assert_eq!(
        (st.found, st.state, st.amount, st.refunded_amount),
        (true, BankState::Refunded, 1_001, 1_001)
    );
    let empty = result("GetMerchantOrderDetail", "", "true", "");
    let st = empty.status();
    assert!(!st.found && st.is_conclusive(), "{st:?}");
}
