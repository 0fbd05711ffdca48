//! `POST /v1/test_helpers/payments` (test keys only): creates a payment to operate on and
//! registers its order at the bank simulator, so later operations and queries are real.
//!
//! Body: `{amount, currency, status: authorized|captured|pending|failed, accountId?, bankState?,
//! settled?}`. `bankState` (pending only) is what the bank holds: `approved`, `preauth`,
//! `declined` or `none` (default). `settled: true` puts the order past the bank's
//! end-of-day cut, so a cancel is declined. Live keys get 404: the route does not exist
//! for them. Only test-mode accounts are used (`accountId` of a live account: 404), so the
//! helper never writes to a live bank. With an `Idempotency-Key`, runs at most once per key
//! (`paygate_http::idempotency`).

use lambda_http::{http::StatusCode, Body, Request, Response};
use paygate_domain::{
    money::Amount,
    payment::{CreatedPayment, PaymentView},
    ports::{Expectation, PaymentChange, TestOrder, TestOrderState},
    AccountId, Currency, Mode, Payment, PaymentId, PaymentStatus, PosAccount,
};
use paygate_http::{
    body::{parse_object, Fields},
    handlers::caller,
    respond, ApiError,
};
use paygate_payments::{
    accounts::{account_in_mode, accounts_in_mode},
    OpError,
};

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::TestCreatePayment as Deps;

struct CreateRequest {
    amount: i64,
    currency: Currency,
    status: PaymentStatus,
    account_id: Option<AccountId>,
    bank_state: TestOrderState,
    settled: bool,
}

fn parse(req: &Request) -> Result<CreateRequest, ApiError> {
    let body = parse_object(req)?;
    let f = Fields::new(&body);
    f.only(&[
        "amount",
        "currency",
        "status",
        "accountId",
        "bankState",
        "settled",
    ])?;
    let amount = Amount::new(f.req_i64("amount")?)?.minor();
    let currency = Currency::parse(f.req_str("currency")?)
        .ok_or_else(|| ApiError::invalid("currency", "must be one of TRY, USD, EUR, GBP"))?;
    let status = match f.req_str("status")? {
        "authorized" => PaymentStatus::Authorized,
        "captured" => PaymentStatus::Captured,
        "pending" => PaymentStatus::Pending,
        // A payment that failed before the bank booked anything (the bank holds no record).
        // Not reachable through query quickly: "no record" counts only after a grace period.
        "failed" => PaymentStatus::Failed,
        _ => {
            return Err(ApiError::invalid(
                "status",
                "must be authorized, captured, pending or failed",
            ))
        }
    };
    let bank_state = match (status, f.opt_str("bankState")?) {
        (PaymentStatus::Authorized, None) => TestOrderState::Preauth,
        (PaymentStatus::Captured, None) => TestOrderState::Approved,
        (_, None) => TestOrderState::None,
        (PaymentStatus::Pending, Some(s)) => TestOrderState::parse(s).ok_or_else(|| {
            ApiError::invalid("bankState", "must be approved, preauth, declined or none")
        })?,
        (_, Some(_)) => {
            return Err(ApiError::invalid(
                "bankState",
                "is only for pending payments",
            ))
        }
    };
    let account_id = f
        .opt_str("accountId")?
        .map(|s| {
            AccountId::parse(s).map_err(|_| ApiError::invalid("accountId", "must be an acc_… id"))
        })
        .transpose()?;
    let settled = f.opt_bool("settled")?.unwrap_or(false);
    Ok(CreateRequest {
        amount,
        currency,
        status,
        account_id,
        bank_state,
        settled,
    })
}

fn accepts_test_orders(deps: &Deps, account: &PosAccount) -> bool {
    deps.providers
        .get(&account.provider_code)
        .is_some_and(|p| p.test_orders().is_some())
}

/// The test-mode account to register the order on: the one named or the merchant's first
/// whose bank accepts test orders. Only test-mode accounts, whatever the caller: a live
/// account's bank (and its credentials) is never written to; naming one is `404`, as for
/// another merchant's account.
async fn account(
    deps: &Deps,
    who: &paygate_payments::Principal,
    id: Option<AccountId>,
) -> Result<PosAccount, ApiError> {
    let accounts = deps.accounts.as_ref();
    let found = match id {
        Some(id) => account_in_mode(accounts, &who.merchant_id, Mode::Test, &id).await?,
        None => accounts_in_mode(accounts, &who.merchant_id, Mode::Test)
            .await?
            .into_iter()
            .find(|a| accepts_test_orders(deps, a)),
    };
    let account = found.ok_or_else(|| ApiError::not_found("account"))?;
    if !accepts_test_orders(deps, &account) {
        return Err(ApiError::invalid(
            "accountId",
            "must be an account whose bank accepts test orders (a simulator)",
        ));
    }
    Ok(account)
}

async fn create(deps: &Deps, req: &Request) -> Result<PaymentView, ApiError> {
    let who = caller(req)?;
    if who.mode != Mode::Test {
        return Err(ApiError::not_found("route"));
    }
    let r = parse(req)?;
    let account = account(deps, &who, r.account_id.clone()).await?;
    let now = deps.clock.now();
    let id = PaymentId::generate(deps.ids.as_ref());
    let opaque = id.as_str().trim_start_matches(PaymentId::PREFIX);
    let order_id = format!(
        "PG{}",
        opaque.chars().take(20).collect::<String>().to_uppercase()
    );
    let orders = deps
        .providers
        .get(&account.provider_code)
        .and_then(|p| p.test_orders())
        .ok_or_else(|| {
            ApiError::invalid(
                "accountId",
                "must be an account whose bank accepts test orders",
            )
        })?;
    let order = TestOrder {
        order_id: order_id.clone(),
        amount: r.amount,
        currency: r.currency,
        state: r.bank_state,
        settled: r.settled,
    };
    orders.register(&account, &order).await.map_err(|e| {
        tracing::warn!(account_id = %account.id, error = %e, "bank refused the test order");
        ApiError::new(
            StatusCode::BAD_GATEWAY,
            "test_order_failed",
            "The account's bank did not accept the test order.",
        )
    })?;
    let payment = Payment::created(
        CreatedPayment {
            id,
            merchant_id: who.merchant_id,
            mode: Mode::Test,
            account_id: account.id,
            order_id,
            currency: r.currency,
            amount: r.amount,
            status: r.status,
        },
        now,
    );
    deps.payments
        .save(PaymentChange {
            payment: payment.clone(),
            expect: Expectation::Absent,
            transaction: None,
            event: None,
        })
        .await
        .map_err(OpError::from)?;
    Ok(payment.view())
}

pub async fn handle(deps: &Deps, req: Request) -> Response<Body> {
    let run = async { respond(StatusCode::CREATED, create(deps, &req).await) };
    let run = paygate_http::idempotent(&deps.idempotency, &req, run);
    paygate_http::throttled(
        &deps.throttle,
        paygate_http::throttle::Scope::Api,
        &req,
        run,
    )
    .await
}
