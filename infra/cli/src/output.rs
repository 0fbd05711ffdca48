//! Human-readable output: aligned tables and key/value blocks. Pure functions of the API's
//! answers, so they are tested without a server. `--json` bypasses all of this.

use serde_json::Value;

use crate::model::{Attempt, Delivery, DeliveryDetail, DeliveryPage, Endpoint, Rotated};

/// What stands in for an absent value.
pub const NONE: &str = "-";

/// Columns padded to their widest cell, two spaces apart; the last one unpadded.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let line = |cells: Vec<&str>| {
        let last = cells.len().saturating_sub(1);
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            s.push_str(c);
            if i < last {
                let pad = widths
                    .get(i)
                    .copied()
                    .unwrap_or(0)
                    .saturating_sub(c.chars().count())
                    + 2;
                s.push_str(&" ".repeat(pad));
            }
        }
        s.trim_end().to_owned() + "\n"
    };
    let mut out = line(headers.to_vec());
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

/// `key  value` lines, keys padded.
pub fn fields(pairs: &[(&str, String)]) -> String {
    let width = pairs.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    pairs
        .iter()
        .map(|(k, v)| format!("{k:<width$}  {v}\n"))
        .collect()
}

/// An endpoint's health (`GET …/health`) as key/value lines (the success rate, a ratio,
/// shown as a percentage).
#[allow(clippy::float_arithmetic)]
pub fn health(v: &Value) -> String {
    let text = |k: &str| v[k].as_str().map_or_else(|| NONE.to_owned(), str::to_owned);
    let rate = v["successRate"]
        .as_f64()
        .map_or_else(|| NONE.to_owned(), |r| format!("{:.1}%", r * 100.0));
    let status = match v["disabledReason"].as_str() {
        Some(why) => format!("{} ({why})", text("status")),
        None => text("status"),
    };
    fields(&[
        ("endpoint", text("endpointId")),
        ("status", status),
        ("success rate (24h)", rate),
        ("attempts (24h)", v["attempts24h"].to_string()),
        ("last success", text("lastSuccessAt")),
        ("last failure", text("lastFailureAt")),
        ("failing since", text("failingSince")),
        ("backlog", v["backlog"].to_string()),
    ])
}

/// One line of at most `max` characters: whitespace runs become one space, the rest is
/// cut with `…`.
pub fn snippet(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// The API's JSON, pretty-printed (`--json`).
pub fn json(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string()) + "\n"
}

fn or_none(v: Option<&str>) -> String {
    v.filter(|s| !s.is_empty()).unwrap_or(NONE).to_owned()
}

/// The create answer, with the secret and the warning that it is shown this once.
pub fn endpoint_created(e: &Endpoint) -> String {
    let mut out = fields(&[
        ("id", e.id.clone()),
        ("url", e.url.clone()),
        ("events", e.events.join(",")),
        ("mode", e.mode.clone()),
        ("enabled", e.enabled.to_string()),
        ("description", or_none(Some(&e.description))),
        ("secret", or_none(e.secret.as_deref())),
    ]);
    out.push_str(
        "\nWARNING: this signing secret is shown once and will not be shown again. Store it now\n\
         (verify webhooks with it: `PAYGATE_WEBHOOK_SECRET=whsec_… paygate verify --header \"$SIG\" --body-file body.json`).\n",
    );
    out
}

/// `endpoints list`.
pub fn endpoints_table(list: &[Endpoint]) -> String {
    if list.is_empty() {
        return "no webhook endpoints\n".to_owned();
    }
    let rows: Vec<Vec<String>> = list
        .iter()
        .map(|e| {
            vec![
                e.id.clone(),
                e.mode.clone(),
                if e.enabled { "enabled" } else { "disabled" }.to_owned(),
                e.events.join(","),
                e.url.clone(),
                or_none(Some(&e.description)),
            ]
        })
        .collect();
    table(
        &["ID", "MODE", "STATE", "EVENTS", "URL", "DESCRIPTION"],
        &rows,
    )
}

/// The rotate answer.
pub fn rotated(r: &Rotated) -> String {
    let old = match &r.previous_secret_expires_at {
        Some(t) => format!("still signs (a second v1=) until {t}"),
        None => "stopped signing now".to_owned(),
    };
    let mut out = fields(&[
        ("id", r.id.clone()),
        ("new secret", r.secret.clone()),
        ("old secret", old),
    ]);
    out.push_str("\nWARNING: the new signing secret is shown once and will not be shown again. Store it now.\n");
    out
}

