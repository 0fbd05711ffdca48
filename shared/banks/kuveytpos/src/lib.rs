//! Kuveyt Türk's virtual POS (provider code [`PROVIDER_CODE`]), on the kit's skeleton
//! ([`paygate_bankkit::protocol`]): payments are TDV2.0.0 `KuveytTurkVPosMessage` XML (the
//! gateway makes none: its payments come from the merchant's checkout, the test helper's
//! test orders are sales); everything after the payment goes through the SOAP query service
//! (`VirtualPosService.svc/Basic`, `BOA.Integration.WCFService`):
//!
//! - [`config`]: what the account's secret holds.
//! - [`request`] writes the SOAP envelopes (`SOAPAction` per method); [`hash`]: the BOA
//!   `HashData` of their `VPosMessage` ([`paygate_bankkit::boa`]).
//! - [`response`] reads and classifies answers (`ResponseCode 00`; `Results/Result` errors).
//! - [`status`] maps `GetMerchantOrderDetail`'s `OrderContract` to the spec's `bank.state`,
//!   partial refunds included.
//! - `sim` (feature `sim`) is a simulator speaking the same protocol (and checking the hash).
//!
//! Operations: cancel = `SaleReversal` (the sale's business day only), refund = `DrawBack`
//! (the whole sale, after its business day) or `PartialDrawback` (part of it; on the sale's
//! day never its whole amount), query = `GetMerchantOrderDetail`. A reversal and a refund
//! must name the sale as the bank knows it (`OrderId`, `RRN`, `Stan`, `ProvisionNumber`), so
//! each reads the order first. No pre-authorization, so no capture: `supported()` leaves it
//! out and the gateway refuses it with `operation_not_supported` (the request is refused
//! the same way should it get here); no points inquiry.

pub mod config;
pub mod decline;
pub mod hash;
pub mod request;
pub mod response;
pub mod status;

#[cfg(feature = "sim")]
pub mod sim;

use std::sync::Arc;

use paygate_bankkit::{holds_live_sale, Adapter, Op, Order, Protocol, Refusal, Session, Wire};
use paygate_domain::{
    account::{Operation, OperationSet},
    bank::{BankOutcome, BankState, BankStatus},
    ports::{BankOperation, Clock},
    Timestamp,
};

pub use config::ApiCredentials;
use request::Request;
use status::Detail;

/// The provider code accounts refer to.
pub const PROVIDER_CODE: &str = "kuveytpos";

/// Kuveyt Türk's bank code (EFT/BKM).
pub const BANK_CODE: &str = "0205";

/// The gateway's provider for Kuveyt Türk accounts.
pub type KuveytPosProvider = Adapter<KuveytPos>;

/// The query service's path on Kuveyt Türk's host (`https://boa.kuveytturk.com.tr`; MEWS
/// `config/pos_production.php` `query_api`). Accounts store the full URL as their
/// `endpointUrl`.
pub const SERVICE_PATH: &str =
    "/BOA.Integration.WCFService/BOA.Integration.VirtualPos/VirtualPosService.svc/Basic";

/// `SaleReversal` refused because the sale was reversed already (`İşlem daha önce iptal
/// edilmiştir.`, MEWS fixture `tdv2_fail_already_cancelled`).
pub const ALREADY_REVERSED: &str = "21";
/// The code of a reversal refused past the sale's business day (`İptal işlemi satışla aynı
/// gün yapılmalıdır. Geçmiş tarihli işlem için iade yapınız.`, MEWS serializer test).
pub const CUT_REFUSAL: &str = "InvalidRequestError";

/// How far back `GetMerchantOrderDetail` searches (MEWS: 360 days), and ahead (a day, for
/// the bank's clock).
const SEARCH_BACK_MS: i64 = 360 * 86_400_000;
const SEARCH_AHEAD_MS: i64 = 86_400_000;
/// Istanbul time (UTC+3), the bank's.
const ISTANBUL_MS: i64 = 3 * 3_600_000;

/// The Kuveyt Türk protocol: its clock (the search window of each order read).
#[derive(Clone)]
pub struct KuveytPos {
    clock: Arc<dyn Clock>,
}

impl KuveytPos {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self { clock }
    }

    /// `StartDate`/`EndDate` of an order read: `YYYY-MM-DDTHH:MM:SS`, Istanbul time.
    fn window(&self) -> (String, String) {
        let at = |t: Timestamp| {
            let iso = t.plus_millis(ISTANBUL_MS).to_iso8601();
            iso.get(..19).unwrap_or(&iso).to_owned()
        };
        let now = self.clock.now();
        (
            at(now.plus_millis(-SEARCH_BACK_MS)),
            at(now.plus_millis(SEARCH_AHEAD_MS)),
        )
    }

    /// The order's contract, as `GetMerchantOrderDetail` finds it.
    async fn detail(&self, s: &Session<'_, Self>, order_id: &str) -> Detail {
        let (start, end) = self.window();
        let req = Request::OrderDetail {
            order_id,
            start,
            end,
        };
        match s.call(&req).await {
            Ok(reply) => status::read_detail(&reply, Some(order_id)),
            Err(e) => Detail::Failed {
                code: e.code().to_owned(),
            },
        }
    }
}

/// The reversal has taken effect already (nothing was sent now, or the bank's "already
/// reversed" was confirmed by a read).
fn already_reversed() -> BankOutcome {
    BankOutcome::Approved {
        code: "00".to_owned(),
        auth_code: None,
        rrn: None,
    }
}

