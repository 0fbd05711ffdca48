//! Wire-level facts of the Posnet XML service, shared by the adapter and the simulator:
//! where it lives, how the document travels (`xmldata=` form field, ISO-8859-9), order-id
//! format, currency letters and the two amount formats.

use paygate_bankkit::{
    encoding,
    transport::{form_decode, form_encode},
};
use paygate_domain::Currency;

/// Path of the XML service (`https://setmpos.ykb.com/PosnetWebService/XML` in test).
pub const SERVICE_PATH: &str = "/PosnetWebService/XML";
/// The form field that carries the document.
pub const FORM_FIELD: &str = "xmldata";
/// The charset the documents declare (YKB `posnet_xml.php`, MEWS serializer).
pub const ENCODING: &str = "ISO-8859-9";
/// Order ids of capt/reverse/return/agreement are exactly this long (zero-padded).
pub const ORDER_ID_LEN: usize = 24;
/// Order ids of sale/auth (`XID`) are exactly this long (zero-padded); the bank keeps them
/// as 24 characters, left-padded with `0` (MEWS `mapOrderIdToPrefixedOrderId`).
pub const PAYMENT_ORDER_ID_LEN: usize = 20;
/// The largest single amount Posnet takes: 99.999,99 TL (bank error `0205`).
pub const MAX_AMOUNT: i64 = 9_999_999;

/// Characters an order id may hold: letters and digits; `_` appears in the bank's own
/// samples (`TDS_YKB_0000191010111730`).
pub fn is_order_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Our order id as the 24-character `orderID` of capt/reverse/return/agreement: an id that is
/// already 24 valid characters goes as it is; otherwise `prefix` (e.g. `TDSC` for orders
/// taken through 3-D Secure, empty by default) + the id left-padded with `0` to fill 24.
/// An id that does not fit, or holds other characters, is refused (never truncated: two
/// orders must never map to one bank order).
pub fn wire_order_id(order_id: &str, prefix: &str) -> Result<String, String> {
    if order_id.is_empty() || !order_id.chars().all(is_order_id_char) {
        return Err("order id must be 1-24 letters, digits or `_`".to_owned());
    }
    if order_id.len() == ORDER_ID_LEN {
        return Ok(order_id.to_owned());
    }
    if !prefix.chars().all(is_order_id_char) {
        return Err("order id prefix must be letters, digits or `_`".to_owned());
    }
    let room = ORDER_ID_LEN.saturating_sub(prefix.len());
    if order_id.len() > room {
        return Err(format!(
            "order id of {} characters does not fit the bank's {ORDER_ID_LEN} with prefix `{prefix}`",
            order_id.len()
        ));
    }
    Ok(format!("{prefix}{order_id:0>room$}"))
}

/// Posnet's currency letters. TRY is `TL` on current terminals, `YT` on old ones (bank
/// error 147: "TL veya YT"); the account chooses.
pub fn currency_code(currency: Currency, try_code: &str) -> &str {
    match currency {
        Currency::Try => try_code,
        Currency::Usd => "US",
        Currency::Eur => "EU",
        Currency::Gbp => "GB",
    }
}

/// The currency a `currencyCode` names.
pub fn parse_currency_code(code: &str) -> Option<Currency> {
    match code {
        "TL" | "YT" => Some(Currency::Try),
        "US" => Some(Currency::Usd),
        "EU" => Some(Currency::Eur),
        "GB" => Some(Currency::Gbp),
        _ => None,
    }
}

/// Request amounts: integer kuruş, no separators (`25.40 TL` → `2540`).
pub fn wire_amount(minor: i64) -> String {
    minor.to_string()
}

/// Parses a request amount (digits only, in kuruş).
pub fn parse_wire_amount(s: &str) -> Option<i64> {
    paygate_bankkit::amount::parse_minor(s)
}

/// Status (`agreement`) amounts are TL with a decimal comma and `.` thousands separators
/// (`"1,16"`, `"1.234,56"`; MEWS `formatStatusAmount`). Without a comma the text is read as
/// a plain decimal (`"1.16"`, `"12"`).
pub fn parse_status_amount(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.contains(',') {
        paygate_bankkit::amount::parse_decimal(&s.replace('.', ""))
    } else {
        paygate_bankkit::amount::parse_decimal(s)
    }
}

/// Formats a status amount the way the bank shows it: `116` → `"1,16"`, `123456` →
/// `"1.234,56"`.
pub fn format_status_amount(minor: i64) -> String {
    let whole = (minor / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(c);
    }
    format!("{grouped},{:02}", minor % 100)
}

/// The request body: `xmldata=<url-encoded ISO-8859-9 bytes>`.
pub fn form_body(xml: &str) -> Vec<u8> {
    format!("{FORM_FIELD}={}", form_encode(&encoding::encode(xml))).into_bytes()
}

/// The raw document bytes of the `xmldata` field of a form body, if there is one.
pub fn form_field(body: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(body).ok()?;
    text.split('&').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        (name == FORM_FIELD).then(|| form_decode(value))
    })
}

/// Why document bytes could not be turned into text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The declaration names a charset we do not read.
    UnsupportedEncoding(String),
    /// The bytes are not what the declaration says (e.g. invalid UTF-8).
    InvalidBytes(String),
}

/// Decodes a document by its XML declaration: ISO-8859-9 (and its aliases) through the
/// windows-1254 codec; UTF-8, or no declared encoding (the XML default), as strict UTF-8.
pub fn decode_document(bytes: &[u8]) -> Result<String, DecodeError> {
    let label = declared_encoding(bytes).map(|l| l.to_ascii_lowercase());
    match label.as_deref() {
        Some("iso-8859-9" | "iso8859-9" | "iso_8859-9" | "latin5" | "windows-1254") => {
            Ok(encoding::decode(bytes))
        }
        None | Some("utf-8" | "utf8") => String::from_utf8(bytes.to_vec()).map_err(|e| {
            DecodeError::InvalidBytes(format!(
                "Invalid byte {} of UTF-8 sequence",
                e.utf8_error().valid_up_to() + 1
            ))
        }),
        Some(other) => Err(DecodeError::UnsupportedEncoding(other.to_owned())),
    }
}

/// The `encoding` pseudo-attribute of a leading `<?xml …?>` declaration.
fn declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let head = head.trim_ascii_start();
    if !head.starts_with(b"<?xml") {
        return None;
    }
    let end = head.windows(2).position(|w| w == b"?>")?;
    let decl = std::str::from_utf8(&head[..end]).ok()?;
    let after = &decl[decl.find("encoding")? + "encoding".len()..];
    let after = after.trim_start().strip_prefix('=')?.trim_start();
    let quote = after.chars().next().filter(|q| *q == '"' || *q == '\'')?;
    let rest = &after[1..];
    Some(rest[..rest.find(quote)?].to_owned())
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
