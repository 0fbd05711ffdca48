#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `paygate verify`, through `run` and through the built binary.
//!
//! Vector (Python: `hmac.new(b"whsec_test_secret", b'1795251600.{"id":"evt_1"}',
//! hashlib.sha256).hexdigest()`):
//! `9fddb03c75e8a1313684350726eb113b1ab3ea946febffb295c82d8d02f27590`.

use std::{
    io::Write,
    process::{Command, Stdio},
};

use clap::Parser;
use paygate_cli::{run, run_verify, Cli, EXIT_INVALID, EXIT_OK, EXIT_USAGE};
use paygate_webhooks::signature::VerifyError;

const SECRET: &str = "whsec_test_secret";
const T: i64 = 1_795_251_600;
const BODY: &[u8] = br#"{"id":"evt_1"}"#;
const HEADER: &str =
    "t=1795251600,v1=9fddb03c75e8a1313684350726eb113b1ab3ea946febffb295c82d8d02f27590";

fn verify_args(extra: &[&str]) -> paygate_cli::VerifyArgs {
    let mut argv = vec!["paygate", "verify", "--secret", SECRET, "--header", HEADER];
    argv.extend_from_slice(extra);
    match Cli::try_parse_from(argv).unwrap().command {
        paygate_cli::Command::Verify(a) => a,
        other => panic!("not verify: {other:?}"),
    }
}

/// Runs `argv` with `stdin`; the clock says `clock_now`.
fn run_with(argv: &[&str], stdin: &[u8], clock_now: i64) -> (u8, String, String) {
    let cli = Cli::try_parse_from(argv).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run(cli, stdin, || clock_now, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn run_verify_accepts_the_fixed_vector() {
    assert_eq!(run_verify(&verify_args(&[]), BODY, T + 10), Ok(()));
}

#[test]
fn run_verify_uses_now_and_tolerance_flags() {
    let args = verify_args(&["--now", "1795251700", "--tolerance", "50"]);
    assert!(matches!(
        run_verify(&args, BODY, T),
        Err(VerifyError::TimestampOutsideTolerance { .. })
    ));
    let args = verify_args(&["--now", "1795251700", "--tolerance", "100"]);
    assert_eq!(run_verify(&args, BODY, 0), Ok(()));
}

#[test]
fn body_from_stdin_prints_ok() {
    let (code, out, err) = run_with(
        &["paygate", "verify", "--secret", SECRET, "--header", HEADER],
        BODY,
        T,
    );
    assert_eq!((code, out.as_str()), (EXIT_OK, "ok\n"));
    // `--secret` on the command line: the one line on stderr is the warning
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("warning:") && err.contains("PAYGATE_WEBHOOK_SECRET"));
}

#[test]
fn rotation_any_secret_matches() {
    let (code, out, _) = run_with(
        &[
            "paygate",
            "verify",
            "--secret",
            "whsec_new",
            "--secret",
            SECRET,
            "--header",
            HEADER,
        ],
        BODY,
        T,
    );
    assert_eq!((code, out.as_str()), (EXIT_OK, "ok\n"));
}

#[test]
fn tampered_body_is_invalid() {
    let (code, out, err) = run_with(
        &["paygate", "verify", "--secret", SECRET, "--header", HEADER],
        br#"{"id":"evt_2"}"#,
        T,
    );
    assert_eq!(code, EXIT_INVALID);
    assert_eq!(out, "");
    assert!(err.contains("no signature matches"), "{err}");
    assert!(!err.contains(SECRET));
}

#[test]
fn stale_by_the_clock_is_invalid() {
    let (code, _, err) = run_with(
        &["paygate", "verify", "--secret", SECRET, "--header", HEADER],
        BODY,
        T + 301,
    );
    assert_eq!(code, EXIT_INVALID);
    assert!(err.contains("outside the tolerance"), "{err}");
}

#[test]
fn malformed_header_is_invalid() {
    let (code, _, err) = run_with(
        &[
            "paygate", "verify", "--secret", SECRET, "--header", "v1=abc",
        ],
        BODY,
        T,
    );
    assert_eq!(code, EXIT_INVALID);
    assert!(err.contains("malformed"), "{err}");
}

#[test]
fn body_file_and_missing_file() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("paygate-cli-body.json");
    std::fs::write(&path, BODY).unwrap();
    let p = path.to_str().unwrap();
    let argv = [
        "paygate",
        "verify",
        "--secret",
        SECRET,
        "--header",
        HEADER,
        "--body-file",
        p,
    ];
    assert_eq!(run_with(&argv, b"ignored", T).0, EXIT_OK);

    let missing = dir.join("paygate-cli-no-such-file");
    let m = missing.to_str().unwrap();
    let argv = [
        "paygate",
        "verify",
        "--secret",
        SECRET,
        "--header",
        HEADER,
        "--body-file",
        m,
    ];
    let (code, _, err) = run_with(&argv, b"", T);
    assert_eq!(code, EXIT_USAGE);
    assert!(err.contains("cannot read the body"), "{err}");
}

