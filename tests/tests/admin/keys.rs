//! API key lifecycle over real HTTP: issue a key (shown once) and use it on the merchant
//! API, roll it (the old key works until its expiry, reached by moving the stack's clock),
//! revoke (401 once the authorizer's key cache TTL is over); each write in the audit trail.

use paygate_tests::{Stack, StatusCode, ANATOLIA, BOSPHORUS};
use serde_json::{json, Value};

use crate::support::{expect, path};

const HOUR_MS: i64 = 3_600_000;

/// `GET /v1/payments/{id}` with `key`: the status only.
async fn status_with(stack: &Stack, key: &str, payment: &str) -> StatusCode {
    stack.get(&format!("/v1/payments/{payment}"), key).await.0
}

async fn key_view(stack: &Stack, id: &str) -> Value {
    let list = expect(
        stack.admin("GET", &path(ANATOLIA, "/api-keys"), None).await,
        200,
    );
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == json!(id))
        .cloned()
        .unwrap_or_else(|| panic!("key {id} not listed: {list}"))
}

#[tokio::test]
async fn issue_use_roll_expire_and_revoke_a_key() {
    let stack = Stack::start_labeled("adm-keys").await;
    // Issue: the key is in the answer, this once.
    let issued = expect(
        stack
            .admin(
                "POST",
                &path(ANATOLIA, "/api-keys"),
                Some(&json!({"mode": "test", "name": "e2e"})),
            )
            .await,
        201,
    );
    let old_key = issued["secret"].as_str().unwrap().to_owned();
    let old_id = issued["id"].as_str().unwrap().to_owned();
    assert!(old_key.starts_with("sk_test_"));
    assert_eq!(issued["status"], json!("active"));
    assert_eq!(issued["last4"], json!(&old_key[old_key.len() - 4..]));

    // It works on the merchant API, as the merchant, in test mode.
    let payment = stack
        .create_payment(
            &old_key,
            json!({"amount": 1000, "currency": "TRY", "status": "authorized"}),
        )
        .await;
    assert_eq!(
        status_with(&stack, &old_key, &payment).await,
        StatusCode::OK
    );
    // The list never carries the key; it shows its last use.
    let listed = key_view(&stack, &old_id).await;
    assert!(listed.get("secret").is_none());
    assert!(!listed.to_string().contains(&old_key));
    assert!(listed["lastUsedAt"].is_string(), "{listed}");
    // Another merchant does not see it.
    let other = expect(
        stack
            .admin("GET", &path(BOSPHORUS, "/api-keys"), None)
            .await,
        200,
    );
    assert!(!other.to_string().contains(&old_id));

    // Roll with a one-hour expiry: a new key; both work.
    let rolled = expect(
        stack
            .admin(
                "POST",
                &path(ANATOLIA, &format!("/api-keys/{old_id}/roll")),
                Some(&json!({"expiresInHours": 1})),
            )
            .await,
        201,
    );
    let new_key = rolled["secret"].as_str().unwrap().to_owned();
    let new_id = rolled["id"].as_str().unwrap().to_owned();
    assert_ne!(new_key, old_key);
    assert_eq!(key_view(&stack, &old_id).await["status"], json!("expiring"));
    assert_eq!(
        status_with(&stack, &old_key, &payment).await,
        StatusCode::OK
    );
    assert_eq!(
        status_with(&stack, &new_key, &payment).await,
        StatusCode::OK
    );

    // An hour later (the stack's clock moved, no sleeping): the old key is refused.
    stack.clock.advance_millis(HOUR_MS + 1_000);
    assert_eq!(
        status_with(&stack, &old_key, &payment).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        status_with(&stack, &new_key, &payment).await,
        StatusCode::OK
    );
    assert_eq!(key_view(&stack, &old_id).await["status"], json!("expired"));
    let again = expect(
        stack
            .admin(
                "POST",
                &path(ANATOLIA, &format!("/api-keys/{old_id}/roll")),
                Some(&json!({})),
            )
            .await,
        409,
    );
    assert_eq!(again["error"]["code"], json!("api_key_inactive"));

    // Revoke: refused at once.
    let revoked = expect(
        stack
            .admin(
                "DELETE",
                &path(ANATOLIA, &format!("/api-keys/{new_id}")),
                None,
            )
            .await,
        200,
    );
    assert_eq!(revoked["status"], json!("revoked"));
    // An authorizer instance that verified the key reuses it for up to its cache's TTL
    // (paygate_payments::cache, the documented revocation delay); past it, refused.
    stack
        .clock
        .advance_millis(paygate_payments::cache::KEY_CACHE_TTL_MS);
    assert_eq!(
        status_with(&stack, &new_key, &payment).await,
        StatusCode::UNAUTHORIZED
    );
    // The seeded key is untouched.
    let seeded = paygate_tests::keys().anatolia_test;
    assert_eq!(status_with(&stack, seeded, &payment).await, StatusCode::OK);
    // Another merchant cannot revoke Anatolia's key.
    expect(
        stack
            .admin(
                "DELETE",
                &path(BOSPHORUS, &format!("/api-keys/{old_id}")),
                None,
            )
            .await,
        404,
    );

    // The audit trail (issue 21, item 5): each write above is one record in its merchant's
    // trail, newest first, with the signing principal, its ids and outcome, and no key.
    let trail = expect(
        stack
            .admin("GET", &path(ANATOLIA, "/audit?limit=10"), None)
            .await,
        200,
    );
    let records = trail["data"].as_array().unwrap();
    let seen: Vec<(&str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["action"].as_str().unwrap(),
                r["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("api_key.revoke", "succeeded"),
            ("api_key.roll", "rejected"),
            ("api_key.roll", "succeeded"),
            ("api_key.create", "succeeded"),
        ],
        "{trail}"
    );
    let request_ids: std::collections::HashSet<&str> = records
        .iter()
        .map(|r| r["requestId"].as_str().unwrap())
        .collect();
    assert_eq!(request_ids.len(), 4);
    for r in records {
        assert_eq!(
            r["principal"],
            json!("arn:aws:iam::000000000000:user/AKIAPAYGATELOCALADMIN")
        );
        assert_eq!(r["mode"], json!("test"), "{r}");
    }
    assert_eq!(records[0]["targets"]["keyId"], json!(new_id));
    assert_eq!(records[1]["errorCode"], json!("api_key_inactive"));
    assert_eq!(
        records[2]["targets"],
        json!({"keyId": old_id, "newKeyId": new_id})
    );
    assert_eq!(records[3]["targets"]["keyId"], json!(old_id));
    assert_eq!(
        records[3]["summary"],
        json!({"mode": "test", "name": "(given)"})
    );
    assert!(!trail.to_string().contains(&old_key) && !trail.to_string().contains(&new_key));
    let other = expect(
        stack.admin("GET", &path(BOSPHORUS, "/audit"), None).await,
        200,
    );
    assert_eq!(other["data"][0]["action"], json!("api_key.revoke"));
    assert_eq!(other["data"][0]["errorCode"], json!("not_found"));
    assert_eq!(other["data"].as_array().unwrap().len(), 1);
}
