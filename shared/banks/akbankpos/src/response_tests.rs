use super::*;

fn parse(body: &[u8]) -> Result<Reply, String> {
    Reply::decode(body)
}

fn outcome(reply: &Reply) -> BankOutcome {
    reply.outcome()
}

#[test]
fn classification() {
    let r = |s: &str| parse(s.as_bytes()).unwrap();
    let ok = r(
        r#"{"txnCode":"1005","responseCode":"VPS-0000","responseMessage":"BAŞARILI","hostResponseCode":"00","order":{"orderId":"O1"},"transaction":{"authCode":"305955","rrn":"410724359538","batchNumber":39,"stan":134}}"#,
    );
    assert_eq!(
        outcome(&ok),
        BankOutcome::Approved {
            code: "VPS-0000".into(),
            auth_code: Some("305955".into()),
            rrn: Some("410724359538".into())
        }
    );
    let again =
        r(r#"{"responseCode":"VPS-1008","responseMessage":"Daha önce iptal edilmiş işlem"}"#);
    assert!(matches!(outcome(&again), BankOutcome::Declined { code, .. } if code == "VPS-1008"));
    assert!(matches!(
        outcome(&r(r#"{"responseCode":"VPS-1073","responseMessage":"x"}"#)),
        BankOutcome::Error { .. }
    ));
    assert!(matches!(
        outcome(&r(r#"{"responseCode":"VPS-0000","hostResponseCode":"96"}"#)),
        BankOutcome::Unknown { .. }
    ));
    assert!(matches!(
        outcome(&r(r#"{"foo":1}"#)),
        BankOutcome::Unknown { .. }
    ));
    assert!(parse(b"<html>").is_err() && parse(b"[1]").is_err());
}

/// Refusals after which the bank may have acted are unknown, never "nothing moved": the
/// host's 68 / 91 / 96 behind a `VPS-1005`, or a system error named in the message.
#[test]
fn refusals_that_may_have_acted_are_unknown() {
    let r = |s: &str| parse(s.as_bytes()).unwrap();
    for host in ["68", "91", "96"] {
        let doc = format!(
            r#"{{"responseCode":"VPS-1005","responseMessage":"Provizyon Hatası","hostResponseCode":"{host}","hostMessage":"x"}}"#
        );
        assert!(
            matches!(outcome(&r(&doc)), BankOutcome::Unknown { .. }),
            "{host}"
        );
    }
    for message in [
        r#""responseMessage":"Sistem hatası""#,
        r#""hostMessage":"096 SISTEM HATASI""#,
        r#""responseMessage":"SİSTEM HATASI""#,
    ] {
        let doc = format!(r#"{{"responseCode":"VPS-1999",{message}}}"#);
        assert!(
            matches!(outcome(&r(&doc)), BankOutcome::Unknown { .. }),
            "{message}"
        );
    }
    // A plain host decline (MEWS `fail_invalid_installment_count`: 83) stays a decline.
    let declined = r(
        r#"{"responseCode":"VPS-1005","responseMessage":"Provizyon Hatası","hostResponseCode":"83","hostMessage":"183 TAKSIT TUTAR HAT"}"#,
    );
    assert!(matches!(outcome(&declined), BankOutcome::Declined { code, .. } if code == "VPS-1005"));
}

#[test]
fn amounts() {
    let v: Value = serde_json::from_str(r#"{"a":1.01,"b":30,"c":"2.50","d":1.001}"#).unwrap();
    assert_eq!(
        (
            amount_of(&v, "a"),
            amount_of(&v, "b"),
            amount_of(&v, "c"),
            amount_of(&v, "d")
        ),
        (Some(101), Some(3_000), Some(250), None)
    );
}
