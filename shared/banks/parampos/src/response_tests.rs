//! Answers read as outcomes and states: the MEWS fixtures (`test_data/parampos/
//! status_*_response.json`, rewritten as the SOAP envelopes they were decoded from) and the
//! codes of dev.param.com.tr "Hata Kodları".

use paygate_bankkit::{BankReply, Verdict};
use paygate_domain::{BankOutcome, BankState};

use super::*;

fn envelope(method: &str, result: &str) -> Vec<u8> {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><{method}Response xmlns=\"https://turkpos.com.tr/\"><{method}Result>{result}</{method}Result></{method}Response></soap:Body></soap:Envelope>"
    )
    .into_bytes()
}

fn kismi2(sonuc: &str, bank: &str) -> BankOutcome {
    let r = Reply::decode(&envelope(
        "TP_Islem_Iptal_Iade_Kismi2",
        &format!("<Sonuc>{sonuc}</Sonuc><Sonuc_Str>x</Sonuc_Str><Banka_Sonuc_Kod>{bank}</Banka_Sonuc_Kod><Bank_AuthCode>609945</Bank_AuthCode><Bank_Trans_ID>25012UZnE17558</Bank_Trans_ID><Bank_Extra /><Bank_HostRefNum>501220476656</Bank_HostRefNum>"),
    ))
    .unwrap();
    r.outcome()
}

#[test]
fn money_answers_by_sonuc() {
    assert_eq!(
        kismi2("1", "0"),
        BankOutcome::Approved {
            code: "1".into(),
            auth_code: Some("609945".into()),
            rrn: Some("501220476656".into())
        }
    );
    for (sonuc, bank, verdict) in [
        ("-1", "05", Verdict::Declined),
        ("-1", "", Verdict::Declined),
        ("-1", "96", Verdict::Unknown),
        ("-1", "91", Verdict::Unknown),
        ("-100", "", Verdict::Error),
        ("-101", "", Verdict::Error),
        ("-113", "", Verdict::Error),
        ("-202", "", Verdict::Error),
        ("-205", "", Verdict::Unknown),
        ("-207", "", Verdict::Unknown),
        ("-209", "", Verdict::Declined),
        ("-213", "", Verdict::Declined),
        ("-214", "", Verdict::Declined),
        ("-999", "", Verdict::Unknown),
        ("0", "", Verdict::Unknown),
        ("", "", Verdict::Unknown),
    ] {
        assert_eq!(classify(sonuc, bank), verdict, "{sonuc}/{bank}");
    }
    assert!(matches!(
        kismi2("-214", ""),
        BankOutcome::Declined { after_cutoff: true, code, .. } if code == "-214"
    ));
    assert!(matches!(
        kismi2("-213", ""),
        BankOutcome::Declined {
            after_cutoff: false,
            ..
        }
    ));
}

#[test]
fn faults_and_foreign_documents() {
    let fault = Reply::decode(b"<soap:Envelope xmlns:soap=\"s\"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>Server was unable to process request.</faultstring></soap:Fault></soap:Body></soap:Envelope>").unwrap();
    assert!(matches!(fault.outcome(), BankOutcome::Unknown { .. }));
    assert!(!fault.status().is_conclusive());
    assert!(Reply::decode(b"<PayforResponse/>").is_err());
    assert!(Reply::decode(b"<soap:Envelope><soap:Body></soap:Body></soap:Envelope>").is_err());
    assert!(Reply::decode(b"<html>").is_err());
}

