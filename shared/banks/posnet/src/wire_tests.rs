use super::*;

#[test]
fn order_ids_are_padded_to_24_like_the_reference() {
    // MEWS PosNetRequestDataMapperTest: `2020110828BC` → non-secure
    // `0000000000002020110828BC`, 3-D Secure `TDSC000000002020110828BC`.
    assert_eq!(
        wire_order_id("2020110828BC", "").unwrap(),
        "0000000000002020110828BC"
    );
    assert_eq!(
        wire_order_id("2020110828BC", "TDSC").unwrap(),
        "TDSC000000002020110828BC"
    );
    assert_eq!(
        wire_order_id("10", "TDSC").unwrap(),
        "TDSC00000000000000000010"
    );
    // Already in the bank's form: unchanged, whatever the prefix.
    assert_eq!(
        wire_order_id("TDS_YKB_0000191010111730", "TDSC").unwrap(),
        "TDS_YKB_0000191010111730"
    );
    // The gateway's own 22-character ids fit without a prefix, not with `TDSC`.
    let ours = "PG01HZX3K9QW2E4R5T6Y7U";
    assert_eq!(wire_order_id(ours, "").unwrap(), format!("00{ours}"));
    assert!(wire_order_id(ours, "TDSC").is_err());
    for bad in ["", "ab-cd", "sipariş", "1234567890123456789012345"] {
        assert!(wire_order_id(bad, "").is_err(), "{bad}");
    }
}

#[test]
fn currencies_and_amounts() {
    assert_eq!(currency_code(Currency::Try, "TL"), "TL");
    assert_eq!(currency_code(Currency::Try, "YT"), "YT");
    assert_eq!(currency_code(Currency::Eur, "TL"), "EU");
    assert_eq!(parse_currency_code("YT"), Some(Currency::Try));
    assert_eq!(parse_currency_code("TRY"), None);
    assert_eq!(wire_amount(2540), "2540");
    assert_eq!(parse_wire_amount("5000"), Some(5000));
    assert_eq!(parse_wire_amount("50.00"), None);
    assert_eq!(parse_status_amount("1,16"), Some(116));
    assert_eq!(parse_status_amount("1.234,56"), Some(123_456));
    assert_eq!(parse_status_amount("12"), Some(1200));
    assert_eq!(parse_status_amount("x"), None);
    for minor in [0, 5, 116, 99_999, 100_000, 123_456, 9_999_999] {
        assert_eq!(
            parse_status_amount(&format_status_amount(minor)),
            Some(minor)
        );
    }
    assert_eq!(format_status_amount(123_456), "1.234,56");
    assert_eq!(format_status_amount(116), "1,16");
}

#[test]
fn documents_decode_by_their_declaration() {
    let latin5 = encoding::encode("<?xml version='1.0' encoding='iso-8859-9'?><a>Hatalı</a>");
    assert_eq!(
        decode_document(&latin5).unwrap(),
        "<?xml version='1.0' encoding='iso-8859-9'?><a>Hatalı</a>"
    );
    let utf8 = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><a>ş</a>".as_bytes();
    assert_eq!(
        decode_document(utf8).unwrap(),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><a>ş</a>"
    );
    assert!(matches!(
        decode_document(&encoding::encode(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><a>ş</a>"
        )),
        Err(DecodeError::InvalidBytes(_))
    ));
    assert!(matches!(
        decode_document(b"<?xml version=\"1.0\" encoding=\"EBCDIC\"?><a/>"),
        Err(DecodeError::UnsupportedEncoding(_))
    ));
    assert_eq!(decode_document(b"<a/>").unwrap(), "<a/>");
}

#[test]
fn the_form_carries_the_latin5_bytes_url_encoded() {
    let body = form_body("<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?><a>ı & x</a>");
    let text = String::from_utf8(body.clone()).unwrap();
    assert!(text.starts_with(
        "xmldata=%3C%3Fxml+version%3D%221.0%22+encoding%3D%22ISO-8859-9%22%3F%3E%3Ca%3E%FD+%26+x"
    ));
    assert_eq!(
        form_field(&body).unwrap(),
        encoding::encode("<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?><a>ı & x</a>")
    );
    assert_eq!(form_field(b"other=1"), None);
}
