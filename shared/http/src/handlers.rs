//! The request → operation → response steps of the merchant API, shared by the functions.
//! Each function's `handle` is one call into here with its own deps.

use lambda_http::{http::StatusCode, Body, Request, RequestExt, Response};
use paygate_domain::{
    idempotency::KeyClaim,
    money::Amount,
    payment::{reversal::Reversal, PaymentView},
    ports::Clock,
    AccountId, BankStatus, CardDetails, Lang, Metadata, Note, PaymentId, Reason, Transaction,
    TransactionType,
};
use paygate_payments::{
    operate::get_payment, points_inquiry, query_payment_until, run_keyed_operation, Deadline,
    KeyAnswering, OperationDeps, PointsDeps, PointsRequest, Principal, RequestScope,
};
use serde::Serialize;

use crate::{
    body::{parse_object, Fields},
    context::principal,
    error::ApiError,
    idempotency::{AnswerStored, Unsettled},
    respond::respond,
};

/// `payment` + `transaction`: the answer to capture, cancel and refund; a reverse's adds
/// what it became (`reversal`).
#[derive(Debug, Serialize)]
pub struct OperationBody {
    pub payment: PaymentView,
    pub transaction: Transaction,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reversal: Option<Reversal>,
}

/// The spec's `bank` object.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BankBody {
    pub found: bool,
    pub state: paygate_domain::BankState,
    pub amount: i64,
    pub code: String,
    pub auth_code: String,
    pub rrn: String,
}

