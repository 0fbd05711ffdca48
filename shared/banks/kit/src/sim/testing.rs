#![allow(clippy::expect_used)] // test support: every id here is a valid literal
//! What every protocol crate's adapter ↔ simulator tests build the same way: a test account,
//! an operation, a card, and a test order registered through the adapter's test-order route.

use std::{sync::Arc, time::Duration};

use paygate_domain::{
    ports::{BankOperation, PosProvider, TestOrder, TestOrderState},
    AccountId, BankOutcome, BankState, CardDetails, Currency, MerchantId, Mode, OperationSet,
    PosAccount, StoreError, TransactionId,
};

use super::{Fault, FaultOdds, Faults, SimServer, SimState};
use crate::{AccountCredentials, BankTransport, MemoryCredentials, TransportError};

/// The code of a declined outcome and whether the bank refused it as past its end-of-day cut;
/// any other outcome fails the test.
#[allow(clippy::panic)] // test support: a wrong outcome fails the test
pub fn declined(o: &BankOutcome) -> (&str, bool) {
    match o {
        BankOutcome::Declined {
            code, after_cutoff, ..
        } => (code, *after_cutoff),
        other => panic!("expected a decline, got {other:?}"),
    }
}

/// A test-mode account of merchant `mch_a` at `provider_code`'s bank, supporting everything.
pub fn test_account(id: &str, provider_code: &str, bank_code: &str, bank_name: &str) -> PosAccount {
    PosAccount {
        id: AccountId::parse(id).expect("an acc_… id"),
        merchant_id: MerchantId::parse("mch_a").expect("a merchant id"),
        provider_code: provider_code.into(),
        bank_code: bank_code.into(),
        bank_name: bank_name.into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    }
}

/// A money operation on `order_id` in TRY, transaction `txn_t1`.
pub fn op(order_id: &str, amount: i64, full: bool) -> BankOperation {
    BankOperation {
        order_id: order_id.into(),
        transaction_id: TransactionId::parse("txn_t1").expect("a txn_… id"),
        amount,
        currency: Currency::Try,
        full,
    }
}

/// A card expiring 12/2030.
pub fn card(number: &str) -> CardDetails {
    CardDetails {
        number: number.into(),
        exp_month: "12".into(),
        exp_year: "2030".into(),
        cvv: "735".into(),
        holder: "Ayşe Yılmaz".into(),
    }
}

/// Registers a TRY order at the account's simulator through the adapter's test-order route.
pub async fn register_order(
    provider: &dyn PosProvider,
    account: &PosAccount,
    order_id: &str,
    amount: i64,
    state: TestOrderState,
    settled: bool,
) -> Result<(), StoreError> {
    let orders = provider
        .test_orders()
        .ok_or_else(|| StoreError::Unavailable("no test-order route".into()))?;
    let order = TestOrder {
        order_id: order_id.into(),
        amount,
        currency: Currency::Try,
        state,
        settled,
    };
    orders.register(account, &order).await
}

/// A family's simulator on a loopback port and its adapter pointed at it: what every protocol
/// crate's `tests/common` builds the same way. A crate wraps it (`Deref`) to add its own
/// helpers (raw posts, admin routes, ledger views).
pub struct TestBank<P> {
    pub server: SimServer,
    pub state: Arc<SimState>,
    pub provider: P,
    pub creds: Arc<MemoryCredentials>,
    pub account: PosAccount,
    /// Builds this family's test accounts (for [`TestBank::other_account`]).
    pub account_of: fn(&str) -> PosAccount,
    /// The API path under the simulator's URL.
    pub api_path: &'static str,
}

impl<P: PosProvider> TestBank<P> {
    /// The account `account_id` (built by `account_of`) with the secret `secret(endpoint)`,
    /// and the adapter `provider(creds)` reading it.
    pub fn new(
        (server, state): (SimServer, Arc<SimState>),
        account_of: fn(&str) -> PosAccount,
        account_id: &str,
        api_path: &'static str,
        secret: impl FnOnce(&str) -> AccountCredentials,
        provider: impl FnOnce(Arc<MemoryCredentials>) -> P,
    ) -> Self {
        let creds = Arc::new(MemoryCredentials::default());
        let account = account_of(account_id);
        creds.insert(
            account.id.clone(),
            secret(&format!("{}{api_path}", server.url)),
        );
        Self {
            provider: provider(creds.clone()),
            server,
            state,
            creds,
            account,
            account_of,
            api_path,
        }
    }

    pub fn endpoint(&self) -> String {
        format!("{}{}", self.server.url, self.api_path)
    }

