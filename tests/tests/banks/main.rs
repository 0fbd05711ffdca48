//! End-to-end tests of the real bank protocols through the dev server: the seed's
//! `mch_cappadocia` accounts speak Nestpay (İşbank, Akbank), Garanti GVPS and Yapı Kredi
//! Posnet, `mch_ankara`'s speak VakıfBank PayFlex V4, Denizbank InterVPOS, QNB PayFor and
//! Akbank's new JSON POS, to the protocol simulators the dev server runs in-process, with
//! their credentials in (moto's) Secrets Manager. Each test starts its own stack (its own
//! simulators) whose bank calls time out after [`BANK_TIMEOUT`], so injected latency makes an
//! unknown outcome quickly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod albaraka;
mod ankara;
mod daily;
mod fault_plan;
mod faults;
mod kuveyt;
mod operations;
mod payflex_interpos;
mod points;
mod secrets;
mod support;

use std::{sync::Arc, time::Duration};

use paygate_bankkit::sim::{SimOrder, SimState};
use paygate_domain::Mode;
use paygate_tests::{api_key, seed, Stack, StatusCode};
use serde_json::{json, Value};

/// The merchant whose accounts speak the three older protocols.
pub const CAPPADOCIA: &str = "mch_cappadocia";

/// The merchant whose accounts speak the four newer protocols.
pub const ANKARA: &str = "mch_ankara";

/// The merchant of the participation banks and payment institutions (Ziraat Katılım on
/// PayFor, Kuveyt Türk, Vakıf Katılım, Albaraka, Param, Tosla).
pub const KONYA: &str = "mch_konya";

/// The stacks' bound on one bank call.
pub const BANK_TIMEOUT: Duration = Duration::from_secs(1);

/// Injected latency: well above [`BANK_TIMEOUT`].
pub const LATENCY_MS: u64 = 2_500;

/// How a protocol reads its simulator's technical-error answer (`technicalErrors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TechnicalError {
    /// A code that says the request was not processed: the transaction fails, nothing is
    /// pending (Nestpay `CORE-1001`, Garanti's host `90` "cut-off in progress").
    Fails,
    /// An answer that does not say the bank did nothing, so the outcome is unknown until the
    /// bank's records settle it: PayFor's `V036` "Sistem hatası" (the host may have acted;
    /// see its README), Posnet's `0400`, PayFlex's `9998`, InterVPOS's `91` (each bank's
    /// README: code → outcome) and Akbank POS's HTTP 503 (a 5xx may come from behind the
    /// bank's front door after it acted; the kit reads every 5xx as unknown).
    Unknown,
}

/// One real-protocol account of the seed and how its bank behaves.
#[derive(Debug, Clone, Copy)]
pub struct Bank {
    /// The seed merchant owning the account (its test key reaches it).
    pub merchant: &'static str,
    pub provider: &'static str,
    pub account: &'static str,
    /// The account credential the simulator keys its order book by (Nestpay `clientId`,
    /// Garanti `terminalId`, Posnet `mid`, PayFlex `merchantId`, InterVPOS `shopCode`,
    /// PayFor `merchantId`, Akbank POS `terminalSafeId`).
    pub book_key: &'static str,
    /// The bank code a refund on the capture's own business day is refused with (`None`:
    /// the bank refunds the same day).
    pub same_day_refund_refusal: Option<&'static str>,
    /// Whether the simulator answers late *after* processing (all but Garanti), so a call
    /// that timed out was applied. Garanti's simulator waits *before* processing: a caller
    /// that gave up may or may not see the operation applied, so its unknown outcome is
    /// made with a dropped connection instead.
    pub late_after_processing: bool,
    pub technical_error: TechnicalError,
    /// Whether the family has pre-authorizations, so `authorized` payments and capture exist
    /// (Kuveyt Türk has none: its capture is `operation_not_supported`).
    pub preauth: bool,
}

impl Bank {
    /// The test-mode API key of the account's merchant.
    pub fn key(&self) -> &'static str {
        api_key(self.merchant, Mode::Test)
    }
}

