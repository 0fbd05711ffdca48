//! The toolkit the bank simulators are built from (feature `sim`): an order book with a
//! bank's rules (pre-authorizations, sales, voids, refunds, end-of-day cut), fault injection
//! (latency, technical errors, dropped connections) and a local HTTP server to host a
//! protocol's router. Each protocol crate maps these results to its own wire format and its
//! bank's real error codes.
//!
//! Two fault mechanisms exist: the older counters of [`Faults`] (every request, set through
//! each simulator's `/_sim/faults` route) and the [`FaultPlan`] of [`faults`] (money requests
//! only, scripted or seeded, with time-outs before/after applying and late bookings), reached
//! through [`SimState::fault_plan`]; [`SimState::ledger`] shows what the bank applied.

use std::{
    collections::HashMap,
    net::SocketAddr,
    sync::{Arc, Mutex, MutexGuard},
    time::Duration,
};

use paygate_domain::{
    ports::{TestOrder, TestOrderState},
    Currency,
};

pub mod admin;
pub mod bodies;
mod calendar;
pub mod faults;
mod serve;
pub mod testing;
pub mod users;

pub use admin::{admin_routes, host, Clients, FaultsBody, Host};
pub use bodies::{JsonBytes, Refused};
pub use faults::{Fault, FaultCounts, FaultOdds, FaultPlan};
use serve::touch;
pub use serve::{serve_counted, serve_money, serve_request, track_touched, Served};
pub use users::{OrderNotes, Secret, Sim, SimUser};

/// What a simulator's handlers are written with: axum's request and response types, so a
/// protocol crate needs no HTTP framework of its own.
pub mod prelude {
    pub use axum::{
        body::Bytes,
        extract::State,
        http::{header, HeaderMap, StatusCode},
        response::{IntoResponse, Response},
        routing::post,
        Json, Router,
    };
}

/// A `200` answer: `body` as `content_type`.
pub fn respond(content_type: &'static str, body: Vec<u8>) -> axum::response::Response {
    use axum::response::IntoResponse;
    ([(axum::http::header::CONTENT_TYPE, content_type)], body).into_response()
}

/// One operation the bank performed on an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimTxn {
    /// `preauth`, `sale`, `postauth`, `void`, `refund`.
    pub kind: &'static str,
    pub amount: i64,
    pub rrn: String,
    pub auth_code: String,
    /// The business day it happened on (`day` counter of the book).
    pub day: u32,
    pub voided: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderState {
    Preauth,
    Sale,
    Voided,
    Declined,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimOrder {
    pub order_id: String,
    pub currency: Currency,
    /// Held (pre-auth) or sold (sale, or closed pre-auth) amount.
    pub amount: i64,
    pub state: OrderState,
    pub refunded: i64,
    pub history: Vec<SimTxn>,
    /// The business day the sale (or pre-auth) happened on.
    pub day: u32,
}

impl SimOrder {
    /// The money left to refund.
    pub fn refundable(&self) -> i64 {
        if self.state == OrderState::Sale {
            self.amount - self.refunded
        } else {
            0
        }
    }

    pub fn last_approved(&self) -> Option<&SimTxn> {
        self.history.last()
    }

    /// Records an approved operation on the order and returns it.
    fn book(&mut self, kind: &'static str, amount: i64, ids: (String, String), day: u32) -> SimTxn {
        let (rrn, auth_code) = ids;
        let t = SimTxn {
            kind,
            amount,
            rrn,
            auth_code,
            day,
            voided: false,
        };
        self.history.push(t.clone());
        t
    }
}

/// Why the book refused an operation; each protocol maps these to its bank's codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    NotFound,
    Duplicate,
    NoOpenPreauth,
    AmountAbovePreauth,
    NothingToVoid,
    AfterEndOfDay,
    RefundBeforeEndOfDay,
    RefundAboveRemaining,
    ZeroAmount,
    NothingToRefund,
}

/// An order book of one simulated bank, keyed by (merchant/client id, order id).
#[derive(Debug, Default)]
pub struct OrderBook {
    orders: HashMap<(String, String), SimOrder>,
    day: u32,
    seq: u64,
    /// Whether refunds are refused on the sale's own business day (Nestpay's rule).
    pub refunds_need_end_of_day: bool,
    /// The calendar date of each business day (`calendar`).
    dates: calendar::Dates,
}

