//! The simulator's answers, rendered as GVPS renders them: a full `GVPSResponse` in
//! ISO-8859-9 with the element layout of the MEWS/ActiveMerchant fixtures.

use paygate_bankkit::{
    encoding,
    sim::{OrderState, SimOrder},
    xml::XmlBuilder,
};
use paygate_domain::Timestamp;

/// Response message texts (GVPS's own wording; see the README's code table).
pub mod msg {
    pub const INVALID_CHARACTERS: &str =
        "Giriş yaptığınız değerleri kontrol ediniz. Invalid characters!";
    pub const MANDATORY: &str = "Giriş yaptığınız işlem tipi için zorunlu alanları kontrol ediniz";
    pub const EXPIRE_DATE: &str = "Giriş yaptığınız değerleri kontrol ediniz. CardExpireDate field must be between 4 and 4 char.";
    pub const PREAUTH_NOT_FOUND: &str = "Kapatılacak ön otorizasyon işlemi bulunamadı.";
    pub const REFUND_NOT_FOUND: &str = "İade edilecek işlem bulunamadı";
    pub const ORDER_NOT_FOUND: &str = "Gönderilen sipariş numarasına ait kayıt bulunmamaktadır";
    pub const TXN_NOT_FOUND: &str = "İşlem bulunamadı";
    pub const VOID_NOT_FOUND: &str = "İptal edilecek işlem bulunamadı";
    pub const MULTIPLE_VOIDABLE: &str =
        "İptal edebileceğiniz birden fazla işlem var, RRN bilgisi gönderin";
    pub const VOID_LATEST_FIRST: &str = "İlk önce, en son yapılan işlemi iptal etmelisiniz.";
    pub const INVALID_REFUND: &str = "İade etmek istediğiniz işlem geçerli değil";
    pub const INVALID_POSTAUTH: &str =
        "Kapama yapmak istediğiniz ön otorizasyon işlemi geçerli değil.";
    pub const INVALID_VOID: &str = "İptal etmek istediğiniz işlem geçerli değil";
    pub const REFUND_ABOVE_SALE: &str = "İade tutarı, satış tutarından büyük olamaz";
    pub const WRONG_PASSWORD: &str = "Kullanıcı şifresi hatalı.";
    pub const NOT_AUTHORISED: &str = "Üzgünüz, bu işlemi yapmaya yetkiniz yok.";
    pub const USER_NOT_ON_TERMINAL: &str = "Kullanıcı bu terminalde tanımlı değildir.";
    pub const NO_TERMINAL: &str = "Terminal kaydı yok";
    pub const WRONG_MERCHANT: &str = "Bu terminal için yanlış işyeri numarası girilmiştir.";
    pub const HOST_DECLINE: &str = "İşleminizi gerçekleştiremiyoruz.Tekrar deneyiniz";
}

/// `Order/OrderInqResult`.
#[derive(Debug, Clone, Default)]
pub struct InqView {
    pub status: &'static str,
    pub preauth_amount: i64,
    pub auth_amount: i64,
    pub rrn: String,
    pub auth_code: String,
    pub code: &'static str,
}

/// One `OrderTxn`.
#[derive(Debug, Clone, Default)]
pub struct TxnView {
    pub kind: &'static str,
    pub status: &'static str,
    pub preauth_amount: i64,
    pub auth_amount: i64,
    pub date: String,
    pub void_date: String,
    pub rrn: String,
    pub auth_code: String,
    pub return_code: &'static str,
    pub currency: &'static str,
    pub settlement: &'static str,
}

/// One `OrderTxn` of an `orderlistinq` answer (the fixture's fields that matter).
#[derive(Debug, Clone, Default)]
pub struct ListLine {
    /// `yyyy-MM-dd HH:mm:ss`.
    pub date_time: String,
    /// `Satis`, `On Otorizasyon`, `On Otorizasyon Kapama`, `Iptal`, `Iade`.
    pub trx_type: &'static str,
    pub order_id: String,
    pub rrn: String,
    pub auth_code: String,
    /// `Basarili`, or `Iptal` once voided.
    pub status: &'static str,
    pub amount: i64,
    /// `TL`, `USD`, … as the fixture spells it.
    pub currency: &'static str,
    pub settlement: &'static str,
}

