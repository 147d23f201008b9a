//! Bounded JSON measurement: the byte length of a value's exact JSON encoding (as
//! `JSON.stringify` writes it) without serializing it, with depth and property bounds.
//!
//! The walk stops at the first bound broken, so a hostile value costs at most `max_bytes`
//! worth of work. Array items and object keys both count as properties; the root is depth 1
//! and every nested value (container or not) is one level deeper than its parent.

use serde_json::Value;

/// The bounds of one measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonBounds {
    /// Largest encoding in bytes.
    pub max_bytes: u64,
    /// Deepest nesting (root = 1).
    pub max_depth: u64,
    /// Most array items plus object keys.
    pub max_properties: u64,
}

/// Which bound a value broke (the text after the label in the error message).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum JsonBound {
    /// The encoding is longer than `max_bytes`.
    #[error("exceeds {0} bytes")]
    Bytes(u64),
    /// The nesting is deeper than `max_depth`.
    #[error("exceeds depth {0}")]
    Depth(u64),
    /// More than `max_properties` items and keys.
    #[error("exceeds {0} properties")]
    Properties(u64),
}

impl JsonBound {
    /// The code of every broken JSON bound: `ERR_PRISM_MCP_JSON_BOUND` (the variants say which).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Bytes(_) | Self::Depth(_) | Self::Properties(_) => "ERR_PRISM_MCP_JSON_BOUND",
        }
    }
}

/// What a successful measurement found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JsonMeasure {
    /// Bytes of the JSON encoding.
    pub bytes: u64,
    /// Array items plus object keys.
    pub properties: u64,
}

/// Measures `value` against `bounds`.
///
/// # Errors
/// The first [`JsonBound`] broken.
pub fn measure_bounded_json(value: &Value, bounds: JsonBounds) -> Result<JsonMeasure, JsonBound> {
    let mut m = JsonMeasure::default();
    walk(value, 1, bounds, &mut m)?;
    Ok(m)
}

fn add_bytes(m: &mut JsonMeasure, n: u64, bounds: JsonBounds) -> Result<(), JsonBound> {
    m.bytes = m.bytes.saturating_add(n);
    if m.bytes > bounds.max_bytes {
        return Err(JsonBound::Bytes(bounds.max_bytes));
    }
    Ok(())
}

fn add_properties(m: &mut JsonMeasure, n: usize, bounds: JsonBounds) -> Result<(), JsonBound> {
    m.properties = m.properties.saturating_add(n as u64);
    if m.properties > bounds.max_properties {
        return Err(JsonBound::Properties(bounds.max_properties));
    }
    Ok(())
}

fn walk(
    value: &Value,
    depth: u64,
    bounds: JsonBounds,
    m: &mut JsonMeasure,
) -> Result<(), JsonBound> {
    if depth > bounds.max_depth {
        return Err(JsonBound::Depth(bounds.max_depth));
    }
    match value {
        Value::Null => add_bytes(m, 4, bounds),
        Value::Bool(b) => add_bytes(m, if *b { 4 } else { 5 }, bounds),
        Value::Number(n) => add_bytes(m, number_bytes(n), bounds),
        Value::String(s) => add_bytes(m, json_string_bytes(s), bounds),
        Value::Array(items) => {
            add_properties(m, items.len(), bounds)?;
            // brackets + commas between items
            add_bytes(m, 2 + items.len().saturating_sub(1) as u64, bounds)?;
            for item in items {
                walk(item, depth + 1, bounds, m)?;
            }
            Ok(())
        }
        Value::Object(map) => {
            add_properties(m, map.len(), bounds)?;
            // braces + commas + one colon per key
            add_bytes(
                m,
                2 + map.len().saturating_sub(1) as u64 + map.len() as u64,
                bounds,
            )?;
            for (key, item) in map {
                add_bytes(m, json_string_bytes(key), bounds)?;
                walk(item, depth + 1, bounds, m)?;
            }
            Ok(())
        }
    }
}

/// Bytes of `s` as a JSON string literal, quotes included, escaped as `JSON.stringify` does.
#[must_use]
pub fn json_string_bytes(s: &str) -> u64 {
    let mut n: u64 = 2;
    for b in s.bytes() {
        n += match b {
            b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 2,
            0x00..=0x1f => 6,
            _ => 1,
        };
    }
    n
}

/// Bytes of a number as JavaScript prints it (integral floats without a fraction).
fn number_bytes(n: &serde_json::Number) -> u64 {
    if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 1e21) {
        if !n.is_f64() || f != 0.0 || f.is_sign_positive() {
            // integers (and integral floats) print without ".0"; "-0" prints as "0"
            let digits = format!("{}", f.abs() as u128).len() as u64;
            return digits + u64::from(f < 0.0);
        }
        return 1;
    }
    n.to_string().len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const WIDE: JsonBounds = JsonBounds {
        max_bytes: u64::MAX,
        max_depth: 128,
        max_properties: u64::MAX,
    };

    fn stringify_len(v: &Value) -> u64 {
        serde_json::to_string(v)
            .map(|s| s.len() as u64)
            .unwrap_or(0)
    }

    #[test]
    fn counts_the_exact_encoding() {
        for v in [
            json!(null),
            json!({"a": [1, 2.5, "x\"y\n", true, false, null], "é": {"\u{1}": -3}}),
            json!([]),
            json!({}),
            json!("ünïcødé ☃"),
        ] {
            assert_eq!(
                measure_bounded_json(&v, WIDE).map(|m| m.bytes),
                Ok(stringify_len(&v)),
                "{v}"
            );
        }
        // JavaScript prints 1.0 as "1"
        assert_eq!(
            measure_bounded_json(&json!(1.0), WIDE).map(|m| m.bytes),
            Ok(1)
        );
        assert_eq!(
            measure_bounded_json(&json!(-12.0), WIDE).map(|m| m.bytes),
            Ok(3)
        );
    }

    #[test]
    fn bytes_bound_at_its_edge() {
        let v = json!({"text": "hello"});
        let n = stringify_len(&v);
        let at = JsonBounds {
            max_bytes: n,
            ..WIDE
        };
        assert!(measure_bounded_json(&v, at).is_ok());
        let below = JsonBounds {
            max_bytes: n - 1,
            ..WIDE
        };
        assert_eq!(
            measure_bounded_json(&v, below),
            Err(JsonBound::Bytes(n - 1))
        );
    }

    #[test]
    fn depth_bound_at_its_edge() {
        // root object (1) -> array (2) -> number (3)
        let v = json!({"a": [1]});
        assert!(measure_bounded_json(
            &v,
            JsonBounds {
                max_depth: 3,
                ..WIDE
            }
        )
        .is_ok());
        assert_eq!(
            measure_bounded_json(
                &v,
                JsonBounds {
                    max_depth: 2,
                    ..WIDE
                }
            ),
            Err(JsonBound::Depth(2))
        );
    }

    #[test]
    fn property_bound_counts_items_and_keys() {
        let v = json!({"a": [1, 2], "b": 3}); // 2 keys + 2 items
        assert!(measure_bounded_json(
            &v,
            JsonBounds {
                max_properties: 4,
                ..WIDE
            }
        )
        .is_ok());
        assert_eq!(
            measure_bounded_json(
                &v,
                JsonBounds {
                    max_properties: 3,
                    ..WIDE
                }
            ),
            Err(JsonBound::Properties(3))
        );
        assert_eq!(JsonBound::Properties(3).to_string(), "exceeds 3 properties");
    }
}
