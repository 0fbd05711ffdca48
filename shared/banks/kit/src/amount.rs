//! Amount formats of the Turkish bank protocols. Never floats.

/// Minor units as decimal TL with a dot and two decimals: `12345` → `"123.45"`.
pub fn to_decimal(minor: i64) -> String {
    paygate_domain::money::format_decimal(minor)
}

/// Parses a decimal amount (`"123.45"`, `"123,45"`, `"123"`, `"000000010.00"`, `"1.5"`) into
/// minor units. More than two fractional digits, signs, or anything else → `None`.
pub fn parse_decimal(s: &str) -> Option<i64> {
    let s = s.trim();
    let (int, frac) = match s.find(['.', ',']) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 2
    {
        return None;
    }
    let whole: i64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let cents: i64 = match frac.len() {
        0 => 0,
        1 => frac.parse::<i64>().ok()? * 10,
        _ => frac.parse().ok()?,
    };
    whole.checked_mul(100)?.checked_add(cents)
}

/// Parses an integer amount already in minor units (`"000000005871"` → 5871).
pub fn parse_minor(s: &str) -> Option<i64> {
    let s = s.trim();
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals() {
        assert_eq!(to_decimal(12_345), "123.45");
        assert_eq!(parse_decimal("123.45"), Some(12_345));
        assert_eq!(parse_decimal("1,16"), Some(116));
        assert_eq!(parse_decimal("1.5"), Some(150));
        assert_eq!(parse_decimal("000000010.00"), Some(1_000));
        assert_eq!(parse_decimal("100"), Some(10_000));
        for bad in ["", ".", "1.234", "-1", "1a", "1.2.3"] {
            assert_eq!(parse_decimal(bad), None, "{bad}");
        }
        assert_eq!(parse_minor("000000005871"), Some(5_871));
        assert_eq!(parse_minor("58.71"), None);
    }
}
