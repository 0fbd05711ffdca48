//! The `agreement` (order status) answer: `transactions/transaction{orderID, ccno, amount
//! ("1,16": TL, decimal comma), currencyCode, authCode, tranDate, state, txnStatus,
//! hostlogkey}`, one element per bank transaction of the order, oldest first (MEWS
//! `mapStatusResponse`/`mapHistoryResponse`: the first is the original, later ones refunds).
//!
//! The order's state is found by replaying them: `Sale`/`Auth` open the order, `Capt`
//! closes the authorization, `reverse` undoes the newest live one, `return` adds to the
//! refunded total. `state` spellings are MEWS's table (`Sale, Auth, Capt, reverse,
//! return`), compared case-insensitively; `txnStatus` `1` is a successful transaction, any
//! other value one that did not go through; a transaction without `txnStatus` cannot be
//! read as either, so the whole answer is unreadable (unavailable, never a guess).

use paygate_bankkit::xml::Element;
use paygate_domain::{BankState, BankStatus};

use crate::{codes, request::Reversal, response::Reply, wire};

/// A transaction kind in an `agreement` answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Sale,
    Auth,
    Capt,
    Reverse,
    Return,
    Other,
}

impl Kind {
    pub fn parse(state: &str) -> Self {
        match state.to_ascii_lowercase().as_str() {
            "sale" => Self::Sale,
            "auth" => Self::Auth,
            "capt" => Self::Capt,
            "reverse" => Self::Reverse,
            "return" => Self::Return,
            _ => Self::Other,
        }
    }

    /// The spelling the bank uses (MEWS's table).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sale => "Sale",
            Self::Auth => "Auth",
            Self::Capt => "Capt",
            Self::Reverse => "reverse",
            Self::Return => "return",
            Self::Other => "",
        }
    }

    /// The `reverse/transaction` value that undoes this kind.
    pub fn reversal(self) -> Option<Reversal> {
        match self {
            Self::Sale => Some(Reversal::Sale),
            Self::Auth => Some(Reversal::Auth),
            Self::Capt => Some(Reversal::Capt),
            _ => None,
        }
    }
}

/// One transaction of the order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub kind: Kind,
    pub amount: i64,
    pub ok: bool,
    pub host_log_key: String,
    pub auth_code: String,
}

/// The order as the replay leaves it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Order {
    /// Every transaction listed.
    pub entries: Vec<Entry>,
    /// The first successful sale or authorization.
    pub original: Option<Entry>,
    /// Successful sale / auth / capt not reversed, oldest first.
    pub live: Vec<Entry>,
    pub refunded: i64,
}

impl Order {
    /// What `cancel` must reverse, newest first: a captured authorization needs its
    /// capture reversed and then the authorization (bank `0788`: "önce finansallaştırma
    /// iptal edilmeli"); otherwise the newest live transaction.
    pub fn to_reverse(&self) -> Vec<&Entry> {
        let mut out = Vec::new();
        if let Some(top) = self.live.last() {
            out.push(top);
            if top.kind == Kind::Capt {
                if let Some(auth) = self.live.iter().rev().find(|e| e.kind == Kind::Auth) {
                    out.push(auth);
                }
            }
        }
        out
    }

    /// The authorization a capture closes (or, when there is none, the original, so the
    /// bank itself gives its refusal).
    pub fn to_capture(&self) -> Option<&Entry> {
        self.live
            .iter()
            .find(|e| e.kind == Kind::Auth)
            .or(self.original.as_ref())
    }

    pub fn status(&self) -> BankStatus {
        let Some(first) = self.entries.first() else {
            return BankStatus::not_found(codes::NOT_FOUND);
        };
        let Some(original) = &self.original else {
            // Only unsuccessful attempts: a declined order.
            return BankStatus {
                found: true,
                state: BankState::Declined,
                amount: first.amount,
                refunded_amount: 0,
                code: codes::NOT_APPROVED.to_owned(),
                auth_code: String::new(),
                rrn: String::new(),
            };
        };
        let (state, amount) = match self.live.last() {
            None => (BankState::Cancelled, original.amount),
            Some(top) if top.kind == Kind::Auth => (BankState::Preauth, top.amount),
            Some(top) if self.refunded >= top.amount => (BankState::Refunded, top.amount),
            Some(top) if self.refunded > 0 => (BankState::PartiallyRefunded, top.amount),
            Some(top) => (BankState::Approved, top.amount),
        };
        BankStatus {
            found: true,
            state,
            amount,
            refunded_amount: self.refunded,
            code: codes::APPROVED.to_owned(),
            auth_code: original.auth_code.clone(),
            rrn: original.host_log_key.clone(),
        }
    }
}

