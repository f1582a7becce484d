//! The server's retry hint: `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP
//! date), as the providers' SDKs read them.

use std::time::SystemTime;

/// The hint in milliseconds from the two header values, `retry-after-ms` taking precedence.
/// `now` resolves an HTTP date; a date in the past gives `0`. Unparseable values give `None`.
pub fn retry_after_ms(
    retry_after_ms: Option<&str>,
    retry_after: Option<&str>,
    now: SystemTime,
) -> Option<u64> {
    if let Some(ms) = retry_after_ms.and_then(non_negative) {
        return Some(ms.ceil() as u64);
    }
    let value = retry_after?.trim();
    if let Some(seconds) = non_negative(value) {
        return Some((seconds * 1000.0).ceil() as u64);
    }
    let date = httpdate::parse_http_date(value).ok()?;
    let wait = date.duration_since(now).unwrap_or_default();
    Some(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX))
}

/// A finite, non-negative number; `None` for anything else (including dates).
fn non_negative(value: &str) -> Option<f64> {
    let number: f64 = value.trim().parse().ok()?;
    // The bound keeps the `as u64` conversions exact; a longer hint is nonsense anyway.
    (number.is_finite() && (0.0..1e12).contains(&number)).then_some(number)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(seconds)
    }

    #[test]
    fn retry_after_ms_wins_over_retry_after() {
        assert_eq!(retry_after_ms(Some("1500"), Some("9"), at(0)), Some(1500));
    }

    #[test]
    fn whole_and_fractional_seconds_become_milliseconds() {
        assert_eq!(retry_after_ms(None, Some("2"), at(0)), Some(2000));
        assert_eq!(retry_after_ms(None, Some(" 0.25 "), at(0)), Some(250));
    }

    #[test]
    fn an_http_date_counts_from_now_and_a_past_date_means_now() {
        // Sun, 06 Nov 1994 08:49:37 GMT is 784111777 seconds after the epoch.
        let date = Some("Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(retry_after_ms(None, date, at(784_111_770)), Some(7000));
        assert_eq!(retry_after_ms(None, date, at(784_111_800)), Some(0));
    }

    #[test]
    fn garbage_negative_and_infinite_values_give_no_hint() {
        assert_eq!(retry_after_ms(Some("soon"), Some("-1"), at(0)), None);
        assert_eq!(retry_after_ms(Some("inf"), Some("NaN"), at(0)), None);
        assert_eq!(retry_after_ms(None, None, at(0)), None);
    }

    #[test]
    fn an_unparseable_retry_after_ms_falls_back_to_retry_after() {
        assert_eq!(retry_after_ms(Some("x"), Some("3"), at(0)), Some(3000));
    }
}
