//! The simulator's wire checks: a JSON object with `clientId` (a number or digits),
//! `apiUser`, `rnd` (1–24 characters), `timeSpan` (`yyyyMMddHHmmss`), `orderId` (may be
//! empty for `history`, which needs `transactionDate` `yyyyMMdd`, `page` and `pageSize`), an
//! integer `amount` above zero for `postAuth` and `refund`, and a `hash` right for that client's
//! password and not used before. A malformed body is `Code 998` "Validasyon Hatası" with
//! `ValidationErrors` (MEWS `fail_validation`); an unknown client or a wrong, missing or
//! reused hash is `Code 997` "Hash Hatası" (MEWS `error_hash_error`). Nothing is applied.

use serde_json::Value;

use super::{SimClient, UsedHashes};
use crate::{hash, response::text};

fn validation(why: &str) -> String {
    serde_json::json!({"Code": 998, "message": "Validasyon Hatası", "ValidationErrors": [why]})
        .to_string()
}

fn hash_error() -> String {
    serde_json::json!({
        "OrderId": null, "BankResponseCode": null, "BankResponseMessage": null, "AuthCode": null,
        "HostReferenceNumber": null, "TransactionId": null, "Code": 997, "Message": "Hash Hatası"
    })
    .to_string()
}

/// Reads and authenticates a request of `path`; returns the client and the document, or the
/// answer refusing it.
pub fn read_request<'a>(
    clients: &'a [SimClient],
    used: &UsedHashes,
    path: &str,
    body: &[u8],
) -> Result<(&'a SimClient, Value), String> {
    let v: Value = serde_json::from_slice(body).map_err(|_| validation("body is not JSON"))?;
    if !v.is_object() {
        return Err(validation("body is not an object"));
    }
    let client_id = match v.get("clientId") {
        Some(Value::Number(n)) if n.is_u64() => n.to_string(),
        Some(Value::String(s)) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.clone()
        }
        _ => return Err(validation("clientId")),
    };
    let (api_user, rnd, time_span, given) = (
        text(&v, "apiUser"),
        text(&v, "rnd"),
        text(&v, "timeSpan"),
        text(&v, "hash"),
    );
    if api_user.is_empty() {
        return Err(validation("apiUser"));
    }
    if rnd.is_empty() || rnd.chars().count() > 24 {
        return Err(validation("rnd"));
    }
    if time_span.len() != 14 || !time_span.bytes().all(|b| b.is_ascii_digit()) {
        return Err(validation("timeSpan"));
    }
    if path == "history" {
        // A day's page: `transactionDate` `yyyyMMdd` (a number or digits), `page` and
        // `pageSize` from 1; `orderId` may be empty (every order of the day).
        let date = text(&v, "transactionDate");
        if date.len() != 8 || !date.bytes().all(|b| b.is_ascii_digit()) {
            return Err(validation("transactionDate"));
        }
        for key in ["page", "pageSize"] {
            if v.get(key).and_then(Value::as_u64).is_none_or(|n| n == 0) {
                return Err(validation(key));
            }
        }
    } else if text(&v, "orderId").is_empty() {
        return Err(validation("orderId"));
    }
    let amount = v.get("amount").and_then(Value::as_i64);
    if matches!(path, "postAuth" | "refund") && !matches!(amount, Some(a) if a > 0) {
        return Err(validation("amount"));
    }
    let client = clients
        .iter()
        .find(|c| c.client_id == client_id && c.api_user == api_user)
        .ok_or_else(hash_error)?;
    let expected = hash::request_hash(
        client.api_pass.as_str(),
        &client.client_id,
        &client.api_user,
        &rnd,
        &time_span,
    );
    if given != expected || !used.first_use(&given) {
        return Err(hash_error());
    }
    Ok((client, v))
}
