//! `paygate endpoints create|list|rotate|delete` and `paygate test-event`.

use std::io::Write;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{json, Value};

use crate::{
    config::Ctx,
    model::{decode, Deleted, Delivery, Endpoint, EndpointList, Rotated},
    output, CliError,
};

#[derive(Debug, Clone, Subcommand)]
pub enum EndpointsCommand {
    /// Register an HTTPS endpoint; prints its signing secret, once.
    Create(CreateArgs),
    /// The merchant's endpoints (never their secrets).
    List,
    /// Replace the signing secret; the old one keeps signing during the grace period.
    Rotate(RotateArgs),
    /// Delete an endpoint and its signing secret (its delivery history stays readable).
    Delete(EndpointId),
    /// Resend every failed delivery of the endpoint created since a time (calls again
    /// while the API says there are more).
    Recover(RecoverArgs),
    /// The endpoint's success rate, last success and failure, backlog and state.
    Health(EndpointId),
}

#[derive(Debug, Clone, Args)]
pub struct RecoverArgs {
    /// The endpoint (`whe_…`).
    #[arg(value_name = "WHE_ID")]
    pub id: String,
    /// Failed deliveries created at or after this RFC 3339 time (at most 90 days ago).
    #[arg(long)]
    pub since: String,
    /// ... and before this one (default: now).
    #[arg(long)]
    pub until: Option<String>,
}

/// Most recover calls one command makes (500 deliveries each).
pub const MAX_RECOVER_CALLS: usize = 100;

/// An endpoint's mode: which payments' events it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Test,
    Live,
}

impl Mode {
    /// The API's spelling (the domain's).
    pub fn as_str(self) -> &'static str {
        paygate_domain::Mode::from(self).as_str()
    }
}

impl From<Mode> for paygate_domain::Mode {
    fn from(m: Mode) -> Self {
        match m {
            Mode::Test => Self::Test,
            Mode::Live => Self::Live,
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct CreateArgs {
    /// The endpoint's https:// URL.
    #[arg(long)]
    pub url: String,
    /// Event types, comma-separated (payment.captured,payment.refunded,…), or `*` for all.
    #[arg(long, value_delimiter = ',', required = true, value_parser = parse_event_filter)]
    pub events: Vec<String>,
    #[arg(long, value_enum)]
    pub mode: Mode,
    #[arg(long)]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct EndpointId {
    /// The endpoint (`whe_…`).
    #[arg(value_name = "WHE_ID")]
    pub id: String,
}

#[derive(Debug, Clone, Args)]
pub struct RotateArgs {
    /// The endpoint (`whe_…`).
    #[arg(value_name = "WHE_ID")]
    pub id: String,
    /// How long the old secret keeps signing: `0` (stop now), `90s`, `30m`, `24h`, `7d` or
    /// seconds; the API's default (24h) when absent.
    #[arg(long, value_parser = parse_grace)]
    pub grace: Option<i64>,
}

/// `*` or a `word.word` event type; the API checks the names themselves.
pub fn parse_event_filter(s: &str) -> Result<String, String> {
    let s = s.trim();
    let ok = s == "*"
        || s.split_once('.').is_some_and(|(a, b)| {
            let word =
                |w: &str| !w.is_empty() && w.bytes().all(|c| c.is_ascii_lowercase() || c == b'_');
            word(a) && word(b)
        });
    if ok {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "{s:?} is not an event type (payment.captured, payment.refunded, payment.cancelled, payment.authorized, payment.failed, payment.requires_action, webhook.test) or *"
        ))
    }
}

/// A grace period: whole seconds, or a number with `s`, `m`, `h` or `d`.
pub fn parse_grace(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let n: i64 = digits
        .parse()
        .map_err(|_| format!("{s:?} is not a duration like 0, 90s, 30m, 24h or 7d"))?;
    let factor = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => return Err(format!("{s:?}: the unit must be s, m, h or d")),
    };
    n.checked_mul(factor)
        .ok_or_else(|| format!("{s:?} is too long"))
}

/// `endpoints create`: prints the endpoint and its secret (with the warning); returns the
/// endpoint, `secret` set.
pub async fn create(
    ctx: &Ctx,
    args: &CreateArgs,
    out: &mut dyn Write,
) -> Result<Endpoint, CliError> {
    let mut body = json!({
        "url": args.url,
        "events": args.events,
        "mode": args.mode.as_str(),
    });
    if let Some(d) = &args.description {
        body["description"] = json!(d);
    }
    let answer = ctx.admin()?.create_endpoint(&body).await?;
    let created: Endpoint = decode("endpoint create", &answer)?;
    if ctx.json {
        out.write_all(output::json(&answer).as_bytes())?;
    } else {
        out.write_all(output::endpoint_created(&created).as_bytes())?;
    }
    Ok(created)
}

pub async fn list(ctx: &Ctx, out: &mut dyn Write) -> Result<Vec<Endpoint>, CliError> {
    let answer = ctx.admin()?.list_endpoints().await?;
    let list: EndpointList = decode("endpoint list", &answer)?;
    if ctx.json {
        out.write_all(output::json(&answer).as_bytes())?;
    } else {
        out.write_all(output::endpoints_table(&list.data).as_bytes())?;
    }
    Ok(list.data)
}

