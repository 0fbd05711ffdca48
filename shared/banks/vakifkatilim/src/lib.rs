//! Vakıf Katılım's virtual POS (the BOA platform, as Kuveyt Türk's): `VPosMessageContract`
//! XML documents POSTed to `<endpointUrl>/<Operation>` (provider code [`PROVIDER_CODE`],
//! bank code 0210), on the kit's skeleton ([`paygate_bankkit::protocol`]):
//!
//! - [`config`]: what the account's secret holds.
//! - [`request`] encodes requests, signed with the BOA `HashData` ([`hash`], from the kit),
//!   amounts in kuruş digits.
//! - [`response`] reads the answers and classifies them by `ResponseCode`.
//! - [`status`] reads `SelectOrderByMerchantOrderId` into a [`paygate_domain::BankStatus`]
//!   (partial refunds from `DrawbackAmount`).
//! - `sim` (feature `sim`) is a simulator speaking the same wire protocol.
//!
//! Every money request names the order by the bank's own `OrderId`, so each operation reads
//! the order first (`SelectOrderByMerchantOrderId`) and picks its request from what it finds:
//! capture = `PreAuthorizatenClose`; cancel = `PreAuthorizationReversal` (open
//! pre-authorization) or `SaleReversal` (a sale, or a closed pre-authorization, before the
//! end-of-day cut); refund = `DrawBack` (the whole sale) or `PartialDrawBack` (after the
//! cut); query = `SelectOrderByMerchantOrderId`; history = `SelectOrder` (paged, a request of
//! its own: [`Request::History`]; the day's captures, cancels and refunds for the daily
//! reconciliation: [`history::day_history`]). No points inquiry (the family has none).

pub mod config;
pub mod decline;
pub mod hash;
pub mod history;
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
use request::{OnOrder, Request};
use response::Fields;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "vakifkatilim";

/// The gateway's provider for Vakıf Katılım accounts.
pub type VakifKatilimProvider = Adapter<VakifKatilim>;

/// The path of the gateway on a Vakıf Katılım host (`https://boa.vakifkatilim.com.tr/
/// VirtualPOS.Gateway/Home`). Accounts store the full URL as their `endpointUrl`.
pub const API_PATH: &str = "/VirtualPOS.Gateway/Home";

/// Our code of a refund refused before the order's end-of-day cut (`EndOfDayStatus 1`): the
/// bank refunds only closed days (README), so nothing is sent.
pub const REFUND_BEFORE_CUT: &str = "refund_before_end_of_day";
/// Our code of a cancel refused past the cut (`EndOfDayStatus 2`): refund instead.
pub const CANCEL_AFTER_CUT: &str = "cancel_after_end_of_day";

/// The Vakıf Katılım protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct VakifKatilim;

/// What one read of the order found: its main entry and its state.
struct Line {
    fields: Fields,
    status: BankStatus,
}

/// Reads the order (`SelectOrderByMerchantOrderId`); the status that ends the read when it
/// finds nothing to act on.
async fn read_order(s: &Session<'_, VakifKatilim>, order_id: &str) -> Result<Line, BankStatus> {
    if let Err(refused) = request::check_order_id(order_id) {
        return Err(refused.status());
    }
    s.read_with(&Request::Status { order_id }, |reply| {
        status::read(reply, Some(order_id)).found()
    })
    .await
    .map(|fields| Line {
        status: status::state(&fields),
        fields,
    })
}

/// A money operation that was not sent: the order could not be read (or is not at the
/// bank), so nothing moved.
fn not_sent(what: &str, st: &BankStatus) -> BankOutcome {
    if !st.found {
        return BankOutcome::Declined {
            code: st.code.clone(),
            message: format!("the bank has no record of the order; no {what} was sent"),
            after_cutoff: false,
        };
    }
    BankOutcome::Error {
        code: st.code.clone(),
        message: format!("the order's state could not be read before the {what}; nothing was sent"),
    }
}

/// Refused before sending, on what the bank's record says.
fn refused(code: &str, message: &str, after_cutoff: bool) -> BankOutcome {
    BankOutcome::Declined {
        code: code.to_owned(),
        message: message.to_owned(),
        after_cutoff,
    }
}

