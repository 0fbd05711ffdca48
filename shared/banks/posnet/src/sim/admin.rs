//! The Posnet simulator's admin bodies (`POST /_sim/orders`, `POST /_sim/faults`), read by
//! pure functions over the body's bytes (fuzzed by `fuzz/fuzz_targets/test_helper_bodies.rs`).
//! JSON that does not fit is refused as axum's `Json` refuses it (the kit's
//! [`sim::bodies`](paygate_bankkit::sim::bodies)); what Posnet itself refuses is its JSON
//! answer `{"ok": false, "respCode", "respText"}`.

use std::time::Duration;

use paygate_bankkit::sim::{bodies, prelude::*, Faults, Refused};
use paygate_domain::ports::TestOrder;
use serde::Deserialize;
use serde_json::json;

use super::Op;
use crate::{codes, wire};

/// An admin body the simulator refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminRefusal {
    /// Not JSON of the body's shape (`400`/`422`, plain text).
    Body(Refused),
    /// Posnet's own refusal: the status and the `respCode`/`respText` of its JSON answer.
    Posnet {
        status: StatusCode,
        code: &'static str,
        text: &'static str,
    },
}

impl AdminRefusal {
    pub fn status(&self) -> StatusCode {
        match self {
            Self::Body(r) => r.status,
            Self::Posnet { status, .. } => *status,
        }
    }
}

impl From<Refused> for AdminRefusal {
    fn from(r: Refused) -> Self {
        Self::Body(r)
    }
}

impl IntoResponse for AdminRefusal {
    fn into_response(self) -> Response {
        match self {
            Self::Body(r) => r.into_response(),
            Self::Posnet { status, code, text } => admin_error(status, code, text),
        }
    }
}

/// Posnet's JSON refusal.
pub(super) fn admin_error(status: StatusCode, code: &str, text: &str) -> Response {
    (
        status,
        Json(json!({ "ok": false, "respCode": code, "respText": text })),
    )
        .into_response()
}

/// The body of `POST /_sim/orders`: a [`TestOrder`] plus the terminal's `mid`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderBody {
    pub mid: String,
    /// The account's order id prefix (the adapter's test-order route sends it): the order id
    /// is then the gateway's, turned into its 24-character bank form by [`order_body`].
    #[serde(default)]
    pub order_id_prefix: Option<String>,
    #[serde(flatten)]
    pub order: TestOrder,
}

/// Reads `POST /_sim/orders`; with `orderIdPrefix`, the order id in its bank form (one that
/// does not fit is `400` `0150`).
pub fn order_body(bytes: &[u8]) -> Result<OrderBody, AdminRefusal> {
    let mut body: OrderBody = bodies::json(bytes)?;
    if let Some(prefix) = &body.order_id_prefix {
        body.order.order_id = wire::wire_order_id(&body.order.order_id, prefix).map_err(|_| {
            AdminRefusal::Posnet {
                status: StatusCode::BAD_REQUEST,
                code: codes::BAD_PACKET,
                text: "PAKET HATALI (ORDERID)",
            }
        })?;
    }
    Ok(body)
}