/// Reads and replays the transactions of an approved `agreement` answer. An approved answer
/// without a transaction list cannot say what the order is: `Err`, never "no order".
pub fn order(reply: &Reply) -> Result<Order, String> {
    let mut order = Order::default();
    let Some(list) = reply.root.child("transactions") else {
        return Err("approved answer without a transaction list".to_owned());
    };
    if list.children_named("transaction").next().is_none() {
        return Err("approved answer with an empty transaction list".to_owned());
    }
    for t in list.children_named("transaction") {
        let e = entry(t)?;
        if e.ok {
            match e.kind {
                Kind::Sale | Kind::Auth => {
                    if order.original.is_none() {
                        order.original = Some(e.clone());
                    }
                    order.live.push(e.clone());
                }
                Kind::Capt => order.live.push(e.clone()),
                Kind::Reverse => {
                    order.live.pop();
                }
                Kind::Return => order.refunded += e.amount,
                Kind::Other => {}
            }
        }
        order.entries.push(e);
    }
    Ok(order)
}

fn entry(t: &Element) -> Result<Entry, String> {
    let text = |name: &str| t.text_at(&[name]).unwrap_or_default().trim().to_owned();
    let state = text("state");
    let amount_text = text("amount");
    let amount = wire::parse_status_amount(&amount_text)
        .ok_or_else(|| format!("unreadable status amount `{amount_text}`"))?;
    let status = text("txnStatus");
    if status.is_empty() {
        return Err("a transaction without txnStatus".to_owned());
    }
    Ok(Entry {
        kind: Kind::parse(&state),
        amount,
        ok: status == codes::APPROVED,
        host_log_key: text("hostlogkey"),
        auth_code: text("authCode"),
    })
}

