#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Fixed vectors a merchant can reproduce, rotation, tampering, tolerance, malformed headers.
//!
//! The vectors were computed once with Python's standard library:
//!
//! ```text
//! import hmac, hashlib
//! def v1(secret, t, body):
//!     return hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
//! v1("whsec_test_secret",    1795251600, b'{"id":"evt_1"}')
//!   == "9fddb03c75e8a1313684350726eb113b1ab3ea946febffb295c82d8d02f27590"
//! v1("whsec_rotated_secret", 1795251600, b'{"id":"evt_1"}')
//!   == "b4801655039b78db383532ea7c73985dbe2883b06924d5ee4c8c5b51ceea5faa"
//! v1("whsec_test_secret",    1795251600, b'')
//!   == "66f66a05eea4723b978444d6803fe60502e65cda6450e4ae30ab52e8ecbdfcab"
//! ```

use paygate_webhooks::signature::{
    header, parse_header, sign, verify, VerifyError, DEFAULT_TOLERANCE_SECS,
};
use proptest::prelude::*;

const SECRET: &str = "whsec_test_secret";
const ROTATED: &str = "whsec_rotated_secret";
const T: i64 = 1_795_251_600;
const BODY: &[u8] = br#"{"id":"evt_1"}"#;
const V1_SECRET: &str = "9fddb03c75e8a1313684350726eb113b1ab3ea946febffb295c82d8d02f27590";
const V1_ROTATED: &str = "b4801655039b78db383532ea7c73985dbe2883b06924d5ee4c8c5b51ceea5faa";
const V1_EMPTY_BODY: &str = "66f66a05eea4723b978444d6803fe60502e65cda6450e4ae30ab52e8ecbdfcab";

fn ok(h: &str, body: &[u8], secrets: &[&str], now: i64) -> Result<(), VerifyError> {
    verify(h, body, secrets, now, DEFAULT_TOLERANCE_SECS)
}

#[test]
fn sign_matches_the_python_vectors() {
    assert_eq!(sign(SECRET, T, BODY), V1_SECRET);
    assert_eq!(sign(ROTATED, T, BODY), V1_ROTATED);
    assert_eq!(sign(SECRET, T, b""), V1_EMPTY_BODY);
}

#[test]
fn the_key_is_the_whole_secret_including_the_prefix() {
    assert_ne!(sign("test_secret", T, BODY), V1_SECRET);
    assert_ne!(sign("whsec_test_secret ", T, BODY), V1_SECRET);
}

#[test]
fn header_has_one_v1_per_secret_current_first() {
    assert_eq!(header(T, &[SECRET], BODY), format!("t={T},v1={V1_SECRET}"));
    assert_eq!(
        header(T, &[SECRET, ROTATED], BODY),
        format!("t={T},v1={V1_SECRET},v1={V1_ROTATED}")
    );
    let owned: Vec<String> = vec![ROTATED.to_owned()];
    assert_eq!(header(T, &owned, BODY), format!("t={T},v1={V1_ROTATED}"));
    assert_eq!(header::<&str>(T, &[], BODY), format!("t={T}"));
}

#[test]
fn the_fixed_vector_verifies() {
    let h = format!("t={T},v1={V1_SECRET}");
    assert_eq!(ok(&h, BODY, &[SECRET], T), Ok(()));
}

#[test]
fn uppercase_hex_and_spaces_around_parts_are_accepted() {
    let h = format!("t={T}, v1={}", V1_SECRET.to_uppercase());
    assert_eq!(ok(&h, BODY, &[SECRET], T), Ok(()));
}

#[test]
fn rotation_either_secret_verifies_a_two_signature_header() {
    let h = header(T, &[SECRET, ROTATED], BODY);
    assert_eq!(ok(&h, BODY, &[SECRET], T), Ok(()));
    assert_eq!(ok(&h, BODY, &[ROTATED], T), Ok(()));
    assert_eq!(ok(&h, BODY, &["whsec_other", ROTATED], T), Ok(()));
    assert_eq!(
        ok(&h, BODY, &["whsec_other"], T),
        Err(VerifyError::SignatureMismatch)
    );
}

#[test]
fn receiver_side_rotation_accepts_old_or_new_secret() {
    let h = header(T, &[ROTATED], BODY);
    assert_eq!(ok(&h, BODY, &[SECRET, ROTATED], T), Ok(()));
}

