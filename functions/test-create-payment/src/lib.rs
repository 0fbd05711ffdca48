//! `POST /v1/test_helpers/payments` (test keys only): creates a payment to operate on and
//! registers its order at the bank simulator, so later operations and queries are real.
//!
//! Body: `{amount, currency, status: authorized|captured|pending|failed, accountId?, bankState?,
//! settled?}`. `bankState` (pending only) is what the bank holds: `approved`, `preauth`,
//! `declined` or `none` (default). `settled: true` puts the order past the bank's
//! end-of-day cut, so a cancel is declined. Live keys get 404: the route does not exist
//! for them. Only test-mode accounts are used (`accountId` of a live account: 404), so the
//! helper never writes to a live bank. With an `Idempotency-Key`, runs at most once per key
//! (`paygate_http::idempotency`). The body is read by `paygate_http::test_helpers`.

use lambda_http::{http::StatusCode, Body, Request, Response};
use paygate_domain::{
    payment::{CreatedPayment, PaymentView},
    ports::{Expectation, PaymentChange, TestOrder},
    AccountId, Mode, Payment, PaymentId, PosAccount,
};
use paygate_http::{
    body::parse_object, handlers::caller, respond, test_helpers::test_payment, ApiError,
};
use paygate_payments::OpError;

/// Dependencies, built once per Lambda instance by `paygate_compose`.
pub use paygate_compose::TestCreatePayment as Deps;

fn accepts_test_orders(deps: &Deps, account: &PosAccount) -> bool {
    deps.banks
        .provider(account)
        .is_ok_and(|p| p.test_orders().is_some())
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
    let banks = &deps.banks;
    let found = match id {
        Some(id) => {
            banks
                .account_in_mode(&who.merchant_id, Mode::Test, &id)
                .await?
        }
        None => banks
            .accounts_in_mode(&who.merchant_id, Mode::Test)
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
    let r = parse_object(req).and_then(|b| test_payment(&b))?;
    let account = account(deps, &who, r.account_id.clone()).await?;
    let now = deps.clock.now();
    let id = PaymentId::generate(deps.ids.as_ref());
    let opaque = id.as_str().trim_start_matches(PaymentId::PREFIX);
    let order_id = format!(
        "PG{}",
        opaque.chars().take(20).collect::<String>().to_uppercase()
    );
    let provider = deps.banks.provider(&account).ok();
    let orders = provider
        .as_deref()
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
