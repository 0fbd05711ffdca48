//! Edge protection (issue 21, item 4): `EdgeProtection=waf` puts CloudFront with the web ACL
//! of `infra/edge-waf.yaml` in front of the HTTP API, and the authorizer denies merchant
//! requests that do not carry CloudFront's origin secret; `MalformedKeyAnswer` reaches the
//! authorizer's gate. Checked against the code's names: the header, the variables, and the
//! web ACL's key pattern against `paygate_payments::auth::bearer_key`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_norway::Value;
use support::{intrinsic, s, template};

fn edge_waf() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../edge-waf.yaml");
    serde_norway::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn allowed(p: &Value) -> Vec<String> {
    p["AllowedValues"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(s)
        .collect()
}

#[test]
fn waf_mode_is_off_by_default_and_everything_of_it_hangs_on_one_condition() {
    let t = template();
    assert_eq!(s(&t["Parameters"]["EdgeProtection"]["Default"]), "none");
    assert_eq!(allowed(&t["Parameters"]["EdgeProtection"]), ["none", "waf"]);
    let cond: Value = serde_norway::from_str("!Equals [!Ref EdgeProtection, waf]").unwrap();
    assert_eq!(t["Conditions"]["EdgeWaf"], cond);
    for id in ["EdgeOriginSecret", "EdgeDistribution"] {
        assert_eq!(s(&t["Resources"][id]["Condition"]), "EdgeWaf", "{id}");
    }
    assert_eq!(s(&t["Outputs"]["EdgeUrl"]["Condition"]), "EdgeWaf");
    // waf without a web ACL is refused before anything is created.
    let rule = &t["Rules"]["EdgeWafNeedsItsWebAcl"];
    assert!(!rule["Assertions"].as_sequence().unwrap().is_empty());
}

#[test]
fn cloudfront_sends_the_secret_the_authorizer_requires_under_the_names_it_reads() {
    let t = template();
    let dist = &t["Resources"]["EdgeDistribution"]["Properties"]["DistributionConfig"];
    assert_eq!(
        intrinsic(&dist["WebACLId"], "Ref").as_deref(),
        Some("EdgeWebAclArn")
    );
    let origin = &dist["Origins"][0];
    assert_eq!(
        s(&origin["CustomOriginConfig"]["OriginProtocolPolicy"]),
        "https-only"
    );
    assert_eq!(
        intrinsic(&origin["DomainName"], "Sub").as_deref(),
        Some("${PaygateApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}")
    );
    let header = &origin["OriginCustomHeaders"][0];
    assert_eq!(s(&header["HeaderName"]), fn_authorizer::EDGE_HEADER);
    let behavior = &dist["DefaultCacheBehavior"];
    assert_eq!(s(&behavior["ViewerProtocolPolicy"]), "https-only");
    // CachingDisabled: an answer is never served to another caller.
    assert_eq!(
        s(&behavior["CachePolicyId"]),
        "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
    );

    let env = &t["Resources"]["AuthorizerFunction"]["Properties"]["Environment"]["Variables"];
    let secret: Value = serde_norway::from_str(
        r#"!If [EdgeWaf, !Sub "{{resolve:secretsmanager:${EdgeOriginSecret}:SecretString}}", !Ref AWS::NoValue]"#,
    )
    .unwrap();
    assert_eq!(env[fn_authorizer::EDGE_SECRET_ENV], secret);
    // The same value CloudFront sends.
    let Value::Tagged(tagged) = &secret else {
        unreachable!()
    };
    assert_eq!(header["HeaderValue"], tagged.value[1]);
    assert_eq!(
        intrinsic(&env[fn_authorizer::MALFORMED_KEY_ANSWER_ENV], "Ref").as_deref(),
        Some("MalformedKeyAnswer")
    );
}

#[test]
fn the_malformed_key_parameter_offers_what_the_gate_reads_and_keeps_the_envelope_by_default() {
    let t = template();
    let p = &t["Parameters"]["MalformedKeyAnswer"];
    assert_eq!(s(&p["Default"]), "envelope");
    let values = allowed(p);
    assert_eq!(values, ["envelope", "deny"]);
    for v in &values {
        let names =
            paygate_compose::Names::from_map([(fn_authorizer::MALFORMED_KEY_ANSWER_ENV, v)]);
        let gate = fn_authorizer::Gate::from_names(&names).unwrap();
        let expected = if v == "deny" {
            fn_authorizer::MalformedKeyAnswer::Deny
        } else {
            fn_authorizer::MalformedKeyAnswer::Envelope
        };
        assert_eq!(gate.malformed, expected, "{v}");
    }
}

#[test]
fn the_web_acl_blocks_exactly_the_keys_the_authorizer_would_refuse_unread() {
    let waf = edge_waf();
    let acl = &waf["Resources"]["EdgeWebAcl"]["Properties"];
    assert_eq!(s(&acl["Scope"]), "CLOUDFRONT");
    let rule = acl["Rules"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|r| s(&r["Name"]) == "malformed-api-key")
        .expect("the malformed-api-key rule");
    assert_eq!(
        rule["Action"]["Block"]["CustomResponse"]["ResponseCode"].as_u64(),
        Some(401)
    );
    let and = &rule["Statement"]["AndStatement"]["Statements"];
    assert_eq!(s(&and[0]["ByteMatchStatement"]["SearchString"]), "/v1/");
    let regex = &and[1]["NotStatement"]["Statement"]["RegexMatchStatement"];
    assert_eq!(
        s(&regex["FieldToMatch"]["SingleHeader"]["Name"]),
        "authorization"
    );
    let re = regex_lite::Regex::new(&s(&regex["RegexString"])).unwrap();
    let body = "a1B2".repeat(6);
    let samples = [
        format!("Bearer sk_test_{body}"),
        format!("Bearer sk_live_{body}"),
        format!("bearer sk_live_{body}"),
        format!("  Bearer   sk_test_{body}  "),
        format!("Bearer sk_test_{}", "a".repeat(16)),
        format!("Bearer sk_test_{}", "a".repeat(128)),
        format!("Bearer sk_test_{}", "a".repeat(15)),
        format!("Bearer sk_test_{}", "a".repeat(129)),
        format!("Bearer sk_prod_{body}"),
        format!("Bearer sk_test_{body}!"),
        format!("Basic sk_test_{body}"),
        format!("BEARER sk_test_{body}"),
        format!("Bearer sk_test_ {body}"),
        format!("Bearersk_test_{body}"),
        String::new(),
    ];
    for h in &samples {
        assert_eq!(
            re.is_match(h),
            paygate_payments::auth::bearer_key(Some(h)).is_ok(),
            "{h:?}: the web ACL and the authorizer disagree"
        );
    }
    // The envelopes are the API's codes.
    let bodies = &acl["CustomResponseBodies"];
    for (key, code) in [
        ("rate-limited", "rate_limited"),
        ("unauthorized", "unauthorized"),
    ] {
        let body: serde_json::Value = serde_json::from_str(&s(&bodies[key]["Content"])).unwrap();
        assert_eq!(body["error"]["code"], code, "{key}");
    }
    // Rate-based rules per client IP, points inquiry the stricter.
    let rates: Vec<&Value> = acl["Rules"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|r| !r["Statement"]["RateBasedStatement"].is_null())
        .collect();
    assert_eq!(rates.len(), 2);
    for r in &rates {
        assert_eq!(
            s(&r["Statement"]["RateBasedStatement"]["AggregateKeyType"]),
            "IP"
        );
        assert_eq!(
            r["Action"]["Block"]["CustomResponse"]["ResponseCode"].as_u64(),
            Some(429)
        );
    }
    let p = &waf["Parameters"];
    assert!(
        p["PointsInquiriesPerIpPer5Minutes"]["Default"].as_u64()
            < p["RequestsPerIpPer5Minutes"]["Default"].as_u64()
    );
}
