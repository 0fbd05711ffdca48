//! The handler CPU figures (`make bench`, after the function table): what the gateway's own
//! code costs per request, with the stores in memory and a bank that approves at once, so
//! nothing but our code is measured: capture, refund, query, the webhook envelope with its
//! signature headers, and the SSRF check of an endpoint URL.
//!
//! Per case: nanoseconds per operation (the median of `BENCH_CPU_ROUNDS` rounds of
//! `BENCH_CPU_OPS` operations each), heap allocations and bytes allocated per operation
//! (a counting global allocator). Run in release: `cargo run --release -p paygate-tests --bin
//! handler-cpu`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// Durations and ratios of measurements (no money here): floats are the right type.
#![allow(clippy::float_arithmetic, clippy::cast_precision_loss)]

use std::{hint::black_box, sync::Arc, time::Instant};

use async_trait::async_trait;
use paygate_domain::{
    bank::{BankOutcome, BankState, BankStatus, CardDetails, PointsResult},
    ids::ApiKeyId,
    ports::{BankOperation, PosProvider},
    testkit::{ManualClock, MemoryAccounts, MemoryPayments, MemoryPublisher, SeqIds, T0},
    AccountId, Currency, EventId, EventRecord, EventType, MerchantId, Mode, OperationSet, Payment,
    PaymentId, PaymentStatus, PosAccount, TransactionType,
};
use paygate_payments::{
    query_payment, run_operation, BankAccess, EventSink, OperationDeps, Principal, Providers,
};
use paygate_webhooks::sender::{deliver::signed_headers, ssrf};

// Counts allocations only while a (testing-mode) dhat profiler runs: the timed rounds run
// without one, so its bookkeeping does not enter the times.
#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// A bank that approves everything at once: the bank's cost is not ours.
struct InstantBank;

const BANK: &str = "instant";

#[async_trait]
impl PosProvider for InstantBank {
    fn code(&self) -> &'static str {
        BANK
    }
    async fn capture(&self, _: &PosAccount, _: &BankOperation) -> BankOutcome {
        approved()
    }
    async fn cancel(&self, _: &PosAccount, _: &BankOperation) -> BankOutcome {
        approved()
    }
    async fn refund(&self, _: &PosAccount, _: &BankOperation) -> BankOutcome {
        approved()
    }
    async fn query(&self, _: &PosAccount, _: &str) -> BankStatus {
        BankStatus {
            found: true,
            state: BankState::Approved,
            amount: 10_000,
            refunded_amount: 0,
            code: "00".to_owned(),
            ..BankStatus::not_found("00")
        }
    }
    async fn points_inquiry(&self, _: &PosAccount, _: &CardDetails, _: Currency) -> PointsResult {
        PointsResult::Ok { balances: vec![] }
    }
}

fn approved() -> BankOutcome {
    BankOutcome::Approved {
        code: "00".to_owned(),
        auth_code: Some("123456".to_owned()),
        rrn: Some("000000000001".to_owned()),
    }
}

struct World {
    deps: OperationDeps,
    store: Arc<MemoryPayments>,
    principal: Principal,
}

fn world() -> World {
    let accounts = Arc::new(MemoryAccounts::default());
    accounts.insert(PosAccount {
        id: AccountId::parse("acc_bench").expect("id"),
        merchant_id: MerchantId::parse("mch_bench").expect("id"),
        provider_code: BANK.into(),
        bank_code: "0064".into(),
        bank_name: "Bench Bank".into(),
        supported: OperationSet::all(),
        label: String::new(),
        mode: Mode::Test,
    });
    let store = Arc::new(MemoryPayments::default());
    let publisher = Arc::new(MemoryPublisher::default());
    World {
        deps: OperationDeps {
            payments: store.clone(),
            banks: BankAccess::new(accounts, Providers::new().register(Arc::new(InstantBank))),
            clock: Arc::new(ManualClock::at(T0)),
            ids: Arc::new(SeqIds::default()),
            events: EventSink { publisher },
            stale_after: paygate_domain::StaleAfter::DEFAULT,
            pending_grace: paygate_domain::PendingGrace::DEFAULT,
        },
        store,
        principal: Principal {
            merchant_id: MerchantId::parse("mch_bench").expect("id"),
            mode: Mode::Test,
            key_id: ApiKeyId::parse("key_bench").expect("id"),
        },
    }
}

fn payment(n: usize, status: PaymentStatus) -> Payment {
    let captured = if status == PaymentStatus::Captured {
        10_000
    } else {
        0
    };
    Payment {
        id: PaymentId::parse(&format!("pay_bench{n}")).expect("id"),
        merchant_id: MerchantId::parse("mch_bench").expect("id"),
        mode: Mode::Test,
        account_id: AccountId::parse("acc_bench").expect("id"),
        order_id: format!("ORDBENCH{n}"),
        currency: Currency::Try,
        amount: 10_000,
        captured_amount: captured,
        refunded_amount: 0,
        status,
        pending: None,
        auth_code: String::new(),
        rrn: String::new(),
        version: 1,
        created_at: T0,
        updated_at: T0,
    }
}

/// One case's figures.
struct Figures {
    ns: f64,
    allocs: f64,
    bytes: f64,
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|v| *v > 0)
        .unwrap_or(default)
}

