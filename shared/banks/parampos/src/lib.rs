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
//! IADE` (after the sale's day, full or partial); query = `TP_Islem_Sorgulama4`; history =
//! `TP_Islem_Izleme` (date-range monitoring, a read of its own: [`history`]). No points
//! inquiry.

pub mod config;
pub mod decline;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use paygate_bankkit::{Adapter, Op, Order, Protocol, Refusal, Session, Wire};
use paygate_domain::{
    bank::{BankOutcome, BankState, BankStatus},
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
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
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

    /// `TP_Islem_Sorgulama4`; an answer about another order is unavailable.
    async fn query(&self, s: &Session<'_, Self>, order_id: &str) -> BankStatus {
        s.read_with(&Request::Status { order_id }, |reply| {
            status::read_for(reply, order_id)
                .found()
                .map(|dt| status::state_of(&dt))
        })
        .await
        .unwrap_or_else(|st| st)
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

/// One line of `TP_Islem_Izleme` (date-range monitoring): a transaction of the merchant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Monitored {
    /// `ORJ_ORDER_ID`: the order the transaction belongs to.
    pub order_id: String,
    /// `Tip_Str`: `Satış` (sale), `İptal` (cancel), `İade` (refund), …
    pub kind: String,
    /// `Tutar` in kuruş, negative for a cancel or refund.
    pub amount: i64,
    /// `Net_Tutar` (after Param's commission) and `Komisyon_Tutar`, in kuruş, when given.
    pub net: Option<i64>,
    pub commission: Option<i64>,
    /// `Toplam_Iade_Tutar` in kuruş.
    pub refunded: i64,
    /// The line's own `Sonuc` and `Tarih`. `Sonuc` is no approval flag: on a sale line it is
    /// the order's state (`12` cancelled), and a failed sale shows `2` or `-1` (MEWS fixture
    /// `history_response_1`, rows `Temp2`, `Temp4`, `Temp23`); [`Monitored::outcome`] says
    /// whether the line succeeded.
    pub sonuc: String,
    /// `Sonuc_Str`: `Başarılı` (succeeded) or `Başarısız` (failed), the values of the
    /// request's `Islem_Durum` filter (dev.param.com.tr "İşlem İzleme Metodu").
    pub outcome: String,
    pub date: String,
    /// `Dekont_ID` (Param's receipt).
    pub receipt: String,
}

/// A signed amount of the monitoring lines (`-5.0000`, `4.9100`): up to four decimals, of
/// which the last two must be zero.
pub fn signed_amount(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let digits = match digits.split_once('.') {
        Some((int, frac)) if frac.len() > 2 => {
            let (kept, rest) = frac.split_at(2);
            if !rest.bytes().all(|b| b == b'0') {
                return None;
            }
            format!("{int}.{kept}")
        }
        _ => digits.to_owned(),
    };
    let v = paygate_bankkit::amount::parse_decimal(&digits)?;
    Some(if neg { -v } else { v })
}

/// The merchant's transactions between `start` and `end` (`TP_Islem_Izleme`, both
/// `dd.MM.yyyy HH:mm:ss`): every line Param lists, in its order. A time in another form is
/// refused without a call; a failed read is its unavailable status (never an empty list);
/// a line whose amounts cannot be read fails the whole read.
pub async fn history(
    s: &Session<'_, ParamPos>,
    (start, end): (&str, &str),
) -> Result<Vec<Monitored>, paygate_domain::BankStatus> {
    if !request::is_monitor_time(start) || !request::is_monitor_time(end) {
        return Err(paygate_domain::BankStatus::unavailable("Tarih"));
    }
    let req = Request::Monitor { start, end };
    s.read_with(&req, monitored).await
}

/// The lines of a `TP_Islem_Izleme` answer. A failed read (`Sonuc` ≤ 0, a fault, another
/// method), an answer without its data set (`DT_Bilgi` holding a `diffgr:diffgram`; an empty
/// diffgram is an empty range) or a line whose amount cannot be read is unavailable: "could
/// not tell" is never an empty list.
pub fn monitored(reply: &response::Reply) -> Result<Vec<Monitored>, paygate_domain::BankStatus> {
    let ok = reply.fault.is_none()
        && reply.method == "TP_Islem_Izleme"
        && reply.sonuc().parse::<i64>().is_ok_and(|n| n > 0);
    if !ok {
        return Err(paygate_domain::BankStatus::unavailable(&reply.code()));
    }
    let has_data_set = reply
        .dt
        .as_ref()
        .is_some_and(|d| d.0.iter().any(|(k, _)| k == "diffgram"));
    if !has_data_set {
        return Err(paygate_domain::BankStatus::unavailable("DT_Bilgi"));
    }
    reply
        .rows
        .iter()
        .map(|r| {
            let amount = signed_amount(r.get("Tutar"))?;
            let refunded = match r.get("Toplam_Iade_Tutar") {
                "" => 0,
                v => signed_amount(v)?,
            };
            Some(Monitored {
                order_id: r.get("ORJ_ORDER_ID").to_owned(),
                kind: r.get("Tip_Str").to_owned(),
                amount,
                net: signed_amount(r.get("Net_Tutar")),
                commission: signed_amount(r.get("Komisyon_Tutar")),
                refunded,
                sonuc: r.get("Sonuc").to_owned(),
                outcome: r.get("Sonuc_Str").to_owned(),
                date: r.get("Tarih").to_owned(),
                receipt: r.get("Dekont_ID").to_owned(),
            })
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| paygate_domain::BankStatus::unavailable("Tutar"))
}