impl VakifKatilim {
    /// The request on the order the read found (its `OrderId`).
    fn on<'a>(op: &'a BankOperation, line: &Line, amount: i64) -> OnOrder<'a> {
        OnOrder {
            order: Order {
                amount,
                ..Order::from(op)
            },
            bank_order_id: status::bank_order_id(&line.fields).to_owned(),
        }
    }
}

impl Protocol for VakifKatilim {
    const CODE: &'static str = PROVIDER_CODE;
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
    const POINTS_INQUIRY: bool = false;
    type Config = ApiCredentials;
    type Request<'a> = Request<'a>;

    /// `PreAuthorizatenClose` of an open pre-authorization. The whole hold is closed without
    /// an amount (as in the reference); a smaller capture sends `Amount`, and its approval
    /// stands only once a read shows that closed amount (otherwise unknown: the bank may have
    /// closed another amount, and the query settles it).
    async fn capture(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let line = match read_order(s, &op.order_id).await {
            Ok(line) => line,
            Err(st) => return not_sent("capture", &st),
        };
        let st = &line.status;
        if !st.is_conclusive() {
            return not_sent("capture", st);
        }
        if st.state != BankState::Preauth {
            return refused(
                "no_open_preauthorization",
                "the bank's record shows no open pre-authorization; nothing was sent",
                false,
            );
        }
        if op.amount <= 0 || op.amount > st.amount {
            return refused(
                "amount_above_preauthorization",
                "the amount exceeds the pre-authorization; nothing was sent",
                false,
            );
        }
        let partial = op.amount < st.amount;
        let req = Request::Close {
            on: Self::on(op, &line, op.amount),
            partial,
        };
        match s.send(&req).await {
            approved @ BankOutcome::Approved { .. } if partial => {
                let after = self.query(s, &op.order_id).await;
                if after.is_conclusive()
                    && after.found
                    && after.state == BankState::Approved
                    && after.amount == op.amount
                {
                    approved
                } else {
                    BankOutcome::Unknown {
                        reason: "the bank approved the close; the closed amount is not confirmed"
                            .to_owned(),
                    }
                }
            }
            other => other,
        }
    }

