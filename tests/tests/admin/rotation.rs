//! Rotation: the new secret is shown once; during the grace period the old one signs too
//! (a second `v1=`); with no grace only the new one signs.

use paygate_tests::{receiver::Receiver, ANATOLIA};
use serde_json::json;

use crate::support::{
    create_endpoint, expect, path, stack_caching, stack_for, v1_count, verifies, SOON,
};

#[tokio::test]
async fn rotation_signs_with_both_secrets_for_the_grace_period_then_only_the_new() {
    let rx = Receiver::start().await;
    let stack = stack_for("adm-rotate", &rx, "1s").await;
    let created = create_endpoint(&stack, ANATOLIA, &rx, "/hooks", json!(["*"])).await;
    let id = created["id"].as_str().unwrap();
    let first = created["secret"].as_str().unwrap().to_owned();
    let one = path(ANATOLIA, &format!("/webhook-endpoints/{id}"));
    let test = format!("{one}/test");

    // before: one v1=, the first secret
    expect(stack.admin("POST", &test, None).await, 202);
    let hooks = rx.wait_for("/hooks", 1, SOON).await;
    assert_eq!(v1_count(&hooks[0]), 1);
    assert!(verifies(&hooks[0], &first));

    // WHEN rotated with an hour's grace
    let r = expect(
        stack
            .admin(
                "POST",
                &format!("{one}/rotate-secret"),
                Some(&json!({"graceSeconds": 3600})),
            )
            .await,
        200,
    );
    assert_eq!(r["id"], json!(id));
    let second = r["secret"].as_str().unwrap().to_owned();
    assert!(second.starts_with("whsec_") && second != first);
    assert!(r["previousSecretExpiresAt"].is_string());
    // THEN the next webhook carries two v1= and both secrets verify it
    expect(stack.admin("POST", &test, None).await, 202);
    let hooks = rx.wait_for("/hooks", 2, SOON).await;
    assert_eq!(
        v1_count(&hooks[1]),
        2,
        "{:?}",
        hooks[1].header("x-svc-signature")
    );
    assert!(verifies(&hooks[1], &first));
    assert!(verifies(&hooks[1], &second));
    // AND no read shows either secret
    let read = stack.admin("GET", &one, None).await;
    assert!(!read.text.contains(&first) && !read.text.contains(&second));

    // WHEN rotated with no grace
    let r = expect(
        stack
            .admin(
                "POST",
                &format!("{one}/rotate-secret"),
                Some(&json!({"graceSeconds": 0})),
            )
            .await,
        200,
    );
    let third = r["secret"].as_str().unwrap().to_owned();
    assert_eq!(r["previousSecretExpiresAt"], json!(null));
    // THEN only the new secret signs (the first one's grace is still running, though)
    expect(stack.admin("POST", &test, None).await, 202);
    let hooks = rx.wait_for("/hooks", 3, SOON).await;
    assert!(verifies(&hooks[2], &third));
    assert!(
        !verifies(&hooks[2], &second),
        "the second secret stopped at once"
    );
    assert_eq!(
        v1_count(&hooks[2]),
        2,
        "third and (still in its grace) first"
    );
    assert!(verifies(&hooks[2], &first));

    // a bad grace is 400 naming it
    let err = expect(
        stack
            .admin(
                "POST",
                &format!("{one}/rotate-secret"),
                Some(&json!({"graceSeconds": -5})),
            )
            .await,
        400,
    );
    assert_eq!(err["error"]["details"]["field"], json!("graceSeconds"));
}

#[tokio::test]
async fn rotation_with_no_grace_signs_with_the_new_secret_only() {
    let rx = Receiver::start().await;
    let stack = stack_for("adm-rotate0", &rx, "1s").await;
    let created = create_endpoint(&stack, ANATOLIA, &rx, "/hooks", json!(["*"])).await;
    let id = created["id"].as_str().unwrap();
    let first = created["secret"].as_str().unwrap().to_owned();
    let one = path(ANATOLIA, &format!("/webhook-endpoints/{id}"));
    let r = expect(
        stack
            .admin(
                "POST",
                &format!("{one}/rotate-secret"),
                Some(&json!({"graceSeconds": 0})),
            )
            .await,
        200,
    );
    let new = r["secret"].as_str().unwrap().to_owned();
    expect(stack.admin("POST", &format!("{one}/test"), None).await, 202);
    let hooks = rx.wait_for("/hooks", 1, SOON).await;
    assert_eq!(v1_count(&hooks[0]), 1);
    assert!(verifies(&hooks[0], &new));
    assert!(!verifies(&hooks[0], &first));
}