impl From<&BankStatus> for BankBody {
    fn from(b: &BankStatus) -> Self {
        Self {
            found: b.found,
            state: b.state,
            amount: b.amount,
            code: b.code.clone(),
            auth_code: b.auth_code.clone(),
            rrn: b.rrn.clone(),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct QueryBody {
    pub payment: PaymentView,
    pub bank: BankBody,
}

/// A payment with its transactions: the answer to `GET /v1/payments/{id}`.
#[derive(Debug, Serialize)]
pub struct PaymentBody {
    #[serde(flatten)]
    pub payment: PaymentView,
    pub transactions: Vec<Transaction>,
}

/// The language the request asks its answer in (`Accept-Language`; English by default).
pub fn request_lang(req: &Request) -> Lang {
    req.headers()
        .get("accept-language")
        .and_then(|v| v.to_str().ok())
        .map(Lang::from_accept_language)
        .unwrap_or_default()
}

/// The caller, or 401.
pub fn caller(req: &Request) -> Result<Principal, ApiError> {
    principal(req).map_err(ApiError::from)
}

/// The `{id}` path parameter. An id that cannot exist is simply not found.
pub fn path_payment_id(req: &Request) -> Result<PaymentId, ApiError> {
    req.path_parameters_ref()
        .and_then(|p| p.first("id"))
        .and_then(|s| PaymentId::parse(s).ok())
        .ok_or_else(|| ApiError::not_found("payment"))
}

/// The request's deadline: its Lambda invocation's deadline (epoch milliseconds, read
/// against `clock`, the system clock in a function); none outside Lambda (the dev server,
/// tests).
pub fn request_deadline(req: &Request, clock: &dyn Clock) -> Option<Deadline> {
    let ctx = req.lambda_context_ref()?;
    Some(Deadline::from_epoch_millis(
        ctx.deadline,
        clock.now().unix_millis(),
    ))
}

/// An optional `amount` field: minor units, valid by the domain's rule ([`Amount`]).
fn amount_field(f: &Fields<'_>) -> Result<Option<i64>, ApiError> {
    let amount = f.opt_i64("amount")?.map(Amount::new).transpose()?;
    Ok(amount.map(Amount::minor))
}

/// The body of a capture, cancel or refund: `{amount?}` for a capture (absent: the full
/// amount), `{reason?, description?, metadata?}` for a cancel, and all four for a refund.
pub fn operation_amount(req: &Request, kind: TransactionType) -> Result<Option<i64>, ApiError> {
    operation_body(req, kind).map(|(amount, _)| amount)
}

/// [`operation_amount`] and the merchant's note on a cancel or refund (`Note::default()` for
/// a capture).
pub fn operation_body(
    req: &Request,
    kind: TransactionType,
) -> Result<(Option<i64>, Note), ApiError> {
    let body = parse_object(req)?;
    let fields = Fields::new(&body);
    match kind {
        TransactionType::Capture => {
            fields.only(&["amount"])?;
            Ok((amount_field(&fields)?, Note::default()))
        }
        TransactionType::Cancel => {
            fields.only(&NOTE_FIELDS)?;
            Ok((None, note_fields(&fields)?))
        }
        TransactionType::Refund => {
            fields.only(&["amount", NOTE_FIELDS[0], NOTE_FIELDS[1], NOTE_FIELDS[2]])?;
            Ok((amount_field(&fields)?, note_fields(&fields)?))
        }
    }
}

/// The fields of a cancel's or refund's note.
const NOTE_FIELDS: [&str; 3] = ["reason", "description", "metadata"];

/// `reason?` (one of [`Reason`]'s names), `description?` and `metadata?` (an object of
/// strings), within [`paygate_domain::transaction::NoteLimits`].
fn note_fields(f: &Fields<'_>) -> Result<Note, ApiError> {
    let reason = match f.opt_str("reason")? {
        None => None,
        Some(r) => Some(Reason::parse(r).ok_or_else(|| {
            ApiError::invalid(
                "reason",
                "must be one of requested_by_customer, duplicate, fraudulent, other",
            )
        })?),
    };
    let description = f.opt_str("description")?.map(str::to_owned);
    let metadata = match f.value("metadata")? {
        None => Metadata::new(),
        Some(serde_json::Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(v) => Ok((k.clone(), v.clone())),
                // The key is named only when it is one a merchant may use (bounded, printable).
                _ => Err(ApiError::invalid(
                    &Note {
                        metadata: Metadata::from([(k.clone(), String::new())]),
                        ..Note::default()
                    }
                    .checked()
                    .map_or_else(|_| "metadata".to_owned(), |_| format!("metadata.{k}")),
                    "must be a string",
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(ApiError::invalid("metadata", "must be an object")),
    };
    Note {
        reason,
        description,
        metadata,
    }
    .checked()
    .map_err(|e| ApiError::invalid(&e.field, &e.message))
}

async fn money_operation_inner(
    ops: &OperationDeps,
    req: &Request,
    kind: TransactionType,
    claim: Option<&KeyClaim>,
    answering: Option<&dyn KeyAnswering>,
) -> Result<OperationBody, OperationError> {
    let who = caller(req)?;
    let id = path_payment_id(req)?;
    let (amount, note) = operation_body(req, kind)?;
    let scope = RequestScope {
        claim,
        answering,
        deadline: request_deadline(req, ops.clock.as_ref()),
        note: Some(&note),
        transaction_id: None,
    };
    let r = run_keyed_operation(ops, &who, &id, kind, amount, scope)
        .await
        .map_err(|e| OperationError {
            unsettled: e.leaves_unsettled(),
            error: e.into(),
        })?;
    Ok(OperationBody {
        payment: r.payment.view(),
        transaction: r.transaction,
        reversal: None,
    })
}

/// A refused or failed operation, and whether it leaves the operation unsettled.
pub(crate) struct OperationError {
    pub(crate) error: ApiError,
    pub(crate) unsettled: bool,
}

impl From<ApiError> for OperationError {
    fn from(error: ApiError) -> Self {
        Self {
            error,
            unsettled: false,
        }
    }
}

/// `POST /v1/payments/{id}/capture|cancel|refund` without an `Idempotency-Key` (see
/// [`payment_operation`] for the route with its key handling).
pub async fn money_operation(
    ops: &OperationDeps,
    req: &Request,
    kind: TransactionType,
) -> Response<Body> {
    keyed_money_operation(ops, req, kind, None).await
}

/// `POST /v1/payments/{id}/capture|cancel|refund`; with `claim`, the reservation binds the
/// request's `Idempotency-Key` to its transaction.
pub async fn keyed_money_operation(
    ops: &OperationDeps,
    req: &Request,
    kind: TransactionType,
    claim: Option<KeyClaim>,
) -> Response<Body> {
    let lang = request_lang(req);
    let answering = claim.as_ref().map(|_| CommitAnswer::new(lang));
    let result = money_operation_inner(
        ops,
        req,
        kind,
        claim.as_ref(),
        answering.as_ref().map(|a| a as &dyn KeyAnswering),
    )
    .await;
    answered_response(result, lang, answering.as_ref())
}

/// A money operation's response in `lang`, marked for the idempotency layer: an answer that
/// leaves the operation unsettled (no usable answer from the bank, or one not recorded yet)
/// is not the request's final answer and is not stored on the key; one `answering` already
/// stored with the commit is not stored again.
pub(crate) fn answered_response(
    result: Result<OperationBody, OperationError>,
    lang: Lang,
    answering: Option<&CommitAnswer>,
) -> Response<Body> {
    let unsettled = matches!(&result, Err(e) if e.unsettled);
    let mut resp = operation_response(result.map_err(|mut e| {
        e.error = e.error.localized(lang);
        e
    }));
    if unsettled {
        resp.extensions_mut().insert(Unsettled);
    }
    if answering.is_some_and(CommitAnswer::was_stored) {
        resp.extensions_mut().insert(AnswerStored);
    }
    resp
}

/// The response to an operation's result.
pub(crate) fn operation_response(result: Result<OperationBody, OperationError>) -> Response<Body> {
    respond(StatusCode::OK, result.map_err(|e| e.error))
}

pub use keyed::bound_answer;
pub(crate) use keyed::{bound_transaction, transaction_answer, CommitAnswer};

/// A keyed operation's answer stored by its commit, and the answer of a bound key.
mod keyed;

async fn query_inner(ops: &OperationDeps, req: &Request) -> Result<QueryBody, ApiError> {
    let who = caller(req)?;
    let id = path_payment_id(req)?;
    Fields::new(&parse_object(req)?).only(&[])?;
    let r = query_payment_until(ops, &who, &id, request_deadline(req, ops.clock.as_ref())).await?;
    Ok(QueryBody {
        payment: r.payment.view(),
        bank: BankBody::from(&r.bank),
    })
}

/// `POST /v1/payments/{id}/query`.
pub async fn query(ops: &OperationDeps, req: &Request) -> Response<Body> {
    respond(StatusCode::OK, query_inner(ops, req).await)
}

async fn get_inner(
    payments: &dyn paygate_domain::ports::PaymentReader,
    req: &Request,
) -> Result<PaymentBody, ApiError> {
    let who = caller(req)?;
    let id = path_payment_id(req)?;
    let payment = get_payment(payments, &who, &id).await?;
    let transactions = payments
        .list_transactions(&payment.id)
        .await
        .map_err(paygate_payments::OpError::from)?;
    Ok(PaymentBody {
        payment: payment.view(),
        transactions,
    })
}

/// `GET /v1/payments/{id}`.
pub async fn get(
    payments: &dyn paygate_domain::ports::PaymentReader,
    req: &Request,
) -> Response<Body> {
    respond(StatusCode::OK, get_inner(payments, req).await)
}

/// Every transaction of a payment, oldest first: the answer to
/// `GET /v1/payments/{id}/transactions`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TransactionList {
    pub object: &'static str,
    pub payment_id: PaymentId,
    pub data: Vec<Transaction>,
}

async fn transactions_inner(
    payments: &dyn paygate_domain::ports::PaymentReader,
    req: &Request,
) -> Result<TransactionList, ApiError> {
    let who = caller(req)?;
    let id = path_payment_id(req)?;
    // The payment first, as `GET /v1/payments/{id}` reads it: another merchant's or mode's
    // payment is the same 404, and its transactions are never read.
    let payment = get_payment(payments, &who, &id).await?;
    let data = payments
        .list_transactions(&payment.id)
        .await
        .map_err(paygate_payments::OpError::from)?;
    Ok(TransactionList {
        object: "list",
        payment_id: payment.id,
        data,
    })
}

/// The route key of the transactions list (the HTTP API's `routeKey`).
pub const TRANSACTIONS_ROUTE: &str = "GET /v1/payments/{id}/transactions";

/// Whether `req` is for the transactions list rather than the payment (both are served by
/// the get-payment function): by the HTTP API's route key, or without one by the path.
pub fn is_transactions_request(req: &Request) -> bool {
    use lambda_http::request::RequestContext;
    match req.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(ctx)) if ctx.route_key.is_some() => {
            ctx.route_key.as_deref() == Some(TRANSACTIONS_ROUTE)
        }
        _ => req.uri().path().ends_with("/transactions"),
    }
}

/// `GET /v1/payments/{id}/transactions`.
pub async fn transactions(
    payments: &dyn paygate_domain::ports::PaymentReader,
    req: &Request,
) -> Response<Body> {
    respond(StatusCode::OK, transactions_inner(payments, req).await)
}

/// The body of a points inquiry: `{card{number,expMonth,expYear,cvv,holder}, currency,
/// accountId?}`.
pub fn parse_points(req: &Request) -> Result<PointsRequest, ApiError> {
    let body = parse_object(req)?;
    let f = Fields::new(&body);
    f.only(&["card", "currency", "accountId"])?;
    let card = f.req_object("card")?;
    let c = Fields::nested(card, "card");
    c.only(&["number", "expMonth", "expYear", "cvv", "holder"])?;
    let card = CardDetails {
        number: c.req_str("number")?.to_owned(),
        exp_month: c.req_str("expMonth")?.to_owned(),
        exp_year: c.req_str("expYear")?.to_owned(),
        cvv: c.req_str("cvv")?.to_owned(),
        holder: c.req_str("holder")?.to_owned(),
    };
    let currency = f.req_str("currency")?.to_owned();
    let account_id = match f.opt_str("accountId")? {
        None => None,
        Some(s) => Some(
            AccountId::parse(s)
                .map_err(|_| ApiError::invalid("accountId", "must be an acc_… id"))?,
        ),
    };
    Ok(PointsRequest {
        card,
        currency,
        account_id,
    })
}

async fn points_inner(
    deps: &PointsDeps,
    req: &Request,
) -> Result<paygate_payments::PointsResponse, ApiError> {
    let who = caller(req)?;
    let request = parse_points(req)?;
    Ok(points_inquiry(deps, &who, request).await?)
}

/// `POST /v1/payments/points/inquiry`.
pub async fn points(deps: &PointsDeps, req: &Request) -> Response<Body> {
    respond(StatusCode::OK, points_inner(deps, req).await)
}

/// The four money-path operations on one payment, each a Lambda of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentOperation {
    Capture,
    Cancel,
    Refund,
    Query,
    /// `POST /v1/payments/{id}/reverse` (served by the refund function): `crate::reverse`.
    Reverse,
}

/// The one handler of `POST /v1/payments/{id}/capture|cancel|refund|query`: the operation
/// under the request's `Idempotency-Key` (`crate::idempotency`).
pub async fn payment_operation(
    ops: &OperationDeps,
    idempotency: &crate::Idempotency,
    op: PaymentOperation,
    req: &Request,
) -> Response<Body> {
    let kind = match op {
        PaymentOperation::Capture => TransactionType::Capture,
        PaymentOperation::Cancel => TransactionType::Cancel,
        PaymentOperation::Refund => TransactionType::Refund,
        PaymentOperation::Query => {
            return crate::idempotent(idempotency, req, query(ops, req)).await;
        }
        PaymentOperation::Reverse => {
            return crate::idempotent_operation(
                idempotency,
                req,
                |claim| Box::pin(crate::reverse::keyed_reverse(ops, req, claim)),
                |binding| Box::pin(crate::reverse::bound_reverse(ops, req, binding)),
            )
            .await;
        }
    };
    // Boxed: a money operation is a large future; on the heap it does not weigh on every
    // caller's frame (the dev server's router holds all the routes' futures).
    crate::idempotent_operation(
        idempotency,
        req,
        |claim| Box::pin(keyed_money_operation(ops, req, kind, claim)),
        |binding| Box::pin(bound_answer(ops, req, binding)),
    )
    .await
}