/// A fixture's `DT_Bilgi` (only the fields the state is read from).
fn status(
    durum: &str,
    tip: &str,
    total: &str,
    refunded: &str,
    extra: &str,
) -> paygate_domain::BankStatus {
    let extra = paygate_bankkit::xml::escape(extra);
    let body = envelope(
        "TP_Islem_Sorgulama4",
        &format!("<DT_Bilgi><Odeme_Sonuc>1</Odeme_Sonuc><Siparis_ID>2025011251F7</Siparis_ID><Durum>{durum}</Durum><Toplam_Tutar>{total}</Toplam_Tutar><Toplam_Iade_Tutar>{refunded}</Toplam_Iade_Tutar><Bank_Extra>{extra}</Bank_Extra><Islem_Tip>{tip}</Islem_Tip><Bank_AuthCode>609945</Bank_AuthCode><Bank_HostRefNum>501220476656</Bank_HostRefNum></DT_Bilgi><Sonuc>1</Sonuc><Sonuc_Str>Başarılı</Sonuc_Str>"),
    );
    Reply::decode(&body).unwrap().status()
}

fn extra(stat: &str, captured: &str) -> String {
    format!("<Extra>\n    <AUTH_CODE>609945</AUTH_CODE>\n    <CAPTURE_AMT>{captured}</CAPTURE_AMT>\n    <TRANS_STAT>{stat}</TRANS_STAT>\n  </Extra>")
}

#[test]
fn mews_status_fixtures() {
    let st = |s: paygate_domain::BankStatus| (s.found, s.state, s.amount, s.refunded_amount);
    // status_pay_then_cancel_response
    assert_eq!(
        st(status("CANCEL", "SALE", "10.01", "0", &extra("V", "1001"))),
        (true, BankState::Cancelled, 1_001, 0)
    );
    // status_pay_then_refund_response
    assert_eq!(
        st(status(
            "REFUND",
            "SALE",
            "10.01",
            "10.01",
            &extra("C", "1001")
        )),
        (true, BankState::Refunded, 1_001, 1_001)
    );
    // status_pre_pay_response: an open pre-authorization (TRANS_STAT A).
    let pre = status("SUCCESS", "PRE_AUTH", "10.01", "0", &extra("A", ""));
    assert_eq!(st(pre.clone()), (true, BankState::Preauth, 1_001, 0));
    assert_eq!(pre.auth_code, "609945");
    // status_post_pay_response: closed for 10.21 (CAPTURE_AMT 1021) on a 10.01 hold.
    assert_eq!(
        st(status(
            "SUCCESS",
            "PRE_AUTH",
            "10.01",
            "0",
            &extra("C", "1021")
        )),
        (true, BankState::Approved, 1_021, 0)
    );
    // status_pre_pay_then_cancel_response
    assert_eq!(
        st(status("CANCEL", "PRE_AUTH", "10.01", "0", &extra("V", ""))),
        (true, BankState::Cancelled, 1_001, 0)
    );
    assert_eq!(
        st(status(
            "PARTIAL_REFUND",
            "SALE",
            "10.01",
            "2.50",
            &extra("C", "1001")
        )),
        (true, BankState::PartiallyRefunded, 1_001, 250)
    );
    assert_eq!(
        st(status("FAIL", "SALE", "10.01", "0", "")).1,
        BankState::Declined
    );
}

#[test]
fn figures_that_do_not_fit_are_unavailable() {
    for s in [
        // A closed pre-authorization without its captured amount.
        status("SUCCESS", "PRE_AUTH", "10.01", "0", &extra("C", "")),
        // A pre-authorization whose Extra cannot be read.
        status("SUCCESS", "PRE_AUTH", "10.01", "0", "<Extra>"),
        // "Refunded" for less than the sale, "partially" for all or nothing.
        status("REFUND", "SALE", "10.01", "5.00", &extra("C", "1001")),
        status(
            "PARTIAL_REFUND",
            "SALE",
            "10.01",
            "10.01",
            &extra("C", "1001"),
        ),
        status("PARTIAL_REFUND", "SALE", "10.01", "0", &extra("C", "1001")),
        status("SUCCESS", "SALE", "10.01", "1.00", &extra("C", "1001")),
        status("PENDING", "SALE", "10.01", "0", ""),
        status("SUCCESS", "SALE", "", "0", ""),
    ] {
        assert!(!s.is_conclusive(), "{s:?}");
    }
}