/// Cancel, refund and query; no capture (no pre-authorization), no points inquiry.
impl Protocol for KuveytPos {
    const CODE: &'static str = PROVIDER_CODE;
    const DECLINE_CODES: &'static [(&'static str, paygate_domain::DeclineCode)] = decline::TABLE;
    const POINTS_INQUIRY: bool = false;
    type Config = ApiCredentials;
    type Request<'a> = Request<'a>;

    fn supported(&self) -> OperationSet {
        OperationSet::of(&[Operation::Cancel, Operation::Refund, Operation::Query])
    }

    /// The order is read first (`GetMerchantOrderDetail`): the reversal must carry the
    /// sale's references. Unreadable, or no such order (an earlier reversal may still be
    /// booking) → `Unknown`, nothing sent; reversed already → `Approved`, nothing sent.
    /// Then `SaleReversal` of the sale's amount: refused as already reversed (`21`: another
    /// cancel came first) → confirmed by a second read; refused as past the sale's day
    /// (`InvalidRequestError`) while the read showed a live, unrefunded sale → the end-of-day
    /// cut's refusal (`after_cutoff`: refund instead). At most three calls.
    async fn cancel(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let unsure = |why: &str| BankOutcome::Unknown {
            reason: format!(
                "the order could not be read before the reversal ({why}); nothing was sent"
            ),
        };
        let contract = match self.detail(s, &op.order_id).await {
            Detail::Found(c) => c,
            Detail::NotFound { code } => {
                let why = format!("{code}: no such order, an earlier reversal may be booking");
                return unsure(&why);
            }
            Detail::Failed { code } => return unsure(&code),
        };
        let before = status::of_contract(&contract);
        if !before.is_conclusive() {
            return unsure(&before.code);
        }
        if before.state == BankState::Cancelled {
            return already_reversed();
        }
        let (Some(sale), Some(amount)) =
            (status::sale_ref(&contract), status::sale_amount(&contract))
        else {
            return unsure("the order's contract lacks the sale's references");
        };
        let order = Order {
            order_id: &op.order_id,
            amount,
            currency: op.currency,
        };
        match s.send(&Request::Reversal { order, sale }).await {
            BankOutcome::Declined { code, .. } if code == ALREADY_REVERSED => {
                let after = match self.detail(s, &op.order_id).await {
                    Detail::Found(c) => status::of_contract(&c),
                    other => other
                        .found()
                        .err()
                        .unwrap_or_else(|| BankStatus::unavailable("")),
                };
                if after.found && after.state == BankState::Cancelled {
                    return already_reversed();
                }
                BankOutcome::Unknown {
                    reason: format!(
                        "the reversal was refused as already done ({ALREADY_REVERSED}) but the \
                         order does not read as reversed ({:?}, {})",
                        after.state, after.code
                    ),
                }
            }
            BankOutcome::Declined {
                code,
                message,
                after_cutoff: false,
            } if code == CUT_REFUSAL => BankOutcome::Declined {
                after_cutoff: holds_live_sale(&before),
                code,
                message,
            },
            other => other,
        }
    }

    /// The order is read first (the refund must carry the sale's references): unreadable →
    /// `Error`, no such order → `Declined` (nothing sent: this refund moved nothing). Then
    /// `DrawBack` for the whole sale (`full`: the bank refuses any other amount with
    /// `TransactionAmountMismatchException`), else `PartialDrawback`.
    async fn refund(&self, s: &Session<'_, Self>, op: &BankOperation) -> BankOutcome {
        let contract = match self.detail(s, &op.order_id).await {
            Detail::Found(c) => c,
            Detail::NotFound { code } => {
                return BankOutcome::Declined {
                    code,
                    message: "the bank has no such order; nothing was sent".to_owned(),
                    after_cutoff: false,
                }
            }
            Detail::Failed { code } => {
                return BankOutcome::Error {
                    code,
                    message: "the order could not be read before the refund; nothing was sent"
                        .to_owned(),
                }
            }
        };
        let Some(sale) = status::sale_ref(&contract) else {
            return BankOutcome::Error {
                code: "OrderContract".to_owned(),
                message: "the order's contract lacks the sale's references; nothing was sent"
                    .to_owned(),
            };
        };
        let order = Order::from(op);
        let req = if op.full {
            Request::DrawBack { order, sale }
        } else {
            Request::PartialDrawback { order, sale }
        };
        s.send(&req).await
    }

    /// `GetMerchantOrderDetail`.
    async fn query(&self, s: &Session<'_, Self>, order_id: &str) -> BankStatus {
        match self.detail(s, order_id).await.found() {
            Ok(contract) => status::of_contract(&contract),
            Err(st) => st,
        }
    }

    fn request<'a>(&'a self, _cfg: &'a ApiCredentials, op: Op<'a>) -> Result<Request<'a>, Refusal> {
        match op {
            Op::Status { order_id } => {
                let (start, end) = self.window();
                Ok(Request::OrderDetail {
                    order_id,
                    start,
                    end,
                })
            }
            Op::Capture(_) => Err(Refusal::not_supported(
                "capture (Kuveyt Türk has no pre-authorization)",
            )),
            Op::Points { .. } => Err(Refusal::not_supported("points inquiry")),
            // Both read the order first (`cancel`, `refund` above).
            Op::Cancel(_) | Op::Refund(_) => Err(Refusal::new(
                "order_lookup_first",
                "a reversal or refund needs the sale's references from an order read",
            )),
        }
    }

    /// The envelope, with the method's `SOAPAction`.
    fn encode(&self, cfg: &ApiCredentials, req: &Request<'_>) -> Wire {
        Wire::post(
            &cfg.endpoint_url,
            request::CONTENT_TYPE,
            request::encode(cfg, req),
        )
        .header(request::SOAP_ACTION, request::soap_action(req.method()))
    }
}
