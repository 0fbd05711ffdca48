//! The simulated bank's rules: what GVPS checks before it processes a request (encoding,
//! well-formedness, terminal, user, mandatory fields, hash) and what each operation does to
//! the order book, with GVPS's reason codes.

use paygate_bankkit::{
    encoding,
    sim::{OrderState, Refusal},
    xml::{self, Element},
};

use super::{
    list,
    wire::{inq_view, msg, txn_views, Answer, OrderBlock},
    HistoryLag, Sim,
};
use crate::{
    hash::{hash_data, HashInput},
    request::TxnType,
    response::declared_encoding,
};

/// Currency codes the simulated terminal accepts (TRY, USD, EUR, GBP).
const CURRENCIES: &[&str] = &["949", "840", "978", "826"];

/// The request fields GVPS reads.
struct Fields {
    mode: String,
    user: String,
    user_id: String,
    hash: String,
    terminal_id: String,
    merchant_id: String,
    order_id: String,
    txn_type: String,
    amount: String,
    currency: String,
    original_rrn: String,
    card_number: String,
    expire_date: String,
    start_date: String,
    end_date: String,
    list_page: String,
}

impl Fields {
    fn read(root: &Element) -> Self {
        let t = |path: &[&str]| root.text_at(path).unwrap_or_default().to_owned();
        Self {
            mode: t(&["Mode"]),
            user: t(&["Terminal", "ProvUserID"]),
            user_id: t(&["Terminal", "UserID"]),
            hash: t(&["Terminal", "HashData"]),
            terminal_id: t(&["Terminal", "ID"]),
            merchant_id: t(&["Terminal", "MerchantID"]),
            order_id: t(&["Order", "OrderID"]),
            txn_type: t(&["Transaction", "Type"]),
            amount: t(&["Transaction", "Amount"]),
            currency: t(&["Transaction", "CurrencyCode"]),
            original_rrn: t(&["Transaction", "OriginalRetrefNum"]),
            card_number: t(&["Card", "Number"]),
            expire_date: t(&["Card", "ExpireDate"]),
            start_date: t(&["Order", "StartDate"]),
            end_date: t(&["Order", "EndDate"]),
            list_page: t(&["Order", "ListPageNum"]),
        }
    }
}

/// The request text by its declared encoding; bytes that do not match it are refused.
fn decode(body: &[u8]) -> Result<String, &'static str> {
    match declared_encoding(body).as_deref() {
        Some("iso-8859-9" | "windows-1254") => Ok(encoding::decode(body)),
        None | Some("utf-8") => std::str::from_utf8(body)
            .map(str::to_owned)
            .map_err(|_| "request is not valid UTF-8"),
        Some(_) => Err("unsupported encoding"),
    }
}

fn mandatory(why: &str) -> Answer {
    Answer::gvps("0002", msg::MANDATORY).with_sys(why)
}

/// Whether a body is a money-moving request (`postauth`, `void`, `refund`): the ones the
/// fault plan applies to.
pub fn is_money_request(body: &[u8]) -> bool {
    let Ok(text) = decode(body) else {
        return false;
    };
    let Ok(root) = xml::parse(&text) else {
        return false;
    };
    matches!(
        root.text_at(&["Transaction", "Type"])
            .and_then(TxnType::parse),
        Some(TxnType::PostAuth | TxnType::Void | TxnType::Refund)
    )
}

/// Processes one `/VPServlet` body. Holds the book's lock only while it reads or writes.
pub fn process(sim: &Sim, body: &[u8]) -> Answer {
    let text = match decode(body) {
        Ok(t) => t,
        Err(why) => return Answer::gvps("0001", msg::INVALID_CHARACTERS).with_sys(why),
    };
    let root = match xml::parse(&text) {
        Ok(r) if r.name == "GVPSRequest" => r,
        Ok(_) => {
            return Answer::gvps("0001", msg::INVALID_CHARACTERS).with_sys("not a GVPSRequest")
        }
        Err(_) => return Answer::gvps("0001", msg::INVALID_CHARACTERS).with_sys("XML parse error"),
    };
    let f = Fields::read(&root);
    let mut answer = checked(sim, &f);
    answer.order_id = f.order_id;
    answer.user_id = f.user;
    answer.terminal_id = f.terminal_id;
    answer.merchant_id = f.merchant_id;
    answer.day = sim.state.book().today();
    answer
}

