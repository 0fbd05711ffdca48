use paygate_domain::testkit::{ManualClock, SeqIds, T0};
use paygate_domain::{ids::IdGenerator, MerchantId, TransactionId};

use paygate_domain::OperationSet;

use super::*;
use crate::MemoryLedger;

fn account() -> PosAccount {
    PosAccount {
        id: paygate_domain::AccountId::parse("acc_isbank").unwrap(),
        merchant_id: MerchantId::parse("mch_a").unwrap(),
        provider_code: PROVIDER_CODE.into(),
        bank_code: "0064".into(),
        bank_name: "Türkiye İş Bankası".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: paygate_domain::Mode::Test,
    }
}

fn bank() -> (SimBank, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::at(T0));
    (
        SimBank::new(Arc::new(MemoryLedger::default()), clock.clone()),
        clock,
    )
}

fn op(amount: i64) -> BankOperation {
    let ids = SeqIds::default();
    BankOperation {
        order_id: "ORD1".into(),
        transaction_id: TransactionId::generate(&ids as &dyn IdGenerator),
        amount,
        currency: Currency::Try,
        full: false,
    }
}

#[tokio::test]
async fn capture_then_partial_refunds_show_in_query() {
    let (b, _) = bank();
    let acc = account();
    b.register_order(
        &acc,
        "ORD1",
        20_000,
        Currency::Try,
        InitialBankState::Preauth,
        false,
    )
    .await
    .unwrap();
    assert_eq!(b.query(&acc, "ORD1").await.state, BankState::Preauth);
    assert!(matches!(
        b.capture(&acc, &op(15_000)).await,
        BankOutcome::Approved { .. }
    ));
    let st = b.query(&acc, "ORD1").await;
    assert_eq!((st.state, st.amount), (BankState::Approved, 15_000));
    assert!(matches!(
        b.refund(&acc, &op(5_000)).await,
        BankOutcome::Approved { .. }
    ));
    let st = b.query(&acc, "ORD1").await;
    assert_eq!(
        (st.state, st.refunded_amount),
        (BankState::PartiallyRefunded, 5_000)
    );
    // More than remains is refused by the bank itself.
    assert!(matches!(
        b.refund(&acc, &op(10_001)).await,
        BankOutcome::Declined { ref code, .. } if code == "CORE-2504"
    ));
    assert!(matches!(
        b.refund(&acc, &op(10_000)).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(b.query(&acc, "ORD1").await.state, BankState::Refunded);
}

#[tokio::test]
async fn triggers_decline_error_and_timeout() {
    let (b, _) = bank();
    let acc = account();
    b.register_order(
        &acc,
        "ORD1",
        50_000,
        Currency::Try,
        InitialBankState::Approved,
        false,
    )
    .await
    .unwrap();
    assert!(matches!(
        b.refund(&acc, &op(5100)).await,
        BankOutcome::Declined { ref code, .. } if code == "51"
    ));
    assert!(matches!(
        b.refund(&acc, &op(9100)).await,
        BankOutcome::Error { ref code, .. } if code == "91"
    ));
    assert_eq!(b.query(&acc, "ORD1").await.refunded_amount, 0);
    // A time-out: no answer, but the bank did refund.
    assert!(matches!(
        b.refund(&acc, &op(9900)).await,
        BankOutcome::Unknown { .. }
    ));
    assert_eq!(b.query(&acc, "ORD1").await.refunded_amount, 9900);
}

#[tokio::test]
async fn cancel_after_the_cut_is_declined_with_a_refund_hint() {
    let (b, clock) = bank();
    let acc = account();
    b.register_order(
        &acc,
        "ORD1",
        10_000,
        Currency::Try,
        InitialBankState::Approved,
        false,
    )
    .await
    .unwrap();
    clock.advance_millis(24 * 3600 * 1000);
    assert!(matches!(
        b.cancel(&acc, &op(10_000)).await,
        BankOutcome::Declined {
            after_cutoff: true,
            ..
        }
    ));
    b.register_order(
        &acc,
        "ORD2",
        10_000,
        Currency::Try,
        InitialBankState::Approved,
        false,
    )
    .await
    .unwrap();
    let mut same_day = op(10_000);
    same_day.order_id = "ORD2".into();
    assert!(matches!(
        b.cancel(&acc, &same_day).await,
        BankOutcome::Approved { .. }
    ));
    assert_eq!(b.query(&acc, "ORD2").await.state, BankState::Cancelled);
}

#[tokio::test]
async fn unknown_orders_and_failed_queries() {
    let (b, _) = bank();
    let acc = account();
    let st = b.query(&acc, "NOPE").await;
    assert!(!st.found);
    assert_eq!(st.state, BankState::Unknown);
    b.register_order(
        &acc,
        "ORD9",
        9100,
        Currency::Try,
        InitialBankState::Approved,
        false,
    )
    .await
    .unwrap();
    let st = b.query(&acc, "ORD9").await;
    assert!(st.found && st.state == BankState::Unknown && !st.is_conclusive());
    b.register_order(
        &acc,
        "ORDN",
        100,
        Currency::Try,
        InitialBankState::None,
        false,
    )
    .await
    .unwrap();
    assert!(!b.query(&acc, "ORDN").await.found);
}

#[tokio::test]
async fn points_balances_and_triggers() {
    let (b, _) = bank();
    let acc = account();
    let card = |n: &str| CardDetails {
        number: n.into(),
        exp_month: "12".into(),
        exp_year: "2030".into(),
        cvv: "000".into(),
        holder: "A".into(),
    };
    let PointsResult::Ok { balances } = b
        .points_inquiry(&acc, &card("4543600000012345"), Currency::Try)
        .await
    else {
        panic!("expected balances")
    };
    assert_eq!(balances.len(), 1);
    assert_eq!(balances[0].name, "Maximum");
    assert_eq!(balances[0].amount_minor, 12_445);
    assert_eq!(balances[0].value, "124.45");
    assert!(matches!(
        b.points_inquiry(&acc, &card("4543600000005100"), Currency::Try)
            .await,
        PointsResult::Declined { .. }
    ));
    assert!(matches!(
        b.points_inquiry(&acc, &card("4543600000009100"), Currency::Try)
            .await,
        PointsResult::Error { .. }
    ));
}

#[tokio::test]
async fn a_timed_out_capture_of_9900_can_be_settled_by_query() {
    let (b, _) = bank();
    let acc = account();
    b.register_order(
        &acc,
        "ORD1",
        20_000,
        Currency::Try,
        InitialBankState::Preauth,
        false,
    )
    .await
    .unwrap();
    assert!(matches!(
        b.capture(&acc, &op(9900)).await,
        BankOutcome::Unknown { .. }
    ));
    let st = b.query(&acc, "ORD1").await;
    assert!(st.is_conclusive());
    assert_eq!((st.state, st.amount), (BankState::Approved, 9900));
}
