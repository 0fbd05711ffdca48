//! The `paygate` binary writes text from elsewhere with its control characters escaped: an
//! API that answers an error whose message carries escape sequences (as a hostile or
//! broken server, or a merchant endpoint's text relayed by one, could) reaches stderr as
//! `\u001b…`, never as the sequence itself.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::{
    io::{Read, Write},
    net::TcpListener,
    process::Command,
};

/// Answers one HTTP request with `status` and the JSON `body`, then closes.
fn answer_once(status: &str, body: &'static str) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let status = status.to_owned();
    std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut buf = [0u8; 8192];
        let _ = conn.read(&mut buf);
        let _ = write!(
            conn,
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
    });
    port
}

#[test]
fn an_error_message_with_escape_sequences_is_printed_escaped() {
    let port = answer_once(
        "500 Internal Server Error",
        r#"{"error":{"code":"boom","message":"\u001b[2J\u001b]0;pwned\u0007\rcleared \u009b31m\u202etxt"}}"#,
    );
    let out = Command::new(env!("CARGO_BIN_EXE_paygate"))
        .args([
            "--local",
            "--api-url",
            &format!("http://127.0.0.1:{port}"),
            "endpoints",
            "list",
        ])
        .env_remove("PAYGATE_MERCHANT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !err.chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "a control character reached the terminal: {err:?}"
    );
    assert!(
        err.contains(
            "HTTP 500 boom: \\u001b[2J\\u001b]0;pwned\\u0007\\u000dcleared \\u009b31m\\u202etxt"
        ),
        "{err}"
    );
}
