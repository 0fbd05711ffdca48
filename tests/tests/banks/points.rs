//! Points inquiry on each protocol's account: named, and chosen by the card's BIN (the seed
//! gives `mch_cappadocia` one account per bank, so the BIN decides unambiguously).

use paygate_tests::{card_number, expect_error, points_body, Reply, Stack, StatusCode};
use serde_json::{json, Value};

use crate::{key, stack};

const PATH: &str = "/v1/payments/points/inquiry";

/// Garanti's sample Bonus card, known to the GVPS simulator (12.35 TL Bonus, 5.00 TL
/// FirmBonus); BIN 482491 is Garanti's in the seed.
const GARANTI_BONUS_CARD: &str = "4824914752007011";

async fn inquire(stack: &Stack, number: &str, account: Option<&str>) -> Reply {
    let r = stack
        .post_reply(PATH, key(), &points_body(number, account))
        .await;
    assert!(
        !r.text.contains(number),
        "the card number is in the response: {}",
        r.text
    );
    r
}

/// The balances of a successful inquiry on `account` of `provider`, as `(name, value,
/// amountMinor)`, after checking the documented shape.
#[track_caller]
fn balances(r: &Reply, account: &str, provider: &str) -> Balances {
    let b = &r.body;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(b["accountId"], account, "{b}");
    assert_eq!(b["providerCode"], provider, "{b}");
    assert_eq!(b["ok"], true, "{b}");
    let list: Balances = b["balances"]
        .as_array()
        .expect("balances is an array")
        .iter()
        .map(|x| {
            (
                x["name"].as_str().unwrap().to_owned(),
                x["value"].as_str().unwrap().to_owned(),
                x["amountMinor"].as_i64().unwrap(),
            )
        })
        .collect();
    assert!(!list.is_empty(), "{b}");
    for (_, value, minor) in &list {
        // a decimal with a fractional part, equal to the minor units
        assert_eq!(*value, format!("{}.{:02}", minor / 100, minor % 100), "{b}");
    }
    assert_eq!(
        b["totalAmount"],
        list.iter().map(|(_, _, m)| m).sum::<i64>(),
        "{b}"
    );
    list
}

fn owned(list: &[(&str, &str, i64)]) -> Balances {
    list.iter()
        .map(|(n, v, m)| ((*n).to_owned(), (*v).to_owned(), *m))
        .collect()
}

/// A card, the account its BIN leads to, that account's provider and the balances.
type Card = (String, &'static str, &'static str, Balances);
type Balances = Vec<(String, String, i64)>;

/// The cards: İşbank Maximum (balance = the last six digits in kuruş), Garanti's Bonus
/// sample card, a Yapı Kredi World card (WorldPuan: (last six digits mod 50 000) + 100 kuruş).
fn cards() -> [Card; 3] {
    [
        (
            card_number("45436099", 16, "100712"),
            "acc_cappadociaIsbank",
            "nestpay",
            owned(&[("Maximum", "1007.12", 100_712)]),
        ),
        (
            GARANTI_BONUS_CARD.to_owned(),
            "acc_cappadociaGaranti",
            "garanti",
            owned(&[("Bonus", "12.35", 1_235), ("FirmBonus", "5.00", 500)]),
        ),
        (
            card_number("450634", 16, "012345"),
            "acc_cappadociaYapikredi",
            "posnet",
            owned(&[("WorldPuan", "124.45", 12_445)]),
        ),
    ]
}

#[tokio::test]
async fn inquiry_on_each_protocol_account() {
    let stack = stack().await;
    for (number, account, provider, expected) in cards() {
        // WHEN the card's points are asked on its bank's account, named
        let r = inquire(&stack, &number, Some(account)).await;
        // THEN the bank's balances come back in decimal and minor units
        assert_eq!(balances(&r, account, provider), expected, "{provider}");
    }
}

#[tokio::test]
async fn the_card_bin_chooses_the_protocol_account() {
    let stack = stack().await;
    for (number, account, provider, expected) in cards() {
        // WHEN the card's points are asked without an account
        let r = inquire(&stack, &number, None).await;
        // THEN the BIN's bank's account of the merchant answers
        assert_eq!(balances(&r, account, provider), expected, "{provider}");
    }
    // AND an Akbank card lands on the Akbank account, which lacks points inquiry
    let r = inquire(&stack, &card_number("435508", 16, ""), None).await;
    let err = expect_error(&(r.status, r.body.clone()), 400, "operation_not_supported");
    assert_eq!(err["details"]["accountId"], "acc_cappadociaAkbank", "{err}");
    // AND a BIN no bank in the table has is a clear error
    let r = inquire(&stack, &card_number("979200", 16, ""), None).await;
    expect_error(&(r.status, r.body.clone()), 400, "no_account_for_card");
}

#[tokio::test]
async fn a_card_the_bank_refuses_is_ok_false_with_a_generic_decline() {
    let stack = stack().await;
    for (number, account, provider, code) in [
        // not a Maximum card (İşbank BIN without MaxiPuan at the simulator)
        (
            card_number("418342", 16, ""),
            "acc_cappadociaIsbank",
            "nestpay",
            "CORE-2205",
        ),
        // a Garanti card without a points programme
        (
            card_number("540669", 16, ""),
            "acc_cappadociaGaranti",
            "garanti",
            "05",
        ),
        // a Yapı Kredi card that is not a World card
        (
            card_number("450803", 16, ""),
            "acc_cappadociaYapikredi",
            "posnet",
            "0012",
        ),
    ] {
        // WHEN its points are asked (by BIN)
        let r = inquire(&stack, &number, None).await;
        // THEN 200, ok false, a generic decline, no balances
        let b: &Value = &r.body;
        assert_eq!(r.status, StatusCode::OK, "{provider}: {}", r.text);
        assert_eq!(b["accountId"], account, "{b}");
        assert_eq!(b["providerCode"], provider, "{b}");
        assert_eq!(b["ok"], false, "{b}");
        assert_eq!(b["balances"], json!([]), "{b}");
        assert_eq!(b["totalAmount"], 0, "{b}");
        assert_eq!(b["failure"]["kind"], "declined", "{b}");
        // the bank's own code and text are not echoed: a fixed generic answer
        assert_eq!(
            b["failure"],
            json!({"kind": "declined", "message": "The bank declined the points inquiry."}),
            "{b}"
        );
        assert!(!r.text.contains(code), "{provider}: {}", r.text);
    }
}
