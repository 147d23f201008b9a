//! Numbers as JavaScript's `String(n)` prints them, for messages that must read as the
//! reference's (Ajv's limits, the coding tools' sizes).

/// A number as JavaScript's `String(n)` prints it: `2`, not `2.0`; `1e-7` and `1e+21` with
/// an exponent, `0.000001` and `100` without.
#[must_use]
pub fn js_number(n: f64) -> String {
    if n.is_nan() {
        "NaN".to_owned()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if n == 0.0 {
        // `-0` prints as `0`.
        "0".to_owned()
    } else if n.abs() >= 1e21 || n.abs() < 1e-6 {
        let text = format!("{n:e}");
        match text.split_once('e') {
            Some((mantissa, exponent)) if !exponent.starts_with('-') => {
                format!("{mantissa}e+{exponent}")
            }
            _ => text,
        }
    } else if n.fract() == 0.0 {
        format!("{n:.0}")
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        for (n, text) in [
            (2.0, "2"),
            (0.1, "0.1"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000_001, "0.000001"),
            (1e21, "1e+21"),
            (123_456.0, "123456"),
            (-0.25, "-0.25"),
            (-0.0, "0"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(js_number(n), text);
        }
    }
}