    /// `PreAuthorizationReversal` of an open pre-authorization; `SaleReversal` of a sale (or
    /// a closed pre-authorization) whose day is still open. Already cancelled → approved,
    /// nothing sent; past the cut (`EndOfDayStatus 2`) → declined `after_cutoff`, nothing
    /// sent (refund instead); a refusal the bank gives is checked by a read (cancelled
    /// meanwhile → approved).
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let line = match read_order(s, &op.order_id).await {
            Ok(line) => line,
            Err(st) => return not_sent("cancel", &st),
        };
        let st = &line.status;
        if !st.is_conclusive() {
            return not_sent("cancel", st);
        }
        let req = match st.state {
            BankState::Cancelled => {
                return BankOutcome::Approved {
                    code: "00".to_owned(),
                    auth_code: None,
                    rrn: None,
                }
            }
            BankState::Preauth => Request::PreAuthReversal(Self::on(op, &line, st.amount)),
            BankState::Approved
                if status::end_of_day(&line.fields) == status::END_OF_DAY_CLOSED =>
            {
                return refused(
                    CANCEL_AFTER_CUT,
                    "the order's day is closed at the bank (EndOfDayStatus 2): refund instead",
                    true,
                )
            }
            BankState::Approved => Request::SaleReversal(Self::on(op, &line, st.amount)),
            _ => {
                return refused(
                    "not_cancellable",
                    "the bank's record shows nothing to cancel; nothing was sent",
                    false,
                )
            }
        };
        match s.send(&req).await {
            BankOutcome::Declined {
                code,
                message,
                after_cutoff,
            } => {
                let now = self.query(s, &op.order_id).await;
                if now.found && now.is_conclusive() && now.state == BankState::Cancelled {
                    BankOutcome::Approved {
                        code: "00".to_owned(),
                        auth_code: None,
                        rrn: None,
                    }
                } else {
                    BankOutcome::Declined {
                        code,
                        message,
                        after_cutoff,
                    }
                }
            }
            other => other,
        }
    }

    /// `DrawBack` of the whole sale, `PartialDrawBack` of a part (or the rest after a partial
    /// refund), once the order's day is closed: before the cut (`EndOfDayStatus 1`) the
    /// refund is refused and nothing sent (cancel instead).
    async fn refund(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let line = match read_order(s, &op.order_id).await {
            Ok(line) => line,
            Err(st) => return not_sent("refund", &st),
        };
        let st = &line.status;
        if !st.is_conclusive() {
            return not_sent("refund", st);
        }
        if !matches!(st.state, BankState::Approved | BankState::PartiallyRefunded) {
            return refused(
                "not_refundable",
                "the bank's record shows nothing to refund; nothing was sent",
                false,
            );
        }
        if status::end_of_day(&line.fields) == status::END_OF_DAY_OPEN {
            return refused(
                REFUND_BEFORE_CUT,
                "the order's day is still open at the bank (EndOfDayStatus 1): cancel it, or \
                 refund after the end of day",
                false,
            );
        }
        let left = st.amount - st.refunded_amount;
        if op.amount <= 0 || op.amount > left {
            return refused(
                "amount_above_remaining",
                "the amount exceeds what is left to refund; nothing was sent",
                false,
            );
        }
        let on = Self::on(op, &line, op.amount);
        let req = if st.refunded_amount == 0 && op.amount == st.amount {
            Request::DrawBack(on)
        } else {
            Request::PartialDrawBack(on)
        };
        s.send(&req).await
    }

    /// `SelectOrder` over the day, every page ([`history::day_history`]).
    async fn day_history(
        &self,
        s: &Session<'_, Self>,
        day: paygate_domain::daily::BusinessDay,
    ) -> paygate_domain::daily::DayHistory {
        history::day_history(s, day).await
    }

    /// `SelectOrderByMerchantOrderId`.
    async fn query(&self, s: &Session<'_, Self>, order_id: &str) -> BankStatus {
        match read_order(s, order_id).await {
            Ok(line) => line.status,
            Err(st) => st,
        }
    }

    /// Only the read is a single request; the money requests need the bank's `OrderId`
    /// (the flows above read it first).
    fn request<'a>(&'a self, _cfg: &'a ApiCredentials, op: Op<'a>) -> Result<Request<'a>, Refusal> {
        match op {
            Op::Status { order_id } => {
                request::check_order_id(order_id)?;
                Ok(Request::Status { order_id })
            }
            Op::Points { .. } => Err(Refusal::not_supported("points inquiry")),
            Op::Capture(_) | Op::Cancel(_) | Op::Refund(_) => Err(Refusal::new(
                "order_lookup",
                "a money request needs the bank's order id: read first",
            )),
        }
    }

    fn encode(&self, cfg: &ApiCredentials, req: &Request<'_>) -> Wire {
        Wire::post(
            cfg.url(req.operation()),
            request::CONTENT_TYPE,
            request::encode(cfg, req),
        )
    }
}

/// One page of the merchant's orders over a date range (`SelectOrder`, `YYYY-MM-DD`, at most
/// 90 days; page from 1): each order's merchant id and state. No order in the range is an
/// empty page (`NonResult`); a failed read is its unavailable status.
pub async fn history(
    s: &Session<'_, VakifKatilim>,
    (start, end): (&str, &str),
    page: u32,
    page_size: u32,
) -> Result<Vec<(String, BankStatus)>, BankStatus> {
    let req = Request::History {
        start,
        end,
        lower: page.max(1).saturating_sub(1).saturating_mul(page_size),
        limit: page_size,
    };
    s.read_with(&req, history_page).await
}

/// The orders of one `SelectOrder` answer: `00` with its `VPosOrderData` (an approved answer
/// without it is unavailable, never an empty page), `NonResult` an empty page, anything else
/// unavailable.
pub fn history_page(reply: &response::Reply) -> Result<Vec<(String, BankStatus)>, BankStatus> {
    match reply.fields.code() {
        "00" if reply.order_data => Ok(reply
            .orders
            .iter()
            .filter(|o| o.get("OrderStatus") == "1" || o.get("OrderStatus") == "2")
            .map(|o| (o.get("MerchantOrderId").to_owned(), status::state(o)))
            .collect()),
        "00" => Err(BankStatus::unavailable("VPosOrderData")),
        status::NOT_FOUND => Ok(Vec::new()),
        _ => Err(BankStatus::unavailable(&reply.fields.bank_code())),
    }
}
