//! The simulator's strictness on the wire and the test-order route.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use common::{bank, op};
use paygate_bank_garanti::request::{TxnType, FIXED_AMOUNT};
use paygate_bankkit::{encoding, sim::SimServer, BankTransport, MemoryCredentials};
use paygate_domain::{
    ports::{PosProvider, TestOrder, TestOrderState},
    BankOutcome, Currency, StoreError,
};
use sha1::{Digest, Sha1};

fn reason(r: &paygate_bank_garanti::response::GvpsResponse) -> (&str, &str) {
    (r.code.as_str(), r.reason_code.as_str())
}

#[tokio::test]
async fn malformed_or_misencoded_requests_are_refused() {
    let b = bank().await;
    let r = b.post_raw(b"<GVPSRequest><Mode>TEST</Mode>".to_vec()).await;
    assert_eq!(reason(&r), ("92", "0001"));
    let r = b
        .post_raw(b"<CC5Request><Name/></CC5Request>".to_vec())
        .await;
    assert_eq!(reason(&r), ("92", "0001"));
    // Declared UTF-8, sent as Latin-5 bytes: detectable, refused.
    let doc = b
        .request("PROVAUT", TxnType::OrderInq, "O1", FIXED_AMOUNT)
        .to_xml()
        .replace("127.0.0.1", "İstanbul");
    let r = b.post_raw(encoding::encode(&doc)).await;
    assert_eq!(reason(&r), ("92", "0001"));
    assert_eq!(r.sys_err_msg, "request is not valid UTF-8");
    // The same bytes declared as ISO-8859-9 are fine (the order is just unknown).
    let latin5 = doc.replace("encoding=\"UTF-8\"", "encoding=\"ISO-8859-9\"");
    let r = b.post_raw(encoding::encode(&latin5)).await;
    assert_eq!(reason(&r), ("92", "0110"));
    assert_eq!(r.error_msg, "İşlem bulunamadı");
}

#[tokio::test]
async fn answers_are_iso_8859_9() {
    let b = bank().await;
    let doc = b
        .request("PROVAUT", TxnType::OrderInq, "NOPE", FIXED_AMOUNT)
        .to_xml();
    let bytes = b
        .transport
        .post(
            &format!("{}/VPServlet", b.server.url),
            "text/xml",
            doc.into_bytes(),
        )
        .await
        .unwrap();
    assert!(bytes.starts_with(b"<?xml version=\"1.0\" encoding=\"ISO-8859-9\"?><GVPSResponse>"));
    // "İşlem bulunamadı": İ = 0xDD, ş = 0xFE, ı = 0xFD in Latin-5.
    assert!(bytes.windows(3).any(|w| w == [0xDD, 0xFE, b'l']));
    assert!(std::str::from_utf8(&bytes).is_err());
}

#[tokio::test]
async fn terminal_user_and_field_rules() {
    let b = bank().await;
    b.register("S1", 5_000, TestOrderState::Approved, false)
        .await;
    // Void is the PROVRFN user's: PROVAUT may not.
    let r = b.request("PROVAUT", TxnType::Void, "S1", FIXED_AMOUNT);
    assert_eq!(
        reason(&b.post_raw(r.to_xml().into_bytes()).await),
        ("92", "0652")
    );
    // A user the terminal does not have.
    let r = b.request("PROVXYZ", TxnType::OrderInq, "S1", FIXED_AMOUNT);
    assert_eq!(
        reason(&b.post_raw(r.to_xml().into_bytes()).await),
        ("92", "0653")
    );
    // Another merchant number.
    let doc = b
        .request("PROVAUT", TxnType::OrderInq, "S1", FIXED_AMOUNT)
        .to_xml()
        .replace("<MerchantID>7000679<", "<MerchantID>7000670<");
    assert_eq!(reason(&b.post_raw(doc.into_bytes()).await), ("92", "0753"));
    // Zero amount: the mandatory rule.
    let r = b.request("PROVRFN", TxnType::Refund, "S1", "0");
    let ans = b.post_raw(r.to_xml().into_bytes()).await;
    assert_eq!(reason(&ans), ("92", "0002"));
    assert!(ans.sys_err_msg.contains("must not be zero"));
    // Mode must be TEST or PROD; order ids are at most 32 characters.
    let doc = b
        .request("PROVAUT", TxnType::OrderInq, "S1", FIXED_AMOUNT)
        .to_xml()
        .replace("<Mode>TEST<", "<Mode>DEV<");
    assert_eq!(reason(&b.post_raw(doc.into_bytes()).await), ("92", "0002"));
    let long = "A".repeat(33);
    let r = b.request("PROVAUT", TxnType::OrderInq, &long, FIXED_AMOUNT);
    assert_eq!(
        reason(&b.post_raw(r.to_xml().into_bytes()).await),
        ("92", "0002")
    );
}

