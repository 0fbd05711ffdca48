use super::*;
use crate::{
    ids::PaymentId,
    money::Currency,
    payment::{Payment, PaymentStatus},
    AccountId,
};

const T0: Timestamp = Timestamp::from_unix_millis(1_795_251_600_000);

fn event(t: EventType, mode: Mode) -> EventRecord {
    let p = Payment {
        id: PaymentId::parse("pay_1").unwrap(),
        merchant_id: MerchantId::parse("mch_1").unwrap(),
        mode,
        account_id: AccountId::parse("acc_1").unwrap(),
        order_id: "O".into(),
        currency: Currency::Try,
        amount: 100,
        captured_amount: 100,
        refunded_amount: 0,
        status: PaymentStatus::Captured,
        pending: None,
        auth_code: String::new(),
        rrn: String::new(),
        version: 1,
        created_at: T0,
        updated_at: T0,
    };
    EventRecord::for_payment(EventId::parse("evt_abc").unwrap(), t, &p, T0)
}

fn endpoint(events: &[&str], mode: Mode, enabled: bool) -> WebhookEndpoint {
    WebhookEndpoint {
        id: WebhookEndpointId::parse("whe_1").unwrap(),
        merchant_id: MerchantId::parse("mch_1").unwrap(),
        url: "https://example.com/hook".into(),
        events: events
            .iter()
            .map(|e| EventFilter::parse(e).unwrap())
            .collect(),
        mode,
        enabled,
        description: String::new(),
        secret_id: "s".into(),
        secret_version: 0,
        created_at: T0,
        updated_at: T0,
        disabled_reason: None,
    }
}

#[test]
fn endpoints_get_subscribed_events_of_their_mode_only() {
    let captured = event(EventType::PaymentCaptured, Mode::Test);
    assert!(endpoint(&["*"], Mode::Test, true).wants(&captured));
    assert!(endpoint(&["payment.captured"], Mode::Test, true).wants(&captured));
    assert!(!endpoint(&["payment.refunded"], Mode::Test, true).wants(&captured));
    assert!(!endpoint(&["*"], Mode::Live, true).wants(&captured));
    assert!(!endpoint(&["*"], Mode::Test, false).wants(&captured));
    let mut other = endpoint(&["*"], Mode::Test, true);
    other.merchant_id = MerchantId::parse("mch_2").unwrap();
    assert!(!other.wants(&captured));
}

#[test]
fn an_endpoint_disabled_as_failing_holds_what_it_would_get_one_disabled_by_hand_nothing() {
    let captured = event(EventType::PaymentCaptured, Mode::Test);
    let disabled = |events: &[&str], mode, reason| WebhookEndpoint {
        disabled_reason: reason,
        ..endpoint(events, mode, false)
    };
    let failing = disabled(&["*"], Mode::Test, Some(DisabledReason::Failing));
    assert!(failing.holds(&captured) && !failing.wants(&captured));
    assert!(!disabled(&["*"], Mode::Test, Some(DisabledReason::Manual)).holds(&captured));
    assert!(!disabled(
        &["payment.refunded"],
        Mode::Test,
        Some(DisabledReason::Failing)
    )
    .holds(&captured));
    assert!(!disabled(&["*"], Mode::Live, Some(DisabledReason::Failing)).holds(&captured));
    assert!(
        !endpoint(&["*"], Mode::Test, true).holds(&captured),
        "enabled: sent"
    );

    // Held: attempt 1 recorded as endpoint_unavailable, the delivery failed for good; a
    // resend (recover) makes attempt 2 due at once with the whole schedule ahead.
    let (created, attempt, after) = Delivery::held(&captured, &failing, T0);
    assert_eq!(created, Delivery::new(&captured, &failing, T0));
    assert_eq!(
        (
            attempt.number,
            attempt.error,
            attempt.succeeded,
            attempt.status_code
        ),
        (1, Some(AttemptError::EndpointUnavailable), false, None)
    );
    assert_eq!(
        (after.status, after.attempts_made, after.next_attempt_at),
        (DeliveryStatus::Failed, 1, None)
    );
    let later = T0.plus_millis(3_600_000);
    let resent = after.resent(later).unwrap();
    assert_eq!(
        (resent.status, resent.next_attempt_at, resent.retry_base),
        (DeliveryStatus::Pending, Some(later), 1)
    );
}