/// Runs `rounds` timed rounds of `ops` operations, then one counted round under the
/// allocation profiler; `setup(round)` prepares a round outside the measurement, `op(round,
/// i)` is measured.
fn measure<S, F>(rounds: usize, ops: usize, mut setup: S, mut op: F) -> Figures
where
    S: FnMut(usize),
    F: FnMut(usize, usize),
{
    let mut ns = Vec::with_capacity(rounds);
    for r in 0..rounds {
        setup(r);
        let t = Instant::now();
        for i in 0..ops {
            op(r, i);
        }
        ns.push(t.elapsed().as_nanos() as f64 / ops as f64);
    }
    ns.sort_by(f64::total_cmp);
    setup(rounds);
    let counted = ops.min(200);
    let profiler = dhat::Profiler::builder().testing().build();
    let before = dhat::HeapStats::get();
    for i in 0..counted {
        op(rounds, i);
    }
    let after = dhat::HeapStats::get();
    drop(profiler);
    Figures {
        ns: ns[rounds / 2],
        allocs: (after.total_blocks - before.total_blocks) as f64 / counted as f64,
        bytes: (after.total_bytes - before.total_bytes) as f64 / counted as f64,
    }
}

fn main() {
    let rounds = env_usize("BENCH_CPU_ROUNDS", 7);
    let ops = env_usize("BENCH_CPU_OPS", 2_000);
    let rows = run(rounds, ops);
    println!("handler CPU ({rounds} rounds × {ops} operations, median round; in-memory stores, an instantly approving bank)");
    println!("| case | µs/op | allocations/op | KiB allocated/op |");
    println!("|---|---:|---:|---:|");
    for (name, f) in rows {
        println!(
            "| {name} | {:.2} | {:.0} | {:.1} |",
            f.ns / 1_000.0,
            f.allocs,
            f.bytes / 1024.0
        );
    }
}

/// Every case's figures.
fn run(rounds: usize, ops: usize) -> Vec<(&'static str, Figures)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    // A fresh world per round: the in-memory store's own cost (it scans its transactions)
    // must not grow with the rounds and stand in for the handler's.
    let cell = std::cell::RefCell::new(world());
    let id =
        |r: usize, i: usize| PaymentId::parse(&format!("pay_bench{}", r * ops + i)).expect("id");
    let cell = &cell;
    let fill = |status: PaymentStatus| {
        move |r: usize| {
            let w = world();
            for i in 0..ops {
                w.store.insert(payment(r * ops + i, status));
            }
            *cell.borrow_mut() = w;
        }
    };

    // A money operation of `kind` (and `amount`) on each payment, filled in `status`.
    let money = |status: PaymentStatus, kind: TransactionType, amount: Option<i64>| {
        measure(rounds, ops, fill(status), |r, i| {
            let w = cell.borrow();
            let res = rt.block_on(run_operation(
                &w.deps,
                &w.principal,
                &id(r, i),
                kind,
                amount,
            ));
            black_box(res.unwrap_or_else(|e| panic!("{kind:?}: {e:?}")));
        })
    };

    let mut rows: Vec<(&str, Figures)> = Vec::new();
    rows.push((
        "capture (full)",
        money(PaymentStatus::Authorized, TransactionType::Capture, None),
    ));
    rows.push((
        "refund (partial)",
        money(
            PaymentStatus::Captured,
            TransactionType::Refund,
            Some(2_500),
        ),
    ));
    rows.push((
        "query (no change)",
        measure(rounds, ops, fill(PaymentStatus::Captured), |r, i| {
            let w = cell.borrow();
            let res = rt.block_on(query_payment(&w.deps, &w.principal, &id(r, i)));
            black_box(res.expect("query"));
        }),
    ));

    let event = EventRecord::for_payment(
        EventId::parse("evt_bench").expect("id"),
        EventType::PaymentCaptured,
        &payment(0, PaymentStatus::Captured),
        T0,
    );
    let secrets = [
        "whsec_current0123456789abcdef",
        "whsec_previous0123456789abcdef",
    ];
    rows.push((
        "webhook envelope + 2 signatures",
        measure(
            rounds,
            ops,
            |_| {},
            |_, _| {
                let body = paygate_domain::webhook::Envelope::of(black_box(&event)).to_bytes();
                black_box(signed_headers(
                    "payment.captured",
                    "dlv_bench",
                    &secrets,
                    1_795_000_000,
                    &body,
                ));
            },
        ),
    ));
    let policy = ssrf::EgressPolicy::strict();
    rows.push((
        "SSRF check of an endpoint URL",
        measure(
            rounds,
            ops,
            |_| {},
            |_, _| {
                black_box(
                    ssrf::check_url(
                        black_box("https://hooks.merchant.example/paygate?x=1"),
                        &policy,
                    )
                    .ok(),
                );
                black_box(ssrf::ip_forbidden(black_box(
                    "10.1.2.3".parse().expect("ip"),
                )));
            },
        ),
    ));

    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case runs its operation for real (a failed capture, refund or query panics)
    /// and the counts see the allocations a money operation makes.
    #[test]
    fn every_case_runs_and_is_counted() {
        let rows = run(1, 3);
        assert_eq!(rows.len(), 5);
        for (name, f) in &rows {
            assert!(f.ns > 0.0, "{name}");
        }
        assert!(
            rows[0].1.allocs >= 1.0 && rows[0].1.bytes > 0.0,
            "capture allocates"
        );
    }
}