/// Authentication and field checks, then the operation.
fn checked(sim: &Sim, f: &Fields) -> Answer {
    let c = &sim.creds.terminal;
    if !matches!(f.mode.as_str(), "TEST" | "PROD") {
        return mandatory("Mode must be TEST or PROD");
    }
    if f.terminal_id != c.terminal_id {
        return Answer::gvps("0752", msg::NO_TERMINAL);
    }
    if f.merchant_id != c.merchant_id {
        return Answer::gvps("0753", msg::WRONG_MERCHANT);
    }
    let password = if f.user == c.prov_user_id {
        &c.prov_password
    } else if f.user == c.refund_user_id {
        &c.refund_password
    } else {
        return Answer::gvps("0653", msg::USER_NOT_ON_TERMINAL);
    };
    if f.user_id.is_empty() {
        return mandatory("UserID is mandatory");
    }
    let Some(txn) = TxnType::parse(&f.txn_type) else {
        return mandatory("transaction type not supported by the simulator");
    };
    if txn.needs_refund_user() && f.user != c.refund_user_id {
        return Answer::gvps("0652", msg::NOT_AUTHORISED);
    }
    let amount_ok = !f.amount.is_empty()
        && f.amount.bytes().all(|b| b.is_ascii_digit())
        && f.amount.bytes().any(|b| b != b'0');
    if !amount_ok {
        return mandatory(
            "TxnAmount field must not be zero DOUBLE value because of the Mandatory Rule:zero",
        );
    }
    if !CURRENCIES.contains(&f.currency.as_str()) {
        return mandatory("CurrencyCode is invalid");
    }
    let order_ok = !f.order_id.is_empty()
        && f.order_id.chars().count() <= 32
        && f.order_id
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_');
    let no_order = matches!(txn, TxnType::RewardInq | TxnType::OrderListInq);
    if !no_order && !order_ok {
        return mandatory("OrderID must be 1 to 32 letters, digits, '-' or '_'");
    }
    let expected = hash_data(
        &HashInput {
            order_id: &f.order_id,
            terminal_id: &f.terminal_id,
            card_number: &f.card_number,
            amount: &f.amount,
            currency_code: &f.currency,
        },
        password,
    );
    if f.hash != expected {
        return Answer::gvps("0651", msg::WRONG_PASSWORD);
    }
    match txn {
        TxnType::PostAuth => postauth(sim, f),
        TxnType::Void => void(sim, f),
        TxnType::Refund => refund(sim, f),
        TxnType::OrderInq => order_inq(sim, f),
        TxnType::OrderHistoryInq => order_history(sim, f),
        TxnType::OrderListInq => order_list(sim, f),
        TxnType::RewardInq => reward_inq(sim, f),
    }
}

fn amount(f: &Fields) -> i64 {
    f.amount.parse().unwrap_or(0)
}

/// The book's refusal in GVPS's terms.
fn refusal(txn: TxnType, r: Refusal) -> Answer {
    match r {
        Refusal::NotFound => match txn {
            TxnType::PostAuth => Answer::gvps("0102", msg::PREAUTH_NOT_FOUND),
            TxnType::Refund => Answer::gvps("0103", msg::REFUND_NOT_FOUND),
            _ => Answer::gvps("0201", msg::VOID_NOT_FOUND),
        },
        Refusal::NoOpenPreauth => Answer::gvps("0209", msg::INVALID_POSTAUTH),
        Refusal::AmountAbovePreauth => Answer::gvps("0209", msg::INVALID_POSTAUTH)
            .with_sys("postauth amount exceeds the pre-authorization amount"),
        Refusal::NothingToVoid => Answer::gvps("0210", msg::INVALID_VOID),
        Refusal::AfterEndOfDay => Answer::gvps("0210", msg::INVALID_VOID)
            .with_sys("transaction settled at end of day; use refund"),
        Refusal::RefundAboveRemaining => Answer::gvps("0214", msg::REFUND_ABOVE_SALE),
        Refusal::ZeroAmount | Refusal::Duplicate => mandatory("TxnAmount field must not be zero"),
        Refusal::NothingToRefund | Refusal::RefundBeforeEndOfDay => {
            Answer::gvps("0208", msg::INVALID_REFUND)
        }
    }
}

/// The order's currency must be the request's.
fn currency_matches(sim: &Sim, f: &Fields) -> bool {
    let book = sim.state.book();
    book.get(&sim.creds.terminal.terminal_id, &f.order_id)
        .is_none_or(|o| o.currency.numeric() == f.currency)
}

fn postauth(sim: &Sim, f: &Fields) -> Answer {
    if !currency_matches(sim, f) {
        return mandatory("CurrencyCode does not match the order");
    }
    let mut book = sim.state.book();
    let key = sim.creds.terminal.terminal_id.as_str();
    if !f.original_rrn.is_empty() {
        let preauth_rrn = book
            .get(key, &f.order_id)
            .and_then(|o| o.history.iter().find(|t| t.kind == "preauth"))
            .map(|t| t.rrn.clone());
        if preauth_rrn.as_deref() != Some(f.original_rrn.as_str()) {
            return Answer::gvps("0209", msg::INVALID_POSTAUTH)
                .with_sys("OriginalRetrefNum is not the pre-authorization");
        }
    }
    match book.postauth(key, &f.order_id, amount(f)) {
        Ok(t) => Answer::approved(&t.rrn, &t.auth_code),
        Err(r) => refusal(TxnType::PostAuth, r),
    }
}