/// The gateway's view of an `agreement` answer.
pub fn bank_status(reply: &Reply) -> BankStatus {
    if !reply.is_approved() {
        let code = reply.code();
        return if codes::is_not_found(code) {
            BankStatus::not_found(code)
        } else {
            BankStatus::unavailable(code)
        };
    }
    match order(reply) {
        Ok(order) => order.status(),
        Err(_) => BankStatus::unavailable("response"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &[u8]) -> Result<Reply, String> {
        <Reply as paygate_bankkit::BankReply>::decode(body)
    }

    fn tx(state: &str, amount: &str, status: &str, key: &str) -> String {
        format!(
            "<transaction><orderID>0000000000002020110828BC</orderID><ccno>4506 34** **** 4637</ccno>\
             <amount>{amount}</amount><currencyCode>TL</currencyCode><authCode>A{key}</authCode>\
             <tranDate>2019-10-10 11:21:14.281</tranDate><state>{state}</state><txnStatus>{status}</txnStatus>\
             <hostlogkey>{key}</hostlogkey></transaction>"
        )
    }

    fn status_of(txs: &[String]) -> BankStatus {
        let doc = format!(
            "<posnetResponse><approved>1</approved><transactions>{}</transactions></posnetResponse>",
            txs.concat()
        );
        bank_status(&parse(doc.as_bytes()).unwrap())
    }

    #[test]
    fn the_reference_status_sample_is_an_approved_sale() {
        // MEWS statusTestDataProvider success1, verbatim values.
        let doc = "<posnetResponse><approved>1</approved><transactions><transaction>\
                   <orderID>TDS_YKB_0000191010111730</orderID><ccno>4506 34** **** 4637</ccno><amount>1,16</amount>\
                   <currencyCode>TL</currencyCode><authCode>504289</authCode><tranDate>2019-10-10 11:21:14.281</tranDate>\
                   <state>Sale</state><txnStatus>1</txnStatus><hostlogkey>021450428990000191</hostlogkey>\
                   </transaction></transactions></posnetResponse>";
        assert_eq!(
            bank_status(&parse(doc.as_bytes()).unwrap()),
            BankStatus {
                found: true,
                state: BankState::Approved,
                amount: 116,
                refunded_amount: 0,
                code: "1".into(),
                auth_code: "504289".into(),
                rrn: "021450428990000191".into(),
            }
        );
    }

    #[test]
    fn refunds_reversals_and_captures_replay_to_the_order_state() {
        let sale = tx("Sale", "1.000,00", "1", "K1");
        let part = status_of(&[sale.clone(), tx("return", "250,50", "1", "K2")]);
        assert_eq!(
            (part.state, part.amount, part.refunded_amount),
            (BankState::PartiallyRefunded, 100_000, 25_050)
        );
        assert_eq!(part.rrn, "K1");
        let full = status_of(&[
            sale.clone(),
            tx("return", "250,50", "1", "K2"),
            tx("return", "749,50", "1", "K3"),
        ]);
        assert_eq!(
            (full.state, full.refunded_amount),
            (BankState::Refunded, 100_000)
        );
        // A failed refund attempt does not count.
        let failed = status_of(&[sale.clone(), tx("return", "10,00", "0", "")]);
        assert_eq!(
            (failed.state, failed.refunded_amount),
            (BankState::Approved, 0)
        );
        let voided = status_of(&[sale, tx("reverse", "1.000,00", "1", "K4")]);
        assert_eq!(
            (voided.state, voided.amount),
            (BankState::Cancelled, 100_000)
        );

        let auth = tx("Auth", "100,00", "1", "A1");
        let pre = status_of(std::slice::from_ref(&auth));
        assert_eq!(
            (pre.state, pre.amount, pre.rrn.as_str()),
            (BankState::Preauth, 10_000, "A1")
        );
        let captured = status_of(&[auth.clone(), tx("Capt", "60,00", "1", "C1")]);
        assert_eq!(
            (captured.state, captured.amount),
            (BankState::Approved, 6_000)
        );
        // Capture reversed: the authorization is open again.
        let uncapt = status_of(&[
            auth.clone(),
            tx("Capt", "60,00", "1", "C1"),
            tx("reverse", "60,00", "1", "R1"),
        ]);
        assert_eq!((uncapt.state, uncapt.amount), (BankState::Preauth, 10_000));
        let gone = status_of(&[
            auth,
            tx("Capt", "60,00", "1", "C1"),
            tx("reverse", "60,00", "1", "R1"),
            tx("reverse", "100,00", "1", "R2"),
        ]);
        assert_eq!(gone.state, BankState::Cancelled);

        let declined = status_of(&[tx("Sale", "5,00", "0", "")]);
        assert_eq!(
            (declined.found, declined.state, declined.code.as_str()),
            (true, BankState::Declined, "0")
        );
    }

    #[test]
    fn cancel_reverses_the_capture_then_the_authorization() {
        let doc = format!(
            "<posnetResponse><approved>1</approved><transactions>{}{}</transactions></posnetResponse>",
            tx("Auth", "100,00", "1", "A1"),
            tx("Capt", "60,00", "1", "C1")
        );
        let o = order(&parse(doc.as_bytes()).unwrap()).unwrap();
        let keys: Vec<_> = o
            .to_reverse()
            .iter()
            .map(|e| (e.kind, e.host_log_key.as_str()))
            .collect();
        assert_eq!(keys, [(Kind::Capt, "C1"), (Kind::Auth, "A1")]);
        assert_eq!(o.to_capture().map(|e| e.host_log_key.as_str()), Some("A1"));
    }

    #[test]
    fn not_found_errors_and_garbage() {
        let nf = parse(b"<posnetResponse><approved>0</approved><respCode>0123</respCode><respText>ORJINAL ISLEM BULUNAMADI</respText></posnetResponse>").unwrap();
        assert_eq!(bank_status(&nf), BankStatus::not_found("0123"));
        // Approved, but no transaction list: the bank did not say; not "no such order".
        for doc in [
            "<posnetResponse><approved>1</approved></posnetResponse>",
            "<posnetResponse><approved>1</approved><transactions></transactions></posnetResponse>",
        ] {
            let st = bank_status(&parse(doc.as_bytes()).unwrap());
            assert_eq!(st, BankStatus::unavailable("response"), "{doc}");
        }
        let creds = parse(b"<posnetResponse><approved>0</approved><respCode>0148</respCode><respText>INVALID MID TID IP</respText></posnetResponse>").unwrap();
        assert_eq!(bank_status(&creds), BankStatus::unavailable("0148"));
        assert!(!bank_status(&creds).is_conclusive());
        let garbage = format!(
            "<posnetResponse><approved>1</approved><transactions>{}</transactions></posnetResponse>",
            tx("Sale", "1.16.5", "1", "K")
        );
        assert_eq!(
            bank_status(&parse(garbage.as_bytes()).unwrap()),
            BankStatus::unavailable("response")
        );
        // A refund without `txnStatus` is neither done nor failed: not "nothing refunded".
        let silent = format!(
            "<posnetResponse><approved>1</approved><transactions>{}{}</transactions></posnetResponse>",
            tx("Sale", "100,00", "1", "K1"),
            tx("return", "40,00", "1", "K2").replace("<txnStatus>1</txnStatus>", "")
        );
        assert_eq!(
            bank_status(&parse(silent.as_bytes()).unwrap()),
            BankStatus::unavailable("response")
        );
    }
}
