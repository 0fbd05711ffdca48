//! `paygate listen`: receive the stack's webhooks on this machine and print each one,
//! verified. Starts the HTTPS receiver of [`crate::listen`], registers it as an endpoint
//! over the admin API, prints one line per request until shut down (Ctrl-C), then deletes
//! the endpoint.

use std::{future::Future, io::Write, path::PathBuf};

use clap::Args;
use serde_json::json;

use super::endpoints::{parse_event_filter, Mode};
use crate::{
    config::Ctx,
    listen::{dev_server_hint, ensure_cert, CertPaths, ReceivedEvent, Receiver, DEFAULT_CERT_DIR},
    model::{decode, Endpoint},
    output, CliError,
};

#[derive(Debug, Clone, Args)]
pub struct ListenArgs {
    /// Port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Event types to subscribe to, comma-separated, or `*`.
    #[arg(long, value_delimiter = ',', default_value = "*", value_parser = parse_event_filter)]
    pub events: Vec<String>,
    #[arg(long, value_enum, default_value_t = Mode::Test)]
    pub mode: Mode,
    /// Where the self-signed certificate is kept (made on first use).
    #[arg(long, default_value = DEFAULT_CERT_DIR, value_name = "DIR")]
    pub cert_dir: PathBuf,
    /// Only make the certificate (if missing) and print how to start the dev server.
    #[arg(long)]
    pub init_cert: bool,
    /// Attach to an endpoint that exists already (its URL `https://127.0.0.1:<--port>/`):
    /// verify with its signing secret, and register nor delete anything.
    #[arg(
        long,
        value_name = "WHSEC",
        hide_env_values = true,
        conflicts_with = "init_cert"
    )]
    pub secret: Option<String>,
    /// Answer every webhook with this status (e.g. 500, to watch retries).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u16).range(200..=599))]
    pub status: u16,
}

/// The line printed for one request: time, type, event id, delivery id, verdict.
pub fn event_line(e: &ReceivedEvent) -> String {
    let verdict = match &e.verdict {
        Ok(()) => "verified".to_owned(),
        Err(why) => format!("INVALID ({why})"),
    };
    let answered = if e.answered == 200 {
        String::new()
    } else {
        format!("  answered {}", e.answered)
    };
    let or_none = |s: &str| {
        if s.is_empty() {
            output::NONE.to_owned()
        } else {
            s.to_owned()
        }
    };
    format!(
        "{}  {:<18}  {}  {}  {verdict}{answered}",
        format_time(e.received_at),
        or_none(&e.event_type),
        or_none(&e.event_id),
        or_none(&e.delivery_id),
    )
}

/// `--json`: one JSON object per request.
pub fn event_json(e: &ReceivedEvent) -> serde_json::Value {
    json!({
        "receivedAt": format_time(e.received_at),
        "type": e.event_type,
        "eventId": e.event_id,
        "deliveryId": e.delivery_id,
        "verified": e.verified(),
        "error": e.verdict.as_ref().err(),
        "answered": e.answered,
        "body": serde_json::from_slice::<serde_json::Value>(&e.body).unwrap_or(serde_json::Value::Null),
    })
}

/// `2026-11-21T09:30:00Z`.
pub fn format_time(t: std::time::SystemTime) -> String {
    let f = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
    time::OffsetDateTime::from(t)
        .format(&f)
        .unwrap_or_else(|_| output::NONE.to_owned())
}

/// Makes the certificate when missing; prints where and the dev server hint the first time.
pub fn prepare_cert(args: &ListenArgs, out: &mut dyn Write) -> Result<CertPaths, CliError> {
    let paths = CertPaths::in_dir(&args.cert_dir);
    let created = ensure_cert(&paths)?;
    if created {
        writeln!(
            out,
            "created a self-signed certificate for 127.0.0.1 and localhost: {}",
            paths.cert.display()
        )?;
    }
    if !created && args.init_cert {
        writeln!(
            out,
            "the certificate is already there: {} (delete it to make a new one)",
            paths.cert.display()
        )?;
    }
    if created || args.init_cert {
        writeln!(
            out,
            "start the dev server so that it trusts and reaches it:"
        )?;
        writeln!(out, "  {} make dev", dev_server_hint(&paths.cert))?;
    }
    Ok(paths)
}

