//! `paygate deliveries list|show|resend`.

use std::io::Write;

use clap::{ArgGroup, Args, Subcommand, ValueEnum};

use crate::{
    config::Ctx,
    model::{decode, Delivery, DeliveryDetail, DeliveryPage},
    output, CliError,
};

#[derive(Debug, Clone, Subcommand)]
pub enum DeliveriesCommand {
    /// An endpoint's deliveries, newest first (or an event's, one per endpoint).
    List(ListArgs),
    /// One delivery with every attempt: time, status code or error, duration, response.
    Show(DeliveryId),
    /// Send a succeeded or failed delivery again: same delivery id, attempts going on.
    Resend(DeliveryId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Status {
    Pending,
    Succeeded,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
        }
    }
}

#[derive(Debug, Clone, Args)]
#[command(group(ArgGroup::new("of").required(true).args(["endpoint", "event"])))]
pub struct ListArgs {
    /// The endpoint (`whe_…`) whose history to list.
    #[arg(long, value_name = "WHE_ID")]
    pub endpoint: Option<String>,
    /// Instead: the deliveries of one event (`evt_…`), one per endpoint it went to.
    #[arg(long, value_name = "EVT_ID", conflicts_with_all = ["status", "limit", "cursor"])]
    pub event: Option<String>,
    #[arg(long, value_enum)]
    pub status: Option<Status>,
    /// Page size, 1 to 100 (the API's default: 20).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub limit: Option<u16>,
    /// The `more: --cursor …` of the previous page.
    #[arg(long)]
    pub cursor: Option<String>,
}

impl ListArgs {
    /// The query string of an endpoint's history.
    pub fn query(&self) -> Vec<(&'static str, String)> {
        let mut q = Vec::new();
        if let Some(s) = self.status {
            q.push(("status", s.as_str().to_owned()));
        }
        if let Some(l) = self.limit {
            q.push(("limit", l.to_string()));
        }
        if let Some(c) = &self.cursor {
            q.push(("cursor", c.clone()));
        }
        q
    }
}

#[derive(Debug, Clone, Args)]
pub struct DeliveryId {
    /// The delivery (`dlv_…`, the X-Svc-Delivery header of its webhooks).
    #[arg(value_name = "DLV_ID")]
    pub id: String,
}

/// `deliveries list`: one page.
pub async fn list(
    ctx: &Ctx,
    args: &ListArgs,
    out: &mut dyn Write,
) -> Result<DeliveryPage, CliError> {
    let admin = ctx.admin()?;
    let (answer, page) = match (&args.endpoint, &args.event) {
        (_, Some(event)) => {
            let answer = admin.event_deliveries(event).await?;
            let page: DeliveryPage = decode("event deliveries", &answer)?;
            (answer, page)
        }
        (Some(endpoint), None) => {
            let answer = admin.list_deliveries(endpoint, &args.query()).await?;
            let page: DeliveryPage = decode("delivery list", &answer)?;
            (answer, page)
        }
        (None, None) => {
            return Err(CliError::usage(
                "deliveries list needs --endpoint whe_… or --event evt_…",
            ))
        }
    };
    if ctx.json {
        out.write_all(output::json(&answer).as_bytes())?;
    } else {
        out.write_all(output::delivery_page(&page).as_bytes())?;
    }
    Ok(page)
}

/// `deliveries show`.
pub async fn show(ctx: &Ctx, id: &str, out: &mut dyn Write) -> Result<DeliveryDetail, CliError> {
    let answer = ctx.admin()?.get_delivery(id).await?;
    let detail: DeliveryDetail = decode("delivery", &answer)?;
    if ctx.json {
        out.write_all(output::json(&answer).as_bytes())?;
    } else {
        out.write_all(output::delivery_detail(&detail).as_bytes())?;
    }
    Ok(detail)
}

/// `deliveries resend`.
pub async fn resend(ctx: &Ctx, id: &str, out: &mut dyn Write) -> Result<Delivery, CliError> {
    let answer = ctx.admin()?.resend_delivery(id).await?;
    let delivery: Delivery = decode("resend", &answer)?;
    if ctx.json {
        out.write_all(output::json(&answer).as_bytes())?;
    } else {
        out.write_all(output::delivery_queued("resent", &delivery).as_bytes())?;
    }
    Ok(delivery)
}

pub async fn run(ctx: &Ctx, cmd: &DeliveriesCommand, out: &mut dyn Write) -> Result<(), CliError> {
    match cmd {
        DeliveriesCommand::List(a) => list(ctx, a, out).await.map(drop),
        DeliveriesCommand::Show(a) => show(ctx, &a.id, out).await.map(drop),
        DeliveriesCommand::Resend(a) => resend(ctx, &a.id, out).await.map(drop),
    }
}
