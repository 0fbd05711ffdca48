//! Technical errors and lost answers on the money requests (the order read before them is
//! never faulted), and requests the service refuses on the wire.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op};
use paygate_bank_kuveytpos::request::soap_action;
use paygate_bankkit::sim::Faults;
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState,
};

fn unknown(o: &BankOutcome) {
    assert!(matches!(o, BankOutcome::Unknown { .. }), "{o:?}");
}

/// `ServiceUnavailable` (the host's answer lost) is unknown; nothing was applied, and the
/// query shows it.
#[tokio::test]
async fn a_technical_error_is_unknown_and_the_query_settles_it() {
    let b = bank().await;
    b.order("KF1", 10_000, TestOrderState::Approved, true).await;
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    unknown(
        &b.provider
            .refund(&b.account, &op("KF1", 2_000, false))
            .await,
    );
    assert_eq!(b.refunded("KF1"), 0);
    assert_eq!(
        b.provider.query(&b.account, "KF1").await.state,
        BankState::Approved
    );
}

#[tokio::test]
async fn a_late_or_dropped_answer_is_unknown_and_was_applied() {
    let b = bank().await;
    b.order("KF2", 10_000, TestOrderState::Approved, false)
        .await;
    b.faults(Faults {
        latency: Duration::from_millis(1_500),
        ..Faults::default()
    });
    // The order read is not delayed (not a money request): the reversal is.
    unknown(
        &b.provider
            .cancel(&b.account, &op("KF2", 10_000, true))
            .await,
    );
    b.faults(Faults::default());
    assert_eq!(b.voids("KF2"), 1);
    assert_eq!(
        b.provider.query(&b.account, "KF2").await.state,
        BankState::Cancelled
    );

    b.order("KF3", 10_000, TestOrderState::Approved, true).await;
    b.faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    unknown(
        &b.provider
            .refund(&b.account, &op("KF3", 3_000, false))
            .await,
    );
    assert_eq!(b.refunded("KF3"), 3_000);
    let st = b.provider.query(&b.account, "KF3").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000)
    );
}

#[tokio::test]
async fn missing_credentials_never_reach_the_bank() {
    let b = bank().await;
    let acc = b.other_account(
        "acc_partial",
        paygate_bankkit::AccountCredentials::new(
            b.endpoint(),
            [("merchantId".to_owned(), common::MERCHANT_ID.to_owned())],
        ),
    );
    let r = b.provider.refund(&acc, &op("KF4", 100, false)).await;
    assert!(matches!(r, BankOutcome::Error { .. }), "{r:?}");
}

/// A wrong `SOAPAction` or an unreadable envelope is a SOAP fault (HTTP 500); a wrong hash
/// is the service's `HashDataError` answer.
#[tokio::test]
async fn the_wire_is_checked() {
    let b = bank().await;
    b.order("KF5", 1_000, TestOrderState::Approved, false).await;
    let env = |method: &str, hash: &str| {
        format!(
            "<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" \
             xmlns:ser=\"http://boa.net/BOA.Integration.VirtualPos/Service\"><soapenv:Body>\
             <ser:{method}><ser:request><ser:MerchantOrderId>KF5</ser:MerchantOrderId>\
             <ser:VPosMessage><ser:APIVersion>TDV2.0.0</ser:APIVersion><ser:HashData>{hash}\
             </ser:HashData><ser:MerchantId>496</ser:MerchantId><ser:CustomerId>400235\
             </ser:CustomerId><ser:UserName>apitest</ser:UserName><ser:TransactionType>{method}\
             </ser:TransactionType><ser:Amount>0</ser:Amount><ser:MerchantOrderId>KF5\
             </ser:MerchantOrderId></ser:VPosMessage></ser:request></ser:{method}></soapenv:Body>\
             </soapenv:Envelope>"
        )
    };
    let m = "GetMerchantOrderDetail";
    let wrong_action = b.raw(&soap_action("SaleReversal"), &env(m, "x")).await;
    assert!(wrong_action.is_err(), "{wrong_action:?}");
    let garbage = b.raw(&soap_action(m), "<not-soap").await;
    assert!(garbage.is_err());
    let bad_hash = b.raw(&soap_action(m), &env(m, "AAAA")).await.unwrap();
    let text = String::from_utf8(bad_hash).unwrap();
    assert!(
        text.contains("<ErrorCode>HashDataError</ErrorCode>"),
        "{text}"
    );
    assert!(!text.contains("<OrderContract>"), "{text}");
}
