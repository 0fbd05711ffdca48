//! The simulator at the wire: raw `xmldata` requests, as strict as the bank.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use paygate_bank_posnet::{response::Reply, wire};
use paygate_bankkit::{encoding, transport::form_encode};
use paygate_domain::{ports::TestOrderState, BankState};

const DECL: &str = "<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?>";

fn envelope(mid: &str, body: &str) -> String {
    format!("{DECL}<posnetRequest><mid>{mid}</mid><tid>{TID}</tid><tranDateRequired>1</tranDateRequired>{body}</posnetRequest>")
}

fn sale(order: &str, amount: &str) -> String {
    envelope(
        MID,
        &format!(
            "<sale><orderID>{order}</orderID><installment>00</installment><amount>{amount}</amount>\
             <currencyCode>TL</currencyCode><ccno>{WORLD_CARD}</ccno><expDate>3012</expDate><cvc>000</cvc></sale>"
        ),
    )
}

fn refused(r: &Reply) -> (&str, &str, &str) {
    (
        r.approved.as_str(),
        r.resp_code.as_str(),
        r.resp_text.as_str(),
    )
}

#[tokio::test]
async fn a_sale_is_approved_and_its_order_id_cannot_be_used_again() {
    let bank = Bank::start().await;
    let first = bank.raw(&sale("000000002020110828BC", "175"), &[]).await;
    assert!(first.is_approved());
    assert_eq!((first.host_log_key.len(), first.auth_code.len()), (18, 6));
    assert_eq!(
        first.root.text_at(&["tranDate"]).map(str::len),
        Some(12),
        "tranDateRequired=1 → YYMMDDHHMMSS"
    );
    // The bank keeps it as 24 characters: the status inquiry finds it there.
    let st = bank.query("2020110828BC").await;
    assert_eq!(
        (st.state, st.amount, st.rrn.as_str()),
        (BankState::Approved, 175, first.host_log_key.as_str())
    );
    let again = bank.raw(&sale("000000002020110828BC", "999"), &[]).await;
    assert_eq!(
        refused(&again),
        ("2", "0127", "ORDERID DAHA ONCE KULLANILMIS 0127")
    );
    assert_eq!(
        again.host_log_key, first.host_log_key,
        "the earlier transaction's reference"
    );
    // XID longer than 20.
    assert_eq!(
        bank.raw(&sale("000000000002020110828BC", "1"), &[])
            .await
            .resp_code,
        "0150"
    );
}

#[tokio::test]
async fn malformed_documents_and_fields_are_refused() {
    let bank = Bank::start().await;
    let cases: [(&str, &str); 7] = [
        ("<posnetRequest><mid>1</mid>", "0002"),
        ("<posnetRequest><mid>6706598320</mid><tid>67005551</tid></posnetRequest>", "0002"),
        ("<posnetRequest><mid>6706598320</mid><tid>67005551</tid><Agreement><orderID>x</orderID></Agreement></posnetRequest>", "0002"),
        ("<posnetRequest><mid>6706598320</mid><tid>67005551</tid><agreement><orderID>12</orderID></agreement></posnetRequest>", "0150"),
        ("<posnetRequest><mid>6706598320</mid><tid>67005551</tid><pointInquiry><ccno>5400637500005263</ccno><expDate>1230</expDate></pointInquiry></posnetRequest>", "0150"),
        ("<posnetRequest><mid>6706598320</mid><tid>67005551</tid><return><amount>50.00</amount><currencyCode>TL</currencyCode><orderID>000000000000000000000001</orderID></return></posnetRequest>", "0150"),
        ("<posnetRequest><mid>6706598320</mid><tid>67005551</tid><return><amount>500</amount><currencyCode>TRY</currencyCode><orderID>000000000000000000000001</orderID></return></posnetRequest>", "0150"),
    ];
    for (xml, code) in cases {
        let r = bank.raw(xml, &[]).await;
        assert_eq!(
            (r.approved.as_str(), r.resp_code.as_str()),
            ("0", code),
            "{xml}: {}",
            r.resp_text
        );
    }
    let expdate = bank
        .raw("<posnetRequest><mid>6706598320</mid><tid>67005551</tid><pointInquiry><ccno>5400637500005263</ccno><expDate>1230</expDate></pointInquiry></posnetRequest>", &[])
        .await;
    assert_eq!(expdate.resp_text, "PAKET HATALI (EXPDATE)");
    let over_max = bank
        .raw(&envelope(MID, "<return><amount>10000000</amount><currencyCode>TL</currencyCode><orderID>000000000000000000000001</orderID></return>"), &[])
        .await;
    assert_eq!(over_max.resp_code, "0205");

    // Not a form, and a charset declaration the bytes contradict.
    let (http, url) = (&bank.http, bank.service_url());
    let raw = |ct: &'static str, body: Vec<u8>| {
        let url = url.clone();
        async move {
            let bytes = http.post(&url, ct, body).await.unwrap();
            <Reply as paygate_bankkit::BankReply>::decode(&bytes).unwrap()
        }
    };
    let xml = envelope(
        MID,
        "<agreement><orderID>000000000000000000000001</orderID></agreement>",
    );
    assert_eq!(
        raw("text/xml", xml.clone().into_bytes()).await.resp_code,
        "0002"
    );
    let lying = format!(
        "xmldata={}",
        form_encode(&encoding::encode(
            &xml.replace("ISO-8859-9", "UTF-8")
                .replace("000000000000000000000001", "00000000000000000000000ş")
        ))
    );
    let r = raw("application/x-www-form-urlencoded", lying.into_bytes()).await;
    assert_eq!(r.resp_code, "0002");
    assert!(r.resp_text.contains("UTF-8"), "{}", r.resp_text);
}

