//! Posnet's answer signals and response codes (bank document "POSNET ThreeD Secure XML
//! Servis Entegrasyonu" v2.0.1.5, section 5 "Hata Kodları"; MEWS fixtures), and which of
//! them are technical (→ `Error`) rather than a refusal of the operation (→ `Declined`).

/// `approved` values.
pub const APPROVED: &str = "1";
pub const NOT_APPROVED: &str = "0";
/// "Daha önce başarıyla onaylanmış" — seen with `0127` for a reused order id.
pub const ALREADY_APPROVED: &str = "2";

/// Malformed document / schema violation (`XNIException: …`).
pub const MALFORMED: &str = "0002";
/// Card not eligible for the operation (e.g. points on a non-World card).
pub const INVALID_TXN: &str = "0012";
/// Pre-authorization not found or reversed.
pub const NO_PREAUTH: &str = "0015";
/// Original transaction not found (capt/reverse/return with a wrong reference or order).
pub const NOT_FOUND: &str = "0123";
/// Record not in the database.
pub const NO_RECORD: &str = "0122";
/// Order id used before.
pub const DUPLICATE_ORDER: &str = "0127";
/// Wrong merchant / terminal / caller IP.
pub const INVALID_MID_TID: &str = "0148";
/// A field is malformed (`PAKET HATALI (EXPDATE)`, `(ORDERID)`…).
pub const BAD_PACKET: &str = "0150";
/// Operation not valid in the transaction's state.
pub const INVALID_OPERATION: &str = "0200";
/// Amount above the capturable / refundable amount or the single-transaction maximum.
pub const INVALID_AMOUNT: &str = "0205";
/// Batch closed (end of day passed): the sale/capture can no longer be reversed; refund it.
pub const BATCH_CLOSED: &str = "0211";
/// Already reversed.
pub const ALREADY_REVERSED: &str = "0220";
/// Technical problem at Posnet ("DB ERROR"): the host had the request and may have acted.
pub const DB_ERROR: &str = "0400";
/// Refund before the capture settled (same business day): reverse instead.
pub const NOT_SETTLED: &str = "0411";
/// The authorization was captured: reverse the capture first.
pub const ALREADY_CAPTURED: &str = "0788";

/// Codes that say the request was refused before processing (a malformed packet, the
/// merchant's credentials or set-up), not that the operation was refused on its merits.
/// Nothing moved in either case; the difference is what the merchant sees
/// (`provider_error` vs `provider_declined`).
const TECHNICAL: [&str; 9] = [
    MALFORMED,
    "0100",
    "0124",
    "0125",
    "0126",
    "0146",
    "0147",
    INVALID_MID_TID,
    BAD_PACKET,
];

/// Codes after which the bank may have acted: `0400` "DB ERROR" (a system error at Posnet
/// while it processed the request) and the host codes (ISO 8583, zero-padded to Posnet's four
/// digits like `0051`) `0068` "response received too late", `0091` "issuer or switch
/// inoperative" (MEWS: `bank_call`), `0092` "time-out / no routing, reversal pending", `0096`
/// "system malfunction". A money operation answered so is *unknown*, never "nothing moved".
const UNKNOWN: [&str; 5] = [DB_ERROR, "0068", "0091", "0092", "0096"];

/// Whether a response code is technical (credentials, packet, host problems).
pub fn is_technical(code: &str) -> bool {
    TECHNICAL.contains(&code)
}

/// Whether a response code leaves the outcome of a money operation unknown.
pub fn is_unknown(code: &str) -> bool {
    UNKNOWN.contains(&code)
}

/// Codes that mean "the bank has no such order / transaction".
pub fn is_not_found(code: &str) -> bool {
    code == NOT_FOUND || code == NO_RECORD
}

/// The bank's text for a code, as its answers carry it in `respText`.
pub fn text(code: &str) -> &'static str {
    match code {
        MALFORMED => "XNIException",
        INVALID_TXN => "RED-GECERSIZ ISLEM",
        NO_PREAUTH => "PROVIZYON BULUNAMADI",
        NO_RECORD => "DATABASE DE ISTENILEN KAYIT YOK",
        NOT_FOUND => "ORJINAL ISLEM BULUNAMADI",
        DUPLICATE_ORDER => "ORDERID DAHA ONCE KULLANILMIS",
        INVALID_MID_TID => "INVALID MID TID IP",
        BAD_PACKET => "PAKET HATALI",
        INVALID_OPERATION => "GECERSIZ ISLEM",
        INVALID_AMOUNT => "GECERSIZ TUTAR",
        BATCH_CLOSED => "GRUP KAPAMA YAPILMIS",
        ALREADY_REVERSED => "IPTAL ISLEMI YAPILMIS",
        DB_ERROR => "DB ERROR",
        NOT_SETTLED => "ISLEM HENUZ FINANSALLASMAMIS",
        ALREADY_CAPTURED => "FINANSAL ISLEM YAPILMIS",
        _ => "ONAYLANMADI",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn technical_and_business_codes_are_told_apart() {
        for code in ["0002", "0148", "0150", "0100", "0146"] {
            assert!(is_technical(code) && !is_unknown(code), "{code}");
        }
        for code in [
            "0123", "0127", "0205", "0211", "0220", "0411", "0051", "0225", "", "0400",
        ] {
            assert!(!is_technical(code), "{code}");
        }
        assert!(is_not_found("0123") && is_not_found("0122") && !is_not_found("0127"));
        for code in ["0400", "0068", "0091", "0092", "0096"] {
            assert!(is_unknown(code), "{code}");
        }
        assert!(!is_unknown("0051") && !is_unknown("0148"));
        assert_eq!(text(DUPLICATE_ORDER), "ORDERID DAHA ONCE KULLANILMIS");
    }
}