    /// Registers an order through the adapter's test helper (the admin route).
    pub async fn order(&self, order_id: &str, amount: i64, state: TestOrderState, settled: bool) {
        register_order(
            &self.provider,
            &self.account,
            order_id,
            amount,
            state,
            settled,
        )
        .await
        .expect("the simulator registers the order");
    }

    pub fn faults(&self, f: Faults) {
        *self.state.faults() = f;
    }

    /// The shared day-history case (`PosProvider::day_history`), on a pinned date D: order
    /// `captured` is a 10 000 pre-authorization captured for 9 000 (`preauth`; else a sale of
    /// 9 000, which is no money operation of ours and not listed), order `cancelled` a 5 000
    /// sale voided; after the cut, 1 000 of `captured` is refunded on D+1. D lists the capture
    /// and the cancel, D+1 the refund, D-1 nothing; a technical error of the history call is
    /// `Unavailable`, never an empty day.
    #[allow(clippy::panic)] // test support: a wrong answer fails the test
    pub async fn the_day_history_lists_what_the_bank_booked(
        &self,
        captured: &str,
        cancelled: &str,
        preauth: bool,
    ) {
        use paygate_domain::{
            daily::{BankLine, BusinessDay, DayHistory},
            TransactionType::{Cancel, Capture, Refund},
        };
        let d = BusinessDay::parse("2026-11-26").expect("a date");
        self.state.book().pin_date(d);
        if preauth {
            self.order(captured, 10_000, TestOrderState::Preauth, false)
                .await;
            let out = self
                .provider
                .capture(&self.account, &op(captured, 9_000, false))
                .await;
            assert!(matches!(out, BankOutcome::Approved { .. }), "{out:?}");
        } else {
            self.order(captured, 9_000, TestOrderState::Approved, false)
                .await;
        }
        self.order(cancelled, 5_000, TestOrderState::Approved, false)
            .await;
        let out = self
            .provider
            .cancel(&self.account, &op(cancelled, 5_000, true))
            .await;
        assert!(matches!(out, BankOutcome::Approved { .. }), "{out:?}");
        self.state.book().end_of_day();
        let out = self
            .provider
            .refund(&self.account, &op(captured, 1_000, false))
            .await;
        assert!(matches!(out, BankOutcome::Approved { .. }), "{out:?}");
        let lines = |h: DayHistory| -> Vec<(String, paygate_domain::TransactionType, i64)> {
            let DayHistory::Lines(lines) = h else {
                panic!("expected the day's lines, got {h:?}");
            };
            let mut v: Vec<_> = lines
                .into_iter()
                .map(|l: BankLine| (l.order_id, l.kind, l.amount))
                .collect();
            v.sort();
            v
        };
        let mut day = vec![(cancelled.to_owned(), Cancel, 5_000)];
        if preauth {
            day.push((captured.to_owned(), Capture, 9_000));
        }
        day.sort();
        assert_eq!(
            lines(self.provider.day_history(&self.account, d).await),
            day
        );
        assert_eq!(
            lines(self.provider.day_history(&self.account, d.next()).await),
            vec![(captured.to_owned(), Refund, 1_000)]
        );
        assert!(lines(self.provider.day_history(&self.account, d.previous()).await).is_empty());
        self.faults(Faults {
            technical_errors: 1,
            ..Faults::default()
        });
        let h = self.provider.day_history(&self.account, d).await;
        assert!(matches!(h, DayHistory::Unavailable { .. }), "{h:?}");
    }

    /// Posts `json` to the simulator's admin route `path`.
    pub async fn admin(&self, path: &str, json: &str) -> Result<Vec<u8>, TransportError> {
        BankTransport::new(Duration::from_secs(3))
            .post(
                &format!("{}{path}", self.server.url),
                "application/json",
                json.as_bytes().to_vec(),
            )
            .await
    }

    /// Another account of the same merchant at this bank, with other secret values.
    pub fn other_account(&self, id: &str, secret: AccountCredentials) -> PosAccount {
        let acc = (self.account_of)(id);
        self.creds.insert(acc.id.clone(), secret);
        acc
    }

    /// The shared fault-plan tests on this bank, with the family's differences.
    pub fn fault_plan<'a>(
        &'a self,
        book_key: &'a str,
        technical: TechnicalError,
        late_booking: LateBooking,
    ) -> FaultPlanCase<'a> {
        FaultPlanCase {
            provider: &self.provider,
            account: &self.account,
            state: &self.state,
            book_key,
            technical,
            late_booking,
        }
    }
}

