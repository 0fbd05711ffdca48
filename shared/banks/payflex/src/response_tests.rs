use super::*;

fn parse(body: &[u8]) -> Result<Reply, String> {
    Reply::decode(body)
}

fn outcome(reply: &Reply) -> BankOutcome {
    reply.outcome()
}

/// MEWS `PayFlexV4PosSerializerTest::decodeDataProvider`.
const MEWS_DECODE: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?><VposResponse><ResultCode>9039</ResultCode><ResultDetail>Üye işyeri bulunamadı.</ResultDetail><InstallmentTable /></VposResponse>";

/// MEWS `PayFlexV4PosResponseDataMapperTest::cancelDataProvider` `success_1` as XML.
const MEWS_CANCEL: &str = "<VposResponse><MerchantId>000100000013506</MerchantId><TransactionType>Cancel</TransactionType><TransactionId>4a8e979308de4568b500afc00187a501</TransactionId><ReferenceTransactionId>3f30ab117aa74826b448afc0018789fa</ReferenceTransactionId><ResultCode>0000</ResultCode><ResultDetail>İŞLEM BAŞARILI</ResultDetail><InstallmentTable /><CampaignResult /><AuthCode>836044</AuthCode><HostDate>20230309234556</HostDate><Rrn>306823971363</Rrn><TerminalNo>VP000579</TerminalNo><CurrencyAmount>1.01</CurrencyAmount><CurrencyCode>949</CurrencyCode><BatchNo>300</BatchNo><TLAmount>1.01</TLAmount></VposResponse>";

fn vpos_reply(code: &str) -> Reply {
    Reply::Vpos(VposReply {
        result_code: code.into(),
        result_detail: "x".into(),
        ..VposReply::default()
    })
}

#[test]
fn decodes_the_mews_fixtures() {
    let r = parse(MEWS_DECODE.as_bytes()).unwrap();
    assert_eq!(r.bank_code(), "9039");
    assert_eq!(r.message(), "Üye işyeri bulunamadı.");
    assert!(matches!(outcome(&r), BankOutcome::Error { code, .. } if code == "9039"));
    let c = parse(MEWS_CANCEL.as_bytes()).unwrap();
    let Reply::Vpos(v) = &c else { panic!() };
    assert_eq!(
        v.reference_transaction_id,
        "3f30ab117aa74826b448afc0018789fa"
    );
    assert_eq!(
        outcome(&c),
        BankOutcome::Approved {
            code: "0000".into(),
            auth_code: Some("836044".into()),
            rrn: Some("306823971363".into())
        }
    );
}

/// MEWS `serializer` exception cases: an HTML firewall page and an empty body.
#[test]
fn html_and_empty_answers_are_unreadable() {
    let html = "<html><head><title>Request Rejected</title></head><body>The requested URL was rejected. Please consult with your administrator.<br><br>Your support ID is: 11795445874629392419<br><br><a href='javascript:history.back();'>[Go Back]</a></body></html>";
    assert!(parse(html.as_bytes()).is_err());
    assert!(parse(b"").is_err());
    assert!(parse(&[0xFF, 0xFE]).is_err());
}

/// Every code class (README table), the "may have acted" ones unknown, never an error.
#[test]
fn classification() {
    let cases: &[(&str, &str)] = &[
        // MEWS fixtures: card refused, already cancelled, fully refunded.
        ("0312", "declined"),
        ("1083", "declined"),
        ("1059", "declined"),
        ("1088", "declined"),
        (AFTER_CUTOFF, "declined-cut"),
        ("2202", "declined-cut"),
        ("7777", "declined-cut"),
        // Refused before processing: credentials, terminal, permission, invalid request.
        ("9039", "error"),
        ("9065", "error"),
        ("9040", "error"),
        ("5001", "error"),
        ("2200", "error"),
        ("6019", "error"),
        // May have acted: system error, not finished yet, host codes, technical 9xxx.
        ("9998", "unknown"),
        ("9999", "unknown"),
        ("9000", "unknown"),
        ("9001", "unknown"),
        ("1001", "unknown"),
        ("1074", "unknown"),
        ("91", "unknown"),
        ("92", "unknown"),
        ("96", "unknown"),
        ("", "unknown"),
    ];
    for (code, class) in cases {
        let got = match outcome(&vpos_reply(code)) {
            BankOutcome::Declined {
                after_cutoff: true, ..
            } => "declined-cut",
            BankOutcome::Declined { .. } => "declined",
            BankOutcome::Error { .. } => "error",
            BankOutcome::Unknown { .. } => "unknown",
            BankOutcome::Approved { .. } => "approved",
        };
        assert_eq!(got, *class, "{code}");
    }
    assert!(already_cancelled("1083") && already_cancelled("1101") && !already_cancelled("1059"));
}
