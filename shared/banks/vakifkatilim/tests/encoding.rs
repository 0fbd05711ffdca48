//! Request documents and their `HashData` against the reference library's vectors: MEWS
//! `VakifKatilimPosRequestDataMapperTest` (account MerchantId `1`, CustomerId `11111`,
//! UserName `APIUSER`, password `kdsnsksl`; commit a4c454a5). Its `HashPassword` and every
//! `HashData` there are the real BOA values (recomputed with Python's hashlib): status
//! `4oNmzFPM…`, cancel of a sale `/fcrfEy2…`, refund `2JEWD55c…`, pre-auth close `K0LvOf07…`,
//! history `58xhdJGl…`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{CUSTOMER, MERCHANT, PASSWORD, USER};
use paygate_bank_vakifkatilim::{
    request::{to_xml, OnOrder, Request},
    ApiCredentials,
};
use paygate_bankkit::{xml, Order};
use paygate_domain::Currency;

fn creds() -> ApiCredentials {
    ApiCredentials {
        endpoint_url: "https://boa.vakifkatilim.com.tr/VirtualPOS.Gateway/Home".into(),
        merchant_id: MERCHANT.into(),
        customer_id: CUSTOMER.into(),
        user_name: USER.into(),
        password: PASSWORD.into(),
        sub_merchant_id: "0".into(),
    }
}

fn on(order_id: &'static str, bank_id: &str, amount: i64) -> OnOrder<'static> {
    OnOrder {
        order: Order {
            order_id,
            amount,
            currency: Currency::Try,
        },
        bank_order_id: bank_id.into(),
    }
}

/// The document's fields in order (the declaration checked apart).
fn fields(req: &Request<'_>) -> Vec<(String, String)> {
    let doc = to_xml(&creds(), req);
    assert!(
        doc.starts_with("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"),
        "{doc}"
    );
    let root = xml::parse(&doc).unwrap();
    assert_eq!(root.name, "VPosMessageContract");
    root.children
        .iter()
        .map(|c| (c.name.clone(), c.text.clone()))
        .collect()
}

fn expect(req: &Request<'_>, want: &[(&str, &str)]) {
    let got = fields(req);
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    assert_eq!(got, want, "{}", req_name(req));
}

fn req_name(req: &Request<'_>) -> &'static str {
    req.operation()
}

const ACCOUNT: [(&str, &str); 4] = [
    ("MerchantId", "1"),
    ("CustomerId", "11111"),
    ("UserName", "APIUSER"),
    ("SubMerchantId", "0"),
];
const HASH_PASSWORD: (&str, &str) = ("HashPassword", "h58bUB83xQz2/21SUeOemUgkF5U=");

fn with(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    ACCOUNT.iter().chain(extra).copied().collect()
}

/// `createStatusRequestDataProvider`.
#[test]
fn status() {
    expect(
        &Request::Status {
            order_id: "order-123",
        },
        &with(&[
            ("MerchantOrderId", "order-123"),
            ("HashData", "4oNmzFPMeC/tOK8i/XCPNy4W+FU="),
        ]),
    );
}

/// `createCancelRequestDataProvider`: a sale's reversal carries `PaymentType 1` and the
/// amount in kuruş (1.01 TL → `101`), which enters the hash.
#[test]
fn sale_reversal() {
    expect(
        &Request::SaleReversal(on("2023070849CD", "114293600", 101)),
        &with(&[
            HASH_PASSWORD,
            ("MerchantOrderId", "2023070849CD"),
            ("OrderId", "114293600"),
            ("PaymentType", "1"),
            ("Amount", "101"),
            ("HashData", "/fcrfEy2juD7L/aTujiLgtJg23M="),
        ]),
    );
    // A pre-authorization's reversal sends no amount (same hash as the refund's).
    expect(
        &Request::PreAuthReversal(on("2023070849CD", "114293600", 101)),
        &with(&[
            HASH_PASSWORD,
            ("MerchantOrderId", "2023070849CD"),
            ("OrderId", "114293600"),
            ("PaymentType", "1"),
            ("HashData", "2JEWD55cC2JtLJIxM8KDRz2f6hU="),
        ]),
    );
}

/// `createRefundRequestDataProvider`: `DrawBack` without an amount. `PartialDrawBack` adds
/// `Amount` (this crate's addition, README), hashed like the reversal's.
#[test]
fn refunds() {
    expect(
        &Request::DrawBack(on("2023070849CD", "114293600", 101)),
        &with(&[
            HASH_PASSWORD,
            ("MerchantOrderId", "2023070849CD"),
            ("OrderId", "114293600"),
            ("HashData", "2JEWD55cC2JtLJIxM8KDRz2f6hU="),
        ]),
    );
    expect(
        &Request::PartialDrawBack(on("2023070849CD", "114293600", 101)),
        &with(&[
            HASH_PASSWORD,
            ("MerchantOrderId", "2023070849CD"),
            ("OrderId", "114293600"),
            ("Amount", "101"),
            ("HashData", "/fcrfEy2juD7L/aTujiLgtJg23M="),
        ]),
    );
}

/// `createNonSecurePostAuthPaymentRequestDataDataProvider` (without its `CustomerIPAddress`,
/// which the gateway does not have: README).
#[test]
fn preauth_close() {
    expect(
        &Request::Close {
            on: on("123", "remote-123", 1_000),
            partial: false,
        },
        &with(&[
            HASH_PASSWORD,
            ("MerchantOrderId", "123"),
            ("OrderId", "remote-123"),
            ("HashData", "K0LvOf07C/ayD53wWiykcUCZPc8="),
        ]),
    );
    // A partial close sends its amount (hashed): MEWS's sale vector, MerchantOrderId `123`,
    // Amount `1000`, `AYOjSzXn…`.
    let partial = fields(&Request::Close {
        on: on("123", "remote-123", 1_000),
        partial: true,
    });
    assert!(partial.contains(&("Amount".into(), "1000".into())));
    assert!(partial.contains(&("HashData".into(), "AYOjSzXn6dgwiV3U0vXzNTWlO8g=".into())));
}

/// `createHistoryRequestDataProvider`: page 1 of 10 over 2024-03-30..31.
#[test]
fn history_page() {
    expect(
        &Request::History {
            start: "2024-03-30",
            end: "2024-03-31",
            lower: 0,
            limit: 10,
        },
        &with(&[
            ("StartDate", "2024-03-30"),
            ("EndDate", "2024-03-31"),
            ("LowerLimit", "0"),
            ("UpperLimit", "10"),
            ("ProvNumber", ""),
            ("OrderStatus", ""),
            ("TranResult", ""),
            ("OrderNo", ""),
            ("HashData", "58xhdJGlgIZtsid8cvSDlr8EItk="),
        ]),
    );
    let third = fields(&Request::History {
        start: "2024-03-30",
        end: "2024-03-31",
        lower: 40,
        limit: 20,
    });
    assert!(third.contains(&("LowerLimit".into(), "40".into())));
}

#[test]
fn order_ids_must_be_ascii() {
    use paygate_bank_vakifkatilim::request::check_order_id;
    assert!(check_order_id("2023070849CD").is_ok());
    for bad in ["", "sipariş", "a b"] {
        assert!(check_order_id(bad).is_err(), "{bad}");
    }
}