fn void(sim: &Sim, f: &Fields) -> Answer {
    let mut book = sim.state.book();
    let key = sim.creds.terminal.terminal_id.as_str();
    let Some(o) = book.get(key, &f.order_id) else {
        return refusal(TxnType::Void, Refusal::NotFound);
    };
    let open = matches!(o.state, OrderState::Preauth | OrderState::Sale);
    let live: Vec<&str> = o
        .history
        .iter()
        .filter(|t| open && !t.voided && t.kind != "void")
        .map(|t| t.rrn.as_str())
        .collect();
    if f.original_rrn.is_empty() {
        if live.len() > 1 {
            return Answer::gvps("0202", msg::MULTIPLE_VOIDABLE);
        }
    } else {
        match o.history.iter().find(|t| t.rrn == f.original_rrn) {
            None => return refusal(TxnType::Void, Refusal::NotFound),
            Some(t) if t.voided || t.kind == "void" || !open => {
                return refusal(TxnType::Void, Refusal::NothingToVoid)
            }
            Some(_) if live.last() != Some(&f.original_rrn.as_str()) => {
                return Answer::gvps("0207", msg::VOID_LATEST_FIRST)
            }
            Some(_) => {}
        }
    }
    // GVPS voids the latest transaction only: voiding a post-authorization leaves the
    // pre-authorization open again (a second void releases it).
    let latest_is_capture = o
        .history
        .iter()
        .rev()
        .find(|t| !t.voided && matches!(t.kind, "preauth" | "sale" | "postauth"))
        .is_some_and(|t| t.kind == "postauth");
    let voided = if latest_is_capture {
        book.reverse_capture(key, &f.order_id)
    } else {
        book.void(key, &f.order_id)
    };
    match voided {
        Ok(t) => Answer::approved(&t.rrn, &t.auth_code),
        Err(r) => refusal(TxnType::Void, r),
    }
}

fn refund(sim: &Sim, f: &Fields) -> Answer {
    if !currency_matches(sim, f) {
        return mandatory("CurrencyCode does not match the order");
    }
    let mut book = sim.state.book();
    match book.refund(&sim.creds.terminal.terminal_id, &f.order_id, amount(f)) {
        Ok(t) => Answer::approved(&t.rrn, &t.auth_code),
        Err(r) => refusal(TxnType::Refund, r),
    }
}

/// A late booking (fault plan): the first status read after it answers "no record".
fn hidden(sim: &Sim, f: &Fields) -> bool {
    sim.state
        .fault_plan()
        .take_hidden(&sim.creds.terminal.terminal_id, &f.order_id)
}

fn order_inq(sim: &Sim, f: &Fields) -> Answer {
    let hidden = hidden(sim, f);
    let book = sim.state.book();
    match book
        .get(&sim.creds.terminal.terminal_id, &f.order_id)
        .filter(|_| !hidden)
    {
        Some(o) => Answer::query(OrderBlock::Inq(inq_view(o))),
        None => {
            let mut a = Answer::gvps("0110", msg::TXN_NOT_FOUND);
            a.order_block = Some(OrderBlock::Inq(Default::default()));
            a
        }
    }
}

fn order_history(sim: &Sim, f: &Fields) -> Answer {
    let hidden = hidden(sim, f);
    let lag = sim.take_history_lag(&f.order_id);
    let book = sim.state.book();
    match book
        .get(&sim.creds.terminal.terminal_id, &f.order_id)
        .filter(|_| !hidden && lag != Some(HistoryLag::NotFound))
    {
        Some(_) if lag == Some(HistoryLag::Empty) => Answer::query(OrderBlock::History(Vec::new())),
        Some(o) => Answer::query(OrderBlock::History(txn_views(o, book.today()))),
        None => {
            let mut a = Answer::gvps("0108", msg::ORDER_NOT_FOUND);
            a.order_block = Some(OrderBlock::History(Vec::new()));
            a
        }
    }
}

fn order_list(sim: &Sim, f: &Fields) -> Answer {
    let (Some(from), Some(to)) = (list::parse_at(&f.start_date), list::parse_at(&f.end_date))
    else {
        return mandatory("StartDate and EndDate must be dd/MM/yyyy HH:mm");
    };
    let page = if f.list_page.is_empty() {
        Ok(1)
    } else {
        f.list_page.parse::<usize>()
    };
    let Some(page) = page.ok().filter(|p| *p >= 1) else {
        return mandatory("ListPageNum must be a number from 1");
    };
    match list::list(sim, from, to, page) {
        Ok(view) => Answer::query(OrderBlock::List(view)),
        Err(why) => mandatory(why),
    }
}

fn reward_inq(sim: &Sim, f: &Fields) -> Answer {
    let n = &f.card_number;
    if !(12..=19).contains(&n.len()) || !n.bytes().all(|b| b.is_ascii_digit()) {
        return mandatory("CardNumber is invalid");
    }
    if f.expire_date.len() != 4 || !f.expire_date.bytes().all(|b| b.is_ascii_digit()) {
        return Answer::gvps("0003", msg::EXPIRE_DATE);
    }
    match sim.rewards_of(n) {
        Some(rewards) => {
            let mut a = Answer::approved("", "");
            a.rewards = rewards
                .into_iter()
                .map(|r| (r.kind, r.total_amount))
                .collect();
            a
        }
        None => Answer::host("05", msg::HOST_DECLINE, "RPC-05 condition was raised"),
    }
}
