//! The simulator's answers as the bank writes them: `posnetResponse` in ISO-8859-9, declared
//! `<?xml version='1.0' encoding='iso-8859-9'?>` (as seen from the real service).

use paygate_bankkit::{encoding, xml::escape};

use super::rules::{Answer, Row};
use crate::{codes, wire};

const DECL: &str = "<?xml version='1.0' encoding='iso-8859-9'?>";

fn leaf(out: &mut String, name: &str, text: &str) {
    out.push_str(&format!("<{name}>{}</{name}>", escape(text)));
}

/// `YYMMDDHHMMSS` on the simulator's calendar (business day `day` of January 2025 onwards).
fn tran_date(day: u32) -> String {
    format!("2501{:02}120000", 1 + day % 28)
}

fn status_date(day: u32) -> String {
    format!("2025-01-{:02} 12:00:00.000", 1 + day % 28)
}

fn row(out: &mut String, order_id: &str, r: &Row) {
    out.push_str("<transaction>");
    leaf(out, "orderID", order_id);
    leaf(out, "ccno", "**** **** **** ****");
    leaf(out, "amount", &wire::format_status_amount(r.amount));
    leaf(out, "currencyCode", wire::currency_code(r.currency, "TL"));
    leaf(out, "authCode", &r.auth_code);
    leaf(out, "tranDate", &status_date(r.day));
    leaf(out, "state", r.kind.as_str());
    leaf(
        out,
        "txnStatus",
        if r.ok {
            codes::APPROVED
        } else {
            codes::NOT_APPROVED
        },
    );
    leaf(out, "hostlogkey", &r.host_log_key);
    out.push_str("</transaction>");
}

/// The answer document; `tran_date` adds `tranDate` (requests with `tranDateRequired=1`).
pub fn answer(a: &Answer, tran_date_required: bool) -> Vec<u8> {
    let mut out = format!("{DECL}<posnetResponse>");
    match a {
        Answer::Approved {
            host_log_key,
            auth_code,
            day,
        } => {
            leaf(&mut out, "approved", codes::APPROVED);
            leaf(&mut out, "respCode", "");
            leaf(&mut out, "respText", "");
            leaf(&mut out, "hostlogkey", host_log_key);
            leaf(&mut out, "authCode", auth_code);
            if tran_date_required {
                leaf(&mut out, "tranDate", &tran_date(*day));
            }
        }
        Answer::Status { order_id, rows } => {
            leaf(&mut out, "approved", codes::APPROVED);
            out.push_str("<transactions>");
            for r in rows {
                row(&mut out, order_id, r);
            }
            out.push_str("</transactions>");
        }
        Answer::Points(p) => {
            leaf(&mut out, "approved", codes::APPROVED);
            leaf(&mut out, "respCode", "");
            leaf(&mut out, "respText", "");
            out.push_str("<pointInfo>");
            leaf(&mut out, "point", "00000000");
            leaf(&mut out, "pointAmount", "000000000000");
            leaf(&mut out, "totalPoint", &format!("{:08}", p.total_point));
            leaf(
                &mut out,
                "totalPointAmount",
                &format!("{:012}", p.total_point_amount),
            );
            out.push_str("</pointInfo>");
        }
        Answer::Refused {
            approved,
            code,
            text,
            host_log_key,
            auth_code,
        } => {
            leaf(&mut out, "approved", approved);
            leaf(&mut out, "respCode", code);
            leaf(&mut out, "respText", text);
            if !host_log_key.is_empty() {
                leaf(&mut out, "hostlogkey", host_log_key);
                leaf(&mut out, "authCode", auth_code);
            }
        }
    }
    out.push_str("</posnetResponse>");
    encoding::encode(&out)
}
