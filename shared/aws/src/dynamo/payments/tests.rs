use std::collections::BTreeSet;

use paygate_domain::PaymentStatus;

use super::*;

/// Placeholders (`#name`, `:value`) used in an expression.
fn placeholders(expr: &str, sigil: char) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut chars = expr.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == sigil {
            let mut end = i + 1;
            while let Some((j, d)) = chars.peek() {
                if d.is_ascii_alphanumeric() || *d == '_' {
                    end = j + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            out.insert(expr[i..end].to_owned());
        }
    }
    out
}

/// moto answers an undefined or unused placeholder with HTTP 500 or a validation error, so
/// every condition must define exactly the placeholders it uses.
fn assert_consistent(c: &Condition) {
    let names: BTreeSet<String> = c.names.keys().cloned().collect();
    let values: BTreeSet<String> = c.values.keys().cloned().collect();
    assert_eq!(placeholders(&c.expr, '#'), names, "names of {}", c.expr);
    assert_eq!(placeholders(&c.expr, ':'), values, "values of {}", c.expr);
}

#[test]
fn absent_condition() {
    let c = condition(&Expectation::Absent);
    assert_eq!(c.expr, "attribute_not_exists(#pk)");
    assert_consistent(&c);
    assert!(
        c.values().is_none(),
        "empty value maps are rejected by DynamoDB"
    );
}

#[test]
fn version_conditions() {
    let cases = [
        (false, None, "#version = :version AND #status = :status"),
        (
            true,
            None,
            "#version = :version AND #status = :status AND attribute_not_exists(#pending)",
        ),
        (
            false,
            Some(300),
            "#version = :version AND #status = :status AND #refundable >= :minRefundable",
        ),
        (
            true,
            Some(300),
            "#version = :version AND #status = :status AND attribute_not_exists(#pending) \
             AND #refundable >= :minRefundable",
        ),
    ];
    for (no_pending, min_refundable, expected) in cases {
        let c = condition(&Expectation::Version {
            version: 4,
            status: PaymentStatus::PartiallyRefunded,
            no_pending,
            min_refundable,
        });
        assert_eq!(c.expr, expected);
        assert_consistent(&c);
        assert_eq!(c.values.get(":version"), Some(&n(4)));
        assert_eq!(c.values.get(":status"), Some(&s("partially_refunded")));
        if min_refundable.is_some() {
            assert_eq!(c.values.get(":minRefundable"), Some(&n(300)));
            assert_eq!(
                c.names.get("#refundable").map(String::as_str),
                Some("refundable")
            );
        }
        if no_pending {
            assert_eq!(
                c.names.get("#pending").map(String::as_str),
                Some("pendingOp")
            );
        }
    }
}

#[test]
fn event_condition_defines_its_name() {
    assert_eq!(
        placeholders(EVENT_ABSENT, '#'),
        BTreeSet::from(["#id".to_owned()])
    );
}
