//! Test keys never reach live bank credentials (and live payments never a test bank): an
//! account serves only its own mode. Money operations and query on a payment whose account
//! is of the other mode are refused as `NotFound("account")` before anything is reserved or
//! sent; points inquiry chooses only accounts of the caller's mode.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use paygate_domain::testkit::{
    ManualClock, MemoryAccounts, MemoryBins, MemoryPayments, MemoryPublisher, SeqIds, T0,
};
use paygate_domain::{
    ids::ApiKeyId,
    ports::{BankOperation, PosProvider},
    AccountId, BankOutcome, BankStatus, BinInfo, CardDetails, Currency, MerchantId, Mode,
    OperationSet, Payment, PaymentId, PaymentStatus, PointsResult, PosAccount, TransactionType,
};
use paygate_payments::{
    points_inquiry, query_payment, run_operation, BankAccess, EventSink, OpError, OperationDeps,
    PointsDeps, PointsRequest, Principal, Providers,
};

/// No per-card limit (this suite is about modes).
struct NoCardLimit;

#[async_trait]
impl paygate_payments::points::CardGate for NoCardLimit {
    async fn admit(
        &self,
        _who: &Principal,
        _number: &str,
    ) -> Result<(), paygate_domain::throttle::Refused> {
        Ok(())
    }
}

/// A bank that approves everything and records which account each call used.
#[derive(Default)]
struct RecordingBank {
    calls: Mutex<Vec<(String, AccountId)>>,
}

impl RecordingBank {
    fn record(&self, what: &str, account: &PosAccount) {
        self.calls
            .lock()
            .unwrap()
            .push((what.to_owned(), account.id.clone()));
    }

    fn calls(&self) -> Vec<(String, AccountId)> {
        self.calls.lock().unwrap().clone()
    }
}

fn approved() -> BankOutcome {
    BankOutcome::Approved {
        code: "00".into(),
        auth_code: Some("123456".into()),
        rrn: Some("000000000001".into()),
    }
}

#[async_trait]
impl PosProvider for RecordingBank {
    fn code(&self) -> &'static str {
        "recording"
    }

    fn supported(&self) -> OperationSet {
        OperationSet::all()
    }

    async fn capture(&self, account: &PosAccount, _op: &BankOperation) -> BankOutcome {
        self.record("capture", account);
        approved()
    }

    async fn cancel(&self, account: &PosAccount, _op: &BankOperation) -> BankOutcome {
        self.record("cancel", account);
        approved()
    }

    async fn refund(&self, account: &PosAccount, _op: &BankOperation) -> BankOutcome {
        self.record("refund", account);
        approved()
    }

    async fn query(&self, account: &PosAccount, _order_id: &str) -> BankStatus {
        self.record("query", account);
        BankStatus::unavailable("96")
    }

    async fn points_inquiry(
        &self,
        account: &PosAccount,
        _card: &CardDetails,
        _currency: Currency,
    ) -> PointsResult {
        self.record("points", account);
        PointsResult::Ok {
            balances: Vec::new(),
        }
    }
}

fn merchant() -> MerchantId {
    MerchantId::parse("mch_a").unwrap()
}

fn account(id: &str, mode: Mode, supported: OperationSet) -> PosAccount {
    PosAccount {
        id: AccountId::parse(id).unwrap(),
        merchant_id: merchant(),
        provider_code: "recording".into(),
        bank_code: "0062".into(),
        bank_name: "Türkiye Garanti Bankası".into(),
        supported,
        label: String::new(),
        mode,
    }
}

fn principal(mode: Mode) -> Principal {
    Principal {
        merchant_id: merchant(),
        mode,
        key_id: ApiKeyId::parse("key_a").unwrap(),
    }
}

struct World {
    bank: Arc<RecordingBank>,
    store: Arc<MemoryPayments>,
    ops: OperationDeps,
    points: PointsDeps,
}

/// Accounts at one bank (Garanti, BIN 540669): `acc_test` (test, no points inquiry) and
/// `acc_live` (live, everything). A points inquiry that ignored modes would prefer the live
/// one for a test key.
fn world() -> World {
    let bank = Arc::new(RecordingBank::default());
    let accounts = Arc::new(MemoryAccounts::default());
    let no_points = OperationSet::of(&[
        paygate_domain::Operation::Capture,
        paygate_domain::Operation::Cancel,
        paygate_domain::Operation::Refund,
        paygate_domain::Operation::Query,
    ]);
    accounts.insert(account("acc_live", Mode::Live, OperationSet::all()));
    accounts.insert(account("acc_test", Mode::Test, no_points));
    let bins = Arc::new(MemoryBins::default());
    bins.insert(BinInfo {
        bin: "540669".into(),
        bank_code: "0062".into(),
        bank_name: "Türkiye Garanti Bankası".into(),
        program: "Bonus".into(),
    });
    let store = Arc::new(MemoryPayments::default());
    let providers = Providers::new().register(bank.clone());
    World {
        ops: OperationDeps {
            payments: store.clone(),
            banks: BankAccess::new(accounts.clone(), providers.clone()),
            clock: Arc::new(ManualClock::at(T0)),
            ids: Arc::new(SeqIds::default()),
            events: EventSink {
                publisher: Arc::new(MemoryPublisher::default()),
            },
            stale_after: paygate_domain::StaleAfter::DEFAULT,
            pending_grace: paygate_domain::PendingGrace::DEFAULT,
        },
        points: PointsDeps {
            banks: BankAccess::new(accounts, providers),
            bins,
            card_gate: Arc::new(NoCardLimit),
        },
        bank,
        store,
    }
}

