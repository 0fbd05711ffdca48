use super::*;

fn parse(body: &[u8]) -> Result<Reply, String> {
    Reply::decode(body)
}

fn outcome(reply: &Reply) -> BankOutcome {
    reply.outcome()
}

/// MEWS `PayForPosSerializerTest::decodeDataProvider` `test1`.
const MEWS_DECODE: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<PayforResponse>\n<AuthCode>S31432</AuthCode>\n<HostRefNum>326011208369</HostRefNum>\n<ProcReturnCode>00</ProcReturnCode>\n<TransId>20230917EF0E</TransId>\n<ErrMsg>Onaylandı</ErrMsg>\n<CardHolderName>John Doe</CardHolderName>\n<ArtiTaksit>0</ArtiTaksit>\n<BankInternalResponseMessage>\r\n   </BankInternalResponseMessage>\n<PAYFORFROMXMLREQUEST>1</PAYFORFROMXMLREQUEST>\n<SESSION_SYSTEM_USER>0</SESSION_SYSTEM_USER>\n</PayforResponse>";

#[test]
fn decodes_the_mews_fixture() {
    let r = parse(MEWS_DECODE.as_bytes()).unwrap();
    assert_eq!(r.fields.get("TransId"), "20230917EF0E");
    assert_eq!(r.fields.get("BankInternalResponseMessage"), "");
    assert_eq!(
        outcome(&r),
        BankOutcome::Approved {
            code: "00".into(),
            auth_code: Some("S31432".into()),
            rrn: Some("326011208369".into())
        }
    );
    assert!(parse(b"<html>502</html>").is_err());
    assert!(parse(b"<PayforResponse><ProcReturnCode>").is_err());
}

/// MEWS `refundTestDataProvider` `fail1` (refund before the end of day) and
/// `cancelTestDataProvider` `fail1` (nothing to void).
#[test]
fn classification() {
    let doc = |code: &str, msg: &str| {
        parse(format!("<PayforResponse><AuthCode></AuthCode><HostRefNum>230423104777</HostRefNum><ProcReturnCode>{code}</ProcReturnCode><TransId>20221031714F</TransId><ErrMsg>{msg}</ErrMsg></PayforResponse>").as_bytes()).unwrap()
    };
    let v014 = outcome(&doc(
        "V014",
        "Bu işlem geri alınamaz, lüften asıl işlemi iptal edin.",
    ));
    assert!(
        matches!(&v014, BankOutcome::Declined { code, message, .. } if code == "V014" && message.starts_with("Bu işlem"))
    );
    assert!(
        matches!(outcome(&doc("V013", "Seçili İşlem Bulunamadı!")), BankOutcome::Declined { code, .. } if code == "V013")
    );
    assert!(matches!(
        outcome(&doc("V001", "x")),
        BankOutcome::Error { .. }
    ));
    for code in [
        "V036", "96", "", "68", "91", "92", "V034", "MR15", "V111", "V025", "V029", "M025", "M042",
    ] {
        assert!(
            matches!(
                outcome(&doc(code, "Sistem hatası")),
                BankOutcome::Unknown { .. }
            ),
            "{code}"
        );
    }
}

#[test]
fn parapuan() {
    let f = Fields(vec![("AvailablePoint".into(), "12.34".into())]);
    assert_eq!(parapuan_minor(&f), Some(1_234));
    let f = Fields(vec![("KullanilabilirBonusPuan".into(), "5,00".into())]);
    assert_eq!(parapuan_minor(&f), Some(500));
    assert_eq!(parapuan_minor(&Fields::default()), None);
}