pub const ISBANK: Bank = Bank {
    merchant: CAPPADOCIA,
    provider: "nestpay",
    account: "acc_cappadociaIsbank",
    book_key: "clientId",
    same_day_refund_refusal: Some("CORE-2508"),
    late_after_processing: true,
    technical_error: TechnicalError::Fails,
    preauth: true,
};

pub const GARANTI: Bank = Bank {
    merchant: CAPPADOCIA,
    provider: "garanti",
    account: "acc_cappadociaGaranti",
    book_key: "terminalId",
    same_day_refund_refusal: None,
    late_after_processing: false,
    technical_error: TechnicalError::Fails,
    preauth: true,
};

pub const YAPIKREDI: Bank = Bank {
    merchant: CAPPADOCIA,
    provider: "posnet",
    account: "acc_cappadociaYapikredi",
    book_key: "mid",
    same_day_refund_refusal: Some("0411"),
    late_after_processing: true,
    technical_error: TechnicalError::Unknown,
    preauth: true,
};

/// VakıfBank over PayFlex V4: same-day refunds allowed, cancel until the cut (`1082` after).
pub const VAKIFBANK: Bank = Bank {
    merchant: ANKARA,
    provider: "payflex",
    account: "acc_ankaraVakifbank",
    book_key: "merchantId",
    same_day_refund_refusal: None,
    late_after_processing: true,
    technical_error: TechnicalError::Unknown,
    preauth: true,
};

/// Denizbank over InterVPOS: refunds only after the cut (`E42` before), voids only before it
/// (`E41` after).
pub const DENIZBANK: Bank = Bank {
    merchant: ANKARA,
    provider: "interpos",
    account: "acc_ankaraDenizbank",
    book_key: "shopCode",
    same_day_refund_refusal: Some("E42"),
    late_after_processing: true,
    technical_error: TechnicalError::Unknown,
    preauth: true,
};

/// QNB over PayFor: refunds only after the cut (`V014` before).
pub const QNB: Bank = Bank {
    merchant: ANKARA,
    provider: "payfor",
    account: "acc_ankaraQnb",
    book_key: "merchantId",
    same_day_refund_refusal: Some("V014"),
    late_after_processing: true,
    technical_error: TechnicalError::Unknown,
    preauth: true,
};

/// Akbank over its new JSON POS: same-day refunds allowed.
pub const AKBANK_POS: Bank = Bank {
    merchant: ANKARA,
    provider: "akbankpos",
    account: "acc_ankaraAkbank",
    book_key: "terminalSafeId",
    same_day_refund_refusal: None,
    late_after_processing: true,
    technical_error: TechnicalError::Unknown,
    preauth: true,
};

/// Ziraat Katılım over PayFor (its own `MbrId` 12): the PayFor rules, a config variant.
pub const ZIRAAT_KATILIM: Bank = Bank {
    merchant: KONYA,
    provider: "payfor",
    account: "acc_konyaZiraatKatilim",
    book_key: "merchantId",
    same_day_refund_refusal: Some("V014"),
    late_after_processing: true,
    technical_error: TechnicalError::Unknown,
    preauth: true,
};

/// Param TurkPOS (SOAP): `IADE` on the sale's own day is `-213`; technical error `-207`.
pub const PARAM: Bank = Bank {
    merchant: KONYA,
    provider: "parampos",
    account: "acc_konyaParam",
    book_key: "clientCode",
    same_day_refund_refusal: Some("-213"),
    late_after_processing: true,
    technical_error: TechnicalError::Unknown,
    preauth: true,
};

/// Tosla (ex-AKÖde, JSON): same-day refunds; voids until the cut (`101` after); technical
/// error HTTP 503.
pub const TOSLA: Bank = Bank {
    merchant: KONYA,
    provider: "toslapos",
    account: "acc_konyaTosla",
    book_key: "clientId",
    same_day_refund_refusal: None,
    late_after_processing: true,
    technical_error: TechnicalError::Unknown,
    preauth: true,
};

/// Vakıf Katılım (BOA XML): refunds only once the order's day is closed (`EndOfDayStatus 1`:
/// refused before sending, our `refund_before_end_of_day`), reversals only before; technical
/// error `SystemError` (unknown).
pub const VAKIF_KATILIM: Bank = Bank {
    merchant: KONYA,
    provider: "vakifkatilim",
    account: "acc_konyaVakifKatilim",
    book_key: "merchantId",
    same_day_refund_refusal: Some("refund_before_end_of_day"),
    late_after_processing: true,
    technical_error: TechnicalError::Unknown,
    preauth: true,
};

