//! The order book, the ledger and the transport's failure classes.
use super::*;

#[test]
fn book_rules() {
    let mut b = OrderBook::new(true);
    b.register(
        "c",
        "o1",
        10_000,
        Currency::Try,
        TestOrderState::Preauth,
        false,
    )
    .unwrap();
    assert_eq!(
        b.register("c", "o1", 1, Currency::Try, TestOrderState::Preauth, false),
        Err(Refusal::Duplicate)
    );
    assert_eq!(
        b.postauth("c", "o1", 10_001),
        Err(Refusal::AmountAbovePreauth)
    );
    b.postauth("c", "o1", 6_000).unwrap();
    assert_eq!(b.refund("c", "o1", 100), Err(Refusal::RefundBeforeEndOfDay));
    b.end_of_day();
    assert_eq!(b.void("c", "o1"), Err(Refusal::AfterEndOfDay));
    assert_eq!(
        b.refund("c", "o1", 6_001),
        Err(Refusal::RefundAboveRemaining)
    );
    b.refund("c", "o1", 1_000).unwrap();
    assert_eq!(b.get("c", "o1").unwrap().refundable(), 5_000);
    assert_eq!(b.refund("c", "nope", 1), Err(Refusal::NotFound));
    b.register(
        "c",
        "o2",
        500,
        Currency::Try,
        TestOrderState::Approved,
        false,
    )
    .unwrap();
    b.void("c", "o2").unwrap();
    assert_eq!(b.void("c", "o2"), Err(Refusal::NothingToVoid));
}

#[test]
fn lookup_by_reference_and_protocol_specific_changes() {
    let mut b = OrderBook::new(false);
    b.register(
        "c",
        "o1",
        1_000,
        Currency::Try,
        TestOrderState::Preauth,
        false,
    )
    .unwrap();
    let rrn = b.get("c", "o1").unwrap().history[0].rrn.clone();
    assert_eq!(
        b.find_by_rrn("c", &rrn)
            .map(|(o, t)| (o.order_id.as_str(), t.kind)),
        Some(("o1", "preauth"))
    );
    assert!(b.find_by_rrn("other", &rrn).is_none());
    assert!(b.find_by_rrn("c", "nope").is_none());
    assert_eq!(b.today(), 0);
    b.end_of_day();
    assert_eq!(b.today(), 1);
    b.get_mut("c", "o1").unwrap().state = OrderState::Voided;
    assert_eq!(b.get("c", "o1").unwrap().state, OrderState::Voided);
}

#[test]
fn a_captured_preauth_is_reversed_in_two_steps_and_the_ledger_shows_it() {
    let state = SimState::new(false);
    {
        let mut b = state.book();
        b.register(
            "c",
            "o",
            1_000,
            Currency::Try,
            TestOrderState::Preauth,
            false,
        )
        .unwrap();
        b.postauth("c", "o", 600).unwrap();
        let ((), touched) = track_touched(|| {
            b.reverse_capture("c", "o").unwrap();
        });
        assert_eq!(touched, Some(("c".to_owned(), "o".to_owned())));
        let o = b.get("c", "o").unwrap();
        assert_eq!((o.state, o.amount), (OrderState::Preauth, 1_000));
        assert_eq!(b.reverse_capture("c", "o"), Err(Refusal::NothingToVoid));
        b.void("c", "o").unwrap();
    }
    let l = state.ledger_of("c", "o").unwrap();
    assert_eq!(l.state, OrderState::Voided);
    let kinds: Vec<_> = l.operations.iter().map(|t| (t.kind, t.voided)).collect();
    assert_eq!(
        kinds,
        [
            ("preauth", true),
            ("postauth", true),
            ("void", false),
            ("void", false)
        ]
    );
    assert_eq!(state.ledger().len(), 1);
    assert!(!state.fault_plan().is_active());
}

#[tokio::test]
async fn transport_classifies_what_may_have_reached_the_bank() {
    use axum::routing::post;

    use crate::transport::{BankTransport, TransportError};
    let router = axum::Router::new()
        .route("/ok", post(|| async { "<ok/>" }))
        .route("/drop", post(|| async { dropped_connection() }))
        .route(
            "/slow",
            post(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                "late"
            }),
        )
        .route(
            "/500",
            post(|| async { (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "x") }),
        );
    let server = SimServer::start(router).await.unwrap();
    let t = BankTransport::new(Duration::from_millis(300));
    let url = |p: &str| format!("{}{p}", server.url);
    assert_eq!(
        t.post(&url("/ok"), "text/xml", b"<x/>".to_vec())
            .await
            .unwrap(),
        b"<ok/>"
    );
    assert_eq!(
        t.post(&url("/drop"), "text/xml", vec![]).await,
        Err(TransportError::Broken)
    );
    assert_eq!(
        t.post(&url("/slow"), "text/xml", vec![]).await,
        Err(TransportError::Timeout)
    );
    assert_eq!(
        t.post(&url("/500"), "text/xml", vec![]).await,
        Err(TransportError::Http(500))
    );
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    assert_eq!(
        t.post(&format!("http://{closed}/x"), "text/xml", vec![])
            .await,
        Err(TransportError::NotSent)
    );
}