/// What a family's adapter reports for the simulator's technical-error answer.
#[derive(Debug, Clone, Copy)]
pub enum TechnicalError {
    /// Unknown (the bank may have acted), with a reason containing this text ("": any).
    Unknown(&'static str),
    /// An error with the bank's code: the family's answer says nothing was applied.
    Failed(&'static str),
}

/// Which money request of a family meets a late booking (the order hidden from the next read).
#[derive(Debug, Clone, Copy)]
pub enum LateBooking {
    /// A capture of this amount (all of it: a full capture) of a 5 000 pre-authorization.
    Capture(i64),
    /// A partial refund of this amount of a settled 5 000 sale.
    Refund(i64),
}

/// The fault-plan tests every family passes the same way: each scripted fault does to the
/// bank's ledger what it says and the adapter claims no more than it may; a late booking
/// hides the order from the first read only; reads never meet the plan; a half-done or lost
/// cancel is unknown and settled by reading, never sent twice.
pub struct FaultPlanCase<'a> {
    pub provider: &'a dyn PosProvider,
    pub account: &'a PosAccount,
    pub state: &'a SimState,
    /// The key the simulator books this account's orders under (client, merchant, terminal).
    pub book_key: &'a str,
    pub technical: TechnicalError,
    pub late_booking: LateBooking,
}

impl FaultPlanCase<'_> {
    async fn order(&self, order_id: &str, amount: i64, state: TestOrderState, settled: bool) {
        register_order(
            self.provider,
            self.account,
            order_id,
            amount,
            state,
            settled,
        )
        .await
        .expect("the simulator registers the order");
    }

    /// Refunds 1 000 of a settled 10 000 sale six times against a technical error, drops and
    /// time-outs before and after applying: only the "after" ones move money, none is
    /// approved, the plan is off once the script is used up, and the query shows 3 000 back.
    pub async fn each_fault_leaves_the_ledger_as_it_says(&self, order_id: &str) {
        self.state.fault_plan().set_hang(Duration::from_secs(2));
        self.order(order_id, 10_000, TestOrderState::Approved, true)
            .await;
        let refunded = || {
            self.state
                .ledger_of(self.book_key, order_id)
                .expect("the order is booked")
                .refunded
        };
        self.state.fault_plan().script([
            Fault::TechnicalError,
            Fault::DropBefore,
            Fault::TimeoutBefore,
            Fault::TimeoutAfter,
            Fault::DropAfter,
        ]);
        let one = op(order_id, 1_000, false);
        let out = self.provider.refund(self.account, &one).await;
        match self.technical {
            TechnicalError::Unknown(text) => assert!(
                matches!(&out, BankOutcome::Unknown { reason } if reason.contains(text)),
                "technical error: {out:?}"
            ),
            TechnicalError::Failed(want) => assert!(
                matches!(&out, BankOutcome::Error { code, .. } if code == want),
                "technical error: {out:?}"
            ),
        }
        assert_eq!(refunded(), 0, "technical error");
        for (applied, what) in [
            (0, "dropped before applying"),
            (0, "timed out before applying"),
            (1_000, "timed out after applying"),
            (2_000, "dropped after applying"),
        ] {
            let out = self.provider.refund(self.account, &one).await;
            assert!(
                matches!(out, BankOutcome::Unknown { .. }),
                "{what}: {out:?}"
            );
            assert_eq!(refunded(), applied, "{what}");
        }
        // Script used up: the plan is off again.
        let out = self.provider.refund(self.account, &one).await;
        assert!(matches!(out, BankOutcome::Approved { .. }), "{out:?}");
        // Six money requests met the plan; any reads before them did not.
        let c = self.state.fault_plan().counts();
        assert_eq!((c.money_requests, c.total()), (6, 5));
        let st = self.provider.query(self.account, order_id).await;
        assert_eq!(
            (st.state, st.refunded_amount),
            (BankState::PartiallyRefunded, 3_000)
        );
    }

    /// The late-booked request is unknown; the first query finds no record (conclusive, for
    /// the gateway's grace to weigh: never "nothing moved"), the second shows it applied.
    pub async fn a_late_booking_hides_the_order_from_the_first_query_only(&self, order_id: &str) {
        let hidden_before = self.state.fault_plan().counts().hidden_answers;
        let (out, want) = match self.late_booking {
            LateBooking::Capture(amount) => {
                self.order(order_id, 5_000, TestOrderState::Preauth, false)
                    .await;
                self.state.fault_plan().script([Fault::LateBooking]);
                let capture = op(order_id, amount, amount == 5_000);
                let out = self.provider.capture(self.account, &capture).await;
                (out, (BankState::Approved, amount))
            }
            LateBooking::Refund(amount) => {
                self.order(order_id, 5_000, TestOrderState::Approved, true)
                    .await;
                self.state.fault_plan().script([Fault::LateBooking]);
                let refund = op(order_id, amount, false);
                let out = self.provider.refund(self.account, &refund).await;
                (out, (BankState::PartiallyRefunded, amount))
            }
        };
        assert!(matches!(out, BankOutcome::Unknown { .. }), "{out:?}");
        let first = self.provider.query(self.account, order_id).await;
        assert!(!first.found && first.is_conclusive(), "{first:?}");
        let second = self.provider.query(self.account, order_id).await;
        let shown = match self.late_booking {
            LateBooking::Capture(_) => second.amount,
            LateBooking::Refund(_) => second.refunded_amount,
        };
        assert_eq!((second.state, shown), want, "{second:?}");
        let hidden = self.state.fault_plan().counts().hidden_answers;
        assert_eq!(hidden - hidden_before, 1);
    }