/// `deliveries list`, with the next page's cursor when there is one.
pub fn deliveries_table(deliveries: &[Delivery], next_cursor: Option<&str>) -> String {
    let mut out = if deliveries.is_empty() {
        "no deliveries\n".to_owned()
    } else {
        let rows: Vec<Vec<String>> = deliveries
            .iter()
            .map(|d| {
                vec![
                    d.id.clone(),
                    d.event_type.clone(),
                    d.status.clone(),
                    d.attempt_count.to_string(),
                    or_none(d.next_attempt_at.as_deref()),
                    d.created_at.clone(),
                    d.event_id.clone(),
                ]
            })
            .collect();
        table(
            &[
                "ID",
                "EVENT",
                "STATUS",
                "ATTEMPTS",
                "NEXT ATTEMPT",
                "CREATED",
                "EVENT ID",
            ],
            &rows,
        )
    };
    if let Some(c) = next_cursor {
        out.push_str(&format!("\nmore: --cursor {c}\n"));
    }
    out
}

/// A page of `deliveries list`.
pub fn delivery_page(page: &DeliveryPage) -> String {
    deliveries_table(&page.data, page.next_cursor.as_deref())
}

/// What an attempt got: the status code, or the error kind.
pub fn attempt_result(a: &Attempt) -> String {
    match (a.status_code, a.error.as_deref()) {
        (Some(code), _) => format!("HTTP {code}"),
        (None, Some(e)) => format!("error: {e}"),
        (None, None) => NONE.to_owned(),
    }
}

/// How many characters of a response body `deliveries show` prints per attempt.
pub const RESPONSE_SHOWN: usize = 60;

/// `deliveries show`: the delivery, then one row per attempt, then the next attempt.
pub fn delivery_detail(d: &DeliveryDetail) -> String {
    let v = &d.delivery;
    let mut out = fields(&[
        ("delivery", v.id.clone()),
        ("event", format!("{} {}", v.event_type, v.event_id)),
        ("endpoint", v.endpoint_id.clone()),
        ("mode", v.mode.clone()),
        ("status", v.status.clone()),
        ("created", v.created_at.clone()),
    ]);
    out.push('\n');
    if d.attempts.is_empty() {
        out.push_str("no attempts yet\n");
    } else {
        let rows: Vec<Vec<String>> = d
            .attempts
            .iter()
            .map(|a| {
                vec![
                    a.number.to_string(),
                    a.at.clone(),
                    attempt_result(a),
                    if a.succeeded { "ok" } else { "failed" }.to_owned(),
                    format!("{} ms", a.duration_ms),
                    or_none(Some(&snippet(&a.response_body, RESPONSE_SHOWN))),
                ]
            })
            .collect();
        out.push_str(&table(
            &["#", "AT", "RESULT", "OUTCOME", "DURATION", "RESPONSE"],
            &rows,
        ));
    }
    out.push_str(&format!(
        "\nnext attempt: {}\n",
        match (&v.next_attempt_at, v.status.as_str()) {
            (Some(t), _) => t.clone(),
            (None, "failed") =>
                "none (failed: `paygate deliveries resend` sends it again)".to_owned(),
            (None, _) => "none".to_owned(),
        }
    ));
    out
}

/// A delivery the API accepted (`test-event`, `deliveries resend`).
pub fn delivery_queued(what: &str, d: &Delivery) -> String {
    let mut out = format!(
        "{what}: delivery {} ({} {}) is {}, next attempt {}\n",
        d.id,
        d.event_type,
        d.event_id,
        d.status,
        or_none(d.next_attempt_at.as_deref())
    );
    out.push_str(&format!("follow it: paygate deliveries show {}\n", d.id));
    out
}

/// Minor units as `123.45 TRY` (every currency the gateway takes has two decimals).
pub fn money(minor: i64, currency: &str) -> String {
    let sign = if minor < 0 { "-" } else { "" };
    let m = minor.unsigned_abs();
    format!("{sign}{}.{:02} {currency}", m / 100, m % 100)
}

pub mod terminal;

#[cfg(test)]
mod tests;