#[test]
fn usage_errors() {
    assert!(Cli::try_parse_from(["paygate", "verify", "--secret", SECRET]).is_err());
    assert!(Cli::try_parse_from([
        "paygate",
        "verify",
        "--secret",
        SECRET,
        "--header",
        HEADER,
        "--tolerance",
        "-1"
    ])
    .is_err());
}

#[test]
fn the_built_binary_verifies_the_fixed_vector() {
    let bin = env!("CARGO_BIN_EXE_paygate");
    let check = |body: &[u8]| {
        let mut child = Command::new(bin)
            .args([
                "verify",
                "--secret",
                SECRET,
                "--header",
                HEADER,
                "--now",
                "1795251600",
            ])
            .env_remove("PAYGATE_WEBHOOK_SECRET")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(body).unwrap();
        child.wait_with_output().unwrap()
    };
    let good = check(BODY);
    assert!(good.status.success());
    assert_eq!(good.stdout, b"ok\n");

    let bad = check(b"{}");
    assert_eq!(bad.status.code(), Some(i32::from(EXIT_INVALID)));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("invalid"));
}

#[test]
fn the_built_binary_reads_the_secret_from_the_environment() {
    let out = Command::new(env!("CARGO_BIN_EXE_paygate"))
        .args(["verify", "--header", HEADER, "--now", "1795251600"])
        .env("PAYGATE_WEBHOOK_SECRET", SECRET)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(BODY)?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success());
}

#[test]
fn a_secret_on_the_command_line_still_works_but_warns() {
    let (code, out, err) = run_with(
        &[
            "paygate",
            "verify",
            "--secret",
            SECRET,
            "--header",
            HEADER,
            "--now",
            "1795251600",
        ],
        BODY,
        0,
    );
    assert_eq!((code, out.as_str()), (EXIT_OK, "ok\n"));
    assert!(err.contains("PAYGATE_WEBHOOK_SECRET"), "{err}");
    assert!(
        !err.contains(SECRET),
        "the warning never repeats the secret"
    );
}

#[test]
fn the_built_binary_takes_both_secrets_of_a_rotation_from_the_environment_without_a_warning() {
    let out = Command::new(env!("CARGO_BIN_EXE_paygate"))
        .args(["verify", "--header", HEADER, "--now", "1795251600"])
        .env("PAYGATE_WEBHOOK_SECRET", format!("whsec_new_one,{SECRET}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(BODY)?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Without a secret, `verify` names `PAYGATE_WEBHOOK_SECRET`, never its hidden flag
/// (`--secret-from-env`) nor the deprecated `--secret`, in its error, usage and help (clap
/// refused it before, naming both flags).
#[test]
fn a_missing_secret_names_the_environment_variable() {
    let bin = env!("CARGO_BIN_EXE_paygate");
    let out = Command::new(bin)
        .args(["verify", "--header", HEADER])
        .env_remove("PAYGATE_WEBHOOK_SECRET")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(i32::from(EXIT_USAGE)));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("set PAYGATE_WEBHOOK_SECRET=whsec_"), "{err}");
    assert!(
        !err.contains("secret-from-env") && !err.contains("--secret"),
        "{err}"
    );
    let help = Command::new(bin)
        .args(["verify", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("PAYGATE_WEBHOOK_SECRET"), "{help}");
    assert!(!help.contains("secret-from-env"), "{help}");
}