#[tokio::test]
async fn the_terminal_is_checked_in_the_document_and_the_headers() {
    let bank = Bank::start().await;
    let xml = |mid: &str| {
        envelope(
            mid,
            "<agreement><orderID>000000000000000000000001</orderID></agreement>",
        )
    };
    let wrong = bank.raw(&xml("6706598329"), &[]).await;
    assert_eq!(
        refused(&wrong),
        ("0", "0148", "INVALID MID TID IP. Hatalı IP:127.0.0.1")
    );
    let header = bank
        .raw(&xml(MID), &[("X-MERCHANT-ID", "1111111111")])
        .await;
    assert_eq!(header.resp_code, "0148");
    let ok = bank
        .raw(&xml(MID), &[("X-MERCHANT-ID", MID), ("X-TERMINAL-ID", TID)])
        .await;
    assert_eq!(
        ok.resp_code, "0123",
        "right terminal: the order is simply unknown"
    );
    // The answer is ISO-8859-9 bytes, declared so.
    let bytes = bank
        .http
        .post(
            &bank.service_url(),
            "application/x-www-form-urlencoded",
            wire::form_body(&xml("6706598329")),
        )
        .await
        .unwrap();
    assert!(bytes.starts_with(b"<?xml version='1.0' encoding='iso-8859-9'?><posnetResponse>"));
    assert!(
        bytes.windows(6).any(|w| w == b"Hatal\xFD".as_slice()),
        "'ı' is the single byte 0xFD"
    );
}

#[tokio::test]
async fn follow_ups_by_reference_or_order_id_and_auth_code_checks() {
    let bank = Bank::start().await;
    let auth = bank
        .raw(
            &envelope(
                MID,
                &format!(
                    "<auth><orderID>PGWIRE00000000000001</orderID><installment>00</installment><amount>5000</amount>\
                     <currencyCode>TL</currencyCode><ccno>{WORLD_CARD}</ccno><expDate>3012</expDate><cvc>000</cvc></auth>"
                ),
            ),
            &[],
        )
        .await;
    assert!(auth.is_approved());
    let key = auth.host_log_key.clone();
    // Reverse with a wrong auth code: not found; with the right one: done.
    let bad = bank
        .raw(&envelope(MID, &format!("<reverse><transaction>auth</transaction><hostLogKey>{key}</hostLogKey><authCode>000000</authCode></reverse>")), &[])
        .await;
    assert_eq!(bad.resp_code, "0123");
    let sale_of_auth = bank
        .raw(&envelope(MID, &format!("<reverse><transaction>sale</transaction><hostLogKey>{key}</hostLogKey></reverse>")), &[])
        .await;
    assert_eq!(
        sale_of_auth.resp_code, "0123",
        "the reference is an authorization, not a sale"
    );
    // Capture by reference, then reversing the authorization is refused until the capture is.
    let capt = bank
        .raw(&envelope(MID, &format!("<capt><hostLogKey>{key}</hostLogKey><amount>4000</amount><currencyCode>TL</currencyCode><installment>00</installment></capt>")), &[])
        .await;
    assert!(capt.is_approved());
    let early = bank
        .raw(&envelope(MID, &format!("<reverse><transaction>auth</transaction><hostLogKey>{key}</hostLogKey><authCode>{}</authCode></reverse>", auth.auth_code)), &[])
        .await;
    assert_eq!(refused(&early), ("0", "0788", "FINANSAL ISLEM YAPILMIS"));
    // Reverse the capture by order id (MEWS form).
    let by_order = bank
        .raw(&envelope(MID, "<reverse><transaction>capt</transaction><orderID>0000PGWIRE00000000000001</orderID></reverse>"), &[])
        .await;
    assert!(by_order.is_approved(), "{}", by_order.resp_text);
    let st = bank.query("0000PGWIRE00000000000001").await;
    assert_eq!((st.state, st.amount), (BankState::Preauth, 5_000));
    // Refund by the capture's reference after the cut.
    bank.register("PGWIRE2", 2_000, TestOrderState::Approved, true)
        .await;
    let sale_key = bank.query("PGWIRE2").await.rrn;
    let ret = bank
        .raw(&envelope(MID, &format!("<return><amount>500</amount><currencyCode>TL</currencyCode><hostLogKey>{sale_key}</hostLogKey></return>")), &[])
        .await;
    assert!(ret.is_approved(), "{}", ret.resp_text);
    let eu = bank
        .raw(&envelope(MID, &format!("<return><amount>500</amount><currencyCode>EU</currencyCode><hostLogKey>{sale_key}</hostLogKey></return>")), &[])
        .await;
    assert_eq!(eu.resp_code, "0200", "currency of another order");
    assert_eq!(bank.query("PGWIRE2").await.refunded_amount, 500);
}