#[test]
fn tampered_body_fails() {
    let h = header(T, &[SECRET], BODY);
    assert_eq!(
        ok(&h, br#"{"id":"evt_2"}"#, &[SECRET], T),
        Err(VerifyError::SignatureMismatch)
    );
    assert_eq!(
        ok(&h, br#"{"id": "evt_1"}"#, &[SECRET], T),
        Err(VerifyError::SignatureMismatch),
        "re-serialised JSON is a different body"
    );
}

#[test]
fn tampered_timestamp_fails() {
    let h = format!("t={},v1={V1_SECRET}", T + 1);
    assert_eq!(
        ok(&h, BODY, &[SECRET], T + 1),
        Err(VerifyError::SignatureMismatch)
    );
}

#[test]
fn tampered_signature_fails() {
    let mut bad = V1_SECRET.to_owned();
    bad.replace_range(63.., "1");
    let h = format!("t={T},v1={bad}");
    assert_eq!(
        ok(&h, BODY, &[SECRET], T),
        Err(VerifyError::SignatureMismatch)
    );
}

#[test]
fn tolerance_is_inclusive_in_both_directions() {
    let h = header(T, &[SECRET], BODY);
    assert_eq!(ok(&h, BODY, &[SECRET], T + 300), Ok(()));
    assert_eq!(ok(&h, BODY, &[SECRET], T - 300), Ok(()));
    assert_eq!(
        ok(&h, BODY, &[SECRET], T + 301),
        Err(VerifyError::TimestampOutsideTolerance {
            timestamp: T,
            now: T + 301,
            tolerance_secs: 300
        })
    );
    assert_eq!(
        ok(&h, BODY, &[SECRET], T - 301),
        Err(VerifyError::TimestampOutsideTolerance {
            timestamp: T,
            now: T - 301,
            tolerance_secs: 300
        }),
        "a timestamp from the future is refused too"
    );
    assert!(verify(&h, BODY, &[SECRET], T + 10, 5).is_err());
    assert_eq!(verify(&h, BODY, &[SECRET], T + 10, 10), Ok(()));
}

#[test]
fn extreme_timestamps_do_not_overflow() {
    let h = header(i64::MIN, &[SECRET], BODY);
    assert!(matches!(
        verify(&h, BODY, &[SECRET], i64::MAX, 300),
        Err(VerifyError::TimestampOutsideTolerance { .. })
    ));
}

#[test]
fn a_bad_signature_is_reported_before_a_stale_timestamp() {
    let h = format!("t={T},v1={V1_ROTATED}");
    assert_eq!(
        ok(&h, BODY, &[SECRET], T + 10_000),
        Err(VerifyError::SignatureMismatch)
    );
}

#[test]
fn unknown_schemes_are_ignored() {
    let h = format!("t={T},v0=abc,v2=zz,v1={V1_SECRET},x=1");
    assert_eq!(ok(&h, BODY, &[SECRET], T), Ok(()));
    let only_unknown = format!("t={T},v2={V1_SECRET}");
    assert_eq!(
        ok(&only_unknown, BODY, &[SECRET], T),
        Err(VerifyError::NoSignature)
    );
}

#[test]
fn order_of_parts_does_not_matter() {
    let h = format!("v1={V1_ROTATED},v1={V1_SECRET},t={T}");
    assert_eq!(ok(&h, BODY, &[SECRET], T), Ok(()));
}

#[test]
fn no_secrets_means_mismatch() {
    let h = header(T, &[SECRET], BODY);
    assert_eq!(ok(&h, BODY, &[], T), Err(VerifyError::SignatureMismatch));
}

#[test]
fn malformed_headers() {
    let cases = [
        String::new(),
        "garbage".to_owned(),
        format!("v1={V1_SECRET}"),                // no t
        format!("t=,v1={V1_SECRET}"),             // empty t
        format!("t=abc,v1={V1_SECRET}"),          // t not a number
        format!("t=1.5,v1={V1_SECRET}"),          // t not an integer
        format!("t={T},t={T},v1={V1_SECRET}"),    // two t
        format!("t={T},v1=xyz"),                  // not hex
        format!("t={T},v1={}", &V1_SECRET[..62]), // short
        format!("t={T},v1={V1_SECRET}00"),        // long
        format!("t={T},,v1={V1_SECRET}"),         // empty part
        format!("t={T},v1{V1_SECRET}"),           // no '='
        format!("t={T},={V1_SECRET}"),            // empty key
        format!("t={T};v1={V1_SECRET}"),          // wrong separator
    ];
    for h in cases {
        assert_eq!(
            ok(&h, BODY, &[SECRET], T),
            Err(VerifyError::MalformedHeader),
            "header {h:?}"
        );
    }
}

#[test]
fn header_without_v1_is_no_signature() {
    assert_eq!(
        ok(&format!("t={T}"), BODY, &[SECRET], T),
        Err(VerifyError::NoSignature)
    );
}

#[test]
fn parse_header_exposes_the_parts() {
    let p = parse_header(&format!("t={T},v1={V1_SECRET}")).unwrap();
    assert_eq!(p.timestamp, T);
    assert_eq!(p.signatures.len(), 1);
    assert_eq!(hex_of(&p.signatures[0]), V1_SECRET);
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn errors_display_without_secrets() {
    let h = header(T, &[SECRET], BODY);
    let e = ok(&h, b"x", &[SECRET], T).unwrap_err();
    assert!(!e.to_string().contains(SECRET));
}

proptest! {
    #[test]
    fn round_trip(
        secret in "whsec_[A-Za-z0-9+/=]{0,60}",
        other in "whsec_[A-Za-z0-9]{1,40}",
        t in -10_000_000_000i64..10_000_000_000,
        body in proptest::collection::vec(any::<u8>(), 0..512),
        skew in -300i64..=300,
        flip in any::<proptest::sample::Index>(),
    ) {
        let h = header(t, &[&secret], &body);
        prop_assert_eq!(verify(&h, &body, &[&secret], t + skew, 300), Ok(()));
        let rotated = header(t, &[&other, &secret], &body);
        prop_assert_eq!(verify(&rotated, &body, &[&secret], t, 300), Ok(()));
        if other != secret {
            prop_assert_eq!(
                verify(&h, &body, &[&other], t, 300),
                Err(VerifyError::SignatureMismatch)
            );
        }
        if !body.is_empty() {
            let mut tampered = body.clone();
            let i = flip.index(tampered.len());
            tampered[i] ^= 0x01;
            prop_assert_eq!(
                verify(&h, &tampered, &[&secret], t, 300),
                Err(VerifyError::SignatureMismatch)
            );
        }
    }
}
