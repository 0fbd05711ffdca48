//! Param TurkPOS: the SOAP service (`/turkpos.ws/service_turkpos_prod.asmx`) of Param (TURK
//! Elektronik Para, a payment institution; provider code [`PROVIDER_CODE`]), on the kit's
//! skeleton ([`paygate_bankkit::protocol`]):
//!
//! - [`config`]: what the account's secret holds.
//! - [`request`] encodes SOAP 1.1 requests: the `G` object (`CLIENT_CODE`,
//!   `CLIENT_USERNAME`, `CLIENT_PASSWORD`) and `GUID` in every body ([`hash`]: the
//!   post-payment methods have none), UTF-8, POSTed to the account's URL.
//! - [`response`] reads the `<Method>Result` (or a `soap:Fault`) and classifies answers by
//!   `Sonuc`.
//! - [`status`] reads `TP_Islem_Sorgulama4` into a [`paygate_domain::BankStatus`].
//! - `sim` (feature `sim`) is a simulator speaking the same wire protocol.
//!
//! Operations: capture = `TP_Islem_Odeme_OnProv_Kapa`; cancel = `TP_Islem_Iptal_OnProv` for
//! an open pre-authorization, else `TP_Islem_Iptal_Iade_Kismi2` with `Durum IPTAL` for the
//! whole amount (the sale's own day only); refund = `TP_Islem_Iptal_Iade_Kismi2` with `Durum
//! IADE` (after the sale's day, full or partial); query = `TP_Islem_Sorgulama4`. No points
//! inquiry.

pub mod config;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use paygate_bankkit::{Adapter, Op, Order, Protocol, Refusal, Session, Wire};
use paygate_domain::{
    bank::{BankOutcome, BankState},
    ports::BankOperation,
};

pub use config::ApiCredentials;
use request::Request;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "parampos";

/// The gateway's provider for Param accounts.
pub type ParamPosProvider = Adapter<ParamPos>;

/// The path of the SOAP service on Param's production host (`https://posws.param.com.tr`;
/// the test service is `https://testposws.param.com.tr/turkpos.ws/service_turkpos_test.asmx`).
/// Accounts store the full URL as their `endpointUrl`.
pub const API_PATH: &str = "/turkpos.ws/service_turkpos_prod.asmx";

/// The Param TurkPOS protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParamPos;

/// The order was cancelled already (nothing moved now): the cancel has taken effect.
fn already_cancelled() -> BankOutcome {
    BankOutcome::Approved {
        code: "1".to_owned(),
        auth_code: None,
        rrn: None,
    }
}

impl Protocol for ParamPos {
    const CODE: &'static str = PROVIDER_CODE;
    const POINTS_INQUIRY: bool = false;
    type Config = ApiCredentials;
    type Request<'a> = Request<'a>;

    /// Which cancel Param takes depends on the order, so it is read first
    /// (`TP_Islem_Sorgulama4`; unreadable or not found → `Unknown`, nothing sent):
    ///
    /// - already cancelled → `Approved`, nothing sent;
    /// - an open pre-authorization → `TP_Islem_Iptal_OnProv`;
    /// - a live sale (or closed pre-authorization) → `IPTAL` for the bank's whole amount
    ///   (Param refuses a partial `IPTAL`);
    /// - refunded in part or in full → declined without a call, `after_cutoff` (refunds
    ///   exist only after the sale's day, when only `IADE` is left);
    /// - a declined order → declined without a call.
    ///
    /// A refused cancel is followed by a read: cancelled meanwhile → `Approved`; a refused
    /// `IPTAL` of a sale still live is the end of its day (`after_cutoff`: refund instead).
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let order_id = op.order_id.as_str();
        let st = self.query(s, order_id).await;
        if !st.found || !st.is_conclusive() {
            return BankOutcome::Unknown {
                reason: format!(
                    "the order's state could not be read before the cancel ({}); nothing was sent",
                    st.code
                ),
            };
        }
        let req = match st.state {
            BankState::Cancelled => return already_cancelled(),
            BankState::Preauth => Request::CancelPreauth { order_id },
            BankState::Approved => Request::Cancel(Order {
                order_id,
                amount: st.amount,
                currency: op.currency,
            }),
            BankState::Refunded | BankState::PartiallyRefunded => {
                return BankOutcome::Declined {
                    code: st.code,
                    message: "the order has refunds: Param cancels only an untouched sale on its \
                              own day; refund instead"
                        .to_owned(),
                    after_cutoff: true,
                }
            }
            _ => {
                return BankOutcome::Declined {
                    code: st.code,
                    message: "the order holds no sale or pre-authorization to cancel".to_owned(),
                    after_cutoff: false,
                }
            }
        };
        match s.send(&req).await {
            BankOutcome::Declined {
                code,
                message,
                after_cutoff,
            } => {
                let now = self.query(s, order_id).await;
                if now.found && now.state == BankState::Cancelled {
                    return already_cancelled();
                }
                let live_sale = matches!(req, Request::Cancel(_))
                    && now.found
                    && now.is_conclusive()
                    && now.state == BankState::Approved;
                BankOutcome::Declined {
                    after_cutoff: after_cutoff || live_sale,
                    code,
                    message,
                }
            }
            other => other,
        }
    }

    fn request<'a>(&'a self, _cfg: &'a ApiCredentials, op: Op<'a>) -> Result<Request<'a>, Refusal> {
        Ok(match op {
            Op::Capture(op) => Request::Capture(op.into()),
            Op::Cancel(op) => Request::Cancel(op.into()),
            Op::Refund(op) => Request::Refund(op.into()),
            Op::Status { order_id } => Request::Status { order_id },
            Op::Points { .. } => return Err(Refusal::not_supported("points inquiry")),
        })
    }

    fn encode(&self, cfg: &ApiCredentials, req: &Request<'_>) -> Wire {
        Wire::post(
            &cfg.endpoint_url,
            request::CONTENT_TYPE,
            request::encode(cfg, req),
        )
        .header("SOAPAction", req.soap_action())
    }
}