impl OrderBook {
    pub fn new(refunds_need_end_of_day: bool) -> Self {
        let mut book = Self {
            refunds_need_end_of_day,
            ..Self::default()
        };
        book.dates.enter(0);
        book
    }

    /// Moves the bank past its end-of-day cut.
    pub fn end_of_day(&mut self) {
        self.day += 1;
        self.dates.next_day(self.day);
    }

    pub fn get(&self, client: &str, order: &str) -> Option<&SimOrder> {
        self.orders.get(&(client.to_owned(), order.to_owned()))
    }

    /// The current business day (advanced by [`OrderBook::end_of_day`]); compare with
    /// [`SimOrder::day`] / [`SimTxn::day`] for a protocol's own end-of-day rules.
    pub fn today(&self) -> u32 {
        self.day
    }

    /// Mutable access for rules a protocol implements itself (e.g. reversing only the
    /// capture of a closed pre-authorization).
    pub fn get_mut(&mut self, client: &str, order: &str) -> Option<&mut SimOrder> {
        touch(client, order);
        self.orders.get_mut(&(client.to_owned(), order.to_owned()))
    }

    /// Every order, keyed by (client, order id).
    pub fn orders(&self) -> impl Iterator<Item = (&str, &SimOrder)> {
        self.orders.iter().map(|((c, _), o)| (c.as_str(), o))
    }

    /// Reverses the live post-authorization of a closed pre-authorization on its own
    /// business day: the capture is voided and the order is an open pre-authorization again
    /// (held amount and day of the pre-authorization). Banks that void "the latest
    /// transaction" (Garanti) behave this way; a second void then releases the hold.
    pub fn reverse_capture(&mut self, client: &str, order: &str) -> Result<SimTxn, Refusal> {
        let (rrn, auth_code) = self.stamp();
        let today = self.day;
        let o = self.order_mut(client, order)?;
        if o.state != OrderState::Sale || o.refunded > 0 {
            return Err(Refusal::NothingToVoid);
        }
        let Some(at) = o
            .history
            .iter()
            .rposition(|t| t.kind == "postauth" && !t.voided)
        else {
            return Err(Refusal::NothingToVoid);
        };
        if o.history[at].day < today {
            return Err(Refusal::AfterEndOfDay);
        }
        let Some(pre) = o
            .history
            .iter()
            .find(|t| t.kind == "preauth" && !t.voided)
            .cloned()
        else {
            return Err(Refusal::NothingToVoid);
        };
        o.history[at].voided = true;
        let amount = o.history[at].amount;
        o.state = OrderState::Preauth;
        o.amount = pre.amount;
        o.day = pre.day;
        let t = o.book("void", amount, (rrn, auth_code), today);
        touch(client, order);
        Ok(t)
    }

    /// The order and transaction a bank reference (`rrn`) belongs to, for protocols that
    /// address follow-up operations by reference instead of order id.
    pub fn find_by_rrn(&self, client: &str, rrn: &str) -> Option<(&SimOrder, &SimTxn)> {
        self.orders
            .iter()
            .filter(|((c, _), _)| c == client)
            .find_map(|(_, o)| o.history.iter().find(|t| t.rrn == rrn).map(|t| (o, t)))
    }

    fn stamp(&mut self) -> (String, String) {
        self.seq += 1;
        (
            format!("{:012}", 600_000_000_000 + self.seq),
            format!("{:06}", 100_000 + self.seq % 900_000),
        )
    }

    /// Registers an order as the test helper asks (`settled` puts it before today).
    /// [`Self::register`] of a test order the adapter's test-order route sent.
    pub fn register_test_order(&mut self, client: &str, o: &TestOrder) -> Result<(), Refusal> {
        self.register(
            client,
            &o.order_id,
            o.amount,
            o.currency,
            o.state,
            o.settled,
        )
    }

