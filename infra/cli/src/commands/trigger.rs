//! `paygate trigger <event>`: a scenario on the merchant API, in test mode, whose last
//! step makes the gateway emit `<event>`. It creates a test payment with
//! `POST /v1/test_helpers/payments` and runs the operations that produce the event; every
//! enabled test-mode endpoint subscribed to it then gets a webhook.

use std::io::Write;

use clap::{Args, ValueEnum};
use serde_json::{json, Value};

use crate::{
    config::Ctx,
    model::{decode, Payment},
    output, CliError,
};

/// The events a scenario can produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TriggerEvent {
    /// An authorized payment, captured.
    #[value(name = "payment.captured")]
    Captured,
    /// A captured payment, refunded in full.
    #[value(name = "payment.refunded")]
    Refunded,
    /// An authorized payment, cancelled.
    #[value(name = "payment.cancelled")]
    Cancelled,
    /// A pending payment the bank holds as a pre-authorization, settled by a query.
    #[value(name = "payment.authorized")]
    Authorized,
    /// A pending payment the bank declined, settled by a query.
    #[value(name = "payment.failed")]
    Failed,
}

impl TriggerEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Captured => "payment.captured",
            Self::Refunded => "payment.refunded",
            Self::Cancelled => "payment.cancelled",
            Self::Authorized => "payment.authorized",
            Self::Failed => "payment.failed",
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct TriggerArgs {
    /// The event to produce.
    #[arg(value_enum)]
    pub event: TriggerEvent,
    /// The test payment's amount in minor units (5100, 9100 and 9900 are the simulator's
    /// decline, error and time-out triggers: avoid them here).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(i64).range(1..))]
    pub amount: i64,
    #[arg(long, default_value = "TRY")]
    pub currency: String,
    /// The POS account (`acc_…`); the API picks the merchant's default when absent.
    #[arg(long, value_name = "ACC_ID")]
    pub account: Option<String>,
}

/// What a scenario does: the test payment to create, then the operations in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub create: Value,
    pub operations: Vec<&'static str>,
}

/// The scenario of `args.event`.
pub fn plan(args: &TriggerArgs) -> Plan {
    let (status, bank_state, operations): (&str, Option<&str>, Vec<&'static str>) = match args.event
    {
        TriggerEvent::Captured => ("authorized", None, vec!["capture"]),
        TriggerEvent::Refunded => ("captured", None, vec!["refund"]),
        TriggerEvent::Cancelled => ("authorized", None, vec!["cancel"]),
        TriggerEvent::Authorized => ("pending", Some("preauth"), vec!["query"]),
        TriggerEvent::Failed => ("pending", Some("declined"), vec!["query"]),
    };
    let mut create = json!({
        "amount": args.amount,
        "currency": args.currency,
        "status": status,
    });
    if let Some(b) = bank_state {
        create["bankState"] = json!(b);
    }
    if let Some(a) = &args.account {
        create["accountId"] = json!(a);
    }
    Plan { create, operations }
}

/// What a scenario did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub payment_id: String,
    /// The payment's status after the last operation.
    pub status: String,
    pub event: TriggerEvent,
}

/// Runs the scenario with `--api-key` (a test key); prints each step and the expected event.
pub async fn run(ctx: &Ctx, args: &TriggerArgs, out: &mut dyn Write) -> Result<Outcome, CliError> {
    let api = ctx.merchant_api()?;
    if !api.api_key.starts_with("sk_test_") {
        return Err(CliError::usage(
            "trigger creates test payments: it needs a test-mode API key (sk_test_…) in --api-key or PAYGATE_API_KEY",
        ));
    }
    let plan = plan(args);
    let created = api.create_test_payment(&plan.create).await?;
    let payment: Payment = decode("test payment", &created)?;
    if ctx.json {
        out.write_all(output::json(&created).as_bytes())?;
    } else {
        writeln!(
            out,
            "created test payment {} ({}, {})",
            payment.id,
            payment.status,
            output::money(payment.amount, &payment.currency)
        )?;
    }
    let mut status = payment.status.clone();
    for op in &plan.operations {
        let answer = api.operation(&payment.id, op, &json!({})).await?;
        let after: Payment = decode(op, answer.get("payment").unwrap_or(&Value::Null))?;
        if ctx.json {
            out.write_all(output::json(&answer).as_bytes())?;
        } else {
            writeln!(out, "{op:<8} -> {}", after.status)?;
        }
        status = after.status;
    }
    if !ctx.json {
        writeln!(
            out,
            "expected event: {} for {} (to every enabled test-mode endpoint subscribed to it)",
            args.event.as_str(),
            payment.id
        )?;
        writeln!(out, "see it: paygate deliveries list --endpoint whe_…")?;
    }
    Ok(Outcome {
        payment_id: payment.id,
        status,
        event: args.event,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(event: TriggerEvent) -> TriggerArgs {
        TriggerArgs {
            event,
            amount: 10_000,
            currency: "TRY".into(),
            account: None,
        }
    }

    #[test]
    fn each_event_has_its_scenario() {
        let p = plan(&args(TriggerEvent::Captured));
        assert_eq!(
            p.create,
            json!({"amount": 10_000, "currency": "TRY", "status": "authorized"})
        );
        assert_eq!(p.operations, ["capture"]);
        let p = plan(&args(TriggerEvent::Refunded));
        assert_eq!(p.create["status"], "captured");
        assert_eq!(p.operations, ["refund"]);
        let p = plan(&args(TriggerEvent::Cancelled));
        assert_eq!(
            (p.create["status"].as_str(), p.operations),
            (Some("authorized"), vec!["cancel"])
        );
        let p = plan(&args(TriggerEvent::Authorized));
        assert_eq!(p.create["status"], "pending");
        assert_eq!(p.create["bankState"], "preauth");
        assert_eq!(p.operations, ["query"]);
        let p = plan(&args(TriggerEvent::Failed));
        assert_eq!(p.create["bankState"], "declined");
        assert_eq!(p.operations, ["query"]);
    }

    #[test]
    fn the_account_is_passed_when_given() {
        let mut a = args(TriggerEvent::Captured);
        a.account = Some("acc_anatoliaGaranti".into());
        assert_eq!(plan(&a).create["accountId"], "acc_anatoliaGaranti");
    }
}