/// Albaraka Türk over PosNet V1 (JSON): PosNet's rules, returns only after the cut (`0411`
/// before), reverses only before it (`0211` after); technical error `0400 DB ERROR` (unknown).
pub const ALBARAKA: Bank = Bank {
    merchant: KONYA,
    provider: "posnetv1",
    account: "acc_konyaAlbaraka",
    book_key: "terminalNo",
    same_day_refund_refusal: Some("0411"),
    late_after_processing: true,
    technical_error: TechnicalError::Unknown,
    preauth: true,
};

/// Kuveyt Türk (TDV2.0.0; SOAP query service): no pre-authorization (capture is
/// `operation_not_supported`); reversals only on the sale's day (`InvalidRequestError`
/// after), a partial refund also on it (a whole `DrawBack` only after); technical error
/// `ServiceUnavailable` (unknown).
pub const KUVEYT: Bank = Bank {
    merchant: KONYA,
    provider: "kuveytpos",
    account: "acc_konyaKuveyt",
    book_key: "merchantId",
    same_day_refund_refusal: None,
    late_after_processing: true,
    technical_error: TechnicalError::Unknown,
    preauth: false,
};

/// Every protocol (and configuration variant), one account each: the shared suites run
/// against all of them. One line per family.
pub const BANKS: &[Bank] = &[
    ISBANK,
    GARANTI,
    YAPIKREDI,
    VAKIFBANK,
    DENIZBANK,
    QNB,
    AKBANK_POS,
    ZIRAAT_KATILIM,
    ALBARAKA,
    PARAM,
    TOSLA,
    VAKIF_KATILIM,
    KUVEYT,
];

/// The Akbank account on Nestpay: capture, refund and query only.
pub const AKBANK: Bank = Bank {
    merchant: CAPPADOCIA,
    provider: "nestpay",
    account: "acc_cappadociaAkbank",
    book_key: "clientId",
    same_day_refund_refusal: Some("CORE-2508"),
    late_after_processing: true,
    technical_error: TechnicalError::Fails,
    preauth: true,
};

/// The test key of `mch_cappadocia`.
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

/// A payment on `bank`'s account from the test helper (the order is registered at its
/// bank), under its merchant's test key.
pub async fn create(stack: &Stack, bank: &Bank, status: &str, amount: i64) -> String {
    stack
        .create_payment(
            bank.key(),
            json!({ "amount": amount, "currency": "TRY", "status": status, "accountId": bank.account }),
        )
        .await
}

/// Moves `bank`'s simulator past its end-of-day cut.
pub fn end_of_day(stack: &Stack, bank: &Bank) {
    sim(stack, bank.provider).book().end_of_day();
}

/// Sets `bank`'s simulator faults (`POST /_sim/faults`). For Posnet, `only` aims them at
/// one operation element (its capture and cancel look the order up first). The newer
/// protocols need no aiming for capture and refund: PayFlex's order lookup goes to its
/// separate search service, which the counters never touch, and InterVPOS, PayFor and Akbank
/// POS send one request for each. PosNet V1 reads the order before each, but its simulator
/// counts money requests only.
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

/// The order `order_id` of `bank`'s account as its simulator holds it.
pub fn bank_order(stack: &Stack, bank: &Bank, order_id: &str) -> SimOrder {
    let client = credential(bank.account, bank.book_key);
    let order = match bank.provider {
        // Posnet keeps orders in their 24-character, zero-padded form.
        "posnet" => format!("{order_id:0>24}"),
        _ => order_id.to_owned(),
    };
    sim(stack, bank.provider)
        .book()
        .get(&client, &order)
        .cloned()
        .unwrap_or_else(|| panic!("{} holds no order {order} of {client}", bank.provider))
}

/// A payment's order id.
pub async fn order_id(stack: &Stack, bank: &Bank, id: &str) -> String {
    stack.payment(bank.key(), id).await["orderId"]
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