    pub fn register(
        &mut self,
        client: &str,
        order_id: &str,
        amount: i64,
        currency: Currency,
        state: TestOrderState,
        settled: bool,
    ) -> Result<(), Refusal> {
        let key = (client.to_owned(), order_id.to_owned());
        if self.orders.contains_key(&key) {
            return Err(Refusal::Duplicate);
        }
        let state = match state {
            TestOrderState::Approved => OrderState::Sale,
            TestOrderState::Preauth => OrderState::Preauth,
            TestOrderState::Declined => OrderState::Declined,
            TestOrderState::None => return Ok(()),
        };
        let (rrn, auth_code) = self.stamp();
        let day = if settled {
            self.day.saturating_sub(1)
        } else {
            self.day
        };
        let settled_day = if settled && self.day == 0 {
            // Day 0 has no yesterday: move the bank forward instead.
            self.day = 1;
            self.dates.next_day(self.day);
            0
        } else {
            day
        };
        let kind = match state {
            OrderState::Preauth => "preauth",
            _ => "sale",
        };
        let approved = state != OrderState::Declined;
        self.orders.insert(
            key,
            SimOrder {
                order_id: order_id.to_owned(),
                currency,
                amount,
                state,
                refunded: 0,
                history: if approved {
                    vec![SimTxn {
                        kind,
                        amount,
                        rrn,
                        auth_code,
                        day: settled_day,
                        voided: false,
                    }]
                } else {
                    Vec::new()
                },
                day: settled_day,
            },
        );
        Ok(())
    }

    fn order_mut(&mut self, client: &str, order: &str) -> Result<&mut SimOrder, Refusal> {
        self.orders
            .get_mut(&(client.to_owned(), order.to_owned()))
            .ok_or(Refusal::NotFound)
    }

    /// Closes a pre-authorization for `amount` (≤ the held amount).
    pub fn postauth(&mut self, client: &str, order: &str, amount: i64) -> Result<SimTxn, Refusal> {
        let (rrn, auth_code) = self.stamp();
        let day = self.day;
        let o = self.order_mut(client, order)?;
        if o.state != OrderState::Preauth {
            return Err(Refusal::NoOpenPreauth);
        }
        if amount <= 0 {
            return Err(Refusal::ZeroAmount);
        }
        if amount > o.amount {
            return Err(Refusal::AmountAbovePreauth);
        }
        o.state = OrderState::Sale;
        o.amount = amount;
        o.day = day;
        let t = o.book("postauth", amount, (rrn, auth_code), day);
        touch(client, order);
        Ok(t)
    }

    /// Voids the order's last transaction (sale/pre-auth/postauth) on its own business day.
    pub fn void(&mut self, client: &str, order: &str) -> Result<SimTxn, Refusal> {
        let (rrn, auth_code) = self.stamp();
        let today = self.day;
        let o = self.order_mut(client, order)?;
        if !matches!(o.state, OrderState::Preauth | OrderState::Sale) || o.refunded > 0 {
            return Err(Refusal::NothingToVoid);
        }
        if o.day < today {
            return Err(Refusal::AfterEndOfDay);
        }
        o.state = OrderState::Voided;
        if let Some(last) = o
            .history
            .iter_mut()
            .rev()
            .find(|t| !t.voided && matches!(t.kind, "preauth" | "sale" | "postauth"))
        {
            last.voided = true;
        }
        let t = o.book("void", o.amount, (rrn, auth_code), today);
        touch(client, order);
        Ok(t)
    }

    /// Refunds `amount` of a sale.
    pub fn refund(&mut self, client: &str, order: &str, amount: i64) -> Result<SimTxn, Refusal> {
        let (rrn, auth_code) = self.stamp();
        let today = self.day;
        let need_eod = self.refunds_need_end_of_day;
        let o = self.order_mut(client, order)?;
        if amount <= 0 {
            return Err(Refusal::ZeroAmount);
        }
        if o.state != OrderState::Sale || o.refundable() == 0 {
            return Err(Refusal::NothingToRefund);
        }
        if need_eod && o.day >= today {
            return Err(Refusal::RefundBeforeEndOfDay);
        }
        if amount > o.refundable() {
            return Err(Refusal::RefundAboveRemaining);
        }
        o.refunded += amount;
        let t = o.book("refund", amount, (rrn, auth_code), today);
        touch(client, order);
        Ok(t)
    }
}

/// Faults a test can inject into a simulator.
#[derive(Debug, Default, Clone)]
pub struct Faults {
    /// Delay before every answer.
    pub latency: Duration,
    /// The next N requests get the protocol's technical error.
    pub technical_errors: u32,
    /// The next N requests are processed but the connection is dropped without an answer.
    pub drop_after_processing: u32,
    /// The next N requests are dropped before processing.
    pub drop_before_processing: u32,
}

