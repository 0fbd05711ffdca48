//! Test harness: a whole local stack (the dev server hosting the real function handlers over
//! moto) reachable over real HTTP, plus helpers to drive it.
//!
//! Every [`Stack`] gets its own table prefix on the one moto server of the test binary
//! ([`MotoServer::shared`]), seeded from `infra/local/seed.json`, so tests run in parallel
//! without seeing each other's payments.
//!
//! The stack runs the webhook pipeline too (fanout, deliver, sweeper); [`receiver`] is a
//! merchant's HTTPS endpoint to point it at ([`Stack::start_with_webhooks`]).
//!
//! This crate is test support only: a failed expectation here is a failed test, so it
//! panics freely.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod admin;
pub mod bench;
pub mod leaks;
pub mod receiver;

use std::{
    net::SocketAddr,
    sync::{Arc, LazyLock},
};

use paygate_aws::moto::{unique_prefix, MotoServer};
use paygate_compose::system::{RandomIds, SystemClock};
pub use paygate_devserver::WebhookOptions;
use paygate_devserver::{DevServer, Options, Seed};
use paygate_domain::Mode;
pub use reqwest::StatusCode;
use serde_json::{json, Value};

/// The checked-in seed file, parsed once.
pub fn seed() -> &'static Seed {
    static SEED: LazyLock<Seed> = LazyLock::new(|| {
        Seed::from_file(&paygate_devserver::default_seed_path()).expect("seed.json parses")
    });
    &SEED
}

/// The first merchant of the seed (İşbank with points inquiry, Garanti without).
pub const ANATOLIA: &str = "mch_anatolia";
/// The second merchant of the seed (Yapı Kredi without cancel, Akbank with everything).
pub const BOSPHORUS: &str = "mch_bosphorus";

/// The seed's API key of `merchant` in `mode`.
pub fn api_key(merchant: &str, mode: Mode) -> &'static str {
    seed()
        .merchants
        .iter()
        .filter(|m| m.id.as_str() == merchant)
        .flat_map(|m| m.api_keys.iter())
        .find(|k| k.mode == mode)
        .map(|k| k.key.as_str())
        .unwrap_or_else(|| panic!("seed.json has no {mode:?} key for {merchant}"))
}

/// The seed's API keys by merchant and mode.
#[derive(Debug, Clone, Copy)]
pub struct SeedKeys {
    pub anatolia_test: &'static str,
    pub anatolia_live: &'static str,
    pub bosphorus_test: &'static str,
    pub bosphorus_live: &'static str,
}

/// The seed's API keys.
pub fn keys() -> SeedKeys {
    SeedKeys {
        anatolia_test: api_key(ANATOLIA, Mode::Test),
        anatolia_live: api_key(ANATOLIA, Mode::Live),
        bosphorus_test: api_key(BOSPHORUS, Mode::Test),
        bosphorus_live: api_key(BOSPHORUS, Mode::Live),
    }
}

/// An answer from the stack: status, body as JSON (`Null` when it is not JSON) and raw text.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: StatusCode,
    pub body: Value,
    pub text: String,
}

impl Reply {
    pub fn pair(self) -> (StatusCode, Value) {
        (self.status, self.body)
    }
}

/// The system clock moved by an offset a test sets (to jump days ahead without sleeping):
/// the stack's injected clock.
#[derive(Debug, Default)]
pub struct ShiftClock(std::sync::atomic::AtomicI64);

impl ShiftClock {
    /// Moves the clock `ms` further ahead.
    pub fn advance_millis(&self, ms: i64) {
        self.0.fetch_add(ms, std::sync::atomic::Ordering::SeqCst);
    }