/// The whole command: until `shutdown` resolves (Ctrl-C), then the endpoint it registered
/// is deleted. With `--secret` it registers nothing.
pub async fn run(
    ctx: &Ctx,
    args: &ListenArgs,
    out: &mut dyn Write,
    shutdown: impl Future<Output = ()>,
) -> Result<(), CliError> {
    let paths = prepare_cert(args, out)?;
    if args.init_cert {
        return Ok(());
    }
    if let Some(secret) = &args.secret {
        let mut rx = Receiver::start(&paths, args.port, ctx.clock).await?;
        rx.set_answer(args.status);
        rx.set_secret(secret);
        writeln!(
            out,
            "listening on {}, verifying with the given secret (no endpoint registered); Ctrl-C stops",
            rx.url()
        )?;
        out.flush()?;
        return print_events(ctx, &mut rx, out, shutdown).await;
    }
    let admin = ctx.admin()?;
    let mut rx = Receiver::start(&paths, args.port, ctx.clock).await?;
    rx.set_answer(args.status);
    let body = json!({
        "url": rx.url(),
        "events": args.events,
        "mode": args.mode.as_str(),
        "description": "paygate listen",
    });
    let answer = admin
        .create_endpoint(&body)
        .await
        .map_err(|e| match e.api_code() {
            Some("invalid_request") => CliError::usage(format!(
                "{e}\nthe stack refuses 127.0.0.1 unless it runs with {} (make dev)",
                dev_server_hint(&paths.cert)
            )),
            _ => e,
        })?;
    let endpoint: Endpoint = decode("endpoint create", &answer)?;
    let secret = endpoint.secret.clone().unwrap_or_default();
    rx.set_secret(&secret);
    writeln!(
        out,
        "listening on {} as endpoint {} ({}, events {}); Ctrl-C stops and deletes the endpoint",
        rx.url(),
        endpoint.id,
        endpoint.mode,
        endpoint.events.join(",")
    )?;
    out.flush()?;
    let result = print_events(ctx, &mut rx, out, shutdown).await;
    drop(rx);
    let deleted = admin.delete_endpoint(&endpoint.id).await;
    match (&result, deleted) {
        (_, Ok(_)) => writeln!(out, "deleted endpoint {}", endpoint.id)?,
        (Ok(()), Err(e)) => return Err(e),
        (Err(_), Err(_)) => {}
    }
    result
}

async fn print_events(
    ctx: &Ctx,
    rx: &mut Receiver,
    out: &mut dyn Write,
    shutdown: impl Future<Output = ()>,
) -> Result<(), CliError> {
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => return Ok(()),
            next = rx.next_event() => {
                let Some(e) = next else { return Ok(()) };
                if ctx.json {
                    writeln!(out, "{}", event_json(&e))?;
                } else {
                    writeln!(out, "{}", event_line(&e))?;
                }
                out.flush()?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;

    fn event(verdict: Result<(), String>, answered: u16) -> ReceivedEvent {
        ReceivedEvent {
            received_at: UNIX_EPOCH + Duration::from_secs(1_795_253_400),
            event_type: "payment.captured".into(),
            event_id: "evt_1".into(),
            delivery_id: "dlv_1".into(),
            verdict,
            answered,
            body: br#"{"id":"evt_1"}"#.to_vec(),
        }
    }

    #[test]
    fn one_line_per_event() {
        assert_eq!(
            event_line(&event(Ok(()), 200)),
            "2026-11-21T09:30:00Z  payment.captured    evt_1  dlv_1  verified"
        );
        assert_eq!(
            event_line(&event(Err("no signature matches".into()), 500)),
            "2026-11-21T09:30:00Z  payment.captured    evt_1  dlv_1  INVALID (no signature matches)  answered 500"
        );
        let mut bare = event(Err("no X-Svc-Signature header".into()), 200);
        bare.event_type.clear();
        bare.event_id.clear();
        bare.delivery_id.clear();
        assert_eq!(
            event_line(&bare),
            "2026-11-21T09:30:00Z  -                   -  -  INVALID (no X-Svc-Signature header)"
        );
    }

    #[test]
    fn json_lines_carry_the_body() {
        let j = event_json(&event(Ok(()), 200));
        assert_eq!(j["verified"], true);
        assert_eq!(j["body"]["id"], "evt_1");
        assert_eq!(j["error"], serde_json::Value::Null);
    }
}
