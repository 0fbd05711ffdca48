//! What `make dev` prints when the stack is up: where it listens, how webhooks are set up,
//! and the seed's keys, payments and endpoints to try.

use std::fmt::Write;

use paygate_domain::{webhook::RetrySchedule, Mode};

use crate::{admin, banks, DevServer, Seed};

/// What `make dev` prints: where it listens and which keys to use.
pub fn banner(server: &DevServer, seed: &Seed) -> String {
    let mut out = format!("\npaygate local stack is up\n  API:      {}\n", server.url);
    out.push_str(&cli_line(&server.url));
    out.push_str("  AWS:      moto: DynamoDB (tables created from the SAM definitions, seeded from infra/local/seed.json), SQS, Secrets Manager\n");
    out.push_str(&webhook_lines(server, seed));
    out.push_str(&admin::banner_lines(seed));
    out.push_str(&banks::banner_lines(server, seed));
    out.push_str("\n  API keys:\n");
    for m in &seed.merchants {
        for k in &m.api_keys {
            let _ = writeln!(out, "    {:<14} {:<5} {}", m.id, k.mode.as_str(), k.key);
        }
    }
    out.push_str("\n  Seeded payments:\n");
    for p in &seed.payments {
        let (id, merchant, mode) = (&p.id, &p.merchant_id, p.mode.as_str());
        let (amount, currency) = (p.amount, p.currency.code());
        let _ = writeln!(
            out,
            "    {id:<24} {merchant:<14} {mode:<5} {amount:>8} {currency} {}",
            p.status
        );
    }
    let test_payment = seed.payments.iter().find(|p| p.mode == Mode::Test);
    let test_key = seed
        .merchants
        .first()
        .and_then(|m| m.api_keys.iter().find(|k| k.mode == Mode::Test));
    if let (Some(p), Some(k)) = (test_payment, test_key) {
        let _ = write!(
            out,
            "\n  Try:\n    curl -s {}/v1/payments/{} -H 'Authorization: Bearer {}'\n",
            server.url, p.id, k.key
        );
    }
    out.push_str("\n  Ctrl-C stops the server and moto.\n");
    out
}

/// How the CLI, the dashboard and the README's tour find the stack at `url`: on 3000 by
/// default, on another port through the same `PAYGATE_PORT`.
fn cli_line(url: &str) -> String {
    match url.rsplit(':').next() {
        Some("3000") | None => "  CLI:      make cli ARGS='--local endpoints list', make dashboard (they call this port; after PAYGATE_PORT=… make dev, export the same PAYGATE_PORT for them)\n".to_owned(),
        Some(port) => format!(
            "  CLI:      not port 3000: export PAYGATE_PORT={port} in the shells you run paygate, make cli, make dashboard or the README's tour from (or pass --api-url {url})\n"
        ),
    }
}

/// `30s,2m,10m,…`: the schedule in the notation `PAYGATE_WEBHOOK_RETRY_SCHEDULE` takes.
pub fn schedule_notation(schedule: &RetrySchedule) -> String {
    schedule
        .waits_seconds()
        .iter()
        .map(|&s| match s {
            s if s % 3_600 == 0 => format!("{}h", s / 3_600),
            s if s % 60 == 0 => format!("{}m", s / 60),
            s => format!("{s}s"),
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn webhook_lines(server: &DevServer, seed: &Seed) -> String {
    let w = &server.webhook;
    let allow = if w.allow_addrs.is_empty() {
        "none: private and loopback addresses are refused".to_owned()
    } else {
        w.allow_addrs
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = format!(
        "  Webhooks: events queue -> fanout -> deliveries queue -> deliver, sweeper every {}s\n\
         \x20   retry schedule  {} ({} attempts; {})\n\
         \x20   allowed private {} ({})\n\
         \x20   extra root CA   {} ({})\n\
         \x20   attempt timeout {} ms\n",
        w.sweep_every.as_secs(),
        schedule_notation(&w.schedule),
        w.schedule.max_attempts(),
        paygate_compose::RETRY_SCHEDULE_ENV,
        allow,
        paygate_webhooks::ENV_ALLOW_ADDRS,
        if w.extra_ca { "yes" } else { "none" },
        paygate_webhooks::ENV_EXTRA_CA,
        w.timeout.as_millis(),
    );
    if !seed.webhook_endpoints.is_empty() {
        out.push_str("    seeded endpoints:\n");
        for e in &seed.webhook_endpoints {
            let state = if e.enabled { "enabled" } else { "disabled" };
            let (id, merchant, mode) = (&e.id, &e.merchant_id, e.mode.as_str());
            let _ = writeln!(
                out,
                "      {id} {merchant:<14} {mode:<5} {state:<8} {} secret {}",
                e.url, e.secret
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_port_tells_the_cli_how_to_find_it() {
        assert!(cli_line("http://127.0.0.1:3000").contains("make dashboard"));
        let other = cli_line("http://127.0.0.1:8080");
        assert!(
            other.contains("export PAYGATE_PORT=8080")
                && other.contains("--api-url http://127.0.0.1:8080"),
            "{other}"
        );
    }

    #[test]
    fn schedule_notation_round_trips() {
        for text in [
            paygate_domain::webhook::SPEC_SCHEDULE,
            "1s,1s,1s",
            "90s,1m,25h",
        ] {
            let parsed = RetrySchedule::parse(text).unwrap_or_default();
            assert_eq!(
                RetrySchedule::parse(&schedule_notation(&parsed)),
                Some(parsed)
            );
        }
        assert_eq!(
            schedule_notation(&RetrySchedule::default()),
            paygate_domain::webhook::SPEC_SCHEDULE
        );
    }
}