impl World {
    fn payment(&self, id: &str, mode: Mode, account: &str, status: PaymentStatus) -> PaymentId {
        let id = PaymentId::parse(id).unwrap();
        self.store.insert(Payment {
            id: id.clone(),
            merchant_id: merchant(),
            mode,
            account_id: AccountId::parse(account).unwrap(),
            order_id: "ORD1".into(),
            currency: Currency::Try,
            amount: 10_000,
            captured_amount: if status == PaymentStatus::Captured {
                10_000
            } else {
                0
            },
            refunded_amount: 0,
            status,
            pending: None,
            auth_code: String::new(),
            rrn: String::new(),
            version: 1,
            created_at: T0,
            updated_at: T0,
        });
        id
    }
}

fn card(number: &str) -> CardDetails {
    CardDetails {
        number: number.into(),
        exp_month: "12".into(),
        exp_year: "2030".into(),
        cvv: "123".into(),
        holder: "Ayşe Yılmaz".into(),
    }
}

fn inquiry(account_id: Option<&str>) -> PointsRequest {
    PointsRequest {
        // A Luhn-valid card of BIN 540669 (Garanti).
        card: card(&luhn_complete("540669000000000")),
        currency: "TRY".into(),
        account_id: account_id.map(|a| AccountId::parse(a).unwrap()),
    }
}

/// `prefix` plus the check digit that makes it Luhn-valid (the domain's rule).
fn luhn_complete(prefix: &str) -> String {
    (0..10)
        .map(|d| format!("{prefix}{d}"))
        .find(|c| paygate_domain::bank::luhn_valid(c))
        .unwrap()
}

#[tokio::test]
async fn a_test_payment_on_a_live_account_is_refused_and_the_bank_untouched() {
    let w = world();
    let who = principal(Mode::Test);
    // GIVEN test payments whose account is a live one (a misconfiguration)
    let authorized = w.payment("pay_a", Mode::Test, "acc_live", PaymentStatus::Authorized);
    let captured = w.payment("pay_c", Mode::Test, "acc_live", PaymentStatus::Captured);
    // WHEN a test key captures, cancels, refunds or queries them
    for (id, kind) in [
        (&authorized, TransactionType::Capture),
        (&authorized, TransactionType::Cancel),
        (&captured, TransactionType::Refund),
    ] {
        let r = run_operation(&w.ops, &who, id, kind, None).await;
        // THEN refused as an absent account (404), not an internal error
        assert!(
            matches!(r, Err(OpError::NotFound("account"))),
            "{kind:?}: {r:?}"
        );
    }
    let r = query_payment(&w.ops, &who, &authorized).await;
    assert!(matches!(r, Err(OpError::NotFound("account"))), "{r:?}");
    // AND nothing reached the bank, nothing was reserved or recorded
    assert!(w.bank.calls().is_empty());
    for id in [&authorized, &captured] {
        let p = w.store.payment(id).unwrap();
        assert_eq!((p.version, p.pending.is_none()), (1, true));
    }
    assert!(w.store.events().is_empty());
}

#[tokio::test]
async fn a_live_payment_on_a_test_account_is_refused_too() {
    let w = world();
    let id = w.payment("pay_l", Mode::Live, "acc_test", PaymentStatus::Authorized);
    let r = run_operation(
        &w.ops,
        &principal(Mode::Live),
        &id,
        TransactionType::Capture,
        None,
    )
    .await;
    assert!(matches!(r, Err(OpError::NotFound("account"))), "{r:?}");
    assert!(w.bank.calls().is_empty());
}

#[tokio::test]
async fn payments_on_accounts_of_their_own_mode_go_through() {
    let w = world();
    let test = w.payment("pay_t", Mode::Test, "acc_test", PaymentStatus::Authorized);
    let live = w.payment("pay_l", Mode::Live, "acc_live", PaymentStatus::Authorized);
    run_operation(
        &w.ops,
        &principal(Mode::Test),
        &test,
        TransactionType::Capture,
        None,
    )
    .await
    .unwrap();
    run_operation(
        &w.ops,
        &principal(Mode::Live),
        &live,
        TransactionType::Capture,
        None,
    )
    .await
    .unwrap();
    assert_eq!(
        w.bank.calls(),
        [
            ("capture".to_owned(), AccountId::parse("acc_test").unwrap()),
            ("capture".to_owned(), AccountId::parse("acc_live").unwrap()),
        ]
    );
}

#[tokio::test]
async fn a_test_keys_points_inquiry_never_picks_a_live_account() {
    let w = world();
    // WHEN a test key asks by BIN, where only the live account supports points inquiry
    let r = points_inquiry(&w.points, &principal(Mode::Test), inquiry(None)).await;
    // THEN the test account is chosen (and does not support it): nothing sent
    match r {
        Err(OpError::Unsupported { account_id, .. }) => assert_eq!(account_id, "acc_test"),
        other => panic!("{other:?}"),
    }
    // AND naming the live account is 404, like another merchant's account
    let r = points_inquiry(&w.points, &principal(Mode::Test), inquiry(Some("acc_live"))).await;
    assert!(matches!(r, Err(OpError::NotFound("account"))), "{r:?}");
    assert!(w.bank.calls().is_empty());

    // AND a live key gets the live account, by BIN and by id
    for req in [inquiry(None), inquiry(Some("acc_live"))] {
        let ok = points_inquiry(&w.points, &principal(Mode::Live), req)
            .await
            .unwrap();
        assert_eq!(ok.account_id.as_str(), "acc_live");
    }
    // AND a live key naming the test account gets 404
    let r = points_inquiry(&w.points, &principal(Mode::Live), inquiry(Some("acc_test"))).await;
    assert!(matches!(r, Err(OpError::NotFound("account"))), "{r:?}");
    assert_eq!(w.bank.calls().len(), 2);
}
