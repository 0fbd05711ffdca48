#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The CLI against the real local stack, in-process: the dev server (the same handlers,
//! admin API with its SigV4 check, and webhook pipeline `make dev` runs) over this
//! binary's moto server, its sender allowed to reach 127.0.0.1 and trusting the `listen`
//! certificate, retries compressed to 1 s.
//!
//! One scenario, driven through the CLI's own command line model and library (`--local`,
//! so signed with the seed's admin credentials): create an endpoint (the secret shown
//! once) at a `listen` receiver → trigger a capture → the receiver gets the event,
//! verified → `deliveries list/show` show the delivery and its attempt → the receiver
//! fails, so a second delivery fails after its retries → `deliveries resend` → a new
//! attempt under the same delivery id succeeds. Then a test event, a rotation, and the
//! `listen` command itself (register, print verified events, delete on shutdown).
//!
//! [`docs`]: every shell block the README and `docs/*.md` mark runnable, run through bash
//! against such a stack (the `paygate` binary on the PATH), each output compared with the
//! one the docs show.

mod docs;
mod support;

use std::path::Path;

use paygate_cli::{
    client::system_now,
    config,
    listen::{ensure_cert, CertPaths, Receiver},
    run_async,
};
use support::{
    cert_dir, cli, delivery_when, field, next_event, run, run_err, start_stack, until, word,
    SharedBuf,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn create_trigger_see_fail_and_resend_through_the_cli() {
    let dir = cert_dir();
    let _ = std::fs::remove_dir_all(&dir);
    let paths = CertPaths::in_dir(&dir);
    assert!(ensure_cert(&paths).unwrap(), "a fresh certificate");
    let stack = start_stack(std::fs::read(&paths.cert).unwrap()).await;
    let url = stack.url.clone();
    let ctx = config::context(&cli(&url, &["endpoints", "list"]).global, true)
        .await
        .unwrap();
    let mut rx = Receiver::start(&paths, 0, system_now).await.unwrap();

    // Create: the secret is shown this once, with the warning.
    let created = run(
        &url,
        &[
            "endpoints",
            "create",
            "--url",
            &rx.url(),
            "--events",
            "payment.captured",
            "--mode",
            "test",
            "--description",
            "cli e2e",
        ],
    )
    .await;
    assert!(created.contains("will not be shown again"), "{created}");
    let endpoint = field(&created, "id");
    let secret = field(&created, "secret");
    assert!(
        endpoint.starts_with("whe_") && secret.starts_with("whsec_"),
        "{created}"
    );
    rx.set_secret(&secret);
    let listed = run(&url, &["endpoints", "list"]).await;
    assert!(
        listed.contains(&endpoint) && listed.contains("cli e2e"),
        "{listed}"
    );
    assert!(
        !listed.contains("whsec_"),
        "a list never shows secrets: {listed}"
    );

    // Trigger a capture: the receiver gets the event, signed with the secret.
    let triggered = run(&url, &["trigger", "payment.captured"]).await;
    assert!(triggered.contains("capture  -> captured"), "{triggered}");
    assert!(
        triggered.contains("expected event: payment.captured"),
        "{triggered}"
    );
    let payment = word(&triggered, "pay_");
    let got = next_event(&mut rx, |e| e.event_type == "payment.captured").await;
    assert!(got.verified(), "{:?}", got.verdict);
    let body: serde_json::Value = serde_json::from_slice(&got.body).unwrap();
    assert_eq!(body["data"]["id"], payment.as_str());
    let first = got.delivery_id.clone();
    assert!(first.starts_with("dlv_"));
    assert!(paygate_cli::commands::listen::event_line(&got).ends_with("verified"));

    // The delivery and its attempt.
    delivery_when(&ctx, &first, |d| d.delivery.status == "succeeded").await;
    // (The history listing is eventually consistent: poll.)
    until("the history lists the delivery", || async {
        let listed = run(&url, &["deliveries", "list", "--endpoint", &endpoint]).await;
        (listed.contains(&first) && listed.contains("succeeded")).then_some(())
    })
    .await;
    let shown = run(&url, &["deliveries", "show", &first]).await;
    assert!(
        shown.contains("HTTP 200") && shown.contains("paygate listen answered 200"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("event     payment.captured {}", got.event_id)),
        "{shown}"
    );
    assert!(shown.contains("next attempt: none\n"), "{shown}");
    let by_event = run(&url, &["deliveries", "list", "--event", &got.event_id]).await;
    assert!(by_event.contains(&first), "{by_event}");

    // The receiver fails: the next capture's delivery fails after attempt 1 and 2 retries.
    rx.set_answer(500);
    run(&url, &["trigger", "payment.captured"]).await;
    let failing = next_event(&mut rx, |e| e.event_type == "payment.captured").await;
    let second = failing.delivery_id.clone();
    assert_ne!(second, first);
    let failed = delivery_when(&ctx, &second, |d| d.delivery.status == "failed").await;
    assert_eq!(failed.attempts.len(), 3);
    assert!(failed
        .attempts
        .iter()
        .all(|a| a.status_code == Some(500) && !a.succeeded));
    let shown = run(&url, &["deliveries", "show", &second]).await;
    assert_eq!(shown.matches("HTTP 500").count(), 3, "{shown}");
    assert!(shown.contains("next attempt: none (failed"), "{shown}");
    until(
        "the failed filter lists only the failed delivery",
        || async {
            let args = [
                "deliveries",
                "list",
                "--endpoint",
                &endpoint,
                "--status",
                "failed",
            ];
            let only_failed = run(&url, &args).await;
            (only_failed.contains(&second) && !only_failed.contains(&first)).then_some(())
        },
    )
    .await;

    // Resend: a fourth attempt, same delivery id, and it succeeds.
    rx.set_answer(200);
    let resent = run(&url, &["deliveries", "resend", &second]).await;
    assert!(
        resent.contains(&format!("resent: delivery {second}")),
        "{resent}"
    );
    let again = next_event(&mut rx, |e| e.delivery_id == second && e.answered == 200).await;
    assert!(again.verified());
    assert_eq!(again.event_id, failing.event_id);
    let done = delivery_when(&ctx, &second, |d| d.delivery.status == "succeeded").await;
    assert_eq!(done.attempts.len(), 4);
    assert_eq!(
        (done.attempts[3].number, done.attempts[3].status_code),
        (4, Some(200))
    );
    let err = run_err(&url, &["deliveries", "resend", "dlv_doesNotExist"]).await;
    assert_eq!(err.api_status(), Some(404), "{err}");

    // A test event, then a rotation without grace: the new secret verifies.
    let sent = run(&url, &["test-event", &endpoint]).await;
    let test_delivery = word(&sent, "dlv_");
    let test = next_event(&mut rx, |e| e.delivery_id == test_delivery).await;
    assert_eq!(test.event_type, "webhook.test");
    assert!(test.verified());
    let rotated = run(&url, &["endpoints", "rotate", &endpoint, "--grace", "0"]).await;
    let new_secret = field(&rotated, "new secret");
    assert!(
        new_secret.starts_with("whsec_") && new_secret != secret,
        "{rotated}"
    );
    assert!(rotated.contains("stopped signing now"), "{rotated}");
    let sent = run(&url, &["test-event", &endpoint]).await;
    let test_delivery = word(&sent, "dlv_");
    let stale = next_event(&mut rx, |e| e.delivery_id == test_delivery).await;
    assert!(!stale.verified(), "the old secret no longer verifies");
    rx.set_secret(&new_secret);
    run(&url, &["test-event", &endpoint]).await;
    assert!(next_event(&mut rx, |e| e.event_type == "webhook.test")
        .await
        .verified());

    let deleted = run(&url, &["endpoints", "delete", &endpoint]).await;
    assert_eq!(deleted, format!("deleted {endpoint}\n"));
    let json = run(&url, &["endpoints", "list", "--json"]).await;
    let list: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(list["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["id"] != endpoint.as_str()));
    drop(rx);

    listen_registers_prints_and_cleans_up(&url, &dir).await;
    the_readme_walkthrough(&url, &dir).await;
}

/// `reconciliations` over a day the stack reconciled (every account of the merchant has a
/// report) and a day it did not: the tables, `--json`, and `--csv` as the API wrote it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconciliations_show_a_reconciled_day_and_its_csv() {
    let dir = cert_dir().with_extension("reconciliations");
    let _ = std::fs::remove_dir_all(&dir);
    let paths = CertPaths::in_dir(&dir);
    ensure_cert(&paths).unwrap();
    let stack = start_stack(std::fs::read(&paths.cert).unwrap()).await;
    let url = stack.url.clone();
    let day = paygate_domain::daily::BusinessDay::parse("2026-01-15").unwrap();
    let done = stack.reconcile_day(day).await.unwrap();
    assert!(
        done.clean + done.mismatched + done.incomplete > 0,
        "{done:?}"
    );

    let json = run(&url, &["reconciliations", "--date", "2026-01-15", "--json"]).await;
    let answer: serde_json::Value = serde_json::from_str(&json).unwrap();
    let reports = answer["data"].as_array().unwrap();
    assert!(!reports.is_empty(), "{json}");
    let shown = run(&url, &["reconciliations", "--date", "2026-01-15"]).await;
    assert!(
        shown.starts_with("reconciliation of 2026-01-15\n\nACCOUNT  "),
        "{shown}"
    );
    for r in reports {
        let (account, status) = (
            r["accountId"].as_str().unwrap(),
            r["status"].as_str().unwrap(),
        );
        assert!(
            shown
                .lines()
                .any(|l| l.starts_with(account) && l.contains(status)),
            "{account} {status} in\n{shown}"
        );
    }

    let csv = run(&url, &["reconciliations", "--date", "2026-01-15", "--csv"]).await;
    let mut lines = csv.split("\r\n");
    assert_eq!(
        lines.next(),
        Some(paygate_domain::daily::CSV_HEADER),
        "{csv}"
    );
    assert!(csv.ends_with("\r\n"), "{csv:?}");
    // the binary's terminal writer passes it as it came
    assert_eq!(paygate_cli::output::terminal::clean(&csv), csv);
    assert_eq!(csv.matches("\r\n").count(), 1 + reports.len(), "{csv}");
    assert!(
        lines.all(|l| l.is_empty() || l.starts_with("2026-01-15,acc")),
        "{csv}"
    );

    let empty = run(&url, &["reconciliations", "--date", "2026-01-16"]).await;
    assert!(
        empty.starts_with("no reconciliation report for 2026-01-16 yet"),
        "{empty}"
    );
    let err = run_err(
        &url,
        &["reconciliations", "--date", "2026-01-16", "--csv", "--json"],
    )
    .await;
    assert!(err.to_string().contains("--csv and --json"), "{err}");
}

/// `paygate listen` itself: registers, prints a verified line per webhook, and deletes its
/// endpoint when shut down.
async fn listen_registers_prints_and_cleans_up(url: &str, dir: &Path) {
    let buf = SharedBuf::default();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let dir_arg = dir.to_str().unwrap();
    let listen_cli = cli(
        url,
        &[
            "listen",
            "--cert-dir",
            dir_arg,
            "--events",
            "payment.refunded,payment.authorized",
        ],
    );
    let listening = async {
        let mut w = buf.clone();
        run_async(&listen_cli, &mut w, async {
            let _ = stopped.await;
        })
        .await
    };
    let driver = async {
        let ready = until("listen registers", || async {
            let t = buf.text();
            t.contains("listening on").then_some(t)
        })
        .await;
        assert!(
            !ready.contains("created a self-signed certificate"),
            "the certificate is reused: {ready}"
        );
        let endpoint = word(&ready, "whe_");
        run(url, &["trigger", "payment.refunded"]).await;
        run(url, &["trigger", "payment.authorized"]).await;
        until("listen prints both events", || async {
            let t = buf.text();
            let printed = |ty: &str| t.lines().any(|l| l.contains(&format!("  {ty}  ")));
            (printed("payment.refunded") && printed("payment.authorized")).then_some(())
        })
        .await;
        let _ = stop.send(());
        endpoint
    };
    let (result, endpoint) = tokio::join!(listening, driver);
    result.unwrap();
    let out = buf.text();
    let lines: Vec<&str> = out.lines().filter(|l| l.contains("Z  payment.")).collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines
            .iter()
            .all(|l| l.ends_with("verified") && l.contains("evt_") && l.contains("dlv_")),
        "{out}"
    );
    assert!(
        out.contains(&format!("deleted endpoint {endpoint}")),
        "{out}"
    );
    let listed = run(url, &["endpoints", "list"]).await;
    assert!(!listed.contains(&endpoint), "{listed}");
}

/// The walkthrough of docs/cli.md: an endpoint nobody listens at yet, a capture whose delivery
/// fails (connection refused, every retry), then `listen --port --secret` attached to that
/// endpoint and a resend that arrives, verified, under the same delivery id.
async fn the_readme_walkthrough(url: &str, dir: &Path) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let at = format!("https://127.0.0.1:{port}/");
    let created = run(
        url,
        &[
            "endpoints",
            "create",
            "--url",
            &at,
            "--events",
            "payment.captured",
            "--mode",
            "test",
        ],
    )
    .await;
    let (endpoint, secret) = (field(&created, "id"), field(&created, "secret"));
    run(url, &["trigger", "payment.captured"]).await;
    let failed = until("a failed delivery", || async {
        let out = run(
            url,
            &[
                "deliveries",
                "list",
                "--endpoint",
                &endpoint,
                "--status",
                "failed",
            ],
        )
        .await;
        out.contains("dlv_").then(|| word(&out, "dlv_"))
    })
    .await;
    let shown = run(url, &["deliveries", "show", &failed]).await;
    assert_eq!(shown.matches("error: connection").count(), 3, "{shown}");

    let buf = SharedBuf::default();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let port_arg = port.to_string();
    let listen_cli = cli(
        url,
        &[
            "listen",
            "--cert-dir",
            dir.to_str().unwrap(),
            "--port",
            &port_arg,
            "--secret",
            &secret,
        ],
    );
    let listening = async {
        let mut w = buf.clone();
        run_async(&listen_cli, &mut w, async {
            let _ = stopped.await;
        })
        .await
    };
    let driver = async {
        until("listen starts", || async {
            buf.text().contains("listening on").then_some(())
        })
        .await;
        let resent = run(url, &["deliveries", "resend", &failed]).await;
        assert!(resent.contains(&failed), "{resent}");
        until("the resend arrives", || async {
            buf.text()
                .contains(&format!("{failed}  verified"))
                .then_some(())
        })
        .await;
        let _ = stop.send(());
    };
    let (result, ()) = tokio::join!(listening, driver);
    result.unwrap();
    let done = until("the resend is recorded", || async {
        let out = run(url, &["deliveries", "show", &failed]).await;
        out.contains("status    succeeded").then_some(out)
    })
    .await;
    assert!(done.contains("4  ") && done.contains("HTTP 200"), "{done}");
    let out = buf.text();
    assert!(
        out.contains("no endpoint registered") && !out.contains("deleted endpoint"),
        "{out}"
    );

    // Endpoint operations: health, and recover from an hour ago (everything succeeded by
    // now, so nothing is requested).
    let health = run(url, &["endpoints", "health", &endpoint]).await;
    assert!(
        health.contains("success rate (24h)") && health.contains("enabled"),
        "{health}"
    );
    let since = {
        let ms = system_now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis();
        paygate_domain::Timestamp::from_unix_millis(i64::try_from(ms).unwrap() - 3_600_000)
            .to_iso8601()
    };
    let recovered = run(url, &["endpoints", "recover", &endpoint, "--since", &since]).await;
    assert!(recovered.contains("0 deliveries requested"), "{recovered}");

    // API keys: issued (shown once), listed (never shown), rolled, revoked.
    let issued = run(url, &["keys", "create", "--mode", "test", "--name", "cli"]).await;
    assert!(issued.contains("will not be shown again"), "{issued}");
    let secret = word(&issued, "sk_test_");
    let key_id = field(&issued, "id");
    let listed = run(url, &["keys", "list"]).await;
    assert!(
        listed.contains(&key_id) && !listed.contains(&secret),
        "{listed}"
    );
    let rolled = run(url, &["keys", "roll", &key_id, "--expires-in", "2h"]).await;
    assert!(
        rolled.contains("rolled") && rolled.contains("sk_test_"),
        "{rolled}"
    );
    let revoked = run(url, &["keys", "revoke", &key_id]).await;
    assert!(revoked.contains(&format!("revoked {key_id}")), "{revoked}");

    run(url, &["endpoints", "delete", &endpoint]).await;
}
