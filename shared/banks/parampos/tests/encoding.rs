//! The documents on the wire against the public sources: the envelope and element order of
//! dev.param.com.tr's `TP_Islem_Iptal_Iade_Kismi2` sample and MEWS
//! `ParamPosRequestDataMapperTest` (`cancelRequestDataProvider`, `refundRequestDataProvider`,
//! `nonSecurePaymentPostRequestDataProvider`: `Prov_Tutar 1,10`, `statusRequestDataProvider`),
//! with MEWS's test account (`10738`, `Test1`, `Test2`, GUID `0c13d406-…`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paygate_bank_parampos::{
    request::{to_xml, Request},
    ApiCredentials, ParamPos,
};
use paygate_bankkit::{Order, Protocol};
use paygate_domain::Currency;

fn creds() -> ApiCredentials {
    ApiCredentials {
        endpoint_url: "https://testposws.param.com.tr/turkpos.ws/service_turkpos_test.asmx".into(),
        client_code: "10738".into(),
        client_username: "Test1".into(),
        client_password: "Test2".into(),
        guid: "0c13d406-873b-403b-9c09-a5766840d98c".into(),
    }
}

const HEAD: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?><soap:Envelope xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>";
const G: &str = "<G><CLIENT_CODE>10738</CLIENT_CODE><CLIENT_USERNAME>Test1</CLIENT_USERNAME><CLIENT_PASSWORD>Test2</CLIENT_PASSWORD></G><GUID>0c13d406-873b-403b-9c09-a5766840d98c</GUID>";

fn doc(method: &str, fields: &str) -> String {
    format!("{HEAD}<{method} xmlns=\"https://turkpos.com.tr/\">{G}{fields}</{method}></soap:Body></soap:Envelope>")
}

fn order(id: &str, amount: i64) -> Order<'_> {
    Order {
        order_id: id,
        amount,
        currency: Currency::Try,
    }
}

#[test]
fn cancel_and_refund_documents() {
    assert_eq!(
        to_xml(&creds(), &Request::Cancel(order("id-12", 1_000))),
        doc(
            "TP_Islem_Iptal_Iade_Kismi2",
            "<Durum>IPTAL</Durum><Siparis_ID>id-12</Siparis_ID><Tutar>10.00</Tutar>"
        )
    );
    assert_eq!(
        to_xml(&creds(), &Request::Refund(order("id-12", 102))),
        doc(
            "TP_Islem_Iptal_Iade_Kismi2",
            "<Durum>IADE</Durum><Siparis_ID>id-12</Siparis_ID><Tutar>1.02</Tutar>"
        )
    );
    assert_eq!(
        to_xml(&creds(), &Request::CancelPreauth { order_id: "id-12" }),
        doc(
            "TP_Islem_Iptal_OnProv",
            "<Prov_ID></Prov_ID><Siparis_ID>id-12</Siparis_ID>"
        )
    );
}

#[test]
fn capture_and_status_documents() {
    assert_eq!(
        to_xml(&creds(), &Request::Capture(order("2020110828BC", 110))),
        doc(
            "TP_Islem_Odeme_OnProv_Kapa",
            "<Prov_ID></Prov_ID><Prov_Tutar>1,10</Prov_Tutar><Siparis_ID>2020110828BC</Siparis_ID>"
        )
    );
    assert_eq!(
        to_xml(&creds(), &Request::Status { order_id: "id-12" }),
        doc("TP_Islem_Sorgulama4", "<Siparis_ID>id-12</Siparis_ID>")
    );
}

/// MEWS `historyRequestDataProvider` `with_date_range`.
#[test]
fn monitoring_document() {
    let (start, end) = ("13.04.2024 13:00:00", "14.04.2024 13:00:00");
    assert_eq!(
        to_xml(&creds(), &Request::Monitor { start, end }),
        doc(
            "TP_Islem_Izleme",
            "<Tarih_Bas>13.04.2024 13:00:00</Tarih_Bas><Tarih_Bit>14.04.2024 13:00:00</Tarih_Bit>"
        )
    );
    assert!(paygate_bank_parampos::request::is_monitor_time(start));
    for bad in [
        "2024-04-13 13:00:00",
        "13.04.2024",
        "13.04.2024 13:00:0x",
        "",
    ] {
        assert!(
            !paygate_bank_parampos::request::is_monitor_time(bad),
            "{bad}"
        );
    }
}

#[test]
fn text_is_escaped_and_the_wire_names_the_action() {
    let mut c = creds();
    c.client_password = "a<b&c".into();
    let x = to_xml(&c, &Request::Status { order_id: "ş\"1" });
    assert!(
        x.contains("<CLIENT_PASSWORD>a&lt;b&amp;c</CLIENT_PASSWORD>"),
        "{x}"
    );
    assert!(x.contains("<Siparis_ID>ş&quot;1</Siparis_ID>"), "{x}");
    let wire = ParamPos.encode(&creds(), &Request::Refund(order("o", 1)));
    assert_eq!(wire.url, creds().endpoint_url);
    assert_eq!(wire.content_type, "text/xml; charset=utf-8");
    assert_eq!(
        wire.headers,
        vec![(
            "SOAPAction",
            "\"https://turkpos.com.tr/TP_Islem_Iptal_Iade_Kismi2\"".to_owned()
        )]
    );
    let shown = format!("{wire:?}");
    assert!(!shown.contains("Test2"), "{shown}");
}
