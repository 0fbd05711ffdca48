//! Form bodies and `key=value;;` answers: what the form-posting protocols share.
//!
//! - [`Form`] builds an `application/x-www-form-urlencoded` body with its fields in the
//!   order given (InterVPOS sends every request this way; PayFlex wraps its XML in one
//!   `prmstr` field, Posnet in `xmldata`).
//! - [`parse_form`] reads such a body back (the simulators' side).
//! - [`parse_pairs`] reads the `key=value;;key=value` answers InterVPOS writes (`;;;` also
//!   separates, as MEWS `InterPosSerializer::decode` notes); a value may contain `=`.
//!
//! Values are never logged here: a form can carry a password or a card number.

use crate::transport::{form_decode, form_encode};

/// The content type of a form body.
pub const FORM_CONTENT_TYPE: &str = "application/x-www-form-urlencoded";

/// An ordered form body being built. `Debug` shows the field names only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Form {
    fields: Vec<(String, String)>,
}

impl Form {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a field (an empty value is sent as `name=`).
    pub fn field(mut self, name: &str, value: impl Into<String>) -> Self {
        self.fields.push((name.to_owned(), value.into()));
        self
    }

    /// The fields in order.
    pub fn fields(&self) -> &[(String, String)] {
        &self.fields
    }

    /// The value of the first field called `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body: `name=value&…`, UTF-8 percent-encoded.
    pub fn encode(&self) -> Vec<u8> {
        self.fields
            .iter()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    form_encode(k.as_bytes()),
                    form_encode(v.as_bytes())
                )
            })
            .collect::<Vec<_>>()
            .join("&")
            .into_bytes()
    }
}

impl std::fmt::Debug for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.fields.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("Form").field("fields", &names).finish()
    }
}

/// Reads a form body (UTF-8 after percent-decoding); `Err` when it is not one.
pub fn parse_form(body: &[u8]) -> Result<Form, String> {
    let text = std::str::from_utf8(body).map_err(|_| "the form is not ASCII text".to_owned())?;
    let mut form = Form::new();
    for part in text.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let key = String::from_utf8(form_decode(k)).map_err(|_| "a form name is not UTF-8")?;
        let value = String::from_utf8(form_decode(v)).map_err(|_| "a form value is not UTF-8")?;
        form = form.field(&key, value);
    }
    Ok(form)
}

/// Reads a `key=value;;key=value` answer into its pairs, in order. Separators are `;;`
/// (and `;;;`); the key ends at the first `=`. `Err` for an empty answer, a part without
/// `=`, an empty key, or something that looks like an HTML page.
pub fn parse_pairs(text: &str) -> Result<Vec<(String, String)>, String> {
    let text = text.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return Err("an empty answer".to_owned());
    }
    if text.starts_with('<') {
        return Err("an HTML or XML page, not key=value pairs".to_owned());
    }
    let mut out = Vec::new();
    for part in text.split(";;") {
        // `;;;` leaves a leading `;` on the next part.
        let part = part.strip_prefix(';').unwrap_or(part);
        if part.trim().is_empty() {
            continue;
        }
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| "a part without `=`".to_owned())?;
        let k = k.trim();
        if k.is_empty() {
            return Err("a part with an empty key".to_owned());
        }
        out.push((k.to_owned(), v.trim().to_owned()));
    }
    if out.is_empty() {
        return Err("no key=value pair".to_owned());
    }
    Ok(out)
}

/// Writes pairs as `key=value;;key=value` (the simulators' side of [`parse_pairs`]).
pub fn write_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    pairs
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(";;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_keeps_its_order_and_hides_values() {
        let f = Form::new()
            .field("ShopCode", "3123")
            .field("UserPass", "p&ss=1 ş")
            .field("OrderId", "");
        assert_eq!(
            String::from_utf8(f.encode()).unwrap(),
            "ShopCode=3123&UserPass=p%26ss%3D1+%C5%9F&OrderId="
        );
        assert_eq!(parse_form(&f.encode()).unwrap(), f);
        assert_eq!(f.get("UserPass"), Some("p&ss=1 ş"));
        let shown = format!("{f:?}");
        assert!(
            shown.contains("UserPass") && !shown.contains("p&ss"),
            "{shown}"
        );
    }

    /// MEWS `InterPosSerializerTest` (abridged) and its note on `;;;`.
    #[test]
    fn pairs() {
        let p = parse_pairs("OrderId=33554969;;ProcReturnCode=00;;TxnResult=Success;;ErrorMessage=;;TRXDATE=09.08.2024 10:40:34;;Amount=1,00").unwrap();
        assert_eq!(p.len(), 6);
        assert_eq!(p[1], ("ProcReturnCode".into(), "00".into()));
        assert_eq!(p[3], ("ErrorMessage".into(), String::new()));
        assert_eq!(p[4].1, "09.08.2024 10:40:34");
        let odd = parse_pairs("A=1;;;B=x=y;;").unwrap();
        assert_eq!(
            odd,
            vec![("A".into(), "1".into()), ("B".into(), "x=y".into())]
        );
        for bad in [
            "",
            "   ",
            "<html>Request Rejected</html>",
            "A=1;;garbage",
            "=1",
        ] {
            assert!(parse_pairs(bad).is_err(), "{bad:?}");
        }
        let written = write_pairs([("A", "1"), ("B", "")]);
        assert_eq!(written, "A=1;;B=");
        assert_eq!(parse_pairs(&written).unwrap().len(), 2);
    }
}
