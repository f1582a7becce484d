//! Timestamps and ids as Pi writes them: ISO-8601 UTC with milliseconds (`Date.toISOString()`),
//! 8-hex entry ids, UUIDv7 session ids.

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::DateTime;

/// `SystemTime` as JavaScript's `toISOString()` prints it: `2026-05-07T10:11:12.345Z`.
pub fn iso_timestamp(time: SystemTime) -> String {
    let ms = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    iso_from_epoch_ms(ms)
}

/// Epoch milliseconds as `toISOString()` prints them (years 0–9999).
pub fn iso_from_epoch_ms(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// Parses the ISO-8601 forms Pi writes (`YYYY-MM-DDTHH:MM:SS(.fff)?Z` or with a `±HH:MM`
/// offset) into epoch milliseconds; `None` for anything else, as `new Date(x)` gives `NaN`
/// (and for a day the month does not have, which `new Date` would carry into the next month).
pub fn parse_iso_ms(text: &str) -> Option<i64> {
    // RFC 3339 also allows a space or a lower-case `t` between date and time, and a lower-case
    // `z`; Pi never writes them.
    let pis_shape = text.as_bytes().get(10) == Some(&b'T') && !text.ends_with('z');
    if !pis_shape {
        return None;
    }
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|time| time.timestamp_millis())
}

/// Epoch milliseconds as a `SystemTime` (clamped at the epoch).
pub fn system_time_from_ms(ms: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64)
}

/// `fileTimestamp` of Pi's file names: the ISO timestamp with `:` and `.` replaced by `-`.
pub fn file_timestamp(iso: &str) -> String {
    iso.replace([':', '.'], "-")
}

/// A new session id: a UUIDv7, as Pi's `createSessionId`.
pub fn new_session_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A new entry id: the first 8 hex characters of a random UUID, re-drawn when taken, a whole
/// UUID after 100 collisions (Pi's `generateId`).
pub fn new_entry_id<V>(taken: &HashMap<String, V>) -> String {
    for _ in 0..100 {
        let uuid = uuid::Uuid::new_v4().simple().to_string();
        let id = &uuid[..8];
        if !taken.contains_key(id) {
            return id.to_owned();
        }
    }
    uuid::Uuid::new_v4().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_shapes_pi_writes_parse() {
        let ms = 1_778_148_672_000; // 2026-05-07T10:11:12Z
        let cases = [
            ("2026-05-07T10:11:12Z", Some(ms)),
            ("2026-05-07T10:11:12.5Z", Some(ms + 500)),
            ("2026-05-07T10:11:12.123456789Z", Some(ms + 123)),
            ("2026-05-07T08:41:12-01:30", Some(ms)),
            ("2026-05-07 10:11:12Z", None),
            ("2026-05-07t10:11:12Z", None),
            ("2026-05-07T10:11:12z", None),
            ("2026-05-07T10:11:12.Z", None),
            ("2026-05-07T10:11Z", None),
            ("2026-05-07T10:11:12", None),
            ("2026-13-07T10:11:12Z", None),
            ("2026-02-30T10:11:12Z", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_iso_ms(text), expected, "{text}");
        }
    }

    #[test]
    fn iso_round_trips_through_epoch_ms() {
        let ms = 1_778_148_672_345; // 2026-05-07T10:11:12.345Z
        assert_eq!(iso_from_epoch_ms(ms), "2026-05-07T10:11:12.345Z");
        assert_eq!(parse_iso_ms("2026-05-07T10:11:12.345Z"), Some(ms));
        assert_eq!(parse_iso_ms("2026-05-07T12:11:12.345+02:00"), Some(ms));
        assert_eq!(parse_iso_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso_ms("not a date"), None);
        assert_eq!(iso_from_epoch_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_from_epoch_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(
            file_timestamp("2026-05-07T10:11:12.345Z"),
            "2026-05-07T10-11-12-345Z"
        );
    }
}
