//! Notes on refunds and cancels (reason, description, metadata), their bounds, the
//! transactions list, and a refund made at the bank recorded once by a query.

use super::*;

#[tokio::test]
async fn a_refunds_note_is_stored_listed_and_sent_with_its_event() {
    let w = world().await;
    let note = r#"{"amount":2500,"reason":"duplicate","description":"çift çekim","metadata":{"ticket":"T-1"}}"#;
    let (status, body) = call(
        &w,
        Some(&principal()),
        "pay_1",
        TransactionType::Refund,
        note,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let txn = &body["transaction"];
    assert_eq!(
        (txn["reason"].as_str(), txn["description"].as_str()),
        (Some("duplicate"), Some("çift çekim"))
    );
    assert_eq!(txn["metadata"], serde_json::json!({"ticket": "T-1"}));
    assert_eq!(txn["origin"], "api");
    assert_eq!(
        txn["settledAt"], body["payment"]["updatedAt"],
        "settled with the payment's change"
    );
    // Listed, as recorded.
    let (status, list) = transactions(&w, &principal(), "pay_1").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (list["object"].as_str(), list["paymentId"].as_str()),
        (Some("list"), Some("pay_1"))
    );
    assert_eq!(list["data"], serde_json::json!([txn.clone()]));
    // The event carries it.
    let event = w.store.events().pop().unwrap();
    assert_eq!(
        serde_json::to_value(event.transaction.unwrap()).unwrap(),
        *txn
    );
    // Another merchant's or mode's payment: the same 404 as a payment that does not exist.
    for who in [
        Principal {
            merchant_id: MerchantId::parse("mch_2").unwrap(),
            ..principal()
        },
        Principal {
            mode: Mode::Live,
            ..principal()
        },
    ] {
        let (status, body) = transactions(&w, &who, "pay_1").await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (StatusCode::NOT_FOUND, Some("not_found"))
        );
        assert!(
            body["error"].get("details").is_none_or(Value::is_null),
            "{body}"
        );
    }
    // A cancel takes a note too (none here: null, null, {}).
    let (_, body) = call(
        &w,
        Some(&principal()),
        "pay_1",
        TransactionType::Cancel,
        r#"{"reason":"other"}"#,
    )
    .await;
    assert_eq!(
        body["error"]["code"], "invalid_state",
        "cancel after a refund: {body}"
    );
    let (status, list) = transactions(&w, &principal(), "pay_1").await;
    assert_eq!(
        (status, list["data"].as_array().unwrap().len()),
        (StatusCode::OK, 1)
    );
}

#[tokio::test]
async fn a_note_out_of_bounds_is_refused_naming_the_field_before_anything_moves() {
    let w = world().await;
    let keys: serde_json::Map<String, Value> = (0..21)
        .map(|i| (format!("k{i}"), Value::from("v")))
        .collect();
    let cases = [
        (
            TransactionType::Refund,
            serde_json::json!({"reason": "chargeback"}),
            "reason",
        ),
        (
            TransactionType::Refund,
            serde_json::json!({"reason": 1}),
            "reason",
        ),
        (
            TransactionType::Cancel,
            serde_json::json!({"reason": null}),
            "reason",
        ),
        (
            TransactionType::Refund,
            serde_json::json!({"description": "d".repeat(501)}),
            "description",
        ),
        (
            TransactionType::Cancel,
            serde_json::json!({"metadata": "x"}),
            "metadata",
        ),
        (
            TransactionType::Refund,
            serde_json::json!({"metadata": {"ticket": 7}}),
            "metadata.ticket",
        ),
        (
            TransactionType::Refund,
            serde_json::json!({"metadata": {"ticket": "v".repeat(501)}}),
            "metadata.ticket",
        ),
        (
            TransactionType::Refund,
            serde_json::json!({"metadata": {"k".repeat(41): "v"}}),
            "metadata",
        ),
        (
            TransactionType::Refund,
            serde_json::json!({"metadata": keys}),
            "metadata",
        ),
        (
            TransactionType::Cancel,
            serde_json::json!({"amount": 1}),
            "amount",
        ),
        (
            TransactionType::Capture,
            serde_json::json!({"reason": "other"}),
            "reason",
        ),
    ];
    for (kind, body, field) in cases {
        let (status, json) = call(&w, Some(&principal()), "pay_1", kind, &body.to_string()).await;
        assert_eq!(
            (
                status,
                json["error"]["code"].as_str(),
                json["error"]["details"]["field"].as_str()
            ),
            (
                StatusCode::BAD_REQUEST,
                Some("invalid_request"),
                Some(field)
            ),
            "{kind:?} {body}"
        );
    }
    assert!(w.store.transactions().is_empty(), "nothing reserved");
}

