//! What reaches the terminal: every byte the CLI writes (stdout and stderr, see `main.rs`)
//! goes through [`Escaped`], which writes control characters as `\uXXXX` instead of
//! sending them. Much of what the CLI prints comes from elsewhere: a merchant endpoint's
//! response body, an endpoint's URL and description, the API's error messages, a webhook
//! received by `listen`. An escape sequence in any of them (ESC `[2J`, a window-title or
//! hyperlink OSC, a carriage return that overwrites the line, a bidi override) could
//! otherwise rewrite what the terminal shows or act on it.
//!
//! Kept as they are: `\n`, `\t`, and `\r` right before `\n` (a CRLF line end moves to the
//! next line and overwrites nothing; the reconciliation CSV, RFC 4180, ends its lines so,
//! and `reconciliations --csv` prints it unchanged). Escaped: every other C0 control, DEL,
//! the C1 controls (U+0080–U+009F; U+009B is a one-character CSI on some terminals) and the
//! bidirectional formatting characters (U+202A–U+202E, U+2066–U+2069). `\uXXXX` is also a
//! valid escape in a JSON string, so `--json` output stays JSON with the same content (its
//! own encoder already escapes the C0 controls; DEL, C1 and bidi would pass raw).

use std::io::{self, Write};

/// Whether `c` is written as `\uXXXX`.
pub fn escaped(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every [`escaped`] character as `\uXXXX` (but a CR of a CRLF).
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if escaped(c) && !(c == '\r' && chars.peek() == Some(&'\n')) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// A writer that passes text through [`clean`]. Bytes are held back only while a UTF-8
/// character is incomplete; bytes that are not UTF-8 are written as U+FFFD.
pub struct Escaped<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> Escaped<W> {
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            pending: Vec::new(),
        }
    }

    /// Writes out what is complete in `pending`.
    fn drain(&mut self, at_end: bool) -> io::Result<()> {
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(text) => {
                    // A CR at the end may start a CRLF: held back for the next write.
                    let held = usize::from(!at_end && text.ends_with('\r'));
                    let cut = self.pending.len() - held;
                    let text = clean(&text[..cut]);
                    self.pending.drain(..cut);
                    return self.inner.write_all(text.as_bytes());
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    // `valid` bytes are UTF-8 by the error's own account.
                    let text = clean(&String::from_utf8_lossy(&self.pending[..valid]));
                    self.inner.write_all(text.as_bytes())?;
                    match e.error_len() {
                        Some(bad) => {
                            self.inner.write_all("\u{fffd}".as_bytes())?;
                            self.pending.drain(..valid + bad);
                        }
                        None if at_end => {
                            self.inner.write_all("\u{fffd}".as_bytes())?;
                            self.pending.clear();
                            return Ok(());
                        }
                        None => {
                            self.pending.drain(..valid);
                            return Ok(());
                        }
                    }
                }
            }
        }
    }
}

impl<W: Write> Write for Escaped<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        self.drain(false)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for Escaped<W> {
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            let _ = self.drain(true);
            let _ = self.inner.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::{Attempt, Delivery, DeliveryDetail};

    fn through(chunks: &[&[u8]]) -> String {
        let mut out = Vec::new();
        {
            let mut w = Escaped::new(&mut out);
            for c in chunks {
                w.write_all(c).unwrap();
            }
            w.flush().unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn control_characters_are_escaped_newlines_and_tabs_kept() {
        for (given, want) in [
            ("plain text: çğış €\n", "plain text: çğış €\n"),
            ("a\tb\nc", "a\tb\nc"),
            ("\x1b[2J\x1b[31mred", "\\u001b[2J\\u001b[31mred"),
            ("ok\rFAKE", "ok\\u000dFAKE"),
            ("\x1b]0;title\x07", "\\u001b]0;title\\u0007"),
            ("bell\x07del\x7f nul\0", "bell\\u0007del\\u007f nul\\u0000"),
            ("\u{9b}31m", "\\u009b31m"),
            ("abc\u{202e}txt.exe", "abc\\u202etxt.exe"),
            ("\u{2066}x\u{2069}", "\\u2066x\\u2069"),
        ] {
            assert_eq!(through(&[given.as_bytes()]), want, "{given:?}");
            assert_eq!(clean(given), want);
        }
    }

    #[test]
    fn a_character_split_across_writes_is_kept_and_bad_bytes_replaced() {
        let c1 = "\u{9b}".as_bytes(); // 0xC2 0x9B
        assert_eq!(through(&[b"x", &c1[..1], &c1[1..], b"y"]), "x\\u009by");
        let euro = "€".as_bytes();
        assert_eq!(through(&[&euro[..2], &euro[2..]]), "€");
        assert_eq!(through(&[b"a\xffb"]), "a\u{fffd}b");
        // an incomplete character at the end is not lost silently
        assert_eq!(through(&[b"a", &euro[..2]]), "a\u{fffd}");
    }

    #[test]
    fn crlf_line_ends_are_kept_a_lone_cr_escaped() {
        let csv = "date,orderId\r\n2026-11-26,\"a\r\nb\"\r\n";
        assert_eq!(through(&[csv.as_bytes()]), csv);
        assert_eq!(clean(csv), csv);
        assert_eq!(through(&[b"a\r", b"\nb\r", b"\r\n"]), "a\r\nb\\u000d\r\n");
        assert_eq!(through(&[b"ok\r", b"FAKE"]), "ok\\u000dFAKE");
        assert_eq!(through(&[b"end\r"]), "end\\u000d");
    }

    #[test]
    fn json_stays_json_with_the_same_strings() {
        let v = serde_json::json!({"body": "\u{7f}\u{9b}\u{202e}\x1b ok"});
        let text = through(&[crate::output::json(&v).as_bytes()]);
        assert!(!text.contains('\u{1b}') && !text.contains('\u{9b}'));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), v);
    }

    #[test]
    fn a_merchant_response_body_cannot_drive_the_terminal() {
        // GIVEN an attempt whose endpoint answered with escape sequences
        let delivery: Delivery = serde_json::from_value(serde_json::json!({
            "id": "dlv_1", "endpointId": "whe_1", "eventId": "evt_1",
            "eventType": "payment.captured", "mode": "test", "status": "failed",
            "attemptCount": 1, "createdAt": "2026-01-01T00:00:00Z"
        }))
        .unwrap();
        let attempt: Attempt = serde_json::from_value(serde_json::json!({
            "number": 1, "at": "2026-01-01T00:00:01Z", "statusCode": 500, "succeeded": false,
            "durationMs": 12, "responseBody": "\x1b]8;;https://evil.example\x07click\x1b[2J\rok"
        }))
        .unwrap();
        let shown = crate::output::delivery_detail(&DeliveryDetail {
            delivery,
            attempts: vec![attempt],
        });
        // WHEN it is printed THEN no control character reaches the terminal
        let printed = through(&[shown.as_bytes()]);
        assert!(
            !printed
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{printed:?}"
        );
        assert!(
            printed.contains("\\u001b]8;;https://evil.example\\u0007click\\u001b[2J"),
            "{printed}"
        );
    }
}
