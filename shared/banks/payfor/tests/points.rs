//! Points inquiry (`ParaPuanInquiry`) over real HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bank, card, secret, MERCHANT_ID, USER_CODE};
use paygate_bankkit::sim::Faults;
use paygate_domain::{ports::PosProvider, Currency, PointsBalance, PointsResult};

/// The QNB test card of the MEWS examples (BIN 415565, Luhn-valid); the simulator's balance
/// is its last six digits in kuruş: 4161.11 TL.
const CARDFINANS: &str = "4155650100416111";
/// Luhn-valid, not a CardFinans BIN.
const OTHER: &str = "4111111111111111";

#[tokio::test]
async fn parapuan_balance() {
    let b = bank().await;
    let res = b
        .provider
        .points_inquiry(&b.account, &card(CARDFINANS), Currency::Try)
        .await;
    assert_eq!(
        res,
        PointsResult::Ok {
            balances: vec![PointsBalance {
                name: "ParaPuan".into(),
                value: "4161.11".into(),
                amount_minor: 416_111,
            }]
        }
    );
}

#[tokio::test]
async fn cards_the_bank_declines_and_errors() {
    let b = bank().await;
    let other = b
        .provider
        .points_inquiry(&b.account, &card(OTHER), Currency::Try)
        .await;
    assert!(
        matches!(&other, PointsResult::Declined { code, .. } if code == "V013"),
        "{other:?}"
    );
    let bad = b
        .provider
        .points_inquiry(&b.account, &card("4155650100416112"), Currency::Try)
        .await;
    assert!(
        matches!(&bad, PointsResult::Declined { code, .. } if code == "M041"),
        "{bad:?}"
    );
    let mut odd = card(CARDFINANS);
    odd.exp_month = "13".into();
    assert!(matches!(
        b.provider
            .points_inquiry(&b.account, &odd, Currency::Try)
            .await,
        PointsResult::Declined { .. }
    ));
    let wrong = b.other_account(
        "acc_w",
        secret(&b.endpoint(), MERCHANT_ID, USER_CODE, "nope"),
    );
    assert!(matches!(
        b.provider.points_inquiry(&wrong, &card(CARDFINANS), Currency::Try).await,
        PointsResult::Error { code, .. } if code == "V001"
    ));
    b.faults(Faults {
        technical_errors: 1,
        ..Faults::default()
    });
    assert!(matches!(
        b.provider
            .points_inquiry(&b.account, &card(CARDFINANS), Currency::Try)
            .await,
        PointsResult::Error { .. }
    ));
}