#[test]
fn not_found_is_only_its_own_code() {
    let read = |sonuc: &str| {
        Reply::decode(&envelope(
            "TP_Islem_Sorgulama4",
            &format!("<DT_Bilgi /><Sonuc>{sonuc}</Sonuc><Sonuc_Str>x</Sonuc_Str>"),
        ))
        .unwrap()
        .status()
    };
    let nf = read("-209");
    assert!(!nf.found && nf.is_conclusive());
    for other in ["-1", "-207", "-100", "1"] {
        let st = read(other);
        assert!(st.found && !st.is_conclusive(), "{other}: {st:?}");
    }
}

/// MEWS fixture `history_response_1` (two of its rows, as the SOAP data set they came from):
/// a sale of 5.00 cancelled the same day; the sale line's `Sonuc` is the order's state (`12`).
#[test]
fn monitoring_rows() {
    let row = |tip: &str, sonuc: &str, tutar: &str, net: &str, kom: &str| {
        format!("<Temp diffgr:id=\"Temp1\" msdata:rowOrder=\"0\"><SanalPOS_Islem_ID>6021847205</SanalPOS_Islem_ID><Sonuc_Str>Başarılı</Sonuc_Str><Tip_Str>{tip}</Tip_Str><Tarih>2025-01-20T09:12:38.94+03:00</Tarih><Komisyon_Oran>1.7500</Komisyon_Oran><Komisyon_Tutar>{kom}</Komisyon_Tutar><Net_Tutar>{net}</Net_Tutar><Tutar>{tutar}</Tutar><Dekont_ID>3007300817</Dekont_ID><ORJ_ORDER_ID>d2549d6d-5473-4359-bc55-f96854012747</ORJ_ORDER_ID><Sonuc>{sonuc}</Sonuc><Toplam_Iade_Tutar>0.0000</Toplam_Iade_Tutar><PB>TRL</PB></Temp>")
    };
    let body = envelope(
        "TP_Islem_Izleme",
        &format!(
            "<DT_Bilgi><xs:schema id=\"NewDataSet\" xmlns:xs=\"x\" /><diffgr:diffgram xmlns:msdata=\"m\" xmlns:diffgr=\"d\"><NewDataSet xmlns=\"\">{}{}</NewDataSet></diffgr:diffgram></DT_Bilgi><Sonuc>1</Sonuc><Sonuc_Str>Başarılı</Sonuc_Str>",
            row("İptal", "1", "-5.0000", "-4.9100", "-0.0900"),
            row("Satış", "12", "5.0000", "4.9100", "0.0900"),
        ),
    );
    let r = Reply::decode(&body).unwrap();
    assert_eq!(r.rows.len(), 2);
    assert_eq!(
        (r.rows[0].get("Tip_Str"), r.rows[1].get("Sonuc")),
        ("İptal", "12")
    );
    assert_eq!(crate::signed_amount(r.rows[0].get("Tutar")), Some(-500));
    assert_eq!(crate::signed_amount(r.rows[1].get("Net_Tutar")), Some(491));
    for bad in ["5.0001", "--5", "", "5,00x"] {
        assert_eq!(crate::signed_amount(bad), None, "{bad}");
    }
}