/// One page of an `orderlistinq` answer.
#[derive(Debug, Clone, Default)]
pub struct ListView {
    pub total: usize,
    pub pages: usize,
    pub page: usize,
    /// The page's lines, with their `Id` (from 1 over the whole list).
    pub lines: Vec<(usize, ListLine)>,
}

#[derive(Debug, Clone)]
pub enum OrderBlock {
    Inq(InqView),
    /// Empty for an unknown order.
    History(Vec<TxnView>),
    List(ListView),
}

/// One answer of the simulated bank.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub source: &'static str,
    pub code: String,
    pub reason: String,
    pub error_msg: String,
    pub sys_err_msg: String,
    pub order_id: String,
    pub user_id: String,
    pub terminal_id: String,
    pub merchant_id: String,
    pub rrn: String,
    pub auth_code: String,
    pub order_block: Option<OrderBlock>,
    pub rewards: Vec<(String, i64)>,
    /// The book's business day when it answered (`ProvDate`).
    pub day: u32,
}

impl Answer {
    /// A GVPS-level decline or error: `Code` 92 with the reason code.
    pub fn gvps(reason: &str, text: &str) -> Self {
        Self {
            source: "GVPS",
            code: "92".into(),
            reason: reason.into(),
            error_msg: text.into(),
            sys_err_msg: format!("ErrorId: {reason}"),
            ..Self::default()
        }
    }

    /// A host (ISO 8583) decline.
    pub fn host(code: &str, text: &str, sys: &str) -> Self {
        Self {
            source: "HOST",
            code: code.into(),
            reason: code.into(),
            error_msg: text.into(),
            sys_err_msg: sys.into(),
            ..Self::default()
        }
    }

    /// An approval by the host (money movements, `rewardinq`).
    pub fn approved(rrn: &str, auth_code: &str) -> Self {
        Self {
            source: "HOST",
            code: "00".into(),
            reason: "00".into(),
            rrn: rrn.into(),
            auth_code: auth_code.into(),
            ..Self::default()
        }
    }

    /// A query answered by GVPS itself.
    pub fn query(block: OrderBlock) -> Self {
        Self {
            source: "GVPS",
            code: "00".into(),
            order_block: Some(block),
            ..Self::default()
        }
    }

    /// The injected technical error: a refusal before processing, the host's `90` "cut-off in
    /// progress" (simulator's choice; GVPS's own `9999` "General Exception" does not say
    /// nothing moved, so the adapter reads it as unknown).
    pub fn technical() -> Self {
        Self::host("90", msg::HOST_DECLINE, "RPC-90 condition was raised")
    }

    pub fn with_sys(mut self, sys: &str) -> Self {
        self.sys_err_msg = sys.into();
        self
    }
}

/// The simulated bank has no wall clock (time is injected in this code base): business day
/// `n` of the book is shown as 2026-01-05 plus `n` days, 09:00 UTC.
const DAY_ZERO_MS: i64 = 1_767_603_600_000;

fn day_iso(day: u32) -> String {
    Timestamp::from_unix_millis(DAY_ZERO_MS + i64::from(day) * 86_400_000).to_iso8601()
}

/// `YYYYMMDD` of the book's business day `day`.
pub fn date_of(day: u32) -> String {
    day_iso(day).get(..10).unwrap_or_default().replace('-', "")
}

/// `YYYYMMDD HH:MM:SS` of the book's business day `day`.
fn prov_date(day: u32) -> String {
    let iso = day_iso(day);
    format!(
        "{} {}",
        iso.get(..10).unwrap_or_default().replace('-', ""),
        iso.get(11..19).unwrap_or_default()
    )
}

fn is_sale_like(kind: &str) -> bool {
    matches!(kind, "sale" | "preauth" | "postauth")
}

