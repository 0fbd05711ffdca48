//! URLs, error answers and signing.

use super::*;

#[test]
fn urls_keep_a_stage_prefix_and_encode_segments() {
    let base = parse_base_url("https://abc.execute-api.eu-central-1.amazonaws.com/prod/").unwrap();
    let u = api_url(
        &base,
        &["admin", "v1", "merchants", "mch 1"],
        &[("cursor", "a+b/c=".into())],
    )
    .unwrap();
    assert_eq!(
        u.as_str(),
        "https://abc.execute-api.eu-central-1.amazonaws.com/prod/admin/v1/merchants/mch%201?cursor=a%2Bb%2Fc%3D"
    );
    let local = parse_base_url("http://127.0.0.1:3000").unwrap();
    assert_eq!(
        api_url(&local, &["v1", "payments", "pay_1", "capture"], &[])
            .unwrap()
            .as_str(),
        "http://127.0.0.1:3000/v1/payments/pay_1/capture"
    );
    assert!(parse_base_url("ftp://x").is_err());
    assert!(parse_base_url("not a url").is_err());
}

#[test]
fn error_answers_read_from_every_shape() {
    let envelope =
        serde_json::json!({"error": {"code": "not_found", "message": "No such delivery."}});
    assert_eq!(
        error_parts(Some(&envelope), ""),
        ("not_found".into(), "No such delivery.".into())
    );
    let gateway = serde_json::json!({"message": "Forbidden"});
    assert_eq!(
        error_parts(Some(&gateway), ""),
        ("gateway".into(), "Forbidden".into())
    );
    assert_eq!(
        error_parts(None, "<html>bad gateway</html>").1,
        "<html>bad gateway</html>"
    );
}

#[test]
fn signing_adds_the_token_and_hides_it_from_debug() {
    let signer = Signer {
        key: AccessKey {
            access_key_id: "AKID".into(),
            secret_access_key: "shh".into(),
        },
        session_token: Some("tok".into()),
        region: "eu-central-1".into(),
    };
    let url =
        parse_base_url("https://api.example.com/admin/v1/merchants/m/webhook-endpoints").unwrap();
    let h = signer
        .sign(
            "POST",
            &url,
            Some("application/json"),
            b"{}",
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_253_400),
        )
        .unwrap();
    let names: Vec<&str> = h.iter().map(|(k, _)| *k).collect();
    assert!(names.contains(&"authorization") && names.contains(&"x-amz-security-token"));
    let auth = &h.iter().find(|(k, _)| *k == "authorization").unwrap().1;
    assert!(
        auth.contains("/eu-central-1/execute-api/aws4_request"),
        "{auth}"
    );
    assert!(
        auth.contains("content-type;host;x-amz-date;x-amz-security-token"),
        "{auth}"
    );
    let debug = format!("{signer:?}");
    assert!(
        !debug.contains("shh") && !debug.contains("tok\""),
        "{debug}"
    );
}

/// Sends one merchant operation to a one-shot local server; returns the request it saw.
async fn seen_request(operation: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = Url::parse(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
    let server = tokio::spawn(async move {
        let (mut conn, _) = listener.accept().await.unwrap();
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&seen).contains("\r\n\r\n{}") {
            let n = conn.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        let body = r#"{"payment":{}}"#;
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        conn.write_all(answer.as_bytes()).await.unwrap();
        String::from_utf8_lossy(&seen).to_lowercase()
    });
    let http = reqwest::Client::new();
    let api = MerchantClient {
        http: &http,
        base: &base,
        api_key: "sk_test_x",
    };
    api.operation("pay_1", operation, &serde_json::json!({}))
        .await
        .unwrap();
    server.await.unwrap()
}

#[tokio::test]
async fn every_money_operation_carries_a_fresh_idempotency_key() {
    let mut keys = Vec::new();
    for op in ["capture", "cancel", "refund", "refund"] {
        let req = seen_request(op).await;
        let key = req
            .lines()
            .find_map(|l| l.strip_prefix("idempotency-key: "))
            .unwrap_or_else(|| panic!("{op} was sent without a key: {req}"))
            .to_owned();
        assert!(key.starts_with("paygate-cli-") && key.len() == 44, "{key}");
        keys.push(key);
    }
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 4, "one key per operation");
    assert!(!seen_request("query").await.contains("idempotency-key"));
}