/// The legacy `v0.01` hash (SHA-1, no currency) is not what the `512` terminal expects.
#[tokio::test]
async fn a_legacy_sha1_hash_is_a_wrong_password() {
    let b = bank().await;
    b.register("S1", 5_000, TestOrderState::Approved, false)
        .await;
    let r = b.request("PROVAUT", TxnType::OrderInq, "S1", FIXED_AMOUNT);
    let good = r.hash();
    let sec = paygate_bank_garanti::hash::security_data("123qweASD/", "30691298");
    let legacy = hex::encode_upper(Sha1::digest(format!("S130691298100{sec}").as_bytes()));
    let doc = r.to_xml().replace(&good, &legacy);
    let ans = b.post_raw(doc.into_bytes()).await;
    assert_eq!(reason(&ans), ("92", "0651"));
    // Tampering with a hashed field breaks the hash too.
    let doc = r.to_xml().replace("<Amount>100<", "<Amount>101<");
    assert_eq!(reason(&b.post_raw(doc.into_bytes()).await), ("92", "0651"));
    // The genuine request is answered.
    assert_eq!(
        reason(&b.post_raw(r.to_xml().into_bytes()).await),
        ("00", "")
    );
}

#[tokio::test]
async fn void_reference_rules() {
    let b = bank().await;
    b.register("PA1", 4_000, TestOrderState::Preauth, false)
        .await;
    assert!(matches!(
        b.provider.capture(&b.account, &op("PA1", 4_000)).await,
        BankOutcome::Approved { .. }
    ));
    let preauth_rrn = b.state.book().get("30691298", "PA1").unwrap().history[0]
        .rrn
        .clone();
    assert_eq!(
        reason(&b.raw_void("PA1", Some("999999999999")).await),
        ("92", "0201")
    );
    assert_eq!(
        reason(&b.raw_void("PA1", Some(&preauth_rrn)).await),
        ("92", "0207")
    );
    assert_eq!(reason(&b.raw_void("PA1", None).await), ("92", "0202"));
    assert_eq!(reason(&b.raw_void("NOPE", None).await), ("92", "0201"));
    // A postauth naming something other than the pre-authorization.
    b.register("PA2", 4_000, TestOrderState::Preauth, false)
        .await;
    let mut r = b.request("PROVAUT", TxnType::PostAuth, "PA2", "4000");
    r.original_rrn = Some("123");
    assert_eq!(
        reason(&b.post_raw(r.to_xml().into_bytes()).await),
        ("92", "0209")
    );
}

#[tokio::test]
async fn faults_via_the_admin_route() {
    let b = bank().await;
    b.admin("/_sim/faults", br#"{"technicalErrors":1}"#.to_vec())
        .await;
    let r = b.request("PROVAUT", TxnType::OrderInq, "S1", FIXED_AMOUNT);
    assert_eq!(
        reason(&b.post_raw(r.to_xml().into_bytes()).await),
        ("90", "90")
    );
    assert_eq!(
        reason(&b.post_raw(r.to_xml().into_bytes()).await),
        ("92", "0110")
    );
}

#[tokio::test]
async fn test_orders_register_once_and_only_at_the_simulator() {
    let b = bank().await;
    b.register("T1", 100, TestOrderState::Approved, false).await;
    assert!(matches!(
        b.register_order("T1", 100, Currency::Try, TestOrderState::Approved, false)
            .await,
        Err(StoreError::AlreadyExists)
    ));
    // `none` registers nothing: the bank does not know the order.
    b.register("T2", 100, TestOrderState::None, false).await;
    assert!(!b.query("T2").await.found);
    // A server without the admin route (as a real GVPS endpoint): the failure is reported.
    let plain = SimServer::start(axum::Router::new()).await.unwrap();
    let creds = Arc::new(MemoryCredentials::default());
    creds.insert(
        b.account.id.clone(),
        b.sim_creds
            .account_credentials(&format!("{}/VPServlet", plain.url)),
    );
    let provider = paygate_bank_garanti::GarantiProvider::new(
        paygate_bank_garanti::Garanti::default(),
        BankTransport::new(std::time::Duration::from_secs(2)),
        creds,
    );
    let order = TestOrder {
        order_id: "T3".into(),
        amount: 100,
        currency: Currency::Try,
        state: TestOrderState::Approved,
        settled: false,
    };
    let err = provider
        .test_orders()
        .unwrap()
        .register(&b.account, &order)
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::Unavailable(ref m) if m.contains("404")),
        "{err:?}"
    );
}
