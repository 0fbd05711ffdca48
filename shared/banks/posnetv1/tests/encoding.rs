//! Request encoding and the MAC against the reference library's vectors (MEWS
//! `tests/Unit/Crypt/PosNetV1PosCryptTest.php`, `hashFromParamsDataProvider`, and the request
//! shapes of `PosNetV1PosRequestDataMapperTest`), recomputed through our own code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paygate_bank_posnetv1::{
    hash,
    request::{bank_order_id, to_json, Kind, Request, Target},
    Credentials, PosNetV1,
};
use paygate_bankkit::Protocol;
use paygate_domain::Currency;
use serde_json::{json, Value};

fn creds() -> Credentials {
    Credentials {
        endpoint_url: "https://epostest.albarakaturk.com.tr/ALBMerchantService/MerchantJSONAPI.svc"
            .into(),
        merchant_no: "6700950031".into(),
        terminal_no: "67540050".into(),
        enc_key: "10,10,10,10,10,10,10,10".into(),
        order_id_prefix: String::new(),
    }
}

fn body(req: &Request) -> Value {
    serde_json::from_str(&to_json(&creds(), req)).unwrap()
}

/// `hashFromParamsDataProvider` #0: a reverse by `ReferenceCode`, `OrderId` null.
#[test]
fn the_reverse_mac_is_the_mews_vector() {
    let of = Target {
        reference: "021459486690000191".into(),
        kind: Kind::Sale,
    };
    let b = body(&Request::Reverse { of });
    assert_eq!(b["MAC"], "qhLo/2Ro+vT81i0SMV/VHifDV9VzQQgK+7d8hlId9YM=");
    assert_eq!(
        b["MACParams"],
        "MerchantNo:TerminalNo:ReferenceCode:OrderId"
    );
    assert_eq!(
        (
            b["ReferenceCode"].clone(),
            b["OrderId"].clone(),
            b["TransactionType"].clone()
        ),
        (json!("021459486690000191"), Value::Null, json!("Sale"))
    );
    assert_eq!(
        (b["ApiType"].clone(), b["ApiVersion"].clone()),
        (json!("JSON"), json!("V100"))
    );
    assert!(b.get("Amount").is_none(), "a reverse carries no amount");
}

/// `hashFromParamsDataProvider` #1 (the same values as `threeDHashCreateDataProvider`): the
/// values follow `MACParams`' order with no separator, the key last.
#[test]
fn values_are_concatenated_in_macparams_order() {
    let values = [
        "6700950031",
        "67540050",
        "5400619360964581",
        "056",
        "2001",
        "175",
    ];
    assert_eq!(
        hash::mac(&values, "10,10,10,10,10,10,10,10"),
        "xuhPbpcPJ6kVs7JeIXS8f06Cv0mb9cNPMfjp1HiB7Ew="
    );
    assert!(hash::verify(
        &values,
        "10,10,10,10,10,10,10,10",
        "xuhPbpcPJ6kVs7JeIXS8f06Cv0mb9cNPMfjp1HiB7Ew="
    ));
    assert!(!hash::verify(
        &values,
        "10,10,10,10,10,10,10,11",
        "xuhPbpcPJ6kVs7JeIXS8f06Cv0mb9cNPMfjp1HiB7Ew="
    ));
}

/// A return always names its amount (MEWS `refund_non_secure_order`: `Amount 11200`,
/// `CurrencyCode TL`); a capture closes an authorization by reference (MEWS
/// `nonSecurePostPaymentDataProvider`: `MACParams MerchantNo:TerminalNo`).
#[test]
fn return_capture_and_inquiry_bodies() {
    let of = Target {
        reference: "159044932490000231".into(),
        kind: Kind::Capture,
    };
    let r = body(&Request::Return {
        of: of.clone(),
        amount: 11_200,
        currency: Currency::Try,
    });
    assert_eq!(
        (
            r["Amount"].clone(),
            r["CurrencyCode"].clone(),
            r["TransactionType"].clone()
        ),
        (json!(11_200), json!("TL"), json!("Capture"))
    );
    assert_eq!(
        r["MAC"],
        hash::mac(
            &["6700950031", "67540050", "159044932490000231", ""],
            "10,10,10,10,10,10,10,10"
        )
    );

    let c = body(&Request::Capture {
        auth: of,
        amount: 10_001,
        currency: Currency::Eur,
    });
    assert_eq!(c["MACParams"], "MerchantNo:TerminalNo");
    // base64(SHA-256("6700950031" "67540050" "10,10,10,10,10,10,10,10")), computed apart.
    assert_eq!(c["MAC"], "wgyfAJPbEPtTtce/+HRlXajSRfYA0J6mUcH+16EbB78=");
    assert_eq!(
        (
            c["Amount"].clone(),
            c["CurrencyCode"].clone(),
            c["InstallmentCount"].clone()
        ),
        (json!(10_001), json!("EU"), json!("0"))
    );

    let q = body(&Request::Inquiry {
        order_id: bank_order_id("", "2020110828BC").unwrap(),
    });
    assert_eq!(q["OrderId"], "0000000000002020110828BC");
    assert_eq!(
        (q["IsEncrypted"].clone(), q["MAC"].clone()),
        (json!("N"), c["MAC"].clone())
    );
}

/// Each request goes to `<endpointUrl>/<TransactionType>` (MEWS `getApiURLDataProvider`).
#[test]
fn each_request_has_its_own_path() {
    let p = PosNetV1::new();
    let of = Target {
        reference: "1".into(),
        kind: Kind::Sale,
    };
    for (req, path) in [
        (Request::Reverse { of: of.clone() }, "Reverse"),
        (
            Request::Return {
                of: of.clone(),
                amount: 1,
                currency: Currency::Try,
            },
            "Return",
        ),
        (
            Request::Capture {
                auth: of,
                amount: 1,
                currency: Currency::Try,
            },
            "Capture",
        ),
        (
            Request::Inquiry {
                order_id: "x".into(),
            },
            "TransactionInquiry",
        ),
    ] {
        let w = p.encode(&creds(), &req);
        assert_eq!(
            w.url,
            format!("https://epostest.albarakaturk.com.tr/ALBMerchantService/MerchantJSONAPI.svc/{path}")
        );
        assert_eq!(w.content_type, "application/json");
        assert!(w.headers.is_empty());
    }
}