/// Whether the bank takes the order: a 24-character id of its alphabet and an amount from 1
/// to `MAX_AMOUNT` (checked once the terminal is known; otherwise `400` `0150`).
pub fn order_fits(o: &TestOrder) -> bool {
    o.order_id.len() == wire::ORDER_ID_LEN
        && o.order_id.chars().all(wire::is_order_id_char)
        && o.amount > 0
        && o.amount <= wire::MAX_AMOUNT
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct FaultsJson {
    latency_ms: u64,
    technical_errors: u32,
    drop_after_processing: u32,
    drop_before_processing: u32,
    only: Option<String>,
}

/// What `POST /_sim/faults` sets: the kit's counters and the one operation they hit
/// (`None`: every request).
#[derive(Debug, Clone)]
pub struct SimFaults {
    pub faults: Faults,
    pub only: Option<Op>,
}

/// Reads `POST /_sim/faults` (`{latencyMs, technicalErrors, dropAfterProcessing,
/// dropBeforeProcessing, only}`, each optional, no other field); an `only` that names no
/// operation element is `400` `0002`.
pub fn faults_body(bytes: &[u8]) -> Result<SimFaults, AdminRefusal> {
    let body: FaultsJson = bodies::json(bytes)?;
    let only = match body.only.as_deref() {
        None => None,
        Some(name) => Some(Op::from_element(name).ok_or(AdminRefusal::Posnet {
            status: StatusCode::BAD_REQUEST,
            code: codes::MALFORMED,
            text: "unknown operation in `only`",
        })?),
    };
    Ok(SimFaults {
        faults: Faults {
            latency: Duration::from_millis(body.latency_ms),
            technical_errors: body.technical_errors,
            drop_after_processing: body.drop_after_processing,
            drop_before_processing: body.drop_before_processing,
        },
        only,
    })
}

#[cfg(test)]
mod tests {
    use paygate_domain::{ports::TestOrderState, Currency};

    use super::*;

    #[test]
    fn orders_take_their_bank_form_with_a_prefix() {
        let b = order_body(
            br#"{"mid": "6706598320", "orderIdPrefix": "PG", "orderId": "ABC1", "amount": 1250, "currency": "TRY", "state": "approved", "settled": false}"#,
        )
        .unwrap();
        assert_eq!(b.mid, "6706598320");
        assert_eq!(b.order.order_id, format!("PG{}ABC1", "0".repeat(18)));
        assert_eq!(
            (b.order.amount, b.order.currency, b.order.state),
            (1250, Currency::Try, TestOrderState::Approved)
        );
        assert!(order_fits(&b.order));
        let refusal = order_body(
            br#"{"mid": "m", "orderIdPrefix": "PG", "orderId": "a-b", "amount": 1, "currency": "TRY", "state": "none", "settled": false}"#,
        )
        .unwrap_err();
        assert_eq!(
            refusal,
            AdminRefusal::Posnet {
                status: StatusCode::BAD_REQUEST,
                code: codes::BAD_PACKET,
                text: "PAKET HATALI (ORDERID)"
            }
        );
        let refusal = order_body(br#"{"orderId": "x"}"#).unwrap_err();
        assert_eq!(refusal.status(), StatusCode::UNPROCESSABLE_ENTITY);
    }

    #[test]
    fn an_order_fits_the_bank_by_id_and_amount() {
        let order = |id: &str, amount| TestOrder {
            order_id: id.into(),
            amount,
            currency: Currency::Try,
            state: TestOrderState::None,
            settled: false,
        };
        let id = "A".repeat(wire::ORDER_ID_LEN);
        assert!(order_fits(&order(&id, 1)));
        assert!(order_fits(&order(&id, wire::MAX_AMOUNT)));
        assert!(!order_fits(&order(&id, 0)));
        assert!(!order_fits(&order(&id, wire::MAX_AMOUNT + 1)));
        assert!(!order_fits(&order("short", 1)));
        assert!(!order_fits(&order(&"-".repeat(wire::ORDER_ID_LEN), 1)));
    }

    #[test]
    fn faults_aim_at_one_operation_element() {
        let f = faults_body(br#"{"technicalErrors": 2, "only": "capt"}"#).unwrap();
        assert_eq!((f.faults.technical_errors, f.only), (2, Some(Op::Capt)));
        assert_eq!(faults_body(b"{}").unwrap().only, None);
        assert_eq!(
            faults_body(br#"{"only": "nothing"}"#).unwrap_err(),
            AdminRefusal::Posnet {
                status: StatusCode::BAD_REQUEST,
                code: codes::MALFORMED,
                text: "unknown operation in `only`"
            }
        );
        // Unknown fields are refused as the extractor refused them.
        let r = faults_body(br#"{"latency": 5}"#).unwrap_err();
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    }
}
