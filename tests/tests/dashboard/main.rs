//! The dashboard in a real browser: a local stack, `paygate dashboard` (`--local`) over
//! it, and a merchant's HTTPS receiver (`/ok` answers 200; `/fail` and `/down` answer 500
//! twice, then 200), all on free ports; then `tests/browser/dashboard.py` drives the page in
//! Debian's headless Chromium with Playwright (see the script for its scenarios; the page
//! is opened through the printed one-time launch link, which a second browser may not
//! reuse; a past business day is reconciled first, for the reconciliation page, and a
//! refund declined, for the payment page) and must
//! pass. Afterwards the receiver must have seen what the page did (the
//! resend, the recovered delivery), and the API keys the page issued must work, or not, on
//! the merchant API as their status says (the rolled one until its expiry, the revoked one
//! never).
//!
//! Needs `/usr/bin/chromium` and `.venv/pw` (Playwright): `bash scripts/chromium.sh`, which
//! `make test` runs first. With `PAYGATE_DASHBOARD_SHOTS=<dir>` the script also writes the
//! screenshots of docs/operations.md there (`make dashboard-screenshots`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::{path::PathBuf, process::Stdio, time::Duration};

use clap::Parser;
use paygate_domain::webhook::RetrySchedule;
use paygate_tests::{
    receiver::{Answer, Receiver},
    Stack, WebhookOptions,
};

/// The repository root (this crate is `tests/`).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The day the stack reconciles before the page is opened (a past day: clean, empty reports).
const RECONCILED_DAY: &str = "2026-01-15";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_works_in_headless_chromium() {
    let python = root().join(".venv/pw/bin/python");
    let chromium = PathBuf::from("/usr/bin/chromium");
    assert!(
        python.is_file() && chromium.is_file(),
        "the browser test needs {} and {}: run `bash scripts/chromium.sh` (make test does)",
        chromium.display(),
        python.display()
    );

    // GIVEN a receiver, and a stack that reaches it, retrying once after 1 s
    let rx = Receiver::start().await;
    rx.script("/fail", [Answer::Status(500), Answer::Status(500)]);
    rx.script("/down", [Answer::Status(500), Answer::Status(500)]);
    let stack = Stack::start_with_webhooks(
        "dash",
        WebhookOptions {
            sender: rx.sender_config(Duration::from_secs(2)),
            schedule: RetrySchedule::parse("1s").expect("a retry schedule"),
            sweep_every: Duration::from_secs(1),
            sweep_grace: Duration::from_secs(10),
            idle_poll: Duration::from_millis(100),
            secret_cache_ttl: Duration::ZERO,
        },
    )
    .await;

    // AND a business day the stack has reconciled (a report per account of the merchant)
    let day = paygate_domain::daily::BusinessDay::parse(RECONCILED_DAY).expect("a date");
    stack
        .server()
        .reconcile_day(day)
        .await
        .expect("the day is reconciled");

    // AND a captured payment of the page's merchant whose refund of 5100 the bank declined
    // (the simulator's trigger amount: code 51), for the payment page
    let declined = stack
        .payment_in(paygate_tests::keys().anatolia_test, "captured", 20_000)
        .await;
    let reply = stack
        .op(
            paygate_tests::keys().anatolia_test,
            &declined,
            "refund",
            serde_json::json!({ "amount": 5100 }),
        )
        .await;
    paygate_tests::expect_error(&reply, 422, "provider_declined");

    // AND `paygate --local --api-url <stack> dashboard --port 0`, as `make dashboard` runs it
    let seed = root().join("infra/local/seed.json");
    let cli = paygate_cli::Cli::try_parse_from([
        "paygate",
        "--local",
        "--seed",
        seed.to_str().expect("a UTF-8 path"),
        "--api-url",
        &stack.url,
        "dashboard",
        "--port",
        "0",
    ])
    .expect("the command line parses");
    let ctx = paygate_cli::config::context(&cli.global, true)
        .await
        .expect("the local context");
    let (listener, dashboard) = paygate_cli::dashboard::bind(&ctx, 0)
        .await
        .expect("the dashboard binds");
    let port = listener.local_addr().expect("an address").port();
    let launch =
        paygate_cli::dashboard::launch_url(&dashboard, port).expect("an unspent launch link");
    let server = tokio::spawn(paygate_cli::dashboard::server::serve(
        listener,
        dashboard,
        std::future::pending(),
    ));

    // WHEN the browser script drives the page (writing the API keys it issued to a file)
    let keys_out = std::env::temp_dir().join(format!(
        "paygate-dashboard-keys-{}-{port}.json",
        std::process::id()
    ));
    let mut cmd = tokio::process::Command::new(&python);
    cmd.arg(root().join("tests/browser/dashboard.py"))
        .arg("--url")
        .arg(format!("http://127.0.0.1:{port}/"))
        .arg("--launch-url")
        .arg(&launch)
        .arg("--ok-url")
        .arg(rx.url("/ok"))
        .arg("--fail-url")
        .arg(rx.url("/fail"))
        .arg("--down-url")
        .arg(rx.url("/down"))
        .arg("--keys-out")
        .arg(&keys_out)
        .arg("--reconciled-day")
        .arg(RECONCILED_DAY)
        .arg("--declined-payment")
        .arg(&declined)
        .arg("--chromium")
        .arg(&chromium)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(dir) = std::env::var_os("PAYGATE_DASHBOARD_SHOTS") {
        std::fs::create_dir_all(&dir).expect("the screenshot directory");
        cmd.arg("--shots").arg(dir);
    }
    let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
        .await
        .expect("the browser test ends within 2 minutes")
        .expect("python starts");
    server.abort();

    // THEN every scenario passed
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the browser test failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("dashboard browser test: passed"),
        "{stdout}"
    );
    // AND the receiver saw what the page did: one test event at /ok; at /fail two failures,
    // then the resent attempt; at /down two failures, then the attempt recover requested
    assert_eq!(rx.hooks_to("/ok").len(), 1);
    for path in ["/fail", "/down"] {
        let hooks: Vec<_> = rx.hooks_to(path);
        assert_eq!(
            hooks.len(),
            3,
            "{path}: two failures, then the resent attempt"
        );
        assert!(
            hooks
                .iter()
                .all(|h| h.header("x-svc-delivery") == hooks[0].header("x-svc-delivery")),
            "{path}: one delivery"
        );
    }

    // AND the keys the page issued act as listed: the rolled (expiring) key still works on
    // the merchant API, the revoked one is refused
    let keys: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&keys_out).expect("the script wrote the keys"))
            .expect("JSON");
    std::fs::remove_file(&keys_out).expect("the keys file is removed");
    let expiring = keys["expiring"].as_str().expect("the rolled key");
    let revoked = keys["revoked"].as_str().expect("the revoked key");
    let payment = stack
        .create_payment(
            expiring,
            serde_json::json!({"amount": 1000, "currency": "TRY", "status": "authorized"}),
        )
        .await;
    assert_eq!(
        stack
            .get(&format!("/v1/payments/{payment}"), expiring)
            .await
            .0,
        paygate_tests::StatusCode::OK
    );
    assert_eq!(
        stack
            .get(&format!("/v1/payments/{payment}"), revoked)
            .await
            .0,
        paygate_tests::StatusCode::UNAUTHORIZED
    );
}
