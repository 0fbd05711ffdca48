#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Smoke test of the built `paygate` binary (everything else runs through the library;
//! `verify` through the binary is in tests/verify.rs).

use std::process::Command;

#[test]
fn help_lists_every_command() {
    let out = Command::new(env!("CARGO_BIN_EXE_paygate"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for cmd in [
        "endpoints",
        "deliveries",
        "test-event",
        "trigger",
        "listen",
        "verify",
    ] {
        assert!(help.contains(cmd), "{cmd} missing from:\n{help}");
    }
    for flag in [
        "--api-url",
        "--merchant",
        "--region",
        "--api-key",
        "--json",
        "--local",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}

#[test]
fn an_unreachable_api_is_an_error_exit() {
    let out = Command::new(env!("CARGO_BIN_EXE_paygate"))
        .args([
            "--local",
            "--api-url",
            "http://127.0.0.1:9",
            "endpoints",
            "list",
        ])
        .env_remove("PAYGATE_MERCHANT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(
            "error: GET http://127.0.0.1:9/admin/v1/merchants/mch_anatolia/webhook-endpoints"
        ),
        "{err}"
    );
}
