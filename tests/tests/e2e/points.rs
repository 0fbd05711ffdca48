//! POST /v1/payments/points/inquiry: routing by account or BIN, the response shape, and the
//! card number never echoed.

use paygate_tests::{card_number, expect_error, keys, points_body, Reply, Stack, StatusCode};
use serde_json::{json, Value};

const PATH: &str = "/v1/payments/points/inquiry";

async fn inquire(stack: &Stack, key: &str, number: &str, account: Option<&str>) -> Reply {
    let r = stack
        .post_reply(PATH, key, &points_body(number, account))
        .await;
    // The card number never comes back, whatever the answer.
    assert!(
        number.is_empty() || !r.text.contains(number),
        "the card number is in the response: {}",
        r.text
    );
    r
}

/// A successful inquiry: the documented shape, on the expected account.
#[track_caller]
fn assert_balances(r: &Reply, account: &str) {
    let b = &r.body;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(b["accountId"], account, "{b}");
    assert_eq!(b["providerCode"], "simulator", "{b}");
    assert_eq!(b["ok"], true, "{b}");
    let balances = b["balances"].as_array().expect("balances is an array");
    assert!(!balances.is_empty(), "{b}");
    let mut sum = 0;
    for bal in balances {
        assert!(bal["name"].as_str().is_some_and(|n| !n.is_empty()), "{b}");
        let minor = bal["amountMinor"]
            .as_i64()
            .expect("amountMinor is an integer");
        let value = bal["value"].as_str().expect("value is a string");
        // a decimal amount with a fractional part, equal to the minor units
        let (int, frac) = value.split_once('.').unwrap_or_else(|| panic!("{value}"));
        assert!(
            !int.is_empty()
                && !frac.is_empty()
                && (int.bytes().chain(frac.bytes())).all(|c| c.is_ascii_digit()),
            "{value}"
        );
        assert_eq!(value, format!("{}.{:02}", minor / 100, minor % 100), "{b}");
        sum += minor;
    }
    assert_eq!(b["totalAmount"], sum, "{b}");
}

#[tokio::test]
async fn inquiry_on_a_named_account_returns_balances() {
    let stack = Stack::start().await;
    let k = keys();
    // GIVEN a valid card, and the account is named explicitly — even one not at the card's
    // bank (the card is a Garanti card, the account İşbank)
    for number in [
        card_number("45436099", 16, ""),
        card_number("540669", 16, ""),
    ] {
        // WHEN its points are asked on Anatolia's İşbank account
        let r = inquire(&stack, k.anatolia_test, &number, Some("acc_anatoliaIsbank")).await;
        // THEN 200 with the balances of that account
        assert_balances(&r, "acc_anatoliaIsbank");
    }
    // AND another merchant's named account answers for that merchant
    let r = inquire(
        &stack,
        k.bosphorus_test,
        &card_number("435508", 16, ""),
        Some("acc_bosphorusAkbank"),
    )
    .await;
    assert_balances(&r, "acc_bosphorusAkbank");
}

#[tokio::test]
async fn without_an_account_the_card_bin_chooses_it() {
    let stack = Stack::start().await;
    let k = keys();
    for (key, bin, account) in [
        // 8-digit BINs
        (k.anatolia_test, "45436099", "acc_anatoliaIsbank"),
        (k.bosphorus_test, "54006177", "acc_bosphorusYapikredi"),
        (k.bosphorus_test, "55260844", "acc_bosphorusAkbank"),
        // 6-digit BINs only (the 8 digits are not in the table)
        (k.anatolia_test, "454360", "acc_anatoliaIsbank"),
        (k.anatolia_test, "418342", "acc_anatoliaIsbank"),
        (k.bosphorus_test, "450803", "acc_bosphorusYapikredi"),
        (k.bosphorus_test, "540061", "acc_bosphorusYapikredi"),
        (k.bosphorus_test, "435508", "acc_bosphorusAkbank"),
        (k.bosphorus_test, "552608", "acc_bosphorusAkbank"),
    ] {
        for len in [16, 19] {
            // GIVEN a card of that BIN; WHEN its points are asked without accountId
            let number = card_number(bin, len, "");
            let r = inquire(&stack, key, &number, None).await;
            // THEN the merchant's account at the card's bank answers
            assert_balances(&r, account);
        }
    }
}

