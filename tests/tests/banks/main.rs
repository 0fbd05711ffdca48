//! End-to-end tests of the real bank protocols through the dev server: the seed's
//! `mch_cappadocia` accounts speak Nestpay (İşbank, Akbank), Garanti GVPS and Yapı Kredi
//! Posnet to the protocol simulators the dev server runs in-process, with their credentials
//! in (moto's) Secrets Manager. Each test starts its own stack (its own simulators) whose
//! bank calls time out after [`BANK_TIMEOUT`], so injected latency makes an unknown outcome
//! quickly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod ankara;
mod faults;
mod operations;
mod points;
mod secrets;
mod support;

use std::{sync::Arc, time::Duration};

use paygate_bankkit::sim::{SimOrder, SimState};
use paygate_domain::Mode;
use paygate_tests::{api_key, seed, Stack, StatusCode};
use serde_json::{json, Value};

/// The merchant whose accounts speak the real protocols.
pub const CAPPADOCIA: &str = "mch_cappadocia";

/// The stacks' bound on one bank call.
pub const BANK_TIMEOUT: Duration = Duration::from_secs(1);

/// Injected latency: well above [`BANK_TIMEOUT`].
pub const LATENCY_MS: u64 = 2_500;

/// One real-protocol account of the seed and how its bank behaves.
#[derive(Debug, Clone, Copy)]
pub struct Bank {
    pub provider: &'static str,
    pub account: &'static str,
    /// The bank code a refund on the capture's own business day is refused with (`None`:
    /// the bank refunds the same day).
    pub same_day_refund_refusal: Option<&'static str>,
    /// Whether the simulator answers late *after* processing (Nestpay, Posnet), so a call
    /// that timed out was applied. Garanti's simulator waits *before* processing: a caller
    /// that gave up may or may not see the operation applied, so its unknown outcome is
    /// made with a dropped connection instead.
    pub late_after_processing: bool,
}

/// The three protocols, one account each.
pub const BANKS: [Bank; 3] = [
    Bank {
        provider: "nestpay",
        account: "acc_cappadociaIsbank",
        same_day_refund_refusal: Some("CORE-2508"),
        late_after_processing: true,
    },
    Bank {
        provider: "garanti",
        account: "acc_cappadociaGaranti",
        same_day_refund_refusal: None,
        late_after_processing: false,
    },
    Bank {
        provider: "posnet",
        account: "acc_cappadociaYapikredi",
        same_day_refund_refusal: Some("0411"),
        late_after_processing: true,
    },
];

/// The Akbank account on Nestpay: capture, refund and query only.
pub const AKBANK: &str = "acc_cappadociaAkbank";

pub fn key() -> &'static str {
    api_key(CAPPADOCIA, Mode::Test)
}

/// A fresh seeded stack with [`BANK_TIMEOUT`].
pub async fn stack() -> Stack {
    Stack::start_with_bank_timeout("banks", BANK_TIMEOUT).await
}

/// The stack's simulator of `bank`.
pub fn sim(stack: &Stack, provider: &str) -> Arc<SimState> {
    stack
        .server()
        .bank_sim(provider)
        .unwrap_or_else(|| panic!("the dev server runs no {provider} simulator"))
}

/// A payment on `account` from the test helper (the order is registered at its bank).
pub async fn create(stack: &Stack, account: &str, status: &str, amount: i64) -> String {
    stack
        .create_payment(
            key(),
            json!({ "amount": amount, "currency": "TRY", "status": status, "accountId": account }),
        )
        .await
}

/// Moves `bank`'s simulator past its end-of-day cut.
pub fn end_of_day(stack: &Stack, bank: &Bank) {
    sim(stack, bank.provider).book().end_of_day();
}

/// Sets `bank`'s simulator faults (`POST /_sim/faults`). For Posnet, `only` aims them at
/// one operation element (its capture and cancel look the order up first).
pub async fn faults(stack: &Stack, bank: &Bank, mut body: Value, posnet_only: &str) {
    if bank.provider == "posnet" {
        body["only"] = json!(posnet_only);
    }
    let url = format!(
        "{}/_sim/faults",
        stack.server().bank_sim_url(bank.provider).unwrap()
    );
    let resp = stack.http.post(&url).json(&body).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK, "{url}: {body}");
}

/// Clears `bank`'s simulator faults.
pub async fn no_faults(stack: &Stack, bank: &Bank) {
    let url = format!(
        "{}/_sim/faults",
        stack.server().bank_sim_url(bank.provider).unwrap()
    );
    let resp = stack.http.post(&url).json(&json!({})).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
}

/// A value of `account`'s seed credentials.
pub fn credential(account: &str, key: &str) -> String {
    seed()
        .merchants
        .iter()
        .flat_map(|m| m.accounts.iter())
        .find(|a| a.id.as_str() == account)
        .and_then(|a| a.credentials.get(key))
        .unwrap_or_else(|| panic!("seed account {account} has no credentials.{key}"))
        .to_owned()
}

/// The order `order_id` of `account` as `provider`'s simulator holds it.
pub fn bank_order(stack: &Stack, provider: &str, account: &str, order_id: &str) -> SimOrder {
    let (client, order) = match provider {
        "nestpay" => (credential(account, "clientId"), order_id.to_owned()),
        "garanti" => (credential(account, "terminalId"), order_id.to_owned()),
        // Posnet keeps orders in their 24-character, zero-padded form.
        "posnet" => (credential(account, "mid"), format!("{order_id:0>24}")),
        other => panic!("no simulator for {other}"),
    };
    sim(stack, provider)
        .book()
        .get(&client, &order)
        .cloned()
        .unwrap_or_else(|| panic!("{provider} holds no order {order} of {client}"))
}

/// A payment's order id.
pub async fn order_id(stack: &Stack, id: &str) -> String {
    stack.payment(key(), id).await["orderId"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The transaction `id` as GET lists it.
pub fn listed<'a>(payment: &'a Value, id: &Value) -> &'a Value {
    payment["transactions"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["id"] == *id))
        .unwrap_or_else(|| panic!("transaction {id} not listed: {payment}"))
}