#[tokio::test]
async fn a_refund_made_at_the_bank_is_recorded_once_by_a_query_never_over_our_own() {
    let w = world().await;
    let id = PaymentId::parse("pay_1").unwrap();
    // Ours first: 2500 refunded through the API.
    let (status, _) = call(
        &w,
        Some(&principal()),
        "pay_1",
        TransactionType::Refund,
        r#"{"amount":2500}"#,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // Then 3000 refunded in the bank's own panel (straight at the simulator).
    use paygate_domain::ports::{BankOperation, PosProvider};
    let panel = BankOperation {
        order_id: "ORD1".into(),
        transaction_id: paygate_domain::TransactionId::parse("txn_panel").unwrap(),
        amount: 3_000,
        currency: Currency::Try,
        full: false,
    };
    assert!(matches!(
        w.bank.refund(&w.account, &panel).await,
        paygate_domain::BankOutcome::Approved { .. }
    ));
    w.clock.advance_millis(1_000);
    // While an operation of ours is in flight, the difference could be it: nothing recorded.
    let settled = w.store.payment(&id).unwrap();
    let mut in_flight = settled.clone();
    in_flight.pending = Some(paygate_domain::PendingOperation {
        kind: TransactionType::Refund,
        transaction_id: paygate_domain::TransactionId::parse("txn_ours").unwrap(),
        amount: 3_000,
        state: paygate_domain::PendingState::InFlight,
        started_at: paygate_domain::ports::Clock::now(w.clock.as_ref()),
        resume_until: None,
    });
    w.store.insert(in_flight);
    let body = query(&w).await;
    assert_eq!(body["payment"]["refundedAmount"], 2_500);
    assert_eq!(w.store.transactions().len(), 1);
    w.store.insert(settled);
    // Nothing of ours pending: the query records the bank's refund, once.
    let events = w.store.events().len();
    let body = query(&w).await;
    assert_eq!(body["payment"]["status"], "partially_refunded");
    assert_eq!(body["payment"]["refundedAmount"], 5_500);
    let (_, list) = transactions(&w, &principal(), "pay_1").await;
    let data = list["data"].as_array().unwrap();
    assert_eq!(data.len(), 2, "{list}");
    assert_eq!(
        (data[0]["origin"].as_str(), data[1]["origin"].as_str()),
        (Some("api"), Some("external"))
    );
    assert_eq!(
        (
            data[1]["type"].as_str(),
            data[1]["amount"].as_i64(),
            data[1]["status"].as_str()
        ),
        (Some("refund"), Some(3_000), Some("approved"))
    );
    let sent = w.store.events();
    assert_eq!(sent.len(), events + 1);
    let event = sent.last().unwrap();
    assert_eq!(event.event_type, paygate_domain::EventType::PaymentRefunded);
    assert_eq!(
        event.transaction.as_ref().map(|t| t.origin),
        Some(paygate_domain::Origin::External)
    );
    // A second query: nothing more.
    let body = query(&w).await;
    assert_eq!(body["payment"]["refundedAmount"], 5_500);
    assert_eq!(
        (w.store.transactions().len(), w.store.events().len()),
        (2, events + 1)
    );
}
