//! Adapter ↔ simulator over real HTTP: technical errors, time-outs, dropped connections,
//! wrong credentials, the wire format's strictness and the admin routes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{bank, op, secret, CLIENT_ID, NAME, PASSWORD, TIMEOUT};
use paygate_bankkit::{encoding, sim::Faults, transport::form_encode, TransportError};
use paygate_domain::{
    ports::{PosProvider, TestOrderState},
    BankOutcome, BankState, StoreError,
};

#[tokio::test]
async fn technical_error_is_an_error_and_moves_nothing() {
    let b = bank().await;
    b.order("ORD-TE", 5_000, TestOrderState::Preauth, false)
        .await;
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    match b
        .provider
        .capture(&b.account, &op("ORD-TE", 5_000, true))
        .await
    {
        BankOutcome::Error { code, message } => {
            assert_eq!(
                (code.as_str(), message.as_str()),
                ("CORE-1001", "General initialization error")
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        b.provider.query(&b.account, "ORD-TE").await.state,
        BankState::Preauth
    );
}

#[tokio::test]
async fn timeout_is_unknown_and_query_shows_it_applied() {
    let b = bank().await;
    b.order("ORD-TO", 5_000, TestOrderState::Preauth, false)
        .await;
    b.faults(Faults {
        latency: TIMEOUT + Duration::from_millis(600),
        ..Faults::default()
    });
    let out = b
        .provider
        .capture(&b.account, &op("ORD-TO", 5_000, true))
        .await;
    assert!(matches!(out, BankOutcome::Unknown { .. }), "{out:?}");
    // The query under the same latency cannot be performed either …
    let st = b.provider.query(&b.account, "ORD-TO").await;
    assert!(
        st.found && st.state == BankState::Unknown && !st.is_conclusive(),
        "{st:?}"
    );
    // … and once the bank answers in time it shows the capture applied.
    b.faults(Faults::default());
    let st = b.provider.query(&b.account, "ORD-TO").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 5_000));
}

#[tokio::test]
async fn dropped_after_processing_is_unknown_and_applied() {
    let b = bank().await;
    b.order("ORD-DROP", 8_000, TestOrderState::Approved, true)
        .await;
    b.faults(Faults {
        drop_after_processing: 1,
        ..Faults::default()
    });
    let out = b
        .provider
        .refund(&b.account, &op("ORD-DROP", 3_000, false))
        .await;
    assert!(matches!(out, BankOutcome::Unknown { .. }), "{out:?}");
    let st = b.provider.query(&b.account, "ORD-DROP").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 3_000),
        "the partial refund happened and the query must show it"
    );
}

#[tokio::test]
async fn dropped_before_processing_is_unknown_and_not_applied() {
    let b = bank().await;
    b.order("ORD-DROPB", 8_000, TestOrderState::Approved, false)
        .await;
    b.faults(Faults {
        drop_before_processing: 1,
        ..Faults::default()
    });
    let out = b
        .provider
        .cancel(&b.account, &op("ORD-DROPB", 8_000, true))
        .await;
    assert!(matches!(out, BankOutcome::Unknown { .. }), "{out:?}");
    assert_eq!(
        b.provider.query(&b.account, "ORD-DROPB").await.state,
        BankState::Approved
    );
}

#[tokio::test]
async fn query_technical_error_is_unavailable() {
    let b = bank().await;
    b.order("ORD-QE", 100, TestOrderState::Approved, false)
        .await;
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    let st = b.provider.query(&b.account, "ORD-QE").await;
    assert!(st.found && !st.is_conclusive(), "{st:?}");
    assert_eq!(st.code, "CORE-1001");
    // The fault was used up: the next query answers.
    let st = b.provider.query(&b.account, "ORD-QE").await;
    assert_eq!(st.state, BankState::Approved);
}

#[tokio::test]
async fn wrong_credentials_are_an_error() {
    let b = bank().await;
    b.order("ORD-AUTH", 100, TestOrderState::Preauth, false)
        .await;
    let bad = b.other_account(
        "acc_bad",
        secret(&b.endpoint(), CLIENT_ID, NAME, "wrong", Some("maxipuan")),
    );
    match b.provider.capture(&bad, &op("ORD-AUTH", 100, true)).await {
        BankOutcome::Error { code, message } => {
            assert_eq!(
                (code.as_str(), message.as_str()),
                ("CORE-2201", "The user is not authenticated.")
            );
        }
        other => panic!("{other:?}"),
    }
    let st = b.provider.query(&bad, "ORD-AUTH").await;
    assert!(
        st.found && !st.is_conclusive() && st.code == "CORE-2201",
        "{st:?}"
    );
    // Another store's user cannot see this store's orders.
    let other = b.other_account(
        "acc_other",
        secret(&b.endpoint(), "190100000", "AKBANKAPI", "AKBANK01", None),
    );
    assert!(!b.provider.query(&other, "ORD-AUTH").await.found);
    // The order is untouched.
    assert_eq!(
        b.provider.query(&b.account, "ORD-AUTH").await.state,
        BankState::Preauth
    );
}

