//! The admin API's answers as the CLI reads them (see `paygate_http::admin::views` for the
//! server's side). Lenient on purpose: unknown fields are ignored, so a newer server does
//! not break an older CLI; `--json` prints the answers untouched instead.

use serde::{de::DeserializeOwned, Deserialize};
use serde_json::Value;

use crate::CliError;

/// A webhook endpoint (`secret` only in the create answer).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    pub mode: String,
    pub enabled: bool,
    #[serde(default)]
    pub description: String,
    pub created_at: String,
    #[serde(default)]
    pub updated_at: String,
    #[serde(default)]
    pub secret: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct EndpointList {
    pub data: Vec<Endpoint>,
}

/// The rotate answer: the new secret and until when the old one still signs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rotated {
    pub id: String,
    pub secret: String,
    #[serde(default)]
    pub previous_secret_expires_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Deleted {
    pub id: String,
    pub deleted: bool,
}

/// One delivery (one event to one endpoint).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub id: String,
    pub endpoint_id: String,
    pub event_id: String,
    pub event_type: String,
    pub mode: String,
    pub status: String,
    pub attempt_count: u32,
    #[serde(default)]
    pub next_attempt_at: Option<String>,
    pub created_at: String,
    #[serde(default)]
    pub updated_at: String,
}

/// One attempt of a delivery.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    pub number: u32,
    pub at: String,
    pub duration_ms: u64,
    #[serde(default)]
    pub status_code: Option<u16>,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub response_body: String,
    pub succeeded: bool,
}

/// A delivery with every attempt, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct DeliveryDetail {
    #[serde(flatten)]
    pub delivery: Delivery,
    pub attempts: Vec<Attempt>,
}

/// A page of an endpoint's history, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryPage {
    pub data: Vec<Delivery>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// The payment fields `trigger` shows (the merchant API's payment object).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Payment {
    pub id: String,
    pub status: String,
    pub mode: String,
    pub amount: i64,
    pub currency: String,
}

/// `value` read as `T`; `what` names it in the error.
pub fn decode<T: DeserializeOwned>(what: &str, value: &Value) -> Result<T, CliError> {
    T::deserialize(value).map_err(|e| CliError::Decode {
        what: what.to_owned(),
        message: e.to_string(),
    })
}
