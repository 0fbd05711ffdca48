//! Request encoding against the fixed samples of the protocol sources listed in this crate's README and their
//! sources. Nestpay API requests carry no hash (plain `Name`/`Password`/`ClientId`; the
//! ver3 SHA-512 hash exists only on the 3-D form, which this gateway does not build), so
//! there is no hash vector to recompute here; the vectors are the documents themselves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paygate_bank_nestpay::{
    request::{self, CardFields, Request},
    ApiCredentials,
};
use paygate_bankkit::Order;
use paygate_domain::{CardDetails, Currency};

const DECL: &str = "<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?>";

/// The account of MEWS `EstPosSerializerTest::encodeDataProvider` (İşbank test store).
fn isbank() -> ApiCredentials {
    ApiCredentials {
        endpoint_url: "https://entegrasyon.asseco-see.com.tr/fim/api".into(),
        client_id: "700655000200".into(),
        name: "ISBANKAPI".into(),
        password: "ISBANK07".into(),
        points_flag: None,
    }
}

/// `<Name><Password><ClientId>` as MEWS's serializer writes them.
const ACCOUNT: &str =
    "<Name>ISBANKAPI</Name><Password>ISBANK07</Password><ClientId>700655000200</ClientId>";

fn xml(req: &Request<'_>) -> String {
    request::to_xml(&isbank(), req)
}

/// MEWS serializer test: declaration `ISO-8859-9`, account elements first, `Total` as
/// `100.25`, `Currency` `949`.
#[test]
fn credit_in_mews_layout() {
    let doc = xml(&Request::Credit(Order {
        order_id: "order222",
        amount: 10_025,
        currency: Currency::Try,
    }));
    assert_eq!(
        doc,
        format!("{DECL}<CC5Request>{ACCOUNT}<Type>Credit</Type><OrderId>order222</OrderId><Total>100.25</Total><Currency>949</Currency></CC5Request>")
    );
}

/// PARA `tests/samples/request/nestpay/refund_request_partial.xml`: `Total 25.40`,
/// `Currency 978` (PARA also sends `<Mode>TEST</Mode>`, which this adapter does not).
#[test]
fn partial_refund_like_para() {
    let doc = xml(&Request::Credit(Order {
        order_id: "123456",
        amount: 2_540,
        currency: Currency::Eur,
    }));
    assert!(doc.ends_with("<Type>Credit</Type><OrderId>123456</OrderId><Total>25.40</Total><Currency>978</Currency></CC5Request>"), "{doc}");
}

/// Reference §2.1 post-auth sample: `<Type>PostAuth</Type><OrderId>…</OrderId><Total>1.01</Total>`,
/// no `Currency`, no `PREAMT` (never above the pre-auth amount here).
#[test]
fn post_auth_full_and_partial() {
    let doc = xml(&Request::PostAuth(Order {
        order_id: "20221030FAC5",
        amount: 101,
        currency: Currency::Try,
    }));
    assert_eq!(
        doc,
        format!("{DECL}<CC5Request>{ACCOUNT}<Type>PostAuth</Type><OrderId>20221030FAC5</OrderId><Total>1.01</Total></CC5Request>")
    );
    let whole_lira = xml(&Request::PostAuth(Order {
        order_id: "A",
        amount: 10_000,
        currency: Currency::Try,
    }));
    assert!(whole_lira.contains("<Total>100.00</Total>"), "{whole_lira}");
}

/// PARA `cancel_request_with_order.xml`: `Type Void` + `OrderId`, nothing else.
#[test]
fn void() {
    assert_eq!(
        xml(&Request::Void { order_id: "123456" }),
        format!(
            "{DECL}<CC5Request>{ACCOUNT}<Type>Void</Type><OrderId>123456</OrderId></CC5Request>"
        )
    );
}

/// Reference §2.1 status sample and MEWS `createOrderHistoryRequestData`.
#[test]
fn status_and_history() {
    assert_eq!(
        xml(&Request::OrderStatus { order_id: "2024010354F1" }),
        format!("{DECL}<CC5Request>{ACCOUNT}<OrderId>2024010354F1</OrderId><Extra><ORDERSTATUS>QUERY</ORDERSTATUS></Extra></CC5Request>")
    );
    assert_eq!(
        xml(&Request::OrderHistory { order_id: "20240102D8F1" }),
        format!("{DECL}<CC5Request>{ACCOUNT}<OrderId>20240102D8F1</OrderId><Extra><ORDERHISTORY>QUERY</ORDERHISTORY></Extra></CC5Request>")
    );
}

/// Reference §3 (LNK `QueryName = "MAXIPUANSORGU"`, omnipay-nestpay `Extra/MAXIPUANSORGU`):
/// the card in Nestpay's `Number` / `Expires` (MM/YY, MEWS `m/y`) / `Cvv2Val` elements.
#[test]
fn maxipuan_inquiry() {
    let card = CardFields::from_card(&CardDetails {
        number: "4355084355084358".into(),
        exp_month: "12".into(),
        exp_year: "2026".into(),
        cvv: "000".into(),
        holder: "John Doe".into(),
    })
    .unwrap();
    assert_eq!(
        xml(&Request::MaxiPuan {
            card,
            currency: Currency::Try
        }),
        format!("{DECL}<CC5Request>{ACCOUNT}<Number>4355084355084358</Number><Expires>12/26</Expires><Cvv2Val>000</Cvv2Val><Currency>949</Currency><Extra><MAXIPUANSORGU>MAXIPUANSORGU</MAXIPUANSORGU></Extra></CC5Request>")
    );
}

/// Text is escaped and the bytes are ISO-8859-9: `ş` is the single byte 0xFE, `İ` 0xDD.
#[test]
fn escaping_and_latin5_bytes() {
    let creds = ApiCredentials {
        name: "İŞYERİ".into(),
        password: "p&ss<ş>".into(),
        ..isbank()
    };
    let req = Request::Void { order_id: "A&B" };
    let doc = request::to_xml(&creds, &req);
    assert!(
        doc.contains("<Name>İŞYERİ</Name><Password>p&amp;ss&lt;ş&gt;</Password>"),
        "{doc}"
    );
    assert!(doc.contains("<OrderId>A&amp;B</OrderId>"), "{doc}");
    let bytes = request::encode(&creds, &req);
    assert_eq!(bytes.len(), doc.chars().count(), "one byte per character");
    assert!(bytes.contains(&0xFE) && bytes.contains(&0xDD));
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "not UTF-8 on the wire"
    );
    assert_eq!(request::CONTENT_TYPE, "text/xml; charset=ISO-8859-9");
}