/// The `OrderInqResult` of an order.
pub fn inq_view(o: &SimOrder) -> InqView {
    let preauth = o.history.iter().find(|t| t.kind == "preauth");
    let main = o.history.iter().rev().find(|t| is_sale_like(t.kind));
    let captured = o
        .history
        .iter()
        .any(|t| matches!(t.kind, "sale" | "postauth") && !t.voided);
    let status = match o.state {
        OrderState::Preauth => "WAITINGPOSTAUTH",
        OrderState::Sale if o.amount > 0 && o.refunded >= o.amount => "REFUNDED",
        OrderState::Sale => "APPROVED",
        OrderState::Voided => "VOID",
        OrderState::Declined => "DECLINED",
    };
    InqView {
        status,
        preauth_amount: preauth.map_or(0, |t| t.amount),
        auth_amount: if captured { o.amount } else { 0 },
        rrn: main.map(|t| t.rrn.clone()).unwrap_or_default(),
        auth_code: main.map(|t| t.auth_code.clone()).unwrap_or_default(),
        code: if o.state == OrderState::Declined {
            "05"
        } else {
            "00"
        },
    }
}

/// The `OrderTxnList` of an order; `today` is the book's business day.
pub fn txn_views(o: &SimOrder, today: u32) -> Vec<TxnView> {
    let currency = o.currency.numeric();
    if o.state == OrderState::Declined {
        return vec![TxnView {
            kind: "sales",
            status: "01",
            auth_amount: o.amount,
            date: date_of(o.day),
            return_code: "05",
            currency,
            settlement: "N",
            ..TxnView::default()
        }];
    }
    o.history
        .iter()
        .enumerate()
        .map(|(i, t)| {
            // A void cancels the whole order in the book: every sale-like entry shows it.
            let voided = t.voided || (o.state == OrderState::Voided && is_sale_like(t.kind));
            let void_day = o.history[i..]
                .iter()
                .find(|v| v.kind == "void")
                .map_or(today, |v| v.day);
            TxnView {
                kind: if t.kind == "sale" { "sales" } else { t.kind },
                status: "00",
                preauth_amount: if t.kind == "preauth" { t.amount } else { 0 },
                auth_amount: if t.kind == "preauth" { 0 } else { t.amount },
                date: date_of(t.day),
                void_date: if voided {
                    date_of(void_day)
                } else {
                    String::new()
                },
                rrn: t.rrn.clone(),
                auth_code: t.auth_code.clone(),
                return_code: "00",
                currency,
                settlement: if t.day < today { "Y" } else { "N" },
            }
        })
        .collect()
}

fn inq_block(b: XmlBuilder, v: &InqView) -> XmlBuilder {
    b.open("OrderInqResult")
        .leaf("ChargeType", if v.status.is_empty() { "" } else { "S" })
        .leaf("PreAuthAmount", &v.preauth_amount.to_string())
        .leaf("PreAuthDate", "")
        .leaf("AuthAmount", &v.auth_amount.to_string())
        .leaf("AuthDate", "")
        .leaf("RecurringInfo", "N")
        .leaf("Status", v.status)
        .leaf("RemainingBNSAmount", "0")
        .leaf("UsedFBBAmount", "0")
        .leaf("UsedBnsAmount", "0")
        .leaf("InstallmentCnt", "0")
        .leaf("Code", v.code)
        .leaf("ReasonCode", v.code)
        .leaf("SysErrMsg", "")
        .leaf("RetrefNum", &v.rrn)
        .leaf("AuthCode", &v.auth_code)
        .close()
}

fn history_block(mut b: XmlBuilder, txns: &[TxnView]) -> XmlBuilder {
    b = b.open("OrderHistInqResult").open("OrderTxnList");
    for t in txns {
        b = b
            .open("OrderTxn")
            .leaf("Type", t.kind)
            .leaf("Status", t.status)
            .leaf("PreAuthAmount", &t.preauth_amount.to_string())
            .leaf("AuthAmount", &t.auth_amount.to_string())
            .leaf(
                "PreAuthDate",
                if t.kind == "preauth" { &t.date } else { "" },
            )
            .leaf("AuthDate", if t.kind == "preauth" { "" } else { &t.date })
            .leaf("VoidDate", &t.void_date)
            .leaf("RetrefNum", &t.rrn)
            .leaf("AuthCode", &t.auth_code)
            .leaf("ReturnCode", t.return_code)
            .leaf("BatchNum", "5562")
            .leaf("CurrencyCode", t.currency)
            .leaf("Settlement", t.settlement)
            .close();
    }
    b.close().close()
}

