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
    // Not a bare "connection refused": where the CLI looks, and how to point it elsewhere.
    assert!(
        err.contains("nothing answers at http://127.0.0.1:9")
            && err.contains("PAYGATE_PORT")
            && err.contains("--api-url"),
        "{err}"
    );
}

/// `PAYGATE_LOCAL` takes the usual boolean spellings in any case (clap's own bool parser
/// took only `true`/`false`, so `PAYGATE_LOCAL=1` was refused before anything ran): a true
/// one acts as `--local` (the seed's first merchant, signed with its credentials), a false
/// one as no flag (no merchant given: a usage error, after the AWS chain's credentials).
#[test]
fn paygate_local_takes_the_usual_boolean_spellings() {
    let run = |value: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_paygate"))
            .args(["--api-url", "http://127.0.0.1:9", "endpoints", "list"])
            .env("PAYGATE_LOCAL", value)
            .env_remove("PAYGATE_MERCHANT")
            .env("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
            .env("AWS_SECRET_ACCESS_KEY", "example")
            .env("AWS_REGION", "us-east-1")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    for yes in ["1", "true", "TRUE", "yes", "Yes", "on", "ON"] {
        let err = run(yes);
        assert!(
            err.starts_with("error: GET http://127.0.0.1:9/admin/v1/merchants/mch_anatolia/"),
            "PAYGATE_LOCAL={yes}: {err}"
        );
    }
    for no in ["0", "false", "False", "no", "NO", "off", "Off"] {
        let err = run(no);
        assert!(err.contains("no merchant"), "PAYGATE_LOCAL={no}: {err}");
    }
    assert!(run("maybe").contains("invalid value"));
}
