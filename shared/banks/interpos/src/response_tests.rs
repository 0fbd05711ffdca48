use super::*;

fn parse(body: &[u8]) -> Result<Reply, String> {
    Reply::decode(body)
}

fn outcome(reply: &Reply) -> BankOutcome {
    reply.outcome()
}

/// MEWS `InterPosSerializerTest::decodeDataProvider` `success_payment`.
pub const MEWS_PAYMENT: &str = "OrderId=33554969;;ProcReturnCode=00;;HostRefNum=hostid;;AuthCode=gizlendi;;TxnResult=Success;;ErrorMessage=;;CampanyId=;;CampanyInstallCount=0;;CampanyShiftDateCount=0;;CampanyTxnId=;;CampanyType=;;CampanyInstallment=0;;CampanyDate=0;;CampanyAmnt=0;;TRXDATE=09.08.2024 10:40:34;;TransId=gizlendi;;ErrorCode=;;EarnedBonus=0,00;;UsedBonus=0,00;;AvailableBonus=0,00;;BonusToBonus=0;;CampaignBonus=0,00;;FoldedBonus=0;;SurchargeAmount=0;;Amount=1,00;;CardHolderName=gizlendi;;QrReferenceNumber=;;QrCardToken=;;QrData=;;QrPayIsSucess=False;;QrIssuerPaymentMethod=;;QrFastMessageReferenceNo=;;QrFastParticipantReceiverCode=;;QrFastParticipantReceiverName=;;QrFastParticipantSenderCode=;;QrFastSenderIban=;;QrFastParticipantSenderName=;;QrFastPaymentResultDesc=";

/// MEWS `InterPosResponseDataMapperTest::cancelTestDataProvider` `fail1`.
const MEWS_CANCEL_FAIL: &str = "OrderId=SYSOID121330755;;ProcReturnCode=81;;AuthCode=;;TxnResult=Failed;;ErrorMessage=Terminal Aktif Degil;;CampanyId=;;TRXDATE=;;TransId=;;ErrorCode=B810002;;EarnedBonus=0;;UsedBonus=0;;AvailableBonus=0;;Amount=0;;CardHolderName=";

#[test]
fn decodes_the_mews_fixtures() {
    let r = parse(MEWS_PAYMENT.as_bytes()).unwrap();
    assert_eq!(r.pairs.len(), 38);
    assert_eq!(r.get("TRXDATE"), "09.08.2024 10:40:34");
    assert_eq!(parse_amount(r.get("Amount")), Some(100));
    assert_eq!(
        outcome(&r),
        BankOutcome::Approved {
            code: "00".into(),
            auth_code: Some("gizlendi".into()),
            rrn: Some("hostid".into())
        }
    );
    let f = parse(MEWS_CANCEL_FAIL.as_bytes()).unwrap();
    assert_eq!(
        outcome(&f),
        BankOutcome::Error {
            code: "B810002".into(),
            message: "Terminal Aktif Degil".into()
        }
    );
    assert!(parse(b"<html>Request Rejected</html>").is_err());
    assert!(parse(b"").is_err());
    assert!(parse(b"OrderId=1;;TxnResult=Success").is_err());
}

#[test]
fn classification() {
    let r = |proc: &str, result: &str, code: &str| Reply {
        pairs: vec![
            ("ProcReturnCode".into(), proc.into()),
            ("TxnResult".into(), result.into()),
            ("ErrorCode".into(), code.into()),
        ],
    };
    assert_eq!(classify(&r("00", "Failed", "")), Verdict::Unknown);
    assert_eq!(classify(&r("05", "Success", "")), Verdict::Unknown);
    assert_eq!(classify(&r("", "Failed", "")), Verdict::Unknown);
    for code in ["96", "68", "92", "91"] {
        assert_eq!(classify(&r(code, "Failed", "")), Verdict::Unknown, "{code}");
    }
    // "Sistem hatasi" does not say the bank did nothing.
    assert_eq!(classify(&r("91", "Failed", "B910001")), Verdict::Unknown);
    assert_eq!(classify(&r("81", "Failed", "B810002")), Verdict::Error);
    assert_eq!(classify(&r("99", "Failed", "E31")), Verdict::Declined);
    assert!(matches!(
        outcome(&r("99", "Failed", AFTER_CUTOFF)),
        BankOutcome::Declined {
            after_cutoff: true,
            ..
        }
    ));
    assert_eq!(parse_amount("1,01"), Some(101));
    assert_eq!(parse_amount("0"), Some(0));
    assert_eq!(parse_amount("x"), None);
}