    /// How far ahead of the system clock it is.
    pub fn offset_millis(&self) -> i64 {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl paygate_domain::ports::Clock for ShiftClock {
    fn now(&self) -> paygate_domain::Timestamp {
        SystemClock.now().plus_millis(self.offset_millis())
    }
}
/// The throttling limits of test stacks: far above what any test sends, so only the
/// throttling tests (with [`Stack::start_with_throttle`]) and no conformance or end-to-end
/// run is ever throttled.
pub const GENEROUS_LIMITS: paygate_domain::throttle::Limits = paygate_domain::throttle::Limits {
    api: paygate_domain::throttle::RateLimit {
        burst: 100_000,
        per_minute: 1_000_000,
    },
    points: paygate_domain::throttle::RateLimit {
        burst: 100_000,
        per_minute: 1_000_000,
    },
    points_merchant: paygate_domain::throttle::RateLimit {
        burst: 100_000,
        per_minute: 1_000_000,
    },
    points_card: paygate_domain::throttle::CardLimit {
        per_minute: 100_000,
        per_hour: 1_000_000,
    },
};

/// A running local stack and an HTTP client for it. Dropping it stops the server.
pub struct Stack {
    /// `http://127.0.0.1:<port>`, no trailing slash.
    pub url: String,
    pub http: reqwest::Client,
    /// The stack's clock (the system's unless a test moves it).
    pub clock: Arc<ShiftClock>,
    server: DevServer,
}

impl Stack {
    /// A fresh, seeded stack on this binary's moto server.
    pub async fn start() -> Stack {
        Self::start_labeled("e2e").await
    }

    /// [`Stack::start`] with `label` in the table prefix (shows in moto's logs).
    pub async fn start_labeled(label: &str) -> Stack {
        Self::start_with_webhooks(label, WebhookOptions::default()).await
    }

    /// A fresh, seeded stack whose webhook pipeline runs with `webhook` (e.g. a sender
    /// that trusts a [`receiver::Receiver`], a compressed retry schedule, a fast sweeper).
    pub async fn start_with_webhooks(label: &str, webhook: WebhookOptions) -> Stack {
        Self::start_with(
            label,
            webhook,
            paygate_devserver::DEFAULT_BANK_TIMEOUT,
            None,
            None,
            None,
        )
        .await
    }

    /// A fresh, seeded stack whose reconciler runs every `every` (as `make dev` runs it every
    /// 10 s), and whose bank calls time out after `bank_timeout`.
    pub async fn start_with_reconciler(
        label: &str,
        every: std::time::Duration,
        bank_timeout: std::time::Duration,
    ) -> Stack {
        Self::start_with(
            label,
            WebhookOptions::default(),
            bank_timeout,
            Some(every),
            None,
            None,
        )
        .await
    }

    /// A fresh, seeded stack whose bank calls time out after `bank_timeout` (e.g. 1 s, so a
    /// simulator's injected latency makes an unknown outcome without a 20 s wait).
    pub async fn start_with_bank_timeout(label: &str, bank_timeout: std::time::Duration) -> Stack {
        Self::start_with(
            label,
            WebhookOptions::default(),
            bank_timeout,
            None,
            None,
            None,
        )
        .await
    }

    /// A fresh, seeded stack whose functions count an operation in flight as stale after
    /// `stale` (`PAYGATE_STALE_IN_FLIGHT_MS`, through the compose builders as `make dev`).
    pub async fn start_with_stale_after(label: &str, stale: paygate_domain::StaleAfter) -> Stack {
        Self::start_with(
            label,
            WebhookOptions::default(),
            paygate_devserver::DEFAULT_BANK_TIMEOUT,
            None,
            None,
            Some(stale),
        )
        .await
    }

    /// A fresh, seeded stack with these per-API-key throttling limits (every other stack
    /// gets [`GENEROUS_LIMITS`], so tests that fire many requests are not throttled).
    pub async fn start_with_throttle(
        label: &str,
        limits: paygate_domain::throttle::Limits,
    ) -> Stack {
        Self::start_with(
            label,
            WebhookOptions::default(),
            paygate_devserver::DEFAULT_BANK_TIMEOUT,
            None,
            Some(limits),
            None,
        )
        .await
    }

    async fn start_with(
        label: &str,
        webhook: WebhookOptions,
        bank_timeout: std::time::Duration,
        reconcile_every: Option<std::time::Duration>,
        throttle: Option<paygate_domain::throttle::Limits>,
        stale_after: Option<paygate_domain::StaleAfter>,
    ) -> Stack {
        let moto = MotoServer::shared().expect("moto server starts (is moto_server installed?)");
        let clock = Arc::new(ShiftClock::default());
        let opts = Options {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            seed: seed().clone(),
            prefix: unique_prefix(label),
            clock: clock.clone(),
            ids: Arc::new(RandomIds),
            webhook,
            bank_timeout,
            // Off unless asked for, so tests see unknown outcomes until they settle them.
            reconcile_every,
            throttle: Some(throttle.unwrap_or(GENEROUS_LIMITS)),
            stale_after,
        };
        let server = paygate_devserver::start_on(moto, opts)
            .await
            .expect("dev server starts");
        Stack {
            url: server.url.clone(),
            http: reqwest::Client::new(),
            clock,
            server,
        }
    }

    /// The dev server behind the stack (its tables, queues, clients and webhook helpers).
    pub fn server(&self) -> &DevServer {
        &self.server
    }

    /// Sends a request as-is: `authorization` is the whole header value, `body` the raw
    /// bytes with `content_type`.
    pub async fn raw(
        &self,
        method: reqwest::Method,
        path: &str,
        authorization: Option<&str>,
        content_type: Option<&str>,
        body: Option<String>,
    ) -> Reply {
        let mut req = self.http.request(method, format!("{}{path}", self.url));
        if let Some(a) = authorization {
            req = req.header("authorization", a);
        }
        if let Some(ct) = content_type {
            req = req.header("content-type", ct);
        }
        if let Some(b) = body {
            req = req.body(b);
        }
        let resp = req.send().await.expect("the stack answers HTTP");
        let status = resp.status();
        let text = resp.text().await.expect("a readable body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply { status, body, text }
    }

    /// `POST path` with `Bearer key` and a JSON body.
    pub async fn post_reply(&self, path: &str, key: &str, json: &Value) -> Reply {
        self.raw(
            reqwest::Method::POST,
            path,
            Some(&format!("Bearer {key}")),
            Some("application/json"),
            Some(json.to_string()),
        )
        .await
    }

    /// `POST path` with `Bearer key` and a JSON body: status and JSON answer.
    pub async fn post(&self, path: &str, key: &str, json: Value) -> (StatusCode, Value) {
        self.post_reply(path, key, &json).await.pair()
    }

    /// `GET path` with `Bearer key`.
    pub async fn get(&self, path: &str, key: &str) -> (StatusCode, Value) {
        self.raw(
            reqwest::Method::GET,
            path,
            Some(&format!("Bearer {key}")),
            None,
            None,
        )
        .await
        .pair()
    }

    /// `POST /v1/test_helpers/payments`; the new payment's id (panics unless 201).
    pub async fn create_payment(&self, key: &str, json: Value) -> String {
        let (status, body) = self.post("/v1/test_helpers/payments", key, json).await;
        assert_eq!(status, StatusCode::CREATED, "test helper: {body}");
        body["id"]
            .as_str()
            .unwrap_or_else(|| panic!("test helper answered without an id: {body}"))
            .to_owned()
    }

    /// `POST /v1/payments/{id}/{op}` (capture, cancel, refund, query).
    pub async fn op(&self, key: &str, id: &str, op: &str, json: Value) -> (StatusCode, Value) {
        self.post(&format!("/v1/payments/{id}/{op}"), key, json)
            .await
    }

    /// `GET /v1/payments/{id}`, which must answer 200.
    pub async fn payment(&self, key: &str, id: &str) -> Value {
        let (status, body) = self.get(&format!("/v1/payments/{id}"), key).await;
        assert_eq!(status, StatusCode::OK, "GET /v1/payments/{id}: {body}");
        body
    }

    /// A payment of `amount` in `status`, reached through the API as a merchant would:
    /// `authorized`, `captured`, `pending` and `failed` come from the test helper; the others from
    /// operations on them (`partially_refunded` refunds 3000, so `amount` must exceed it).
    pub async fn payment_in(&self, key: &str, status: &str, amount: i64) -> String {
        let create = |status: &str, extra: Value| {
            let mut body = json!({ "amount": amount, "currency": "TRY", "status": status });
            if let (Some(b), Value::Object(extra)) = (body.as_object_mut(), extra) {
                b.extend(extra);
            }
            self.create_payment(key, body)
        };
        let (id, then) = match status {
            "authorized" | "captured" | "pending" => (create(status, json!({})).await, None),
            "partially_refunded" => (
                create("captured", json!({})).await,
                Some(("refund", json!({ "amount": 3000 }))),
            ),
            "refunded" => (
                create("captured", json!({})).await,
                Some(("refund", json!({}))),
            ),
            "cancelled" => (
                create("authorized", json!({})).await,
                Some(("cancel", json!({}))),
            ),
            "declined" => (
                create("pending", json!({ "bankState": "declined" })).await,
                Some(("query", json!({}))),
            ),
            // "No record" finalizes a pending payment only after the grace period, so the
            // helper creates it directly.
            "failed" => (create("failed", json!({})).await, None),
            other => panic!("no way to make a payment {other}"),
        };
        if let Some((op, body)) = then {
            let (code, answer) = self.op(key, &id, op, body).await;
            assert_eq!(code, StatusCode::OK, "{op} to reach {status}: {answer}");
            assert_eq!(
                answer["payment"]["status"], status,
                "{op} to reach {status}: {answer}"
            );
        }
        id
    }
}

/// Asserts an error answer: HTTP status, the envelope's `error.code` and a message; returns
/// the `error` object.
#[track_caller]
pub fn expect_error(reply: &(StatusCode, Value), status: u16, code: &str) -> Value {
    let (got, body) = reply;
    assert_eq!(
        (got.as_u16(), body["error"]["code"].as_str()),
        (status, Some(code)),
        "expected {status} {code}, got {got}: {body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "error without a message: {body}"
    );
    body["error"].clone()
}

/// Asserts a 200 answer and returns its body.
#[track_caller]
pub fn expect_ok(reply: (StatusCode, Value)) -> Value {
    let (got, body) = reply;
    assert_eq!(got, StatusCode::OK, "expected 200, got {got}: {body}");
    body
}

/// Whether `v` is a non-empty string of ASCII digits.
pub fn is_numeric_string(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
}

/// A card number of `len` digits starting with `prefix` and ending with `suffix`, zeros in
/// between, with one digit chosen so that the Luhn check passes.
pub fn card_number(prefix: &str, len: usize, suffix: &str) -> String {
    assert!(
        prefix.len() + suffix.len() < len,
        "no room for the free digit"
    );
    let fill = len - prefix.len() - suffix.len() - 1;
    (0..10)
        .map(|d| format!("{prefix}{}{d}{suffix}", "0".repeat(fill)))
        .find(|n| luhn_ok(n))
        .expect("one of ten digits always completes the Luhn sum")
}

/// The Luhn check: the domain's own rule (`paygate_domain::bank::luhn_valid`).
pub fn luhn_ok(number: &str) -> bool {
    paygate_domain::bank::luhn_valid(number)
}

/// A points inquiry request body for `number`.
pub fn points_body(number: &str, account_id: Option<&str>) -> Value {
    let mut body = json!({
        "card": {
            "number": number,
            "expMonth": "12",
            "expYear": "2030",
            "cvv": "123",
            "holder": "Ayşe Yılmaz"
        },
        "currency": "TRY"
    });
    if let (Some(acc), Some(b)) = (account_id, body.as_object_mut()) {
        b.insert("accountId".into(), json!(acc));
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_numbers_pass_luhn_and_keep_prefix_and_suffix() {
        assert!(luhn_ok("4111111111111111"));
        assert!(!luhn_ok("4111111111111112"));
        for (prefix, suffix) in [("45436099", ""), ("454360", "5100"), ("540669", "9100")] {
            let n = card_number(prefix, 16, suffix);
            assert_eq!(n.len(), 16);
            assert!(n.starts_with(prefix) && n.ends_with(suffix), "{n}");
            assert!(luhn_ok(&n), "{n}");
        }
    }

    #[test]
    fn seed_keys_are_read_from_the_seed() {
        let k = keys();
        assert!(k.anatolia_test.starts_with("sk_test_"));
        assert!(k.anatolia_live.starts_with("sk_live_"));
        assert!(k.bosphorus_test.starts_with("sk_test_"));
        assert!(k.bosphorus_live.starts_with("sk_live_"));
        assert_ne!(k.anatolia_test, k.bosphorus_test);
    }
}
