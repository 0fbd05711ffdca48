//! ISO-8859-9 (Latin-5, Turkish), which Nestpay and Posnet speak.
//!
//! `encoding_rs` implements the WHATWG Encoding Standard, where the label `iso-8859-9` means
//! windows-1254: identical to ISO-8859-9 except that bytes 0x80–0x9F are printable characters
//! instead of C1 controls. Bank messages never use C1 controls, so this is the codec to use.

use encoding_rs::WINDOWS_1254;

/// Encodes text for the wire; characters outside the charset become numeric entities
/// (`&#…;`), which XML parsers read back correctly.
pub fn encode(text: &str) -> Vec<u8> {
    WINDOWS_1254.encode(text).0.into_owned()
}

/// Decodes wire bytes; invalid sequences cannot occur in a single-byte charset.
pub fn decode(bytes: &[u8]) -> String {
    WINDOWS_1254
        .decode_without_bom_handling(bytes)
        .0
        .into_owned()
}

/// The encoding an XML declaration names, lower-cased: `head` is the start of the
/// document, the declaration (`<?xml … encoding="…" ?>`) first. `None` without one.
pub fn xml_declared_encoding(head: &str) -> Option<String> {
    let decl = head.strip_prefix("<?xml")?;
    let decl = &decl[..decl.find("?>")?];
    let at = decl.find("encoding")?;
    let rest = decl[at + "encoding".len()..]
        .trim_start()
        .strip_prefix('=')?;
    let rest = rest.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &rest[1..];
    Some(value[..value.find(quote)?].to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turkish_letters_are_single_bytes() {
        let text = "İşlem onaylandı: ĞÜŞİÖÇ ğüşıöç";
        let bytes = encode(text);
        assert_eq!(bytes.len(), text.chars().count());
        assert_eq!(encode("ş"), [0xFE]);
        assert_eq!(encode("İ"), [0xDD]);
        assert_eq!(encode("ı"), [0xFD]);
        assert_eq!(decode(&bytes), text);
    }
}
