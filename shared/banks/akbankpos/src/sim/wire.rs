//! The simulator's wire checks: a JSON object of the protocol, its terminal known, its
//! `auth-hash` right for that terminal's secret key, `version`, `requestDateTime` and
//! `randomNumber` well-formed. Anything else is HTTP 400 with `{code, message}` (the bank's
//! validation answer), so nothing is applied.

use serde_json::Value;

use super::SimTerminal;
use crate::{hash, request::VERSION, response::text};

/// Why a request was refused before processing (HTTP 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

/// Reads and authenticates a request; returns the terminal and the document.
pub fn read_request<'a>(
    terminals: &'a [SimTerminal],
    auth_hash: Option<&str>,
    body: &[u8],
) -> Result<(&'a SimTerminal, Value), WireError> {
    let (t, v) = authenticate(terminals, auth_hash, body)?;
    if text(&v, &["version"]) != VERSION {
        return Err(WireError("version".into()));
    }
    if !well_formed_date(&text(&v, &["requestDateTime"])) {
        return Err(WireError("VPS-1073 requestDateTime".into()));
    }
    random_number(&v)?;
    Ok((t, v))
}

/// Reads and authenticates a report request (`terminal`, `randomNumber`,
/// `report{startDateTime, endDateTime}`, no `version` nor `txnCode`); returns the terminal,
/// the document and the range, at most a day long.
pub fn read_report<'a>(
    terminals: &'a [SimTerminal],
    auth_hash: Option<&str>,
    body: &[u8],
) -> Result<(&'a SimTerminal, Value, Range), WireError> {
    let (t, v) = authenticate(terminals, auth_hash, body)?;
    random_number(&v)?;
    let at = |key: &str| {
        let s = text(&v, &["report", key]);
        if !well_formed_date(&s) {
            return None;
        }
        time::PrimitiveDateTime::parse(&s, DATE_TIME).ok()
    };
    let (Some(start), Some(end)) = (at("startDateTime"), at("endDateTime")) else {
        return Err(WireError("VPS-1073 report dates".into()));
    };
    if end < start || end - start > time::Duration::days(1) {
        return Err(WireError("the report range must be at most one day".into()));
    }
    Ok((t, v, Range { start, end }))
}

/// A report's range (Istanbul time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub start: time::PrimitiveDateTime,
    pub end: time::PrimitiveDateTime,
}

const DATE_TIME: &[time::format_description::BorrowedFormatItem<'static>] = time::macros::format_description!(
    "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]"
);

fn random_number(v: &Value) -> Result<(), WireError> {
    let random = text(v, &["randomNumber"]);
    if random.len() != 128 || !random.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(WireError("randomNumber".into()));
    }
    Ok(())
}

/// The document, if its terminal is known and its `auth-hash` right for that terminal.
fn authenticate<'a>(
    terminals: &'a [SimTerminal],
    auth_hash: Option<&str>,
    body: &[u8],
) -> Result<(&'a SimTerminal, Value), WireError> {
    let v: Value =
        serde_json::from_slice(body).map_err(|_| WireError("body is not JSON".into()))?;
    let merchant = text(&v, &["terminal", "merchantSafeId"]);
    let terminal_id = text(&v, &["terminal", "terminalSafeId"]);
    let t = terminals
        .iter()
        .find(|t| t.merchant_safe_id == merchant && t.terminal_safe_id == terminal_id)
        .ok_or_else(|| WireError("unknown terminal".into()))?;
    let Some(given) = auth_hash else {
        return Err(WireError("auth-hash missing".into()));
    };
    if !hash::verify(t.secret_key.as_str(), body, given) {
        return Err(WireError("auth-hash does not match the body".into()));
    }
    Ok((t, v))
}

/// `YYYY-MM-DDTHH:MM:SS.mmm`.
fn well_formed_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 23
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            _ => c.is_ascii_digit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert!(well_formed_date("2024-04-20T13:48:02.000"));
        assert!(!well_formed_date("2024-04-20 13:48:02.000"));
        assert!(!well_formed_date("2024-04-20T13:48:02"));
    }
}
