//! Points inquiry (`MAXIPUANSORGU`) over real HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, card, secret, CLIENT_ID, NAME, PASSWORD};
use paygate_bankkit::sim::Faults;
use paygate_domain::{ports::PosProvider, Currency, PointsBalance, PointsResult};

/// An İşbank Maximum test card (BIN 454360, Luhn-valid); the simulator's balance is its last
/// six digits in kuruş: 1007.12 TL.
const MAXIMUM_CARD: &str = "4543600299100712";
/// Luhn-valid, not a Maximum BIN.
const OTHER_CARD: &str = "4111111111111111";

#[tokio::test]
async fn maximum_balance() {
    let b = bank().await;
    let res = b
        .provider
        .points_inquiry(&b.account, &card(MAXIMUM_CARD), Currency::Try)
        .await;
    assert_eq!(
        res,
        PointsResult::Ok {
            balances: vec![PointsBalance {
                name: "Maximum".into(),
                value: "1007.12".into(),
                amount_minor: 100_712,
            }]
        }
    );
}

#[tokio::test]
async fn cards_the_bank_declines() {
    let b = bank().await;
    match b
        .provider
        .points_inquiry(&b.account, &card(OTHER_CARD), Currency::Try)
        .await
    {
        PointsResult::Declined { code, message } => {
            assert_eq!(
                (code.as_str(), message.as_str()),
                (
                    "CORE-2205",
                    "Point transaction is not permitted to the card"
                )
            );
        }
        other => panic!("{other:?}"),
    }
    match b
        .provider
        .points_inquiry(&b.account, &card("4543600299100713"), Currency::Try)
        .await
    {
        PointsResult::Declined { code, .. } => assert_eq!(code, "CORE-2012"),
        other => panic!("{other:?}"),
    }
    let mut expired_format = card(MAXIMUM_CARD);
    expired_format.exp_month = "13".into();
    assert!(matches!(
        b.provider
            .points_inquiry(&b.account, &expired_format, Currency::Try)
            .await,
        PointsResult::Declined { .. }
    ));
}

#[tokio::test]
async fn accounts_without_points_inquiry() {
    let b = bank().await;
    // The account's secret has no `pointsInquiry` flag: nothing is asked.
    let off = b.other_account(
        "acc_off",
        secret(&b.endpoint(), CLIENT_ID, NAME, PASSWORD, None),
    );
    match b
        .provider
        .points_inquiry(&off, &card(MAXIMUM_CARD), Currency::Try)
        .await
    {
        PointsResult::Error { code, .. } => assert_eq!(code, "points_inquiry_not_enabled"),
        other => panic!("{other:?}"),
    }
    // The flag is set but the bank does not allow it for that store.
    let denied = b.other_account(
        "acc_denied",
        secret(
            &b.endpoint(),
            "190100000",
            "AKBANKAPI",
            "AKBANK01",
            Some("maxipuan"),
        ),
    );
    match b
        .provider
        .points_inquiry(&denied, &card(MAXIMUM_CARD), Currency::Try)
        .await
    {
        PointsResult::Error { code, .. } => assert_eq!(code, "CORE-2202"),
        other => panic!("{other:?}"),
    }
    // Technical errors are errors.
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    assert!(matches!(
        b.provider
            .points_inquiry(&b.account, &card(MAXIMUM_CARD), Currency::Try)
            .await,
        PointsResult::Error { .. }
    ));
}
