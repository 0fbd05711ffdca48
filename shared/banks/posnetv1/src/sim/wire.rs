//! The simulator's wire checks: a JSON object of the protocol (`ApiType JSON`, `ApiVersion
//! V100`), its merchant and terminal known (else `0148`), `MACParams` the request's own and
//! its `MAC` right for that terminal's `encKey` (else `0150`). A refused request is answered
//! with its code; nothing is applied.

use serde_json::Value;

use super::SimTerminal;
use crate::{
    hash,
    request::API_VERSION,
    response::{codes, text},
};

/// Why a request was refused before processing: its code and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub &'static str, pub &'static str);

fn packet(why: &'static str) -> WireError {
    WireError(codes::BAD_PACKET, why)
}

/// Reads and authenticates a request to `path`; returns the terminal and the document.
pub fn read_request<'a>(
    terminals: &'a [SimTerminal],
    path: &str,
    body: &[u8],
) -> Result<(&'a SimTerminal, Value), WireError> {
    let v: Value = serde_json::from_slice(body).map_err(|_| packet("PAKET HATALI"))?;
    if !v.is_object() || text(&v, &["ApiType"]) != "JSON" {
        return Err(packet("PAKET HATALI (APITYPE)"));
    }
    if text(&v, &["ApiVersion"]) != API_VERSION {
        return Err(packet("PAKET HATALI (APIVERSION)"));
    }
    let (merchant, terminal) = (text(&v, &["MerchantNo"]), text(&v, &["TerminalNo"]));
    let t = terminals
        .iter()
        .find(|t| t.merchant_no == merchant && t.terminal_no == terminal)
        .ok_or(WireError(codes::INVALID_MID_TID, "INVALID MID TID IP"))?;
    let params = match path {
        "Reverse" | "Return" => hash::PARAMS_REFERENCE,
        _ => hash::PARAMS_MERCHANT,
    };
    if text(&v, &["MACParams"]) != params {
        return Err(packet("PAKET HATALI (MACPARAMS)"));
    }
    let values: Vec<String> = params.split(':').map(|k| text(&v, &[k])).collect();
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    if !hash::verify(&values, t.enc_key.as_str(), &text(&v, &["MAC"])) {
        return Err(packet("PAKET HATALI (MAC)"));
    }
    Ok((t, v))
}
