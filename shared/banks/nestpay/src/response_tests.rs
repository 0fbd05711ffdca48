use super::*;

fn parse(body: &[u8]) -> Result<Reply, String> {
    Reply::decode(body)
}

/// MEWS `EstPosSerializerTest::decodeDataProvider` (ISO-8859-9, `CARDISSUER` as a
/// character reference).
const MEWS_DECODE: &str = "<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?>\n<CC5Response>\n  <OrderId>20230910AF6A</OrderId>\n  <GroupId>20230910AF6A</GroupId>\n  <Response>Approved</Response>\n  <AuthCode>P18552</AuthCode>\n  <HostRefNum>325300733333</HostRefNum>\n  <ProcReturnCode>00</ProcReturnCode>\n  <TransId>23253WkfD10806</TransId>\n  <ErrMsg></ErrMsg>\n  <Extra>\n    <SETTLEID>2589</SETTLEID>\n    <TRXDATE>20230910 22:36:30</TRXDATE>\n    <ERRORCODE></ERRORCODE>\n    <CARDISSUER>Z&#x130;RAAT BANKASI</CARDISSUER>\n    <NUMCODE>00</NUMCODE>\n  </Extra>\n</CC5Response>";

fn reply(response: &str, proc: &str, errorcode: &str) -> Reply {
    Reply {
        response: response.into(),
        proc_return_code: proc.into(),
        extra: vec![("ERRORCODE".into(), errorcode.into())],
        ..Reply::default()
    }
}

#[test]
fn decodes_the_mews_fixture() {
    let r = parse(MEWS_DECODE.as_bytes()).unwrap();
    assert_eq!(r.order_id, "20230910AF6A");
    assert_eq!(
        (r.auth_code.as_str(), r.host_ref_num.as_str()),
        ("P18552", "325300733333")
    );
    assert_eq!(r.extra("CARDISSUER"), Some("ZİRAAT BANKASI"));
    assert_eq!(classify(&r), Verdict::Approved);
    assert_eq!(r.bank_code(), "00");
}

#[test]
fn decodes_latin5_bytes_and_declared_utf8() {
    let doc = "<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?><CC5Response><Response>Error</Response><ProcReturnCode>99</ProcReturnCode><ErrMsg>İptal edilmeye uygun satış işlemi bulunamadı.</ErrMsg><Extra><ERRORCODE>CORE-2008</ERRORCODE></Extra></CC5Response>";
    let r = parse(&encoding::encode(doc)).unwrap();
    assert_eq!(r.err_msg, "İptal edilmeye uygun satış işlemi bulunamadı.");
    let utf8 = doc.replace("ISO-8859-9", "UTF-8");
    assert_eq!(parse(utf8.as_bytes()).unwrap().err_msg, r.err_msg);
    // Latin-5 bytes labelled UTF-8 are refused, not guessed.
    assert!(parse(&encoding::encode(&utf8)).is_err());
    assert!(parse(b"<html>502</html>").is_err());
    assert!(parse(b"<CC5Response><Response>").is_err());
    assert_eq!(
        declared_encoding(b"<?xml version='1.0' encoding='utf-8'?><a/>").as_deref(),
        Some("utf-8")
    );
}

#[test]
fn classification() {
    // MEWS fixtures: refund before end of day, void of nothing, issuer decline.
    assert_eq!(
        classify(&reply("Error", "99", "CORE-2508")),
        Verdict::Declined
    );
    assert_eq!(
        classify(&reply("Error", "99", "CORE-2008")),
        Verdict::Declined
    );
    assert_eq!(
        classify(&reply("Declined", "05", "ISO8583-05")),
        Verdict::Declined
    );
    // "Net Tutar 0." without ProcReturnCode.
    assert_eq!(
        classify(&reply("Declined", "", "215021")),
        Verdict::Declined
    );
    // Authentication, request validation, a host Nestpay could not reach: nothing moved.
    for code in [
        "CORE-2201",
        "CORE-1001",
        "CORE-2014",
        "BM-9100",
        "BM-9101",
        "BM-1008",
    ] {
        assert_eq!(
            classify(&reply("Error", "99", code)),
            Verdict::Error,
            "{code}"
        );
    }
    // The host had (or may have had) the request and cannot say what it did.
    for (proc, code) in [
        ("96", ""),
        ("68", ""),
        ("92", ""),
        ("91", ""),
        ("96", "ISO8583-96"),
        ("68", "ISO8583-68"),
        ("92", "ISO8583-92"),
        ("91", "ISO8583-91"),
        ("99", "ISO8583-9998"),
        ("99", "ISO8583-9999"),
        ("99", "BM-9102"),
        ("99", "BM-9103"),
        ("99", "BM-1006"),
        ("99", "CORE-1002"),
        ("99", "CORE-1005"),
    ] {
        assert_eq!(
            classify(&reply("Error", proc, code)),
            Verdict::Unknown,
            "{proc}/{code}"
        );
    }
    // May have been applied.
    assert_eq!(
        classify(&reply("Error", "99", "CORE-3000")),
        Verdict::Unknown
    );
    assert_eq!(classify(&reply("Approved", "99", "")), Verdict::Unknown);
    assert_eq!(classify(&reply("Declined", "00", "")), Verdict::Unknown);
    assert_eq!(classify(&reply("Approved", "00", "")), Verdict::Approved);
}

#[test]
fn bank_code_prefers_errorcode() {
    assert_eq!(reply("Error", "99", "CORE-2508").bank_code(), "CORE-2508");
    assert_eq!(reply("Declined", "05", "").bank_code(), "05");
    assert_eq!(reply("Declined", "", "").bank_code(), "Declined");
    let mut r = reply("Declined", "05", "ISO8583-05");
    r.extra
        .push(("HOSTMSG".into(), "[RC 05] Red Onaylanmadı".into()));
    assert_eq!(r.message(), "[RC 05] Red Onaylanmadı");
    r.err_msg = "Genel red".into();
    assert_eq!(r.message(), "Genel red");
}

#[test]
fn maxipuan() {
    let mut r = Reply {
        extra: vec![("MAXIPUAN".into(), "100000.00".into())],
        ..Reply::default()
    };
    assert_eq!(maxipuan_minor(&r), Some(10_000_000));
    r.extra = vec![("HOSTMSG".into(), "TOPLAMMAXIPUAN: 50.00 TL".into())];
    assert_eq!(maxipuan_minor(&r), Some(5_000));
    r.extra.clear();
    assert_eq!(maxipuan_minor(&r), None);
}
