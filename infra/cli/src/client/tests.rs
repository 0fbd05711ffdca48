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