/// MEWS fixture `history_response_1`, rows `Temp2` (a sale cancelled since: `Sonuc` 12),
/// `Temp4` (a failed sale: `Sonuc` 2) and `Temp23` (a failed sale: `Sonuc` -1): a line's
/// `Sonuc` is no approval flag, its `Sonuc_Str` is.
#[test]
fn a_monitoring_line_s_outcome_is_its_sonuc_str() {
    let row = |order: &str, sonuc: &str, outcome: &str, tutar: &str| {
        format!("<Temp diffgr:id=\"Temp1\" msdata:rowOrder=\"0\"><Sonuc_Str>{outcome}</Sonuc_Str><Tip_Str>Satış</Tip_Str><Tutar>{tutar}</Tutar><ORJ_ORDER_ID>{order}</ORJ_ORDER_ID><Sonuc>{sonuc}</Sonuc><Toplam_Iade_Tutar>0.0000</Toplam_Iade_Tutar></Temp>")
    };
    let body = envelope(
        "TP_Islem_Izleme",
        &format!(
            "<DT_Bilgi><xs:schema id=\"NewDataSet\" xmlns:xs=\"x\" /><diffgr:diffgram xmlns:msdata=\"m\" xmlns:diffgr=\"d\"><NewDataSet xmlns=\"\">{}{}{}</NewDataSet></diffgr:diffgram></DT_Bilgi><Sonuc>1</Sonuc><Sonuc_Str>Başarılı</Sonuc_Str>",
            row("d2549d6d-5473-4359-bc55-f96854012747", "12", "Başarılı", "5.0000"),
            row("490164900", "2", "Başarısız", "100.0000"),
            row("C440225FF1A28200", "-1", "Başarısız", "61.5700"),
        ),
    );
    let lines = crate::monitored(&Reply::decode(&body).unwrap()).unwrap();
    let seen: Vec<_> = lines
        .iter()
        .map(|l| (l.sonuc.as_str(), l.outcome.as_str(), l.amount))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("12", "Başarılı", 500),
            ("2", "Başarısız", 10_000),
            ("-1", "Başarısız", 6_157),
        ]
    );
}

/// A status answer about another order (its `Siparis_ID`) is a failed read for the order
/// queried, never that order's state.
#[test]
fn a_status_answer_about_another_order_is_a_failed_read() {
    let body = envelope(
        "TP_Islem_Sorgulama4",
        "<DT_Bilgi><Siparis_ID>2025011251F7</Siparis_ID><Durum>SUCCESS</Durum><Toplam_Tutar>10.01</Toplam_Tutar><Toplam_Iade_Tutar>0</Toplam_Iade_Tutar><Islem_Tip>SALE</Islem_Tip></DT_Bilgi><Sonuc>1</Sonuc><Sonuc_Str>Başarılı</Sonuc_Str>",
    );
    let reply = Reply::decode(&body).unwrap();
    assert!(matches!(
        crate::status::read_for(&reply, "2025011251F7"),
        paygate_bankkit::StatusRead::Found(_)
    ));
    let other = crate::status::read_for(&reply, "OTHER")
        .found()
        .unwrap_err();
    assert!(
        !other.is_conclusive() && other.code == "Siparis_ID",
        "{other:?}"
    );
}

/// A successful `TP_Islem_Izleme` answer without its data set is unavailable, never an empty
/// list; an empty diffgram is an empty range.
#[test]
fn monitoring_without_a_data_set_is_unavailable() {
    let read = |result: &str| {
        crate::monitored(&Reply::decode(&envelope("TP_Islem_Izleme", result)).unwrap())
    };
    let st = read("<Sonuc>1</Sonuc><Sonuc_Str>Başarılı</Sonuc_Str>").unwrap_err();
    assert!(!st.is_conclusive() && st.code == "DT_Bilgi", "{st:?}");
    let st =
        read("<DT_Bilgi><xs:schema id=\"NewDataSet\" xmlns:xs=\"x\" /></DT_Bilgi><Sonuc>1</Sonuc>")
            .unwrap_err();
    assert!(!st.is_conclusive(), "{st:?}");
    let empty = read("<DT_Bilgi><xs:schema id=\"NewDataSet\" xmlns:xs=\"x\" /><diffgr:diffgram xmlns:diffgr=\"d\" /></DT_Bilgi><Sonuc>1</Sonuc>");
    assert_eq!(empty, Ok(Vec::new()));
    assert!(read("<Sonuc>-207</Sonuc>").is_err());
}