#[tokio::test]
async fn missing_credentials_never_reach_the_bank() {
    let b = bank().await;
    let nothing = common::account("acc_unknown");
    match b.provider.refund(&nothing, &op("X", 1, true)).await {
        BankOutcome::Error { code, .. } => assert_eq!(code, "config"),
        other => panic!("{other:?}"),
    }
    assert!(!b.provider.query(&nothing, "X").await.is_conclusive());
}

#[tokio::test]
async fn unreachable_bank_is_an_error_not_unknown() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let b = bank().await;
    let acc = b.other_account(
        "acc_closed",
        secret(
            &format!("http://{closed}/fim/api"),
            CLIENT_ID,
            NAME,
            PASSWORD,
            None,
        ),
    );
    assert!(matches!(
        b.provider.capture(&acc, &op("X", 1, true)).await,
        BankOutcome::Error { .. }
    ));
    // The test helper reports that a real bank has no admin route.
    let reg = b
        .provider
        .test_orders()
        .unwrap()
        .register(
            &acc,
            &paygate_domain::ports::TestOrder {
                order_id: "X".into(),
                amount: 1,
                currency: paygate_domain::Currency::Try,
                state: TestOrderState::Approved,
                settled: false,
            },
        )
        .await;
    assert!(matches!(reg, Err(StoreError::Unavailable(_))), "{reg:?}");
}

fn status_doc(decl: &str, name: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"{decl}\"?><CC5Request><Name>{name}</Name><Password>{PASSWORD}</Password><ClientId>{CLIENT_ID}</ClientId><OrderId>ORD-W</OrderId><Extra><ORDERSTATUS>QUERY</ORDERSTATUS></Extra></CC5Request>"
    )
}

#[tokio::test]
async fn wire_strictness() {
    let b = bank().await;
    b.order("ORD-W", 100, TestOrderState::Approved, false).await;
    // The DATA= form the bank also accepts.
    let form = format!(
        "DATA={}",
        form_encode(&encoding::encode(&status_doc("ISO-8859-9", NAME)))
    );
    let r = b
        .raw("application/x-www-form-urlencoded", form.into_bytes())
        .await;
    assert_eq!(
        (r.proc_return_code.as_str(), r.order_id.as_str()),
        ("00", "ORD-W")
    );
    // Malformed XML.
    let r = b
        .raw("text/xml", b"<CC5Request><Name>x</CC5Request>".to_vec())
        .await;
    assert_eq!(r.extra("ERRORCODE"), Some("CORE-2014"));
    // UTF-8 bytes under an ISO-8859-9 declaration (a Turkish user name makes it detectable).
    let r = b
        .raw(
            "text/xml",
            status_doc("ISO-8859-9", "İŞBANKAPI").into_bytes(),
        )
        .await;
    assert_eq!(r.extra("ERRORCODE"), Some("CORE-2014"));
    // Latin-5 bytes under a UTF-8 declaration.
    let r = b
        .raw(
            "text/xml",
            encoding::encode(&status_doc("UTF-8", "İŞBANKAPI")),
        )
        .await;
    assert_eq!(r.extra("ERRORCODE"), Some("CORE-2014"));
    // Unparsable amounts.
    let credit = |total: &str| {
        format!("<CC5Request><Name>{NAME}</Name><Password>{PASSWORD}</Password><ClientId>{CLIENT_ID}</ClientId><Type>Credit</Type><OrderId>ORD-W</OrderId><Total>{total}</Total><Currency>949</Currency></CC5Request>")
    };
    let r = b.raw("text/xml", credit("1,00").into_bytes()).await;
    assert_eq!(r.extra("ERRORCODE"), Some("CORE-2007"));
    let r = b.raw("text/xml", credit("").into_bytes()).await;
    assert_eq!(r.extra("ERRORCODE"), Some("CORE-2504"));
    // An unsupported transaction type.
    let auth = format!("<CC5Request><Name>{NAME}</Name><Password>{PASSWORD}</Password><ClientId>{CLIENT_ID}</ClientId><Type>Sale</Type></CC5Request>");
    assert_eq!(
        b.raw("text/xml", auth.into_bytes())
            .await
            .extra("ERRORCODE"),
        Some("CORE-2001")
    );
}

#[tokio::test]
async fn admin_routes() {
    let b = bank().await;
    b.order("ORD-ADM", 1_000, TestOrderState::Approved, false)
        .await;
    b.admin("/_sim/faults", r#"{"technicalErrors": 1}"#)
        .await
        .unwrap();
    assert!(matches!(
        b.provider
            .cancel(&b.account, &op("ORD-ADM", 1_000, true))
            .await,
        BankOutcome::Error { .. }
    ));
    // Also reachable under the API path (`<endpointUrl>/_sim/...`).
    b.admin("/fim/api/_sim/end-of-day", "").await.unwrap();
    let late = b
        .provider
        .cancel(&b.account, &op("ORD-ADM", 1_000, true))
        .await;
    assert!(
        matches!(
            late,
            BankOutcome::Declined {
                after_cutoff: true,
                ..
            }
        ),
        "{late:?}"
    );
    let unknown_client = r#"{"clientId":"nobody","orderId":"A","amount":1,"currency":"TRY","state":"approved","settled":false}"#;
    assert_eq!(
        b.admin("/_sim/orders", unknown_client).await,
        Err(TransportError::Http(404))
    );
}