#[tokio::test]
async fn an_account_without_points_inquiry_is_refused() {
    let stack = Stack::start().await;
    let k = keys();
    // GIVEN Anatolia's Garanti account, which lacks points_inquiry
    for (number, account) in [
        // named explicitly
        (card_number("45436099", 16, ""), Some("acc_anatoliaGaranti")),
        // chosen by a Garanti BIN (6 and 8 digits)
        (card_number("540669", 16, ""), None),
        (card_number("55496012", 16, ""), None),
    ] {
        // WHEN points are asked there
        let r = inquire(&stack, k.anatolia_test, &number, account).await;
        // THEN 400 operation_not_supported naming the account
        let err = expect_error(&(r.status, r.body.clone()), 400, "operation_not_supported");
        assert_eq!(err["details"]["accountId"], "acc_anatoliaGaranti", "{err}");
    }
}

#[tokio::test]
async fn a_card_of_a_bank_the_merchant_has_no_account_at() {
    let stack = Stack::start().await;
    let k = keys();
    for (key, bin) in [
        // Yapı Kredi and Akbank cards at Anatolia (İşbank, Garanti only)
        (k.anatolia_test, "450803"),
        (k.anatolia_test, "55260844"),
        // İşbank and Garanti cards at Bosphorus (Yapı Kredi, Akbank only)
        (k.bosphorus_test, "454360"),
        (k.bosphorus_test, "540669"),
        // a BIN no bank in the table has
        (k.anatolia_test, "411111"),
    ] {
        // WHEN points are asked without accountId
        let r = inquire(&stack, key, &card_number(bin, 16, ""), None).await;
        // THEN 400 no_account_for_card
        expect_error(&(r.status, r.body.clone()), 400, "no_account_for_card");
    }
}

#[tokio::test]
async fn another_merchants_account_does_not_exist() {
    let stack = Stack::start().await;
    // WHEN Anatolia names Bosphorus' account
    let r = inquire(
        &stack,
        keys().anatolia_test,
        &card_number("435508", 16, ""),
        Some("acc_bosphorusAkbank"),
    )
    .await;
    // THEN 404 not_found
    expect_error(&(r.status, r.body.clone()), 404, "not_found");
}

#[tokio::test]
async fn invalid_card_numbers_are_invalid_requests() {
    let stack = Stack::start().await;
    let good = card_number("45436099", 16, "");
    let last = good.as_bytes()[15] - b'0';
    let bad_check_digit = format!("{}{}", &good[..15], (last + 1) % 10);
    for number in [
        bad_check_digit,
        "4543609912345678a".to_owned(),
        "4543 6099 1234 5678".to_owned(),
        card_number("454360", 11, ""),
        card_number("454360", 20, ""),
        String::new(),
    ] {
        for account in [None, Some("acc_anatoliaIsbank")] {
            // WHEN the card number is not 12-19 digits with a valid check digit
            let r = inquire(&stack, keys().anatolia_test, &number, account).await;
            // THEN 400 invalid_request on card.number
            let err = expect_error(&(r.status, r.body.clone()), 400, "invalid_request");
            assert_eq!(err["details"]["field"], "card.number", "{number:?}: {err}");
        }
    }
}

#[tokio::test]
async fn a_card_the_bank_refuses_answers_ok_false() {
    let stack = Stack::start().await;
    // GIVEN valid cards ending in 5100 (declined) and 9100 (technical error)
    for suffix in ["5100", "9100"] {
        let number = card_number("454360", 16, suffix);
        for account in [None, Some("acc_anatoliaIsbank")] {
            // WHEN their points are asked
            let r = inquire(&stack, keys().anatolia_test, &number, account).await;
            // THEN 200 with ok false and no balances
            let b: &Value = &r.body;
            assert_eq!(r.status, StatusCode::OK, "{}", r.text);
            assert_eq!(b["ok"], false, "{b}");
            assert_eq!(b["accountId"], "acc_anatoliaIsbank", "{b}");
            assert_eq!(b["providerCode"], "simulator", "{b}");
            assert_eq!(b["balances"], serde_json::json!([]), "{b}");
            assert_eq!(b["totalAmount"], 0, "{b}");
        }
    }
}

