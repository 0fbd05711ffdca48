//! `POST /v1/payments/{id}/reverse` through the refund function: void or refund, the
//! fall-back after the cut (once), and its `Idempotency-Key` across a fault between the steps.

use paygate_domain::{
    testkit::{IdemFault, IdemOp},
    TransactionType,
};

use super::*;

/// A day later: past the simulator bank's end-of-day cut for the sale.
const NEXT_DAY_MS: i64 = 24 * 60 * 60 * 1000;

fn reverse(body: Value, key: Option<&str>) -> Request {
    post("reverse", body, key)
}

fn json_of(resp: &Response<Body>) -> (u16, Value, bool) {
    let (status, body, replayed) = answer(resp);
    (status, serde_json::from_str(&body).unwrap(), replayed)
}

impl World {
    /// (voids, refunds) sent to the bank.
    fn steps(&self) -> (usize, usize) {
        (
            self.bank.voids.load(Ordering::SeqCst),
            self.bank.refunds.load(Ordering::SeqCst),
        )
    }

    fn status(&self) -> PaymentStatus {
        self.payments
            .payment(&PaymentId::parse("pay_1").unwrap())
            .unwrap()
            .status
    }
}

#[tokio::test]
async fn a_same_day_full_reversal_of_a_sale_is_a_void() {
    let w = world().await;
    let (status, body, _) = json_of(&handle(&w.deps, reverse(json!({}), None)).await);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["reversal"],
        json!({"type": "cancel", "afterSettlement": false})
    );
    assert_eq!(body["transaction"]["type"], "cancel");
    assert_eq!((w.steps(), w.status()), ((1, 0), PaymentStatus::Cancelled));
}

#[tokio::test]
async fn after_the_cut_the_refused_void_falls_back_to_one_refund_and_replays() {
    let w = world().await;
    w.clock.advance_millis(NEXT_DAY_MS);
    let req = || reverse(json!({"reason": "duplicate"}), Some("rv-1"));
    let first = handle(&w.deps, req()).await;
    let (status, body, replayed) = json_of(&first);
    assert_eq!((status, replayed), (200, false), "{body}");
    assert_eq!(
        body["reversal"],
        json!({"type": "refund", "afterSettlement": true})
    );
    assert_eq!(body["transaction"]["type"], "refund");
    assert_eq!(body["transaction"]["reason"], "duplicate");
    assert_eq!((w.steps(), w.refunded()), ((1, 1), 10_000));
    let txns = w.payments.transactions();
    let void = txns
        .iter()
        .find(|t| t.kind == TransactionType::Cancel)
        .unwrap();
    assert_eq!(
        void.decline_code,
        Some(paygate_domain::DeclineCode::AfterEndOfDay)
    );
    // the same key again: the same answer, nothing sent
    let again = handle(&w.deps, req()).await;
    assert_eq!(answer(&again), (200, answer(&first).1, true));
    assert_eq!((w.steps(), w.refunded()), ((1, 1), 10_000));
}

#[tokio::test]
async fn an_unknown_void_is_never_followed_by_a_refund() {
    let w = world().await;
    w.clock.advance_millis(NEXT_DAY_MS);
    *w.bank.void_answer.lock().unwrap() = Some(BankOutcome::Unknown {
        reason: "timeout".into(),
    });
    let (status, body, _) = json_of(&handle(&w.deps, reverse(json!({}), Some("rv-1"))).await);
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (422, Some("provider_error"))
    );
    assert_eq!((w.steps(), w.refunded()), ((1, 0), 0));
    // the key is bound to the unknown void: 409 until a query settles it, nothing sent
    let (status, _, _) = json_of(&handle(&w.deps, reverse(json!({}), Some("rv-1"))).await);
    assert_eq!(status, 409);
    // another reverse meets the pending void's lock
    let (status, body, _) = json_of(&handle(&w.deps, reverse(json!({}), None)).await);
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("operation_outcome_unknown"))
    );
    assert_eq!(w.steps(), (1, 0));
}

#[tokio::test]
async fn a_partial_amount_or_a_partly_refunded_payment_is_refunded_directly() {
    let w = world().await;
    let (status, body, _) =
        json_of(&handle(&w.deps, reverse(json!({"amount": 2_500}), Some("rv-1"))).await);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["reversal"],
        json!({"type": "refund", "afterSettlement": false})
    );
    assert_eq!((w.steps(), w.refunded()), ((0, 1), 2_500));
    // the rest of a partly refunded payment: a refund, never a void
    let (status, body, _) = json_of(&handle(&w.deps, reverse(json!({}), None)).await);
    assert_eq!(
        (status, body["reversal"]["type"].as_str()),
        (200, Some("refund"))
    );
    assert_eq!((w.steps(), w.refunded()), ((0, 2), 10_000));
    // a replay of the keyed partial keeps its reversal
    let (status, body, replayed) =
        json_of(&handle(&w.deps, reverse(json!({"amount": 2_500}), Some("rv-1"))).await);
    assert_eq!(
        (status, replayed, body["reversal"]["type"].as_str()),
        (200, true, Some("refund"))
    );
}

#[tokio::test]
async fn a_reversal_stopped_between_void_and_refund_neither_voids_nor_refunds_again() {
    let w = world().await;
    w.clock.advance_millis(NEXT_DAY_MS);
    // the void's reservation and commit go through; the refund's reservation cannot be
    // written (the store fails every attempt): the request ends between the two steps
    use paygate_domain::testkit::SaveFault::ServerError as E;
    w.payments
        .script_saves([None, None, Some(E), Some(E), Some(E), Some(E)]);
    let (status, _, _) = json_of(&handle(&w.deps, reverse(json!({}), Some("rv-1"))).await);
    assert!(status >= 409, "{status}");
    assert_eq!((w.steps(), w.refunded()), ((1, 0), 0));
    // the same key: a clear refusal, no second void, no refund
    let (status, body, _) = json_of(&handle(&w.deps, reverse(json!({}), Some("rv-1"))).await);
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("invalid_state"))
    );
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("new Idempotency-Key"));
    assert_eq!((w.steps(), w.refunded()), ((1, 0), 0));
    // a new key reverses it (the void is refused again for the cut, then one refund)
    let (status, body, _) = json_of(&handle(&w.deps, reverse(json!({}), Some("rv-2"))).await);
    assert_eq!(
        (status, body["reversal"]["afterSettlement"].as_bool()),
        (200, Some(true))
    );
    assert_eq!((w.steps(), w.refunded()), ((2, 1), 10_000));
}

#[tokio::test]
async fn a_lost_answer_after_the_fall_back_refund_is_answered_from_the_refund() {
    let w = world().await;
    w.clock.advance_millis(NEXT_DAY_MS);
    // the answer is not stored on the key (the request dies before): the key stays bound to
    // the void, and the retry finds the refund by its derived id
    w.keys.inject(IdemOp::Complete, IdemFault::Unavailable);
    let first = handle(&w.deps, reverse(json!({}), Some("rv-1"))).await;
    assert_eq!(answer(&first).0, 200);
    let again = handle(&w.deps, reverse(json!({}), Some("rv-1"))).await;
    let (status, body, replayed) = json_of(&again);
    assert_eq!((status, replayed), (200, true), "{body}");
    assert_eq!(
        body["reversal"],
        json!({"type": "refund", "afterSettlement": true})
    );
    assert_eq!(
        body["transaction"]["id"],
        json_of(&first).1["transaction"]["id"]
    );
    assert_eq!((w.steps(), w.refunded()), ((1, 1), 10_000));
}
