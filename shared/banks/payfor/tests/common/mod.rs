//! A simulator on a loopback port and an adapter pointed at it.
#![allow(dead_code)]

use std::{ops::Deref, time::Duration};

use paygate_bank_payfor::{
    sim::{self, SimCredentials},
    PayFor, PayForProvider, API_PATH, PROVIDER_CODE,
};
use paygate_bankkit::{sim::testing::TestBank, AccountCredentials, BankTransport};
use paygate_domain::{CardDetails, PosAccount};

/// The QNB test store of the MEWS examples.
pub const MBR_ID: &str = "5";
pub const MERCHANT_ID: &str = "085300000009704";
pub const USER_CODE: &str = "QNB_API_KULLANICI_3DPAY";
pub const USER_PASS: &str = "UcBN0";
/// The adapter's bound on one call; fault latency above it is a time-out.
pub const TIMEOUT: Duration = Duration::from_millis(700);

/// The kit's test bank with this family's helpers.
pub struct Bank(TestBank<PayForProvider>);

impl Deref for Bank {
    type Target = TestBank<PayForProvider>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

pub fn account(id: &str) -> PosAccount {
    paygate_bankkit::sim::testing::test_account(id, PROVIDER_CODE, "0111", "QNB Bank")
}

/// Secret values for an account at `endpoint`.
pub fn secret(
    endpoint: &str,
    merchant_id: &str,
    user_code: &str,
    user_pass: &str,
) -> AccountCredentials {
    AccountCredentials::new(
        endpoint,
        [
            ("mbrId".to_owned(), MBR_ID.to_owned()),
            ("merchantId".to_owned(), merchant_id.to_owned()),
            ("userCode".to_owned(), user_code.to_owned()),
            ("userPass".to_owned(), user_pass.to_owned()),
        ],
    )
}

/// The bank knows the QNB test store and a second one.
pub async fn bank() -> Bank {
    bank_with(|c| c).await
}

/// [`bank`] with its simulator's credentials (and variant) changed by `tune`.
pub async fn bank_with(tune: impl FnOnce(SimCredentials) -> SimCredentials) -> Bank {
    let accepted = tune(
        SimCredentials::default()
            .with(MBR_ID, MERCHANT_ID, USER_CODE, USER_PASS)
            .with(MBR_ID, "085300000009999", "OTHER_API", "other"),
    );
    Bank(TestBank::new(
        sim::start(accepted).await.unwrap(),
        account,
        "acc_qnb",
        API_PATH,
        |endpoint| secret(endpoint, MERCHANT_ID, USER_CODE, USER_PASS),
        |creds| PayForProvider::new(PayFor, BankTransport::new(TIMEOUT), creds),
    ))
}

impl Bank {
    /// Posts a hand-written body to the API and reads the answer.
    pub async fn raw(&self, body: &str) -> paygate_bank_payfor::response::Reply {
        let bytes = BankTransport::new(TIMEOUT)
            .post(
                &self.endpoint(),
                "text/xml; charset=UTF-8",
                body.as_bytes().to_vec(),
            )
            .await
            .unwrap();
        <paygate_bank_payfor::response::Reply as paygate_bankkit::BankReply>::decode(&bytes)
            .unwrap()
    }
}

#[allow(unused_imports)]
pub use paygate_bankkit::sim::testing::op;

pub fn card(number: &str) -> CardDetails {
    CardDetails {
        number: number.into(),
        exp_month: "1".into(),
        exp_year: "2030".into(),
        cvv: "123".into(),
        holder: "Ayşe Yılmaz".into(),
    }
}
