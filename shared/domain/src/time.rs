//! Time as an injected port: the domain never reads the system clock.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::{format_description::well_known::Rfc3339, OffsetDateTime, UtcOffset};

/// A UTC instant with millisecond precision, serialised as ISO 8601 (`2026-11-21T10:00:00.000Z`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    pub const fn from_unix_millis(ms: i64) -> Self {
        Self(ms)
    }

    pub const fn unix_millis(self) -> i64 {
        self.0
    }

    pub const fn unix_seconds(self) -> i64 {
        self.0.div_euclid(1000)
    }

    pub const fn plus_millis(self, ms: i64) -> Self {
        Self(self.0.saturating_add(ms))
    }

    fn datetime(self) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(self.0) * 1_000_000)
            .unwrap_or(OffsetDateTime::UNIX_EPOCH)
    }

    /// ISO 8601 UTC with milliseconds and a `Z` suffix.
    pub fn to_iso8601(self) -> String {
        let dt = self.datetime();
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            dt.year(),
            u8::from(dt.month()),
            dt.day(),
            dt.hour(),
            dt.minute(),
            dt.second(),
            dt.millisecond()
        )
    }

    pub fn parse_iso8601(s: &str) -> Option<Self> {
        let dt = OffsetDateTime::parse(s, &Rfc3339).ok()?;
        let ms = dt.unix_timestamp_nanos() / 1_000_000;
        i64::try_from(ms).ok().map(Self)
    }

    /// The business day (`YYYY-MM-DD`) at a fixed UTC offset in hours; Turkish banks cut
    /// their day at midnight Istanbul time (UTC+3).
    pub fn business_day(self, offset_hours: i8) -> String {
        let offset = UtcOffset::from_hms(offset_hours, 0, 0).unwrap_or(UtcOffset::UTC);
        let dt = self.datetime().to_offset(offset);
        format!(
            "{:04}-{:02}-{:02}",
            dt.year(),
            u8::from(dt.month()),
            dt.day()
        )
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_iso8601())
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({})", self.to_iso8601())
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_iso8601())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse_iso8601(&s).ok_or_else(|| serde::de::Error::custom("expected an ISO 8601 time"))
    }
}

/// The clock port.
pub trait Clock: Send + Sync {
    fn now(&self) -> Timestamp;
}

/// A half-open span of time, `[since, until)`: `since` is in it, `until` is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    pub since: Timestamp,
    pub until: Timestamp,
}

impl TimeRange {
    pub const fn new(since: Timestamp, until: Timestamp) -> Self {
        Self { since, until }
    }

    /// Whether `t` falls in the range.
    pub fn contains(&self, t: Timestamp) -> bool {
        self.since <= t && t < self.until
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_round_trip() {
        let t = Timestamp::from_unix_millis(1_795_000_000_123);
        let s = t.to_iso8601();
        assert_eq!(s, "2026-11-18T11:06:40.123Z");
        assert_eq!(Timestamp::parse_iso8601(&s), Some(t));
    }

    #[test]
    fn istanbul_business_day_turns_at_21_utc() {
        let before = Timestamp::parse_iso8601("2026-11-20T20:59:59Z").unwrap();
        let after = Timestamp::parse_iso8601("2026-11-20T21:00:00Z").unwrap();
        assert_eq!(before.business_day(3), "2026-11-20");
        assert_eq!(after.business_day(3), "2026-11-21");
    }

    #[test]
    fn a_time_range_holds_its_start_and_not_its_end() {
        let since = Timestamp::from_unix_millis(1_000);
        let until = Timestamp::from_unix_millis(2_000);
        let r = TimeRange::new(since, until);
        assert!(r.contains(since));
        assert!(r.contains(until.plus_millis(-1)));
        assert!(!r.contains(until));
        assert!(!r.contains(since.plus_millis(-1)));
        assert!(!TimeRange::new(until, until).contains(until));
    }
}