    /// How many reversals (`void`) the bank applied to `order_id`.
    pub fn voids(&self, order_id: &str) -> usize {
        self.state
            .ledger_of(self.book_key, order_id)
            .expect("the order is booked")
            .operations
            .iter()
            .filter(|t| t.kind == "void")
            .count()
    }

    /// A cancel of a captured 4 000 pre-authorization whose first reversal goes through and
    /// whose second is lost: unknown with a reason naming `reason` (never an error: money
    /// moved), the query shows the hold open again, and a repeated cancel finishes the job.
    pub async fn a_half_done_cancel_is_unknown_and_visible(&self, order_id: &str, reason: &str) {
        self.order(order_id, 4_000, TestOrderState::Preauth, false)
            .await;
        let all = op(order_id, 4_000, true);
        let out = self.provider.capture(self.account, &all).await;
        assert!(matches!(out, BankOutcome::Approved { .. }), "{out:?}");
        self.state
            .fault_plan()
            .script([Fault::Pass, Fault::DropBefore]);
        let out = self.provider.cancel(self.account, &all).await;
        assert!(
            matches!(&out, BankOutcome::Unknown { reason: r } if r.contains(reason)),
            "{out:?}"
        );
        let st = self.provider.query(self.account, order_id).await;
        assert_eq!((st.state, st.amount), (BankState::Preauth, 4_000), "{st:?}");
        let out = self.provider.cancel(self.account, &all).await;
        assert!(matches!(out, BankOutcome::Approved { .. }), "{out:?}");
        let st = self.provider.query(self.account, order_id).await;
        assert_eq!(st.state, BankState::Cancelled, "{st:?}");
    }

    /// A cancel of a 4 000 sale (`captured`: of a captured pre-authorization) applied but
    /// answered late: unknown; the query shows it cancelled, and a repeated cancel reads the
    /// order and is approved without a second reversal.
    pub async fn a_lost_cancel_is_settled_by_reading(&self, order_id: &str, captured: bool) {
        let all = op(order_id, 4_000, true);
        if captured {
            self.order(order_id, 4_000, TestOrderState::Preauth, false)
                .await;
            let out = self.provider.capture(self.account, &all).await;
            assert!(matches!(out, BankOutcome::Approved { .. }), "{out:?}");
        } else {
            self.order(order_id, 4_000, TestOrderState::Approved, false)
                .await;
        }
        self.state.fault_plan().set_hang(Duration::from_secs(2));
        self.state.fault_plan().script([Fault::TimeoutAfter]);
        let out = self.provider.cancel(self.account, &all).await;
        assert!(matches!(out, BankOutcome::Unknown { .. }), "{out:?}");
        let st = self.provider.query(self.account, order_id).await;
        assert_eq!(st.state, BankState::Cancelled, "{st:?}");
        let out = self.provider.cancel(self.account, &all).await;
        assert!(matches!(out, BankOutcome::Approved { .. }), "{out:?}");
        assert_eq!(self.voids(order_id), 1);
    }

    /// Every answer later than the adapter's bound `timeout`: the full capture of a 5 000
    /// pre-authorization is unknown (the bank applied it). The latency stays on.
    pub async fn a_late_answer_is_unknown(&self, order_id: &str, timeout: Duration) {
        self.order(order_id, 5_000, TestOrderState::Preauth, false)
            .await;
        *self.state.faults() = Faults {
            latency: timeout + Duration::from_millis(600),
            ..Faults::default()
        };
        let out = self
            .provider
            .capture(self.account, &op(order_id, 5_000, true))
            .await;
        assert!(matches!(out, BankOutcome::Unknown { .. }), "{out:?}");
    }

    /// Whatever the plan says, queries pass and are not counted as money requests.
    pub async fn queries_are_never_faulted(&self, order_id: &str) {
        self.order(order_id, 5_000, TestOrderState::Approved, false)
            .await;
        self.state.fault_plan().random(11, FaultOdds::uniform(160));
        for _ in 0..10 {
            let st = self.provider.query(self.account, order_id).await;
            assert!(st.is_conclusive(), "{st:?}");
        }
        assert_eq!(self.state.fault_plan().counts().money_requests, 0);
    }
}
