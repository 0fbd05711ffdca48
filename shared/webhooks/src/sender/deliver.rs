//! The request a webhook attempt sends: headers per the spec's Events part.

use crate::sender::client::USER_AGENT;

pub const HEADER_EVENT: &str = "X-Svc-Event";
pub const HEADER_DELIVERY: &str = "X-Svc-Delivery";
pub const HEADER_SIGNATURE: &str = "X-Svc-Signature";

/// The headers of one attempt: `Content-Type: application/json`, `User-Agent`,
/// `X-Svc-Event` (the event type), `X-Svc-Delivery` (the delivery id, the same on every
/// retry) and `X-Svc-Signature` (see `crate::signature::header`).
pub fn webhook_headers(
    event_type: &str,
    delivery_id: &str,
    signature_header: &str,
) -> Vec<(String, String)> {
    [
        ("Content-Type", "application/json"),
        ("User-Agent", USER_AGENT),
        (HEADER_EVENT, event_type),
        (HEADER_DELIVERY, delivery_id),
        (HEADER_SIGNATURE, signature_header),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

/// [`webhook_headers`] with the signature computed here: `body` signed at `timestamp`
/// (unix seconds of *this attempt*, so every retry is signed afresh) with each of
/// `secrets`, the current secret first.
pub fn signed_headers<S: AsRef<str>>(
    event_type: &str,
    delivery_id: &str,
    secrets: &[S],
    timestamp: i64,
    body: &[u8],
) -> Vec<(String, String)> {
    let signature = crate::signature::header(timestamp, secrets, body);
    webhook_headers(event_type, delivery_id, &signature)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_in_order() {
        let h = webhook_headers("payment.captured", "dlv_1", "t=1,v1=ab");
        let names: Vec<&str> = h.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "Content-Type",
                "User-Agent",
                "X-Svc-Event",
                "X-Svc-Delivery",
                "X-Svc-Signature"
            ]
        );
        assert_eq!(h[0].1, "application/json");
        assert!(h[1].1.starts_with("paygate-webhooks/"));
        assert_eq!(h[2].1, "payment.captured");
        assert_eq!(h[3].1, "dlv_1");
        assert_eq!(h[4].1, "t=1,v1=ab");
    }

    #[test]
    fn signed_headers_verify() {
        let body = br#"{"id":"evt_1"}"#;
        let h = signed_headers(
            "webhook.test",
            "dlv_1",
            &["whsec_a", "whsec_b"],
            1_795_251_600,
            body,
        );
        let sig = &h[4].1;
        assert_eq!(sig.matches("v1=").count(), 2);
        assert_eq!(
            crate::signature::verify(sig, body, &["whsec_b"], 1_795_251_600, 300),
            Ok(())
        );
    }
}
