//! `paygate reconciliations`: the daily reconciliation reports of one business day (one
//! per POS account of the merchant): each account's status and counts, then its mismatch
//! lines. `--csv` prints the API's own CSV (`format=csv`) as it came.

use std::io::Write;

use clap::Args;
use paygate_domain::{daily::BusinessDay, Timestamp};
use serde_json::Value;

use crate::{
    config::Ctx,
    output::{self, NONE},
    CliError,
};

#[derive(Debug, Clone, Args)]
pub struct ReconciliationsArgs {
    /// The business day, YYYY-MM-DD (midnight to midnight Istanbul) [default: yesterday in
    /// Istanbul, the day the nightly run reconciles].
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_day)]
    pub date: Option<BusinessDay>,
    /// Print the API's CSV (one row per finding, as the API writes it) instead of the
    /// tables.
    #[arg(long)]
    pub csv: bool,
}

fn parse_day(s: &str) -> Result<BusinessDay, String> {
    BusinessDay::parse(s).ok_or_else(|| format!("{s:?} is not a date (YYYY-MM-DD)"))
}

impl ReconciliationsArgs {
    /// The day asked for, or yesterday in Istanbul at `now`.
    pub fn day(&self, now: std::time::SystemTime) -> BusinessDay {
        self.date.unwrap_or_else(|| {
            let ms = now
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
                .unwrap_or(0);
            BusinessDay::of(Timestamp::from_unix_millis(ms)).previous()
        })
    }
}

/// The counts, in the order they are shown, with their column headers.
const COUNTS: [(&str, &str); 6] = [
    ("matched", "MATCHED"),
    ("missingAtBank", "MISSING AT BANK"),
    ("missingHere", "MISSING HERE"),
    ("amountMismatch", "AMOUNT MISMATCH"),
    ("stateMismatch", "STATE MISMATCH"),
    ("unsettledHere", "UNSETTLED HERE"),
];

fn text(v: &Value, k: &str) -> String {
    v[k].as_str()
        .filter(|s| !s.is_empty())
        .unwrap_or(NONE)
        .to_owned()
}

fn amount(v: &Value) -> String {
    v.as_i64()
        .map_or_else(|| NONE.to_owned(), |a| output::money(a, "TRY"))
}

/// A mismatch line's notes: where the transaction came from and how it was settled.
fn notes(f: &Value) -> String {
    let mut n = Vec::new();
    if let Some(s) = f["status"].as_str() {
        n.push(format!("ours {s}"));
    }
    if f["origin"].as_str() == Some("external") {
        n.push("external".to_owned());
    }
    if f["settledFromBankRecords"].as_bool() == Some(true) {
        n.push("settled from bank records".to_owned());
    }
    if let Some(r) = f["bankRrn"].as_str().filter(|r| !r.is_empty()) {
        n.push(format!("rrn {r}"));
    }
    if n.is_empty() {
        NONE.to_owned()
    } else {
        n.join(", ")
    }
}

