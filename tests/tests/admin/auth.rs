//! The admin routes' IAM (SigV4) authorization, emulated by the dev server: unsigned,
//! wrongly signed, tampered or stale requests are 403 and reach no function.

use std::time::Duration;

use paygate_tests::{
    admin::{admin_credentials, now, AccessKey, AdminRequest, Signing},
    keys, Stack, ANATOLIA,
};
use serde_json::json;

use crate::support::{expect, path};

#[tokio::test]
async fn only_requests_signed_with_the_admin_key_get_through() {
    let stack = Stack::start_labeled("adm-auth").await;
    let list = path(ANATOLIA, "/webhook-endpoints");
    let create_body =
        json!({"url": "https://hooks.example.com/a", "events": ["*"], "mode": "test"});
    let creds = admin_credentials();
    let forbidden = |reply: paygate_tests::Reply| {
        let body = expect(reply, 403);
        assert_eq!(body["error"]["code"], json!("forbidden"), "{body}");
        body["error"]["message"].as_str().unwrap().to_owned()
    };

    // signed: 200 (the seed's one endpoint)
    let before = expect(stack.admin("GET", &list, None).await, 200)["data"].clone();

    // unsigned, or with a merchant API key instead
    let mut unsigned = AdminRequest::new("GET", &list, None);
    unsigned.signing = Signing::None;
    assert!(forbidden(stack.admin_request(unsigned).await).contains("not signed"));
    let bearer = stack
        .raw(
            reqwest::Method::GET,
            &list,
            Some(&format!("Bearer {}", keys().anatolia_test)),
            None,
            None,
        )
        .await;
    forbidden(bearer);

    // another key, the right key id with a wrong secret, another region
    let mut other = AdminRequest::new("GET", &list, None);
    other.signing = Signing::With {
        key: AccessKey {
            access_key_id: "AKIASOMEONEELSE".into(),
            secret_access_key: creds.secret_access_key.clone(),
        },
        region: creds.region.clone(),
        at: now(),
    };
    forbidden(stack.admin_request(other).await);
    let mut wrong = AdminRequest::new("GET", &list, None);
    wrong.signing = Signing::With {
        key: AccessKey {
            access_key_id: creds.access_key_id.clone(),
            secret_access_key: "wrong".into(),
        },
        region: creds.region.clone(),
        at: now(),
    };
    assert!(forbidden(stack.admin_request(wrong).await).contains("signature does not match"));
    let mut region = AdminRequest::new("GET", &list, None);
    region.signing = Signing::With {
        key: creds.access_key(),
        region: "eu-west-1".into(),
        at: now(),
    };
    forbidden(stack.admin_request(region).await);

    // tampered: the body, the path (another merchant), the query
    let mut body = AdminRequest::new("POST", &list, Some(&create_body));
    body.send_body = Some(
        json!({"url": "https://evil.example.com/", "events": ["*"], "mode": "test"}).to_string(),
    );
    forbidden(stack.admin_request(body).await);
    let mut moved = AdminRequest::new("GET", &list, None);
    moved.send_path = Some(path("mch_bosphorus", "/webhook-endpoints"));
    forbidden(stack.admin_request(moved).await);
    let mut query = AdminRequest::new("GET", &list, None);
    query.send_path = Some(format!("{list}?limit=1"));
    forbidden(stack.admin_request(query).await);

    // stale: signed six minutes ago, or six minutes ahead
    for at in [
        now() - Duration::from_secs(360),
        now() + Duration::from_secs(360),
    ] {
        let mut stale = AdminRequest::new("GET", &list, None);
        stale.signing = Signing::With {
            key: creds.access_key(),
            region: creds.region.clone(),
            at,
        };
        assert!(forbidden(stack.admin_request(stale).await).contains("expired"));
    }

    // nothing was created by any refused request
    let listed = expect(stack.admin("GET", &list, None).await, 200);
    assert_eq!(listed["data"], before);
    // while the same create, signed and untouched, goes through
    expect(stack.admin("POST", &list, Some(&create_body)).await, 201);
}