/// PCI DSS: a points inquiry sent with an `Idempotency-Key` (twice) through the dev server —
/// the very handler the Lambda runs, over DynamoDB (moto) — leaves no card data in any table:
/// every item of every table of the stack, every attribute (names and values, nested ones
/// too), holds neither the card number nor the CVV, nor their SHA-256 (hex, either case), nor
/// the SHA-256 of the body, nor the request fingerprint the idempotency layer keeps for a
/// keyed request (a digest of the body: card number, CVV, expiry, holder). And the card's
/// rate-limit counter (the throttle table's `points_card` item) is keyed by the HMAC-SHA256 of
/// the number under the stack's secret card key (recomputed here from the secret, by hand):
/// not the number, nor any unkeyed SHA-2 digest of it (with or without the mode), and it
/// expires.
#[tokio::test]
async fn a_points_inquiry_with_an_idempotency_key_stores_no_card_data_in_any_table() {
    use sha2::{Digest, Sha256};

    let stack = Stack::start_labeled("points-pci").await;
    let pan = card_number("45436099", 16, "");
    // A CVV and expiry no seeded value holds as a number of their own.
    let (cvv, exp_month, exp_year) = ("8264", "11", "2031");
    let body = json!({
        "card": {"number": pan, "expMonth": exp_month, "expYear": exp_year, "cvv": cvv, "holder": "Ayşe Yılmaz"},
        "currency": "TRY"
    })
    .to_string();
    let mut replayed = Vec::new();
    for _ in 0..2 {
        let resp = stack
            .http
            .post(format!("{}{PATH}", stack.url))
            .header("authorization", format!("Bearer {}", keys().anatolia_test))
            .header("content-type", "application/json")
            .header("idempotency-key", "points-pci-1")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        replayed.push(resp.headers().get("idempotent-replayed").is_some());
        let text = resp.text().await.unwrap();
        assert!(!text.contains(&pan), "{text}");
    }

    let sha = |b: &[u8]| hex::encode(Sha256::digest(b));
    // Unkeyed digests someone might key a card counter with.
    let unkeyed = |input: &str| -> Vec<(String, String)> {
        use sha2::{Sha224, Sha384, Sha512};
        let b = input.as_bytes();
        vec![
            (format!("sha224({input})"), hex::encode(Sha224::digest(b))),
            (format!("sha256({input})"), hex::encode(Sha256::digest(b))),
            (format!("sha384({input})"), hex::encode(Sha384::digest(b))),
            (format!("sha512({input})"), hex::encode(Sha512::digest(b))),
        ]
    };
    let fingerprint = paygate_http::idempotency::fingerprint("POST", PATH, body.as_bytes());
    let mut needles: Vec<(String, String)> = vec![
        ("card number".into(), pan.clone()),
        ("sha256(card number)".into(), sha(pan.as_bytes())),
        ("sha256(cvv)".into(), sha(cvv.as_bytes())),
        ("sha256(body)".into(), sha(body.as_bytes())),
        (
            "request fingerprint".into(),
            fingerprint.as_str().to_owned(),
        ),
    ];
    for input in [pan.clone(), format!("test:{pan}"), format!("test{pan}")] {
        needles.extend(unkeyed(&input));
    }
    for (what, n) in needles.clone() {
        if what.starts_with("sha") || what.starts_with("request") {
            needles.push((format!("{what} (upper case)"), n.to_ascii_uppercase()));
        }
    }
    // The CVV is short: it counts as a whole run of digits (a number of its own), not
    // inside longer numbers such as timestamps.
    let digit_runs = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter(|r| !r.is_empty())
            .map(str::to_owned)
            .collect()
    };

    let server = stack.server();
    let stack_tables: std::collections::BTreeSet<String> = server
        .tables
        .env_pairs()
        .into_iter()
        .map(|(_, name)| name)
        .collect();
    // Every table of the stack: those the code defines, and any other under its prefix.
    let prefix = server
        .tables
        .payments
        .strip_suffix(paygate_aws::dynamo::schema::PAYMENTS.logical_id)
        .unwrap()
        .to_owned();
    let mut listed = std::collections::BTreeSet::new();
    let mut start: Option<String> = None;
    loop {
        let out = server
            .client
            .list_tables()
            .set_exclusive_start_table_name(start.clone())
            .send()
            .await
            .unwrap();
        listed.extend(
            out.table_names()
                .iter()
                .filter(|n| n.starts_with(&prefix))
                .cloned(),
        );
        start = out.last_evaluated_table_name().map(str::to_owned);
        if start.is_none() {
            break;
        }
    }
    assert_eq!(listed, stack_tables, "the stack's tables");

    let mut found = Vec::new();
    let mut items = 0;
    for table in &listed {
        let mut start = None;
        loop {
            let out = server
                .client
                .scan()
                .table_name(table)
                .set_exclusive_start_key(start.clone())
                .send()
                .await
                .unwrap();
            for item in out.items() {
                items += 1;
                for (name, value) in item {
                    let mut texts = Vec::new();
                    attribute_texts(value, &mut texts);
                    texts.push(name.clone());
                    for t in texts {
                        for (what, needle) in &needles {
                            if t.contains(needle.as_str()) {
                                found.push(format!("{table}.{name}: {what}"));
                            }
                        }
                        if digit_runs(&t).iter().any(|r| r == cvv) {
                            found.push(format!("{table}.{name}: the cvv"));
                        }
                    }
                }
            }
            start = out.last_evaluated_key().cloned();
            if start.is_none() {
                break;
            }
        }
    }
    assert!(items > 20, "only {items} items scanned");
    assert!(found.is_empty(), "card data stored: {found:#?}");

    // The card's counter: one item for the hour, under HMAC-SHA256(card key, number).
    let card_key = server
        .secrets
        .get_secret_value()
        .secret_id(paygate_devserver::card_key_secret(&prefix))
        .send()
        .await
        .unwrap();
    let card_key = card_key.secret_string().unwrap().as_bytes().to_vec();
    assert!(card_key.len() >= 32);
    // (The hand-written HMAC against a known answer: `openssl dgst -sha256 -hmac`.)
    assert_eq!(
        hmac_sha256_hex(
            b"0123456789abcdef0123456789abcdef",
            b"what do ya want for nothing?"
        ),
        "137e6557c3c13a1ca5dc7e52a389a0f86be8cb4db4ae61c62396058b00acacd0"
    );
    let expected = format!("test:{}", hmac_sha256_hex(&card_key, pan.as_bytes()));
    let counters = server
        .client
        .scan()
        .table_name(&server.tables.throttle)
        .send()
        .await
        .unwrap();
    let card_items: Vec<_> = counters
        .items()
        .iter()
        .filter(|i| i["pk"].as_s().unwrap().contains("#points_card#"))
        .collect();
    assert_eq!(card_items.len(), 1, "{card_items:?}");
    let pk = card_items[0]["pk"].as_s().unwrap();
    let (subject, _) = pk.split_once('#').unwrap();
    assert_eq!(subject, expected, "the card counter is the keyed HMAC");
    // Counted twice (both inquiries), and deleted by TTL an hour and a minute on at most.
    assert_eq!(card_items[0]["n"].as_n().unwrap(), "2");
    let expires: i64 = card_items[0]["expiresAt"].as_n().unwrap().parse().unwrap();
    let now = paygate_domain::ports::Clock::now(&*stack.clock).unix_seconds();
    assert!(
        expires > now && expires <= now + 3_660,
        "{expires} vs {now}"
    );
    // Under another key, another subject: the stored value depends on the secret.
    assert_ne!(
        format!("test:{}", hmac_sha256_hex(&[0u8; 32], pan.as_bytes())),
        subject
    );
    // The key was ignored: the second inquiry asked the bank again.
    assert_eq!(replayed, [false, false]);
}

/// HMAC-SHA256 (RFC 2104) in hex, written out here so the test does not trust the code's.
fn hmac_sha256_hex(key: &[u8], message: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    hex::encode(
        Sha256::new()
            .chain_update(pad(0x5c))
            .chain_update(inner)
            .finalize(),
    )
}

/// Every string, number and binary (as text, lossy) inside an attribute value.
fn attribute_texts(v: &aws_sdk_dynamodb::types::AttributeValue, out: &mut Vec<String>) {
    use aws_sdk_dynamodb::types::AttributeValue as A;
    match v {
        A::S(s) | A::N(s) => out.push(s.clone()),
        A::B(b) => {
            out.push(String::from_utf8_lossy(b.as_ref()).into_owned());
            out.push(hex::encode(b.as_ref()));
        }
        A::Ss(v) | A::Ns(v) => out.extend(v.iter().cloned()),
        A::Bs(v) => out.extend(v.iter().map(|b| hex::encode(b.as_ref()))),
        A::L(v) => v.iter().for_each(|x| attribute_texts(x, out)),
        A::M(m) => m.iter().for_each(|(k, x)| {
            out.push(k.clone());
            attribute_texts(x, out);
        }),
        _ => {}
    }
}