/// The day's reports: one row per account (status, counts), then each account's mismatch
/// lines (matched lines are only counted).
pub fn reports(answer: &Value) -> String {
    let date = text(answer, "date");
    let data = answer["data"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if data.is_empty() {
        return format!(
            "no reconciliation report for {date} yet (the nightly run reconciles yesterday between 00:15 and 02:15 Istanbul)\n"
        );
    }
    let mut headers = vec!["ACCOUNT", "MODE", "SOURCE", "STATUS"];
    headers.extend(COUNTS.iter().map(|(_, h)| *h));
    let rows: Vec<Vec<String>> = data
        .iter()
        .map(|r| {
            let mut row = vec![
                text(r, "accountId"),
                text(r, "mode"),
                text(r, "source"),
                text(r, "status"),
            ];
            row.extend(COUNTS.iter().map(|(k, _)| {
                r["counts"][k]
                    .as_u64()
                    .map_or_else(|| NONE.to_owned(), |n| n.to_string())
            }));
            row
        })
        .collect();
    let mut out = format!("reconciliation of {date}\n\n");
    out.push_str(&output::table(&headers, &rows));
    for r in data {
        let account = text(r, "accountId");
        if let Some(why) = r["incompleteReason"].as_str() {
            out.push_str(&format!("\n{account}: incomplete: {why}\n"));
        }
        let lines: Vec<Vec<String>> = r["findings"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter(|f| f["kind"].as_str() != Some("matched"))
            .map(|f| {
                vec![
                    text(f, "kind"),
                    text(f, "orderId"),
                    text(f, "operation"),
                    amount(&f["amount"]),
                    amount(&f["bankAmount"]),
                    text(f, "paymentId"),
                    notes(f),
                ]
            })
            .collect();
        if !lines.is_empty() {
            out.push_str(&format!("\n{account}: {} mismatch(es)\n", lines.len()));
            out.push_str(&output::table(
                &[
                    "KIND",
                    "ORDER ID",
                    "OPERATION",
                    "OURS",
                    "BANK",
                    "PAYMENT",
                    "NOTES",
                ],
                &lines,
            ));
        }
        if r["truncated"].as_bool() == Some(true) {
            out.push_str(&format!(
                "\n{account}: more findings than the report keeps (1000); the counts are whole\n"
            ));
        }
    }
    out
}

/// `reconciliations`: the day's reports as tables, the JSON (`--json`) or the CSV (`--csv`).
pub async fn run(
    ctx: &Ctx,
    args: &ReconciliationsArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if args.csv && ctx.json {
        return Err(CliError::usage("--csv and --json: choose one"));
    }
    let admin = ctx.admin()?;
    let mut query = vec![("date", args.day((ctx.clock)()).to_string())];
    if args.csv {
        query.push(("format", "csv".to_owned()));
        let url = admin.url(&["reconciliations"], &query)?;
        let csv = admin.call_text(reqwest::Method::GET, url).await?;
        out.write_all(csv.as_bytes())?;
        return Ok(());
    }
    let url = admin.url(&["reconciliations"], &query)?;
    let answer = admin.call(reqwest::Method::GET, url, None).await?;
    if ctx.json {
        out.write_all(output::json(&answer).as_bytes())?;
    } else {
        out.write_all(reports(&answer).as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_account_shows_its_counts_and_mismatch_lines() {
        let counts = |matched: u32, here: u32, amount: u32| {
            json!({"matched": matched, "missingAtBank": 0, "missingHere": here,
                   "amountMismatch": amount, "stateMismatch": 0, "unsettledHere": 0})
        };
        let text = reports(&json!({
            "date": "2026-11-26",
            "data": [{
                "accountId": "acc_a", "mode": "test", "date": "2026-11-26", "source": "history",
                "status": "mismatches", "counts": counts(1, 1, 1), "truncated": false,
                "generatedAt": "2026-11-27T00:15:00.000Z",
                "findings": [
                    {"kind": "amount_mismatch", "orderId": "ord-1", "operation": "capture",
                     "paymentId": "pay_1", "amount": 10050, "bankAmount": 10000,
                     "status": "approved", "origin": "api", "settledFromBankRecords": true},
                    {"kind": "missing_here", "orderId": "ord-2", "operation": "refund",
                     "bankAmount": 2500, "settledFromBankRecords": false, "bankRrn": "R9"},
                    {"kind": "matched", "orderId": "ord-3", "operation": "capture",
                     "amount": 100, "bankAmount": 100, "settledFromBankRecords": false}
                ]
            }, {
                "accountId": "acc_b", "mode": "test", "date": "2026-11-26", "source": "query",
                "status": "incomplete", "incompleteReason": "the bank's day history could not be read",
                "counts": counts(0, 0, 0), "findings": [], "truncated": false,
                "generatedAt": "2026-11-27T00:15:00.000Z"
            }]
        }));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "reconciliation of 2026-11-26", "{text}");
        assert!(
            lines[2].starts_with("ACCOUNT  MODE  SOURCE   STATUS"),
            "{text}"
        );
        assert!(
            lines[3].starts_with("acc_a    test  history  mismatches  1"),
            "{text}"
        );
        assert!(
            lines[4].starts_with("acc_b    test  query    incomplete  0"),
            "{text}"
        );
        for part in [
            "acc_a: 2 mismatch(es)",
            "amount_mismatch  ord-1     capture    100.50 TRY  100.00 TRY  pay_1",
            "ours approved, settled from bank records",
            "missing_here     ord-2     refund     -           25.00 TRY   -        rrn R9",
            "acc_b: incomplete: the bank's day history could not be read",
        ] {
            assert!(text.contains(part), "{part} in\n{text}");
        }
        assert!(
            !text.contains("ord-3"),
            "matched lines are only counted: {text}"
        );
        assert_eq!(
            reports(&json!({"date": "2026-11-26", "data": []})),
            "no reconciliation report for 2026-11-26 yet (the nightly run reconciles yesterday between 00:15 and 02:15 Istanbul)\n"
        );
    }

    #[test]
    fn the_default_day_is_yesterday_in_istanbul() {
        let args = ReconciliationsArgs {
            date: None,
            csv: false,
        };
        // 2026-11-26T21:30:00Z is 00:30 on the 27th in Istanbul
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_728_600);
        assert_eq!(args.day(at).to_string(), "2026-11-26");
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_728_600 - 3_600);
        assert_eq!(args.day(at).to_string(), "2026-11-25");
    }
}
