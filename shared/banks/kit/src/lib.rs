//! What every bank protocol adapter needs, written once: per-account credentials (Secrets
//! Manager), a bounded HTTP transport whose failures map to the right outcome (a request that
//! may have reached the bank is *unknown*, never failed), ISO-8859-9 text, a small XML tree,
//! decimal-TL amounts, form bodies and `key=value;;` answers ([`form`]), a bounded step retry
//! ([`StepRetry`]) for operations that must finish a second step once a first one moved
//! money, and (feature `sim`) the toolkit the bank simulators are built from: the order book,
//! the simulator's state over its users (`sim::Sim`, `sim::SimUser`, `sim::Secret`,
//! `sim::OrderNotes`), the deterministic money-request fault plan (`sim::faults`: scripted or
//! seeded time-outs before/after applying, dropped connections, technical errors, late
//! bookings; counters; per-order ledger via `SimState::ledger`), how one request meets the
//! faults (`sim::serve_request`) and the surface every simulator shares (`sim::admin`: start,
//! `/_sim/…` admin routes, fault counters).
//!
//! A protocol lives in its own crate under `shared/banks/<name>/`, every one the same shape
//! (see [`protocol`] for the files of the folder): its settings ([`BankConfig`]), its
//! requests ([`BankRequest`]) and answers ([`BankReply`]), and the [`Protocol`] that says
//! which request serves each operation, how it goes on the wire and which flows take more than
//! one call ([`Session`]). The kit's [`Adapter`] runs it as the gateway's provider; it is
//! registered with one line in `paygate_compose::providers`. Shared protocol facts: [`Order`]
//! (what a money request carries), [`CardFields`] (card fields of an inquiry),
//! [`Session::void_checking_cut`] (a refused void past the end-of-day cut),
//! [`Session::release_hold`] (the second void of a captured pre-authorization),
//! [`Verdict::outcome`] and [`Verdict::points`] (an answer as an outcome or a one-balance
//! points result) and [`StatusRead`] (what a read of one order found).

pub mod adapter;
pub mod amount;
pub mod boa;
pub mod call;
pub mod cancel;
pub mod card;
pub mod credentials;
pub mod decline;
pub mod encoding;
pub mod form;
pub mod protocol;
pub mod retry;
pub mod session;
pub mod transport;
pub mod xml;

#[cfg(feature = "sim")]
pub mod sim;

pub use adapter::Adapter;
pub use call::{Answer, CallError, StatusRead, Verdict};
pub use cancel::holds_live_sale;
pub use card::CardFields;
pub use credentials::{account_config, AccountCredentials, CredentialStore, MemoryCredentials};
pub use protocol::{
    BankConfig, BankReply, BankRequest, Op, Order, Protocol, Refusal, TestOrderRoute, Wire,
};
pub use retry::{Recheck, StepRetry};
pub use session::{ReplyOf, Session};
pub use transport::{BankTransport, TransportError};
