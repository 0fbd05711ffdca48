//! Every bank family's decline table in one place (feature `banks`): the same tables the
//! adapters read through `Protocol::DECLINE_CODES` / `PosProvider::decline_code`, here so
//! that they are checked together and rendered into the API docs (`docs/api.md`, the block
//! between the `decline-codes` markers, compared by this module's test).

use paygate_bankkit::Protocol;
use paygate_domain::{DeclineCode, Lang};

/// One family's table: its provider code and bank code → stable code.
pub type DeclineTable = (&'static str, &'static [(&'static str, DeclineCode)]);

/// Every registered family's table (one line per family, as in [`crate::providers`]), the
/// spec simulator's first.
pub fn decline_tables() -> Vec<DeclineTable> {
    vec![
        (
            paygate_bank_simulator::PROVIDER_CODE,
            paygate_bank_simulator::decline::TABLE,
        ),
        table::<paygate_bank_nestpay::Nestpay>(),
        table::<paygate_bank_garanti::Garanti>(),
        table::<paygate_bank_posnet::Posnet>(),
        table::<paygate_bank_payflex::PayFlex>(),
        table::<paygate_bank_interpos::InterPos>(),
        table::<paygate_bank_vakifkatilim::VakifKatilim>(),
        table::<paygate_bank_payfor::PayFor>(),
        table::<paygate_bank_parampos::ParamPos>(),
        table::<paygate_bank_toslapos::ToslaPos>(),
        table::<paygate_bank_posnetv1::PosNetV1>(),
        table::<paygate_bank_kuveytpos::KuveytPos>(),
        table::<paygate_bank_akbankpos::AkbankPos>(),
    ]
}

fn table<P: Protocol>() -> DeclineTable {
    (P::CODE, P::DECLINE_CODES)
}

/// The API docs' decline-code section: the codes (retryable, messages), then for each
/// code the bank codes that map to it, family by family (the kit's ISO 8583 table last: any
/// family whose own table does not name a two-digit host code).
pub fn render_decline_docs() -> String {
    let mut out =
        String::from("| `declineCode` | `retryable` | English | Türkçe |\n|---|---|---|---|\n");
    for c in DeclineCode::ALL {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            c.as_str(),
            c.retryable(),
            c.message(Lang::En),
            c.message(Lang::Tr)
        ));
    }
    out.push_str("\n| `declineCode` | bank codes (family: codes) |\n|---|---|\n");
    let mut tables = decline_tables();
    tables.push(("ISO 8583, every family", paygate_bankkit::decline::ISO8583));
    tables.push((
        "kit (refused before sending)",
        paygate_bankkit::decline::KIT,
    ));
    for c in DeclineCode::ALL {
        let families: Vec<String> = tables
            .iter()
            .filter_map(|(family, table)| {
                let codes: Vec<String> = table
                    .iter()
                    .filter(|(_, d)| *d == c)
                    .map(|(code, _)| format!("`{code}`"))
                    .collect();
                (!codes.is_empty()).then(|| format!("{family}: {}", codes.join(" ")))
            })
            .collect();
        let cell = match c {
            DeclineCode::OutcomeUnknown => "any unknown outcome (no usable answer)".to_owned(),
            DeclineCode::Unclassified => "any refusal no table names".to_owned(),
            _ if families.is_empty() => "—".to_owned(),
            _ => families.join("; "),
        };
        let cell = if c == DeclineCode::AfterEndOfDay {
            format!("any cancel refused for the cut; {cell}")
        } else {
            cell
        };
        out.push_str(&format!("| `{}` | {cell} |\n", c.as_str()));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use paygate_domain::BankOutcome;

    use super::*;

    const BEGIN: &str = "<!-- decline-codes:begin (generated from the Rust tables; paygate-compose declines test) -->\n";
    const END: &str = "<!-- decline-codes:end -->";

    /// Every family's table is consistent: each bank code once, never "unknown" (an unknown
    /// outcome is one whatever its code), none of the host codes every family reads as "may
    /// have acted" named at all; and through the kit's classifier (what the adapter's hook
    /// runs) a decline maps as the table says, an unknown outcome with the same code is
    /// never retryable.
    #[test]
    fn every_family_table_is_consistent() {
        let tables = decline_tables();
        let mut providers = HashSet::new();
        for (family, table) in &tables {
            assert!(providers.insert(*family), "{family} twice");
            let mut seen = HashSet::new();
            for (code, d) in *table {
                assert!(seen.insert(*code), "{family}: {code} twice");
                assert_ne!(*d, DeclineCode::OutcomeUnknown, "{family}: {code}");
                for may_have_acted in ["68", "91", "92", "96"] {
                    let padded = format!("00{may_have_acted}");
                    if *family != paygate_bank_simulator::PROVIDER_CODE {
                        assert!(
                            *code != may_have_acted && *code != padded,
                            "{family}: {code} is read as unknown by the family"
                        );
                    }
                }
                let declined = BankOutcome::Declined {
                    code: (*code).to_owned(),
                    message: String::new(),
                    after_cutoff: false,
                };
                assert_eq!(
                    paygate_bankkit::decline::classify(&declined, table),
                    Some(*d),
                    "{family}: {code}"
                );
                let unknown = BankOutcome::Unknown {
                    reason: (*code).to_owned(),
                };
                let got = paygate_bankkit::decline::classify(&unknown, table).unwrap();
                assert!(!got.retryable(), "{family}: {code}");
            }
        }
        assert_eq!(tables.len(), 13, "every family has its table here");
    }

    /// Each family's README lists its table ("Decline codes": a row per stable code with
    /// the bank codes that map to it), so the README and the code cannot drift apart.
    #[test]
    fn every_family_readme_lists_its_table() {
        for (family, table) in decline_tables() {
            if family == paygate_bank_simulator::PROVIDER_CODE {
                continue;
            }
            let path = format!("{}/../banks/{family}/README.md", env!("CARGO_MANIFEST_DIR"));
            let readme = std::fs::read_to_string(&path).unwrap_or_default();
            let section = readme.split("## Decline codes").nth(1).unwrap_or("");
            let row = |d: DeclineCode| {
                section
                    .lines()
                    .find(|l| l.starts_with(&format!("| `{}` |", d.as_str())))
                    .unwrap_or("")
                    .to_owned()
            };
            for (code, d) in table {
                assert!(
                    row(*d).contains(&format!("`{code}`")),
                    "{path}: \"Decline codes\" lacks `{code}` under `{d}`"
                );
            }
        }
    }

    /// `docs/api.md` carries the table rendered from the Rust tables, exactly.
    #[test]
    fn the_api_docs_show_the_generated_decline_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/api.md");
        let doc = std::fs::read_to_string(path).unwrap_or_default();
        let want = render_decline_docs();
        let found = doc
            .split_once(BEGIN)
            .and_then(|(_, rest)| rest.split_once(END))
            .map(|(block, _)| block.to_owned());
        if found.as_deref() != Some(want.as_str()) && std::env::var_os("PAYGATE_BLESS").is_some() {
            if let Some((head, rest)) = doc.split_once(BEGIN) {
                if let Some((_, tail)) = rest.split_once(END) {
                    std::fs::write(path, format!("{head}{BEGIN}{want}{END}{tail}")).ok();
                    return;
                }
            }
        }
        assert_eq!(
            found.as_deref(),
            Some(want.as_str()),
            "docs/api.md's decline-code block is out of date: run \
             PAYGATE_BLESS=1 cargo test -p paygate-compose --features banks declines"
        );
    }
}
