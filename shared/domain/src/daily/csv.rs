//! Reports as CSV, the finance team's format: one row per finding, with its report's
//! account, date and status; a report without findings is one row of its own (so a clean or
//! incomplete account still shows).

use super::{DayReport, Finding};

/// The header row.
pub const CSV_HEADER: &str = "date,accountId,mode,source,reportStatus,kind,orderId,operation,paymentId,transactionId,amount,bankAmount,status,origin,settledFromBankRecords,bankRrn";

/// `reports` as CSV (RFC 4180, `\r\n` line ends). A text cell that a spreadsheet would read
/// as a formula (`=`, `+`, `-`, `@`, tab, CR) is prefixed with `'`.
pub fn to_csv(reports: &[DayReport]) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push_str("\r\n");
    for r in reports {
        let head = [
            r.date.to_string(),
            r.account_id.to_string(),
            r.mode.as_str().to_owned(),
            json_name(&r.source),
            json_name(&r.status),
        ];
        if r.findings.is_empty() {
            row(
                &mut out,
                head.iter()
                    .cloned()
                    .chain(std::iter::repeat_n(String::new(), 11)),
            );
        }
        for f in &r.findings {
            row(&mut out, head.iter().cloned().chain(finding_cells(f)));
        }
    }
    out
}

fn finding_cells(f: &Finding) -> [String; 11] {
    let opt = |v: Option<String>| v.unwrap_or_default();
    [
        f.kind.as_str().to_owned(),
        f.order_id.clone(),
        f.operation.as_str().to_owned(),
        opt(f.payment_id.as_ref().map(ToString::to_string)),
        opt(f.transaction_id.as_ref().map(ToString::to_string)),
        opt(f.amount.map(|a| a.to_string())),
        opt(f.bank_amount.map(|a| a.to_string())),
        opt(f.status.map(|s| s.as_str().to_owned())),
        opt(f.origin.map(|o| o.as_str().to_owned())),
        f.settled_from_bank_records.to_string(),
        f.bank_rrn.clone(),
    ]
}

/// A unit enum's serde name (`history`, `mismatches`).
fn json_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn row(out: &mut String, cells: impl Iterator<Item = String>) {
    for (i, c) in cells.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&cell(&c));
    }
    out.push_str("\r\n");
}

fn cell(raw: &str) -> String {
    let numeric = !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit());
    let mut v = String::new();
    if !numeric && raw.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        v.push('\'');
    }
    v.push_str(raw);
    if v.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        daily::{BankLine, BusinessDay, DayReport, FindingKind, Source},
        AccountId, MerchantId, Mode, Timestamp, TransactionType,
    };

    #[test]
    fn one_row_per_finding_escaped_and_formula_safe() {
        let day = BusinessDay::parse("2026-11-26").unwrap();
        let line = |order: &str| BankLine {
            order_id: order.into(),
            kind: TransactionType::Refund,
            amount: 1_500,
            rrn: "612".into(),
        };
        let findings = vec![
            Finding::bank_only(FindingKind::MissingHere, &line("=HYPERLINK(\"x\")")),
            Finding::bank_only(FindingKind::MissingHere, &line("A,1")),
        ];
        let at = Timestamp::from_unix_millis(0);
        let m = MerchantId::parse("mch_1").unwrap();
        let report = |acc: &str, f: Vec<Finding>| {
            let acc = AccountId::parse(acc).unwrap();
            DayReport::new(
                m.clone(),
                acc,
                Mode::Live,
                day,
                Source::History,
                None,
                f,
                at,
            )
        };
        let csv = to_csv(&[report("acc_1", findings), report("acc_2", vec![])]);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(
            lines[1],
            "2026-11-26,acc_1,live,history,mismatches,missing_here,\"'=HYPERLINK(\"\"x\"\")\",refund,,,,1500,,,false,612"
        );
        assert_eq!(
            lines[2],
            "2026-11-26,acc_1,live,history,mismatches,missing_here,\"A,1\",refund,,,,1500,,,false,612"
        );
        assert_eq!(lines[3], "2026-11-26,acc_2,live,history,clean,,,,,,,,,,,");
        assert_eq!(lines[4], "");
        assert_eq!(lines.len(), 5);
        let cols = CSV_HEADER.split(',').count();
        assert_eq!(lines[3].split(',').count(), cols);
    }
}
