//! Numbers as JavaScript prints them (`String(x)`, `JSON.stringify`), so rho's output matches
//! Pi's byte for byte: `5`, not `5.0`; `1e+21`, not `1e21`.

use serde_json::{Number, Value};

/// 2^53: integers up to this magnitude are exact in a JS number.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

/// ECMAScript `Number::prototype.toString()` of `x`.
pub fn number_text(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        let special = if x == 0.0 {
            "0"
        } else if x.is_nan() {
            "NaN"
        } else {
            "Infinity"
        };
        let sign = if x < 0.0 && !x.is_nan() && x != 0.0 {
            "-"
        } else {
            ""
        };
        return format!("{sign}{special}");
    }
    // `{:e}` gives the shortest round-trip digits, e.g. "1.5e-7" or "5e0".
    let scientific = format!("{:e}", x.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let count = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    let point = exponent + 1; // the value is 0.<digits> × 10^point
    let zeros = |n: i64| "0".repeat(usize::try_from(n).unwrap_or(0));
    let body = if count <= point && point <= 21 {
        format!("{digits}{}", zeros(point - count))
    } else if 0 < point && point <= 21 {
        let (int, fraction) = digits.split_at(usize::try_from(point).unwrap_or(0));
        format!("{int}.{fraction}")
    } else if -6 < point && point <= 0 {
        format!("0.{}{digits}", zeros(-point))
    } else {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exponent >= 0 { "+" } else { "-" };
        format!("{first}{fraction}e{exp_sign}{}", exponent.unsigned_abs())
    };
    format!("{}{body}", if x < 0.0 { "-" } else { "" })
}

/// ECMAScript `Number::prototype.toFixed(digits)` of `x`: `digits` places after the point, an
/// exact half rounded away from zero (Rust's `{:.2}` rounds it to even: `1.125` gives `1.12`
/// there, `1.13` in JavaScript), and `String(x)` from 10^21 on.
pub fn to_fixed(x: f64, digits: usize) -> String {
    if !x.is_finite() || x.abs() >= 1e21 {
        return number_text(x);
    }
    let magnitude = x.abs();
    // Only an exact tie rounds differently. A tie has digits + 1 places, so it is a whole number
    // of 2^-(digits + 1) (exact to test: scaling by a power of two is exact), and printing it
    // with digits + 1 places is exact too.
    let places = i32::try_from(digits).unwrap_or(i32::MAX).saturating_add(1);
    let longer = format!("{magnitude:.*}", digits + 1);
    let tie = (magnitude * 2f64.powi(places)).fract() == 0.0 && longer.ends_with('5');
    let body = if tie {
        let kept = longer[..longer.len() - 1].trim_end_matches('.');
        round_last_digit_up(kept)
    } else {
        format!("{magnitude:.digits$}")
    };
    // JavaScript keeps the sign of a negative number that rounds to zero: `-0.001` → `-0.00`.
    let sign = if x < 0.0 { "-" } else { "" };
    format!("{sign}{body}")
}

/// A decimal numeral one unit of its last place larger: `1.12` → `1.13`, `9.99` → `10.00`.
fn round_last_digit_up(numeral: &str) -> String {
    let mut digits = numeral.as_bytes().to_vec();
    let mut carry = true;
    for digit in digits.iter_mut().rev().filter(|d| d.is_ascii_digit()) {
        if *digit == b'9' {
            *digit = b'0';
        } else {
            *digit += 1;
            carry = false;
            break;
        }
    }
    if carry {
        digits.insert(0, b'1');
    }
    String::from_utf8_lossy(&digits).into_owned()
}

/// A JSON number's text as JavaScript prints the number it parses to.
pub fn json_number_text(number: &Number) -> String {
    match number.as_i64() {
        Some(int) if int.unsigned_abs() <= 1 << 53 => int.to_string(),
        _ => number
            .as_f64()
            .map_or_else(|| number.to_string(), number_text),
    }
}

/// The JSON value for `x` that serializes as `JSON.stringify` writes it wherever serde_json can
/// say so: integral values within ±2^63 as integers (exact: such an `f64` is an `i64`), others
/// as floats; non-finite values as `null` (as `JSON.stringify` does).
pub fn number_value(x: f64) -> Value {
    // 2^63: every integral f64 below it is exactly an i64.
    if x.fract() == 0.0 && x.abs() < 9_223_372_036_854_775_808.0 {
        Value::from(x as i64)
    } else {
        Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

/// `#[serde(serialize_with = "rho_stdx::js::serialize_number")]` for `f64` fields Pi writes as JS
/// numbers (`0`, not `0.0`).
pub fn serialize_number<S: serde::Serializer>(
    value: &f64,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&number_value(*value), serializer)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use proptest::prelude::*;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        let cases = [
            (0.0, "0"),
            (-0.0, "0"),
            (5.0, "5"),
            (-5.5, "-5.5"),
            (0.3, "0.3"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5e19, "15000000000000000000"),
            (1e-7, "1e-7"),
            (1.5e-6, "0.0000015"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (x, text) in cases {
            assert_eq!(number_text(x), text, "{x}");
        }
    }

    #[test]
    fn to_fixed_rounds_as_javascript_does() {
        // Each expected text is what Node prints for `x.toFixed(digits)`.
        let cases = [
            (1.125, 2, "1.13"),
            (-1.125, 2, "-1.13"),
            (1.005, 2, "1.00"),
            (1.15, 1, "1.1"),
            (1.25, 1, "1.3"),
            (0.15, 1, "0.1"),
            (2.5, 0, "3"),
            (9.995, 2, "9.99"),
            (9.9951, 2, "10.00"),
            (0.5, 0, "1"),
            (-0.001, 2, "-0.00"),
            (-0.0, 2, "0.00"),
            (131.072, 1, "131.1"),
            (42.0, 3, "42.000"),
            (1e21, 2, "1e+21"),
            (f64::NAN, 1, "NaN"),
        ];
        for (x, digits, text) in cases {
            assert_eq!(to_fixed(x, digits), text, "{x}.toFixed({digits})");
        }
    }

    #[test]
    fn values_above_the_i64_range_stay_floats_instead_of_saturating() {
        assert!(number_value(1.5e19).is_f64());
        assert_eq!(number_value(9.0e18).to_string(), "9000000000000000000");
        assert_eq!(number_value(100.0).to_string(), "100");
        assert_eq!(number_value(0.5).to_string(), "0.5");
        assert_eq!(number_value(f64::INFINITY), Value::Null);
    }

    proptest! {
        #[test]
        fn number_text_round_trips(x in any::<f64>().prop_filter("finite", |x| x.is_finite())) {
            let parsed: f64 = number_text(x).parse().unwrap();
            prop_assert_eq!(parsed, x);
        }

        #[test]
        fn to_fixed_differs_from_rust_only_on_exact_halves(x in -1e6f64..1e6, digits in 0usize..6) {
            // Rust prints `-0.00` for negative zero, JavaScript `0.00`.
            prop_assume!(x != 0.0);
            let ours = to_fixed(x, digits);
            let rust = format!("{x:.digits$}");
            let scaled = x.abs() * 10f64.powi(i32::try_from(digits).unwrap());
            if ours != rust {
                prop_assert_eq!(scaled.fract(), 0.5, "{} vs {}", ours, rust);
            }
        }
    }
}