fn list_block(mut b: XmlBuilder, v: &ListView) -> XmlBuilder {
    b = b
        .open("OrderListInqResult")
        .open("OrderTxnList")
        .leaf("TotalTxnCount", &v.total.to_string())
        .leaf("TotalPageCount", &v.pages.to_string())
        .leaf("ActPageNum", &v.page.to_string());
    for (id, t) in &v.lines {
        b = b
            .open("OrderTxn")
            .leaf("Id", &id.to_string())
            .leaf("LastTrxDate", &t.date_time)
            .leaf("TrxType", t.trx_type)
            .leaf("OrderID", &t.order_id)
            .leaf("Name", "")
            .leaf("CardNumberMasked", "42822090****8015")
            .leaf("BatchNum", "5562")
            .leaf("AuthCode", &t.auth_code)
            .leaf("RetrefNum", &t.rrn)
            .leaf("OrigRetrefNum", "")
            .leaf("InstallmentCnt", "Pesin")
            .leaf("Status", t.status)
            .leaf("AuthAmount", &t.amount.to_string())
            .leaf("CurrencyCode", t.currency)
            .leaf("SafeType", "")
            .leaf("Settlement", t.settlement)
            .leaf("ResponseCode", "00")
            .leaf("SysErrMsg", "")
            .close();
    }
    b.close().close()
}

/// The document, as the ISO-8859-9 bytes GVPS sends.
pub fn render(a: &Answer) -> Vec<u8> {
    let approved = a.code == "00";
    let mut b = XmlBuilder::new("GVPSResponse", "ISO-8859-9")
        .leaf("Mode", "")
        .open("Terminal")
        .leaf("ProvUserID", &a.user_id)
        .leaf("UserID", &a.user_id)
        .leaf("ID", &a.terminal_id)
        .leaf("MerchantID", &a.merchant_id)
        .close()
        .open("Customer")
        .leaf("IPAddress", "")
        .close()
        .open("Order")
        .leaf("OrderID", &a.order_id)
        .leaf("GroupID", "");
    b = match &a.order_block {
        Some(OrderBlock::Inq(v)) => inq_block(b, v),
        Some(OrderBlock::History(t)) => history_block(b, t),
        Some(OrderBlock::List(v)) => list_block(b, v),
        None => b,
    };
    b = b
        .close()
        .open("Transaction")
        .open("Response")
        .leaf("Source", a.source)
        .leaf("Code", &a.code)
        .leaf("ReasonCode", &a.reason)
        .leaf("Message", if approved { "Approved" } else { "Declined" })
        .leaf("ErrorMsg", &a.error_msg)
        .leaf("SysErrMsg", &a.sys_err_msg)
        .close()
        .leaf("RetrefNum", &a.rrn)
        .leaf("AuthCode", &a.auth_code)
        .leaf("BatchNum", if a.rrn.is_empty() { "" } else { "005562" })
        .leaf("SequenceNum", "")
        .leaf("ProvDate", &prov_date(a.day))
        .leaf("CardNumberMasked", "")
        .leaf("CardHolderName", "")
        .leaf("CardType", if a.rewards.is_empty() { "" } else { "BONUS" })
        .leaf("HashData", "")
        .leaf("HostMsgList", "")
        .open("RewardInqResult")
        .open("RewardList");
    for (kind, total) in &a.rewards {
        b = b
            .open("Reward")
            .leaf("Type", kind)
            .leaf("TotalAmount", &total.to_string())
            .leaf("LastTxnGainAmount", "0")
            .close();
    }
    let doc = b
        .close()
        .leaf("ChequeList", "")
        .close()
        .leaf("GarantiCardInd", "Y")
        .finish();
    encoding::encode(&doc)
}
