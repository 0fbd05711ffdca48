//! Endpoints over the admin API: the secret is shown once and signs what the receiver gets;
//! reads never show it; updates are validated like creates; another merchant sees nothing.

use paygate_domain::{ports::EndpointReader, MerchantId, WebhookEndpointId};
use paygate_tests::{receiver::Receiver, ANATOLIA, BOSPHORUS};
use serde_json::json;

use crate::support::{capture, create_endpoint, expect, path, stack_for, verifies, SOON};

#[tokio::test]
async fn the_secret_is_shown_once_and_verifies_the_webhooks() {
    let rx = Receiver::start().await;
    let stack = stack_for("adm-endpoints", &rx, "1s,1s").await;

    // WHEN an endpoint is created
    let created =
        create_endpoint(&stack, ANATOLIA, &rx, "/hooks", json!(["payment.captured"])).await;
    let id = created["id"].as_str().unwrap().to_owned();
    let secret = created["secret"].as_str().unwrap().to_owned();
    assert!(id.starts_with("whe_"));
    assert_eq!(created["events"], json!(["payment.captured"]));
    assert_eq!(created["mode"], json!("test"));
    assert_eq!(created["enabled"], json!(true));
    assert_eq!(created["description"], json!("e2e"));
    assert!(created["createdAt"].is_string());
    assert_eq!(secret.len(), 70);

    // THEN no read shows the secret again
    let one = stack
        .admin(
            "GET",
            &path(ANATOLIA, &format!("/webhook-endpoints/{id}")),
            None,
        )
        .await;
    let all = stack
        .admin("GET", &path(ANATOLIA, "/webhook-endpoints"), None)
        .await;
    assert!(all.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["id"] == json!(id)));
    for reply in [one, all] {
        assert_eq!(reply.status.as_u16(), 200, "{}", reply.text);
        assert!(
            !reply.text.contains(&secret) && !reply.text.contains("secret"),
            "{}",
            reply.text
        );
    }
    // AND the secret is in Secrets Manager under the template's naming
    let stored = stack
        .server()
        .endpoints()
        .get_endpoint(
            &MerchantId::parse(ANATOLIA).unwrap(),
            &WebhookEndpointId::parse(&id).unwrap(),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.secret_id, format!("paygate/local/webhooks/{id}"));

    // AND it verifies the webhook of a capture
    let payment = capture(&stack).await;
    let hooks = rx.wait_for("/hooks", 1, SOON).await;
    assert_eq!(hooks[0].json()["data"]["id"], json!(payment));
    assert!(verifies(&hooks[0], &secret));
    assert!(!verifies(&hooks[0], "whsec_0000"));
}

#[tokio::test]
async fn updates_are_validated_and_endpoints_are_the_merchants_own() {
    let rx = Receiver::start().await;
    let stack = stack_for("adm-update", &rx, "1s").await;
    let created = create_endpoint(&stack, ANATOLIA, &rx, "/a", json!(["*"])).await;
    let id = created["id"].as_str().unwrap();
    let one = path(ANATOLIA, &format!("/webhook-endpoints/{id}"));

    // a private IP literal, on update as on create, is 400 naming `url`
    for url in [
        "https://10.1.2.3/hook",
        "https://192.168.0.10/hook",
        "https://[::1]/h",
        "http://a.example.com/h",
    ] {
        let body = json!({"url": url});
        let err = expect(stack.admin("PATCH", &one, Some(&body)).await, 400);
        assert_eq!(err["error"]["code"], json!("invalid_request"));
        assert_eq!(err["error"]["details"]["field"], json!("url"), "{url}");
        let body = json!({"url": url, "events": ["*"], "mode": "test"});
        let err = expect(
            stack
                .admin("POST", &path(ANATOLIA, "/webhook-endpoints"), Some(&body))
                .await,
            400,
        );
        assert_eq!(err["error"]["details"]["field"], json!("url"), "{url}");
    }
    // a good update
    let body = json!({"url": "https://hooks.example.com/new", "events": ["payment.refunded", "payment.captured"], "enabled": false, "description": "moved"});
    let updated = expect(stack.admin("PATCH", &one, Some(&body)).await, 200);
    assert_eq!(updated["url"], json!("https://hooks.example.com/new"));
    assert_eq!(
        updated["events"],
        json!(["payment.refunded", "payment.captured"])
    );
    assert_eq!(updated["enabled"], json!(false));
    assert_ne!(updated["updatedAt"], created["updatedAt"]);
    let read = expect(stack.admin("GET", &one, None).await, 200);
    assert_eq!(read, updated);
    // mode cannot change; unknown fields are refused
    let err = expect(
        stack
            .admin("PATCH", &one, Some(&json!({"mode": "live"})))
            .await,
        400,
    );
    assert_eq!(err["error"]["details"]["field"], json!("mode"));

    // another merchant sees nothing of it
    let theirs = path(BOSPHORUS, &format!("/webhook-endpoints/{id}"));
    assert_eq!(
        expect(stack.admin("GET", &theirs, None).await, 404)["error"]["code"],
        json!("not_found")
    );
    expect(stack.admin("DELETE", &theirs, None).await, 404);
    let listed = expect(
        stack
            .admin("GET", &path(BOSPHORUS, "/webhook-endpoints"), None)
            .await,
        200,
    );
    assert_eq!(listed["data"], json!([]));
    // an unknown merchant is 404
    expect(
        stack
            .admin("GET", &path("mch_nobody", "/webhook-endpoints"), None)
            .await,
        404,
    );

    // delete: gone, and its secret with it
    let gone = expect(stack.admin("DELETE", &one, None).await, 200);
    assert_eq!(gone, json!({"id": id, "deleted": true}));
    expect(stack.admin("GET", &one, None).await, 404);
    let secret_read = stack
        .server()
        .signing()
        .read(&format!("paygate/local/webhooks/{id}"))
        .await;
    assert!(secret_read.is_err(), "the signing secret was deleted");
}