#[tokio::test]
async fn with_the_deployed_secret_cache_the_next_delivery_carries_the_rotated_secret() {
    let rx = Receiver::start().await;
    // the sender caches secrets for the deployed TTL (5 minutes)
    let stack = stack_caching(
        "adm-rotate-cache",
        &rx,
        "1s",
        paygate_aws::secrets::DEFAULT_TTL,
    )
    .await;
    let created = create_endpoint(&stack, ANATOLIA, &rx, "/hooks", json!(["*"])).await;
    let id = created["id"].as_str().unwrap();
    let first = created["secret"].as_str().unwrap().to_owned();
    let one = path(ANATOLIA, &format!("/webhook-endpoints/{id}"));
    let test = format!("{one}/test");
    // GIVEN the sender has the first secret cached
    expect(stack.admin("POST", &test, None).await, 202);
    let hooks = rx.wait_for("/hooks", 1, SOON).await;
    assert!(verifies(&hooks[0], &first));

    // WHEN rotated with no grace
    let r = expect(
        stack
            .admin(
                "POST",
                &format!("{one}/rotate-secret"),
                Some(&json!({"graceSeconds": 0})),
            )
            .await,
        200,
    );
    let second = r["secret"].as_str().unwrap().to_owned();
    // THEN the very next delivery is signed with the new secret only: the revoked one
    // does not sign from the cache
    expect(stack.admin("POST", &test, None).await, 202);
    let hooks = rx.wait_for("/hooks", 2, SOON).await;
    assert_eq!(v1_count(&hooks[1]), 1);
    assert!(verifies(&hooks[1], &second));
    assert!(!verifies(&hooks[1], &first));

    // WHEN rotated with a grace THEN the next delivery carries both at once
    let r = expect(
        stack
            .admin(
                "POST",
                &format!("{one}/rotate-secret"),
                Some(&json!({"graceSeconds": 3600})),
            )
            .await,
        200,
    );
    let third = r["secret"].as_str().unwrap().to_owned();
    expect(stack.admin("POST", &test, None).await, 202);
    let hooks = rx.wait_for("/hooks", 3, SOON).await;
    assert_eq!(v1_count(&hooks[2]), 2);
    assert!(verifies(&hooks[2], &third) && verifies(&hooks[2], &second));
}

#[tokio::test]
async fn concurrent_rotations_never_lose_a_secret_that_was_handed_out() {
    let rx = Receiver::start().await;
    let stack = stack_caching(
        "adm-rotate-race",
        &rx,
        "1s",
        paygate_aws::secrets::DEFAULT_TTL,
    )
    .await;
    let created = create_endpoint(&stack, ANATOLIA, &rx, "/hooks", json!(["*"])).await;
    let id = created["id"].as_str().unwrap();
    let one = path(ANATOLIA, &format!("/webhook-endpoints/{id}"));
    let rotate = format!("{one}/rotate-secret");
    let grace = json!({"graceSeconds": 3600});
    // WHEN four rotations run at once
    let replies =
        futures::future::join_all((0..4).map(|_| stack.admin("POST", &rotate, Some(&grace)))).await;
    // THEN each is a 200 (applied) or a 409 (applied nothing), at least one applied
    let mut handed_out = Vec::new();
    for r in &replies {
        match r.status.as_u16() {
            200 => handed_out.push(r.body["secret"].as_str().unwrap().to_owned()),
            409 => assert_eq!(r.body["error"]["code"], json!("concurrent_modification")),
            other => panic!("rotation answered {other}: {}", r.text),
        }
    }
    assert!(!handed_out.is_empty());
    // AND every secret handed out signs the next delivery (none silently replaced)
    expect(stack.admin("POST", &format!("{one}/test"), None).await, 202);
    let hooks = rx.wait_for("/hooks", 1, SOON).await;
    for s in &handed_out {
        assert!(verifies(&hooks[0], s), "a handed-out secret does not sign");
    }
}
