//! Answers shaped like the MEWS fixtures (`VakifKatilimPosResponseDataMapperTest`:
//! `cancelTestDataProvider`, `refundTestDataProvider`), as the bank sends them (`utf-16`
//! declared over UTF-8, `&#x0;` padding).

use super::*;
use paygate_bankkit::BankReply;

fn money(code: &str, message: &str, order: &str, extra: &str) -> Reply {
    let doc = format!(
        "<?xml version=\"1.0\" encoding=\"utf-16\"?>\
         <VPosTransactionResponseContract xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\
         <VPosMessage><MerchantId>1</MerchantId><HashPassword>DoxoW84N1hKFdV09SF4/FruhHm8=</HashPassword>\
         <OrderId>6373447</OrderId><MerchantOrderId>{order}</MerchantOrderId><Amount>1001</Amount>\
         <EntryGateMethod>VPOS_SaleReversal</EntryGateMethod></VPosMessage>\
         <IsEnrolled>true</IsEnrolled><IsVirtual>false</IsVirtual>{extra}\
         <ResponseCode>{code}</ResponseCode><ResponseMessage>{message}&#x0;</ResponseMessage>\
         <OrderId>6373447</OrderId><TransactionTime>2024-07-01T13:54:45.1721751</TransactionTime>\
         <MerchantOrderId>{order}</MerchantOrderId><BusinessKey>0</BusinessKey>\
         </VPosTransactionResponseContract>"
    );
    Reply::decode(doc.as_bytes()).unwrap()
}

/// `cancelTestDataProvider` `success1`: approved with `ProvisionNumber`, `RRN`.
#[test]
fn an_approved_reversal() {
    let r = money(
        "00",
        "İşlem onaylandı",
        "20240701BF8D",
        "<ProvisionNumber>593347</ProvisionNumber><RRN>418313115082</RRN><Stan>435239</Stan>",
    );
    assert_eq!(r.merchant_order_id(), "20240701BF8D");
    assert_eq!(r.message.get("EntryGateMethod"), "VPOS_SaleReversal");
    assert_eq!(
        r.outcome(),
        BankOutcome::Approved {
            code: "00".into(),
            auth_code: Some("593347".into()),
            rrn: Some("418313115082".into()),
        }
    );
}

/// `fail_order_not_found`: `OrderDataNotFound` is a refusal (nothing to act on).
#[test]
fn an_order_the_bank_does_not_know_is_declined() {
    let r = money("OrderDataNotFound", "islem bilgisi bulunamadi.", "124", "");
    assert!(matches!(
        r.outcome(),
        BankOutcome::Declined { code, message, after_cutoff: false }
            if code == "OrderDataNotFound" && message == "islem bilgisi bulunamadi."
    ));
}

/// A code the sources do not show as a refusal, or none: the bank may have acted.
#[test]
fn other_codes_are_unknown_and_credentials_an_error() {
    for code in ["SystemError", "DbLayerError", ""] {
        let r = money(code, "x", "124", "");
        assert!(matches!(r.outcome(), BankOutcome::Unknown { .. }), "{code}");
    }
    let r = money(
        "MerchantNotDefined",
        "Uye isyeri kullanici tanimi bulunamadi.",
        "1",
        "",
    );
    assert!(matches!(r.outcome(), BankOutcome::Error { .. }));
    assert_eq!(classify("51"), Verdict::Declined);
}

#[test]
fn what_is_not_an_answer() {
    assert!(Reply::decode(b"<html><body>503</body></html>").is_err());
    assert!(Reply::decode(b"<VPosTransactionResponseContract>").is_err());
    // Order data answering a money request settles nothing.
    let r = Reply::decode(b"<R><VPosOrderData /><ResponseCode>00</ResponseCode></R>").unwrap();
    assert!(matches!(r.outcome(), BankOutcome::Unknown { .. }));
}

/// A `SelectOrder` answer approved without its `VPosOrderData` is unavailable, never an empty
/// page; `NonResult` is the empty page.
#[test]
fn a_history_page_without_order_data_is_unavailable() {
    let page = |body: &str| {
        let doc = format!(
            "<?xml version=\"1.0\" encoding=\"utf-16\"?><VPosOrderDataResponseContract>{body}</VPosOrderDataResponseContract>"
        );
        crate::history_page(&Reply::decode(doc.as_bytes()).unwrap())
    };
    let st = page("<ResponseCode>00</ResponseCode><ResponseMessage />").unwrap_err();
    assert!(!st.is_conclusive() && st.code == "VPosOrderData", "{st:?}");
    assert_eq!(
        page("<VPosOrderData /><ResponseCode>00</ResponseCode>"),
        Ok(Vec::new())
    );
    assert_eq!(
        page("<ResponseCode>NonResult</ResponseCode>"),
        Ok(Vec::new())
    );
    assert!(page("<ResponseCode>SystemError</ResponseCode>").is_err());
}
