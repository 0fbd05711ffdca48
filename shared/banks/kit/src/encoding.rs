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
