//! Serving one request under the counters of [`Faults`](super::Faults) ([`serve_counted`]),
//! one money request under the [`FaultPlan`](super::FaultPlan) ([`serve_money`]), both at
//! once for a simulator's API ([`serve_request`]), and finding out which order a request
//! touched (for late bookings).

use std::{cell::RefCell, future::Future, time::Duration};

use axum::response::Response;

use super::{dropped_connection, Fault, FaultKind, SimState};

thread_local! {
    /// The order the book last changed on this thread (see [`track_touched`]).
    static TOUCHED: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// Called by the book whenever it changes an order.
pub(super) fn touch(client: &str, order: &str) {
    TOUCHED.with(|t| *t.borrow_mut() = Some((client.to_owned(), order.to_owned())));
}

/// Runs `f` (synchronous: no other request can run on this thread meanwhile) and returns
/// the (client, order) the book changed last while it ran, if any.
pub fn track_touched<R>(f: impl FnOnce() -> R) -> (R, Option<(String, String)>) {
    TOUCHED.with(|t| t.borrow_mut().take());
    let r = f();
    (r, TOUCHED.with(|t| t.borrow_mut().take()))
}

/// Serves one **money** request under the state's fault plan: draws its fault, then either
/// answers `technical()` (nothing applied), drops or holds the connection before
/// `process()` runs, or runs `process()` (which applies the request to the book and renders
/// the answer) and loses its answer. With the plan off it is just `process()`.
///
/// `process` must be synchronous with respect to the book (it is, in every simulator): the
/// order a late booking hides is the one the book changed while it ran.
pub async fn serve_money(
    state: &SimState,
    technical: impl FnOnce() -> Response,
    process: impl FnOnce() -> Response,
) -> Response {
    let (fault, hang) = {
        let mut plan = state.fault_plan();
        (plan.draw(), plan.hang())
    };
    match fault {
        Fault::TimeoutBefore => {
            tokio::time::sleep(hang).await;
            return dropped_connection();
        }
        Fault::DropBefore => return dropped_connection(),
        Fault::TechnicalError => return technical(),
        Fault::Pass | Fault::TimeoutAfter | Fault::DropAfter | Fault::LateBooking => {}
    }
    let (answer, touched) = track_touched(process);
    match fault {
        Fault::TimeoutAfter => {
            tokio::time::sleep(hang).await;
            dropped_connection()
        }
        Fault::DropAfter => dropped_connection(),
        Fault::LateBooking => {
            if let Some((client, order)) = touched {
                state.fault_plan().hide_once(&client, &order);
            }
            dropped_connection()
        }
        _ => answer,
    }
}

/// Serves one request of a simulator's API under the fault counters drawn for it
/// (`drawn`, usually [`SimState::take_fault`]): a dropped-before request waits the latency
/// and breaks the connection (nothing processed); a technical error answers `technical()`
/// (nothing processed); otherwise `process` runs. The latency is served *after* processing
/// (a client that gives up leaves the operation applied, as at a real bank), then a
/// dropped-after request loses its answer.
pub async fn serve_counted(
    drawn: (Duration, Option<FaultKind>),
    technical: impl FnOnce() -> Response,
    process: impl Future<Output = Response>,
) -> Response {
    let (latency, fault) = drawn;
    if fault == Some(FaultKind::DropBefore) {
        tokio::time::sleep(latency).await;
        return dropped_connection();
    }
    let response = if fault == Some(FaultKind::TechnicalError) {
        technical()
    } else {
        process.await
    };
    tokio::time::sleep(latency).await;
    if fault == Some(FaultKind::DropAfter) {
        return dropped_connection();
    }
    response
}

/// What a simulator makes of one API request before the fault plan applies: a money request
/// (its processing, which the plan governs) or any other answer (a query, a refusal).
pub enum Served<F> {
    Money(F),
    Answer(Response),
}

/// Serves one request of a simulator's API: the fault counters first ([`serve_counted`],
/// with [`SimState::take_fault`]); then `read` (read the request, check its user) says what
/// it is, and a money request's processing runs under the fault plan ([`serve_money`]).
/// `technical` is the protocol's technical-error answer.
pub async fn serve_request<F: FnOnce() -> Response>(
    state: &SimState,
    technical: impl Fn() -> Response,
    read: impl FnOnce() -> Served<F>,
) -> Response {
    serve_counted(state.take_fault(), &technical, async {
        match read() {
            Served::Money(process) => serve_money(state, &technical, process).await,
            Served::Answer(answer) => answer,
        }
    })
    .await
}