pub async fn rotate(
    ctx: &Ctx,
    args: &RotateArgs,
    out: &mut dyn Write,
) -> Result<Rotated, CliError> {
    let answer = ctx.admin()?.rotate_secret(&args.id, args.grace).await?;
    let rotated: Rotated = decode("secret rotation", &answer)?;
    if ctx.json {
        out.write_all(output::json(&answer).as_bytes())?;
    } else {
        out.write_all(output::rotated(&rotated).as_bytes())?;
    }
    Ok(rotated)
}

pub async fn delete(ctx: &Ctx, id: &str, out: &mut dyn Write) -> Result<Deleted, CliError> {
    let answer = ctx.admin()?.delete_endpoint(id).await?;
    let deleted: Deleted = decode("endpoint delete", &answer)?;
    if ctx.json {
        out.write_all(output::json(&answer).as_bytes())?;
    } else {
        writeln!(out, "deleted {}", deleted.id)?;
    }
    Ok(deleted)
}

/// `test-event`: a `webhook.test` event to this one endpoint, through the normal delivery
/// path; prints the delivery.
pub async fn test_event(ctx: &Ctx, id: &str, out: &mut dyn Write) -> Result<Delivery, CliError> {
    let answer = ctx.admin()?.send_test_event(id).await?;
    let delivery: Delivery = decode("test event", &answer)?;
    if ctx.json {
        out.write_all(output::json(&answer).as_bytes())?;
    } else {
        out.write_all(output::delivery_queued("test event sent", &delivery).as_bytes())?;
    }
    Ok(delivery)
}

pub async fn run(ctx: &Ctx, cmd: &EndpointsCommand, out: &mut dyn Write) -> Result<(), CliError> {
    match cmd {
        EndpointsCommand::Create(a) => create(ctx, a, out).await.map(drop),
        EndpointsCommand::List => list(ctx, out).await.map(drop),
        EndpointsCommand::Rotate(a) => rotate(ctx, a, out).await.map(drop),
        EndpointsCommand::Delete(a) => delete(ctx, &a.id, out).await.map(drop),
        EndpointsCommand::Recover(a) => recover(ctx, a, out).await.map(drop),
        EndpointsCommand::Health(a) => health(ctx, &a.id, out).await.map(drop),
    }
}

/// `endpoints recover`: calls the API until it answers `more: false` (each call requests at
/// most 500 deliveries, going on from the last one's time); prints the totals. Returns
/// (requested, skipped).
pub async fn recover(
    ctx: &Ctx,
    a: &RecoverArgs,
    out: &mut dyn Write,
) -> Result<(u64, u64), CliError> {
    let admin = ctx.admin()?;
    let (mut requested, mut skipped) = (0u64, 0u64);
    let mut since = a.since.clone();
    for _ in 0..MAX_RECOVER_CALLS {
        let mut body = json!({ "since": since });
        if let Some(u) = &a.until {
            body["until"] = json!(u);
        }
        let answer = admin.recover(&a.id, &body).await?;
        if ctx.json {
            out.write_all(output::json(&answer).as_bytes())?;
        }
        requested += answer["requested"].as_u64().unwrap_or(0);
        skipped += answer["skipped"].as_u64().unwrap_or(0);
        match (answer["more"].as_bool(), answer["lastCreatedAt"].as_str()) {
            (Some(true), Some(last)) => since = last.to_owned(),
            _ => break,
        }
    }
    if !ctx.json {
        writeln!(
            out,
            "recovered {}: {requested} deliveries requested, {skipped} skipped (pending already)",
            a.id
        )?;
    }
    Ok((requested, skipped))
}

/// `endpoints health`.
pub async fn health(ctx: &Ctx, id: &str, out: &mut dyn Write) -> Result<Value, CliError> {
    let answer = ctx.admin()?.endpoint_health(id).await?;
    if ctx.json {
        out.write_all(output::json(&answer).as_bytes())?;
    } else {
        out.write_all(output::health(&answer).as_bytes())?;
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grace_periods() {
        assert_eq!(parse_grace("0"), Ok(0));
        assert_eq!(parse_grace("90"), Ok(90));
        assert_eq!(parse_grace("90s"), Ok(90));
        assert_eq!(parse_grace("30m"), Ok(1_800));
        assert_eq!(parse_grace("24h"), Ok(86_400));
        assert_eq!(parse_grace("7d"), Ok(604_800));
        for bad in ["", "h", "1w", "-5", "1.5h", "24hh"] {
            assert!(parse_grace(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn event_filters() {
        assert_eq!(parse_event_filter("*").as_deref(), Ok("*"));
        assert_eq!(
            parse_event_filter(" payment.captured").as_deref(),
            Ok("payment.captured")
        );
        assert_eq!(
            parse_event_filter("payment.requires_action").as_deref(),
            Ok("payment.requires_action")
        );
        for bad in [
            "payment",
            "payment.",
            "Payment.Captured",
            "payment.captured;drop",
            "",
        ] {
            assert!(parse_event_filter(bad).is_err(), "{bad}");
        }
    }
}
