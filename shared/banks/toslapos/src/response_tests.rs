use super::*;

fn parse(body: &str) -> Reply {
    Reply::decode(body.as_bytes()).unwrap()
}

/// MEWS `refundDataProvider`, `cancelDataProvider`, `paymentDataProvider` fixtures.
#[test]
fn classification_of_the_fixtures() {
    let ok = parse(
        r#"{"OrderId":"202312051B4E","BankResponseCode":"00","BankResponseMessage":null,"AuthCode":null,"HostReferenceNumber":null,"TransactionId":"2000000000032550","Code":0,"Message":"Başarılı"}"#,
    );
    assert_eq!(
        ok.outcome(),
        BankOutcome::Approved {
            code: "00".into(),
            auth_code: None,
            rrn: Some("2000000000032550".into())
        }
    );
    let not_found = parse(
        r#"{"OrderId":"20231203CA6D","BankResponseCode":null,"BankResponseMessage":null,"AuthCode":null,"HostReferenceNumber":null,"TransactionId":null,"Code":101,"Message":"Orjinal Kayıt Bulunamadı"}"#,
    );
    assert!(
        matches!(not_found.outcome(), BankOutcome::Declined { code, message, .. }
        if code == "101" && message == "Orjinal Kayıt Bulunamadı")
    );
    let hash = parse(
        r#"{"OrderId":null,"BankResponseCode":null,"AuthCode":null,"TransactionId":null,"Code":997,"Message":"Hash Hatası"}"#,
    );
    assert!(matches!(hash.outcome(), BankOutcome::Error { code, .. } if code == "997"));
    let validation = parse(
        r#"{"Code":998,"message":"Validasyon Hatası","ValidationErrors":["Could not convert string to integer"]}"#,
    );
    assert!(
        matches!(validation.outcome(), BankOutcome::Error { code, message } if code == "998" && message == "Validasyon Hatası")
    );
    assert!(Reply::decode(b"<html>").is_err() && Reply::decode(b"[1]").is_err());
}

/// Answers that do not say nothing moved are unknown: the general error (`999`, MEWS refund
/// `fail1`), no code, a handled answer without the host's approval, a refusal naming a
/// system error or the host's 68/91/96.
#[test]
fn answers_that_may_have_acted_are_unknown() {
    for body in [
        r#"{"OrderId":null,"BankResponseCode":null,"Code":999,"Message":"Genel Hata"}"#,
        r#"{"OrderId":"O1","Message":"x"}"#,
        r#"{"OrderId":"O1","Code":0,"BankResponseCode":null,"Message":"Başarılı"}"#,
        r#"{"OrderId":"O1","Code":0,"BankResponseCode":"05","Message":"Başarılı"}"#,
        r#"{"OrderId":"O1","Code":0,"BankResponseCode":"91","Message":"Başarılı"}"#,
        r#"{"OrderId":"O1","Code":105,"BankResponseCode":"96","Message":"x"}"#,
        r#"{"OrderId":"O1","Code":105,"Message":"SİSTEM HATASI"}"#,
    ] {
        assert!(
            matches!(parse(body).outcome(), BankOutcome::Unknown { .. }),
            "{body}"
        );
    }
    // Another refusal with a plain host decline stays a decline.
    let declined = parse(r#"{"OrderId":"O1","Code":105,"BankResponseCode":"05","Message":"Red"}"#);
    assert!(matches!(declined.outcome(), BankOutcome::Declined { code, .. } if code == "105"));
}

#[test]
fn amounts_are_integers_in_kurus() {
    let v: Value =
        serde_json::from_str(r#"{"a":101,"b":"59","c":1.01,"d":-1,"e":null,"f":"1.0"}"#).unwrap();
    assert_eq!(
        ["a", "b", "c", "d", "e", "f", "g"].map(|k| minor(&v, k)),
        [Some(101), Some(59), None, None, None, None, None]
    );
}