#[test]
fn delivery_ids_are_stable_per_event_and_endpoint() {
    let e = EventId::parse("evt_abc").unwrap();
    let w = WebhookEndpointId::parse("whe_1").unwrap();
    assert_eq!(delivery_id(&e, &w), delivery_id(&e, &w));
    assert_eq!(delivery_id(&e, &w).as_str(), "dlv_abc1");
    let w2 = WebhookEndpointId::parse("whe_2").unwrap();
    assert_ne!(delivery_id(&e, &w), delivery_id(&e, &w2));
    let long_e = EventId::parse(&format!("evt_{}", "a".repeat(40))).unwrap();
    let long_w = WebhookEndpointId::parse(&format!("whe_{}", "b".repeat(40))).unwrap();
    let id = delivery_id(&long_e, &long_w);
    assert!(DeliveryId::parse(id.as_str()).is_ok());
    assert_ne!(
        id,
        delivery_id(
            &long_e,
            &WebhookEndpointId::parse(&format!("whe_{}", "c".repeat(40))).unwrap()
        )
    );
}

#[test]
fn schedule_parses_the_spec_and_overrides() {
    assert_eq!(
        RetrySchedule::parse(SPEC_SCHEDULE).unwrap(),
        RetrySchedule::default()
    );
    assert_eq!(
        RetrySchedule::parse("1s,1s").unwrap().waits_seconds(),
        &[1, 1]
    );
    assert_eq!(
        RetrySchedule::parse("1d").unwrap().waits_seconds(),
        &[86_400]
    );
    for bad in ["", "0s", "5", "5x", "1s,,2s", "-1s"] {
        assert!(RetrySchedule::parse(bad).is_none(), "{bad}");
    }
}

