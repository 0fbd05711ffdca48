//! The seed credentials, the one-terminal rule and the checked-in seed.

use super::*;

fn seed(accounts: serde_json::Value) -> Seed {
    serde_json::from_value(serde_json::json!({
        "merchants": [{ "id": "mch_a", "apiKeys": [], "accounts": accounts }]
    }))
    .unwrap()
}

fn account(id: &str, provider: &str, credentials: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "id": id, "providerCode": provider, "bankCode": "0062", "bankName": "B",
        "supported": ["capture"], "credentials": credentials, "mode": "test"
    })
}

#[test]
fn seed_credentials_debug_shows_keys_only() {
    let s = seed(serde_json::json!([account(
        "acc_a",
        "nestpay",
        serde_json::json!({"clientId": "1", "password": "s3cr3t"})
    )]));
    let shown = format!("{s:?}");
    assert!(
        shown.contains("password") && !shown.contains("s3cr3t"),
        "{shown}"
    );
}

#[test]
fn a_one_terminal_simulator_refuses_two_terminals() {
    let s = seed(serde_json::json!([
        account(
            "acc_a",
            "posnet",
            serde_json::json!({"mid": "1", "tid": "2"})
        ),
        account(
            "acc_b",
            "posnet",
            serde_json::json!({"mid": "1", "tid": "3"})
        ),
        account(
            "acc_c",
            "posnet",
            serde_json::json!({"endpointUrl": "https://bank.example/x", "mid": "9"})
        ),
    ]));
    let err = one_terminal(&s, "posnet", &["mid", "tid"]).unwrap_err();
    assert!(
        err.contains("acc_a") && err.contains("acc_b") && err.contains("tid"),
        "{err}"
    );
    let s = seed(serde_json::json!([
        account(
            "acc_a",
            "posnet",
            serde_json::json!({"mid": "1", "tid": "2"})
        ),
        account(
            "acc_c",
            "posnet",
            serde_json::json!({"endpointUrl": "https://bank.example/x", "mid": "9"})
        ),
    ]));
    // an account pointed elsewhere does not use the simulator
    let first = one_terminal(&s, "posnet", &["mid", "tid"])
        .unwrap()
        .unwrap();
    assert_eq!(first.id.as_str(), "acc_a");
}

#[test]
fn the_checked_in_seed_gives_every_protocol_account_its_keys() {
    let s = Seed::from_file(&crate::default_seed_path()).unwrap();
    let needs: &[(&str, &[&str])] = &[
        (
            "parampos",
            &["clientCode", "clientUsername", "clientPassword", "guid"],
        ),
        ("nestpay", &["clientId", "name", "password"]),
        ("toslapos", &["clientId", "apiUser", "apiPass"]),
        ("payfor", &["mbrId", "merchantId", "userCode", "userPass"]),
        (
            "vakifkatilim",
            &["merchantId", "customerId", "userName", "password"],
        ),
        (
            "kuveytpos",
            &["merchantId", "customerId", "userName", "password"],
        ),
        (
            "akbankpos",
            &["merchantSafeId", "terminalSafeId", "secretKey"],
        ),
        ("posnetv1", &["merchantNo", "terminalNo", "encKey"]),
        (
            "garanti",
            &["terminalId", "merchantId", "provPassword", "refundPassword"],
        ),
        ("posnet", &["mid", "tid"]),
        ("payflex", &["merchantId", "password", "terminalNo"]),
        ("interpos", &["shopCode", "userCode", "userPass"]),
    ];
    for &(provider, keys) in needs {
        let accounts: Vec<_> = protocol_accounts(&s, provider).collect();
        assert!(!accounts.is_empty(), "the seed has no {provider} account");
        for a in accounts {
            for key in keys {
                assert!(required(a, key).is_ok(), "{} lacks {key}", a.id);
            }
        }
    }
}