/// A simulator's shared state: its order book and faults.
#[derive(Debug, Default)]
pub struct SimState {
    pub book: Mutex<OrderBook>,
    pub faults: Mutex<Faults>,
    /// The money-request fault plan (off by default); see [`faults`].
    pub plan: Mutex<FaultPlan>,
}

/// What the bank holds for one order: for a checker comparing the gateway with the bank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    /// The client / merchant / terminal key the simulator books the order under (Nestpay
    /// `ClientId`, Garanti terminal id, Posnet `mid`).
    pub client: String,
    /// The order id as the bank keeps it (Posnet: the 24-character wire form).
    pub order_id: String,
    pub state: OrderState,
    /// Held (pre-auth) or sold amount.
    pub amount: i64,
    /// Total refunded.
    pub refunded: i64,
    /// Every operation applied, oldest first (`preauth`, `sale`, `postauth`, `void`,
    /// `refund`; `voided` marks one undone since).
    pub operations: Vec<SimTxn>,
}

impl LedgerEntry {
    fn of(client: &str, o: &SimOrder) -> Self {
        Self {
            client: client.to_owned(),
            order_id: o.order_id.clone(),
            state: o.state,
            amount: o.amount,
            refunded: o.refunded,
            operations: o.history.clone(),
        }
    }
}

impl SimState {
    pub fn new(refunds_need_end_of_day: bool) -> Arc<Self> {
        Arc::new(Self {
            book: Mutex::new(OrderBook::new(refunds_need_end_of_day)),
            faults: Mutex::new(Faults::default()),
            plan: Mutex::new(FaultPlan::default()),
        })
    }

    /// The money-request fault plan: `state.fault_plan().script([..])`, `.random(seed, odds)`,
    /// `.counts()`.
    pub fn fault_plan(&self) -> MutexGuard<'_, FaultPlan> {
        self.plan
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The bank's ledger: every order, sorted by (client, order id).
    pub fn ledger(&self) -> Vec<LedgerEntry> {
        let book = self.book();
        let mut all: Vec<LedgerEntry> = book.orders().map(|(c, o)| LedgerEntry::of(c, o)).collect();
        all.sort_by(|a, b| (&a.client, &a.order_id).cmp(&(&b.client, &b.order_id)));
        all
    }

    /// One order's ledger entry.
    pub fn ledger_of(&self, client: &str, order_id: &str) -> Option<LedgerEntry> {
        self.book()
            .get(client, order_id)
            .map(|o| LedgerEntry::of(client, o))
    }

    /// The book; a poisoned lock (a panic in a handler) is recovered, the data is plain.
    pub fn book(&self) -> MutexGuard<'_, OrderBook> {
        self.book
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn faults(&self) -> MutexGuard<'_, Faults> {
        self.faults
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes one unit of each pending fault, in the order a request meets them.
    pub fn take_fault(&self) -> (Duration, Option<FaultKind>) {
        let mut f = self.faults();
        let latency = f.latency;
        let kind = if f.drop_before_processing > 0 {
            f.drop_before_processing -= 1;
            Some(FaultKind::DropBefore)
        } else if f.technical_errors > 0 {
            f.technical_errors -= 1;
            Some(FaultKind::TechnicalError)
        } else if f.drop_after_processing > 0 {
            f.drop_after_processing -= 1;
            Some(FaultKind::DropAfter)
        } else {
            None
        };
        (latency, kind)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    DropBefore,
    TechnicalError,
    DropAfter,
}

/// A simulator served on `127.0.0.1:<free port>`, stopped when dropped.
pub struct SimServer {
    pub url: String,
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for SimServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl SimServer {
    /// Serves `router` on a free loopback port.
    pub async fn start(router: axum::Router) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Ok(Self {
            url: format!("http://{addr}"),
            addr,
            task,
        })
    }
}

/// A response whose body fails at once: hyper then aborts the connection mid-answer, which
/// the client sees as a broken connection after its request went out.
pub fn dropped_connection() -> axum::response::Response {
    let failing = futures::stream::once(async {
        Err::<Vec<u8>, std::io::Error>(std::io::Error::other("dropped by the simulator"))
    });
    axum::response::Response::new(axum::body::Body::from_stream(failing))
}

#[cfg(test)]
mod tests;