/// Odd configuration is `None`, never a panic: a multi-byte last character (which made
/// the unit split panic), signs, non-ASCII digits, overflowing and absurd waits, too many
/// entries; then a deterministic fuzz over an alphabet of such pieces.
#[test]
fn schedule_parse_never_panics_on_odd_configuration() {
    let many = vec!["1s"; RetrySchedule::MAX_RETRIES + 1].join(",");
    for bad in [
        "é",
        "1é",
        "5µ",
        "30s,1€",
        "ß",
        "+5s",
        "١s",
        "１s",
        "s",
        " ",
        ",",
        "1s,",
        "\u{0}",
        "18446744073709551615s",
        "18446744073709551615d",
        "99999999999999999999999s",
        "31d",
        "2592001s",
        many.as_str(),
    ] {
        assert!(RetrySchedule::parse(bad).is_none(), "{bad:?}");
    }
    assert_eq!(
        RetrySchedule::parse(" 30d ").unwrap().waits_seconds(),
        &[RetrySchedule::MAX_WAIT_SECS]
    );
    let pieces = [
        "1",
        "0",
        "9",
        "s",
        "m",
        "h",
        "d",
        ",",
        " ",
        "é",
        "µ",
        "-",
        "+",
        "٣",
        "99999999999",
        "\u{0}",
        "x",
        "🦀",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..50_000 {
        let mut input = String::new();
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        for i in 0..(state % 12) {
            let idx =
                usize::try_from((state >> (i * 5)) % u64::try_from(pieces.len()).unwrap()).unwrap();
            input.push_str(pieces[idx]);
        }
        if let Some(s) = RetrySchedule::parse(&input) {
            assert!(
                s.waits_seconds()
                    .iter()
                    .all(|w| (1..=RetrySchedule::MAX_WAIT_SECS).contains(w)),
                "{input:?}"
            );
            let _ = s.next_after(1, Timestamp::from_unix_millis(i64::MAX - 1));
        }
    }
}

fn attempt(n: u32, code: Option<u16>, at: Timestamp) -> Attempt {
    Attempt {
        delivery_id: DeliveryId::parse("dlv_1").unwrap(),
        number: n,
        at,
        duration_ms: 5,
        status_code: code,
        error: if code.is_none() {
            Some(AttemptError::Timeout)
        } else {
            None
        },
        response_body: String::new(),
        succeeded: Attempt::is_success(code),
    }
}

#[test]
fn one_plus_eight_attempts_at_the_specs_intervals_then_failed() {
    let schedule = RetrySchedule::default();
    let ev = event(EventType::PaymentCaptured, Mode::Test);
    let mut d = Delivery::new(&ev, &endpoint(&["*"], Mode::Test, true), T0);
    let mut at = T0;
    let mut waits = Vec::new();
    for n in 1..=9 {
        let next = d.after_attempt(&attempt(n, Some(500), at), &schedule);
        d = next.delivery;
        match next.next {
            Some((num, due)) => {
                assert_eq!(num, n + 1);
                waits.push((due.unix_millis() - at.unix_millis()) / 1000);
                at = due;
            }
            None => assert_eq!(n, 9),
        }
    }
    assert_eq!(waits, [30, 120, 600, 1_800, 7_200, 21_600, 43_200, 86_400]);
    assert_eq!(d.status, DeliveryStatus::Failed);
    assert_eq!(d.attempts_made, 9);
    assert_eq!(d.next_attempt_at, None);
}

#[test]
fn only_2xx_succeeds() {
    for (code, ok) in [
        (Some(200), true),
        (Some(204), true),
        (Some(299), true),
        (Some(301), false),
        (Some(404), false),
        (Some(500), false),
        (None, false),
    ] {
        assert_eq!(Attempt::is_success(code), ok, "{code:?}");
    }
    let ev = event(EventType::PaymentCaptured, Mode::Test);
    let d = Delivery::new(&ev, &endpoint(&["*"], Mode::Test, true), T0);
    let after = d.after_attempt(&attempt(1, Some(204), T0), &RetrySchedule::default());
    assert_eq!(after.delivery.status, DeliveryStatus::Succeeded);
    assert!(after.next.is_none());
}

#[test]
fn long_waits_are_hops_of_at_most_900_seconds() {
    let due = T0.plus_millis(7_200_000);
    assert_eq!(hop_delay_secs(T0, due), 900);
    assert_eq!(hop_delay_secs(T0.plus_millis(7_000_000), due), 200);
    assert_eq!(hop_delay_secs(T0.plus_millis(7_199_500), due), 1);
    assert_eq!(hop_delay_secs(due, due), 0);
    assert_eq!(hop_delay_secs(due.plus_millis(5), due), 0);
}

#[test]
fn envelope_has_the_specs_fields_and_is_serialised_once() {
    let ev = event(EventType::PaymentRefunded, Mode::Live);
    let bytes = Envelope::of(&ev).to_bytes();
    let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(v["id"], "evt_abc");
    assert_eq!(v["type"], "payment.refunded");
    assert_eq!(v["mode"], "live");
    assert_eq!(v["createdAt"], "2026-11-21T09:00:00.000Z");
    assert_eq!(v["data"]["object"], "payment");
    assert_eq!(v["data"]["id"], "pay_1");
    assert_eq!(v["data"]["status"], "captured");
    assert_eq!(v["data"]["amount"], 100);
    assert_eq!(v.as_object().unwrap().len(), 5);
}

#[test]
fn a_resend_restarts_the_schedule_and_keeps_numbering() {
    let schedule = RetrySchedule::parse("30s,2m").unwrap();
    let ep = endpoint(&["*"], Mode::Test, true);
    let mut d = Delivery::new(&event(EventType::PaymentCaptured, Mode::Test), &ep, T0);
    assert_eq!(d.resent(T0), None, "a pending delivery is not resent");
    // three failures use up a schedule of two retries
    for n in 1..=3 {
        d = d
            .after_attempt(&attempt(n, Some(500), T0), &schedule)
            .delivery;
    }
    assert_eq!(d.status, DeliveryStatus::Failed);

    let t1 = T0.plus_millis(3_600_000);
    let r = d.resent(t1).unwrap();
    assert_eq!(
        (
            r.id.clone(),
            r.status,
            r.attempts_made,
            r.next_attempt_at,
            r.retry_base
        ),
        (d.id.clone(), DeliveryStatus::Pending, 3, Some(t1), 3)
    );
    // attempt 4 is the first of the new run: its failure waits the schedule's first step
    let after = r.after_attempt(&attempt(4, Some(500), t1), &schedule);
    assert_eq!(after.next, Some((5, t1.plus_millis(30_000))));
    let after = after
        .delivery
        .after_attempt(&attempt(5, Some(500), t1), &schedule);
    assert_eq!(after.next, Some((6, t1.plus_millis(120_000))));
    let last = after
        .delivery
        .after_attempt(&attempt(6, Some(503), t1), &schedule);
    assert_eq!(
        (last.delivery.status, last.next),
        (DeliveryStatus::Failed, None)
    );
    // and a succeeded delivery can be resent too
    let ok = r
        .after_attempt(&attempt(4, Some(200), t1), &schedule)
        .delivery;
    assert_eq!(ok.resent(t1).map(|d| d.retry_base), Some(4));
}

#[test]
fn the_transaction_that_caused_an_event_is_data_transaction() {
    let ev = event(EventType::PaymentRefunded, Mode::Live);
    let v: serde_json::Value = serde_json::from_slice(&Envelope::of(&ev).to_bytes()).unwrap();
    assert!(
        v["data"].get("transaction").is_none(),
        "none caused it: left out"
    );
    let txn = crate::Transaction::pending(
        crate::TransactionId::parse("txn_1").unwrap(),
        ev.payment_id.clone(),
        crate::TransactionType::Refund,
        100,
        crate::Currency::Try,
        T0,
    );
    let ev = ev.caused_by(&txn);
    let v: serde_json::Value = serde_json::from_slice(&Envelope::of(&ev).to_bytes()).unwrap();
    assert_eq!(v["data"]["transaction"]["id"], "txn_1");
    assert_eq!(v["data"]["transaction"]["origin"], "api");
    assert_eq!(
        v["data"]["id"], "pay_1",
        "the payment's fields stay where they were"
    );
    assert_eq!(v.as_object().unwrap().len(), 5);
}
