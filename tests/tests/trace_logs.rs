//! Nothing secret reaches a log at any level, TRACE included (issue 10, item 5). Its own
//! test binary with a single test and a process-wide subscriber at TRACE (tracing caches
//! callsite interest process-wide, and `log` has one global logger): every line of the dev
//! server, the handlers, the AWS SDK, the HTTP stacks and the bank simulators is captured
//! while a full scenario runs, then searched for every secret the scenario used.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paygate_domain::testkit::LogBuffer;
use std::{io::Write, sync::OnceLock, time::Duration};

use paygate_domain::{webhook::RetrySchedule, Mode};
use paygate_tests::{api_key, leaks, receiver::Receiver, Stack, StatusCode, WebhookOptions};
use serde_json::json;

const CAPPADOCIA: &str = "mch_cappadocia";
/// A Maximum card of the İşbank (Nestpay) account, and an unusual CVV.
const CARD: &str = "4543600299100712";
const CVV: &str = "739";
const GARANTI: &str = "acc_cappadociaGaranti";
const ISBANK: &str = "acc_cappadociaIsbank";

/// `log` records (rustls and other crates that do not use `tracing`) into the same buffer.
struct LogCapture(LogBuffer);

impl log::Log for LogCapture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        let line = format!(
            "LOG {} {}: {}\n",
            record.level(),
            record.target(),
            record.args()
        );
        let _ = self.0.clone().write(line.as_bytes());
    }
    fn flush(&self) {}
}

fn capture_everything() -> LogBuffer {
    static LOGS: OnceLock<LogBuffer> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = LogBuffer::default();
        let sink = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing_subscriber::filter::LevelFilter::TRACE)
            .with_ansi(false)
            .with_writer(move || sink.clone())
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
        let logger: &'static LogCapture = Box::leak(Box::new(LogCapture(logs.clone())));
        log::set_logger(logger).unwrap();
        log::set_max_level(log::LevelFilter::Trace);
        logs
    })
    .clone()
}

#[tokio::test]
async fn a_full_scenario_at_trace_logs_no_secret() {
    let logs = capture_everything();
    let rx = Receiver::start().await;
    let stack = Stack::start_with_webhooks(
        "trace",
        WebhookOptions {
            sender: rx.sender_config(Duration::from_secs(2)),
            schedule: RetrySchedule::parse("1s").unwrap(),
            sweep_every: Duration::from_secs(1),
            sweep_grace: Duration::from_secs(10),
            idle_poll: Duration::from_millis(100),
            secret_cache_ttl: Duration::ZERO,
        },
    )
    .await;
    let key = api_key(CAPPADOCIA, Mode::Test);

    // a webhook endpoint (its signing secret shown once), then a rotation
    let created = stack
        .admin(
            "POST",
            &format!("/admin/v1/merchants/{CAPPADOCIA}/webhook-endpoints"),
            Some(&json!({"url": rx.url("/hooks"), "events": ["*"], "mode": "test"})),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let first_secret = created.body["secret"].as_str().unwrap().to_owned();
    let endpoint = created.body["id"].as_str().unwrap().to_owned();
    let rotated = stack
        .admin(
            "POST",
            &format!("/admin/v1/merchants/{CAPPADOCIA}/webhook-endpoints/{endpoint}/rotate-secret"),
            Some(&json!({"graceSeconds": 3600})),
        )
        .await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.text);
    let second_secret = rotated.body["secret"].as_str().unwrap().to_owned();

    // a points inquiry with the card and its CVV (Nestpay)
    let points = stack
        .post_reply(
            "/v1/payments/points/inquiry",
            key,
            &json!({
                "accountId": ISBANK,
                "card": {"number": CARD, "expMonth": "12", "expYear": "2030",
                         "cvv": CVV, "holder": "Ayşe Yılmaz"},
                "currency": "TRY"
            }),
        )
        .await;
    assert_eq!(points.status, StatusCode::OK, "{}", points.text);

    // a capture and a refund through Garanti GVPS (credentials from Secrets Manager)
    let id = stack
        .create_payment(
            key,
            json!({"amount": 20_000, "currency": "TRY", "status": "authorized", "accountId": GARANTI}),
        )
        .await;
    let (s, b) = stack.op(key, &id, "capture", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let (s, b) = stack.op(key, &id, "refund", json!({"amount": 1_000})).await;
    assert_eq!(s, StatusCode::OK, "{b}");

    // an API key that authenticates nothing
    let wrong = "sk_test_TraceWrongKey0000000000000000";
    let (s, _) = stack.get(&format!("/v1/payments/{id}"), wrong).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);

    // the signed webhooks arrived (signing happened while captured)
    let hooks = rx.wait_for("/hooks", 2, Duration::from_secs(20)).await;
    assert!(!hooks.is_empty());

    let text = logs.text();
    assert!(
        text.contains("TRACE"),
        "the capture must hold TRACE lines ({} bytes)",
        text.len()
    );
    let mut secrets = leaks::seed_secrets();
    secrets.extend([
        CARD.to_owned(),
        first_secret,
        second_secret,
        wrong.to_owned(),
    ]);
    let mut leaks = leaks::leaks(&text, &secrets);
    // the CVV: never beside a CVV field name (its three digits may occur elsewhere)
    let cvv = regex_lite::Regex::new(&format!(r"(?i)(cvv|cvc|cv2)[^0-9a-z]{{0,16}}{CVV}")).unwrap();
    if let Some(m) = cvv.find(&text) {
        leaks.push(format!("cvv: {}", m.as_str()));
    }
    assert!(
        leaks.is_empty(),
        "secrets in the logs:\n{}",
        leaks.join("\n")
    );
}
