//! Request bodies against the public vectors (MEWS `InterPosRequestDataMapperTest`: shop
//! `3123`, user `InterTestApi`, password `3`; LNK `IvpBonusInquiryRequest` field order).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paygate_bank_interpos::{
    config::ShopCredentials,
    request::{encode, form, CardFields, Request},
    response::Reply,
    status,
};
use paygate_bankkit::{form::parse_form, AccountCredentials, BankConfig, BankReply, Order};
use paygate_domain::{BankState, CardDetails, Currency};

fn creds() -> ShopCredentials {
    ShopCredentials::from_account(&AccountCredentials::new(
        "https://test.inter-vpos.com.tr/mpi/Default.aspx",
        [
            ("shopCode".to_owned(), "3123".to_owned()),
            ("userCode".to_owned(), "InterTestApi".to_owned()),
            ("userPass".to_owned(), "3".to_owned()),
        ],
    ))
    .unwrap()
}

fn body(req: &Request<'_>) -> String {
    String::from_utf8(encode(&creds(), req)).unwrap()
}

/// `createNonSecurePostAuthPaymentRequestDataDataProvider` (order222, 10 TL; MEWS's `OrderId`
/// is null and left out by `http_build_query`; the amount has two decimals here).
#[test]
fn post_auth_matches_the_mews_vector() {
    assert_eq!(
        body(&Request::PostAuth(Order { order_id: "order222", amount: 1_000, currency: Currency::Try })),
        "UserCode=InterTestApi&UserPass=3&ShopCode=3123&TxnType=PostAuth&SecureType=NonSecure&orgOrderId=order222&PurchAmount=10.00&Currency=949&MOTO=0"
    );
}

/// `createCancelRequestDataDataProvider`, `createStatusRequestDataDataProvider`,
/// `refundOrderDataProvider` (123.1 TL).
#[test]
fn void_status_and_refund_match_the_mews_vectors() {
    assert_eq!(
        body(&Request::Void { order_id: "2020110828BC" }),
        "UserCode=InterTestApi&UserPass=3&ShopCode=3123&orgOrderId=2020110828BC&TxnType=Void&SecureType=NonSecure&Lang=TR"
    );
    assert_eq!(
        body(&Request::Status { order_id: "order222" }),
        "UserCode=InterTestApi&UserPass=3&ShopCode=3123&orgOrderId=order222&TxnType=StatusHistory&SecureType=NonSecure&Lang=TR"
    );
    let refund = body(&Request::Refund(Order {
        order_id: "2020110828BC",
        amount: 12_310,
        currency: Currency::Try,
    }));
    assert_eq!(
        refund,
        "UserCode=InterTestApi&UserPass=3&ShopCode=3123&orgOrderId=2020110828BC&PurchAmount=123.10&TxnType=Refund&SecureType=NonSecure&Lang=TR&MOTO=0"
    );
    let f = parse_form(refund.as_bytes()).unwrap();
    assert_eq!(f.get("PurchAmount"), Some("123.10"));
}

/// LNK `IvpBonusInquiryRequest`: the fields in its order; MEWS's `my` expiry format (MMYY).
#[test]
fn bonus_inquiry_fields() {
    let card = CardFields::from_card(&CardDetails {
        number: "5555 4444 3333 2222".into(),
        exp_month: "12".into(),
        exp_year: "2021".into(),
        cvv: "122".into(),
        holder: "ahmet".into(),
    })
    .unwrap();
    let f = form(
        &creds(),
        &Request::Bonus {
            card,
            currency: Currency::Try,
        },
    );
    let names: Vec<&str> = f.fields().iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "ShopCode",
            "TxnType",
            "OrderId",
            "UserCode",
            "UserPass",
            "SecureType",
            "Lang",
            "Currency",
            "Pan",
            "Expiry",
            "Cvv2"
        ]
    );
    assert_eq!(
        (f.get("TxnType"), f.get("Pan"), f.get("Expiry")),
        (Some("BonusInquiry"), Some("5555444433332222"), Some("1221"))
    );
    assert!(!format!("{f:?}").contains("5555444433332222"));
}

/// MEWS `statusTestDataProvider` `fail1`, as the bank writes it.
#[test]
fn the_mews_status_failure_reads_as_unavailable() {
    let r = Reply::decode(b"OrderId=SYSOID121327781;;ProcReturnCode=81;;BatchNo=;;TransId=;;TRXDATE=;;TxnStat=;;PurchAmount=0;;VoidDate=1.1.0001 00:00:00;;TxnStatus=;;ChargeTypeCd=;;ErrorCode=B810002;;ErrorMessage=TR:Terminal Aktif Degil;;RefundedAmount=0;;AuthCode=").unwrap();
    let st = status::status(&r);
    assert!(st.found && st.state == BankState::Unknown && st.code == "B810002");
}
