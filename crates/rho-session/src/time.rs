//! Timestamps and ids as Pi writes them: ISO-8601 UTC with milliseconds (`Date.toISOString()`),
//! 8-hex entry ids, UUIDv7 session ids.

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}.{milli:03}Z")
}

/// Parses the ISO-8601 forms Pi writes (`YYYY-MM-DDTHH:MM:SS(.fff)?Z` or with a `±HH:MM`
/// offset) into epoch milliseconds; `None` for anything else, as `new Date(x)` gives `NaN`.
pub fn parse_iso_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<i64> { text.get(from..to)?.parse().ok() };
    let (y, mo, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (h, mi, s) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let mut rest = &text[19..];
    let mut millis = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let scaled: String = frac[..digits]
            .chars()
            .chain("000".chars())
            .take(3)
            .collect();
        millis = scaled.parse().ok()?;
        rest = &frac[digits..];
    }
    let offset_min = match rest {
        "Z" => 0,
        _ => {
            let sign = match rest.as_bytes().first() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return None,
            };
            let oh: i64 = rest.get(1..3)?.parse().ok()?;
            let om: i64 = rest.get(4..6)?.parse().ok()?;
            if rest.len() != 6 || rest.as_bytes()[3] != b':' {
                return None;
            }
            sign * (oh * 60 + om)
        }
    };
    let days = days_from_civil(y, mo, d);
    Some(((days * 24 + h) * 60 + mi - offset_min) * 60_000 + s * 1000 + millis)
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

// Howard Hinnant's civil calendar algorithms (public domain), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_round_trips_through_epoch_ms() {
        let ms = 1_778_148_672_345; // 2026-05-07T10:11:12.345Z
        assert_eq!(iso_from_epoch_ms(ms), "2026-05-07T10:11:12.345Z");
        assert_eq!(parse_iso_ms("2026-05-07T10:11:12.345Z"), Some(ms));
        assert_eq!(parse_iso_ms("2026-05-07T12:11:12.345+02:00"), Some(ms));
        assert_eq!(parse_iso_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso_ms("not a date"), None);
        assert_eq!(
            file_timestamp("2026-05-07T10:11:12.345Z"),
            "2026-05-07T10-11-12-345Z"
        );
    }
}
