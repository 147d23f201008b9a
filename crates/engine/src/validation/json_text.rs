//! JSON text as it arrives from JavaScript: parsing (lone surrogates tolerated, as JavaScript
//! strings allow them) and the canonical form that keys the compile cache.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Why JSON text did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Containers nest deeper than allowed (checked before parsing, so deep text cannot
    /// exhaust the stack).
    TooDeep,
    /// Not JSON.
    Invalid(String),
}

/// The deepest container nesting of JSON text (`[[1]]` is 2), by a scan that skips strings.
#[must_use]
pub fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Parses JSON text; containers nesting past `max_nesting` (when that is beyond serde_json's
/// own limit of 128) fail with [`ParseError::TooDeep`] before any recursion. `JSON.stringify` writes
/// a lone surrogate as `\udXXX`, which `serde_json` refuses; such escapes become U+FFFD (one
/// UTF-16 unit, so lengths are unchanged).
///
/// # Errors
/// [`ParseError::TooDeep`] past `max_nesting`; [`ParseError::Invalid`] for text that is not JSON.
pub fn parse(text: &str, max_nesting: usize) -> Result<Value, ParseError> {
    // The common case costs no scan: serde_json stops at 128 levels by itself.
    let first = serde_json::from_str(text).map_err(|e| e.to_string());
    let first = match first {
        Err(e) if e.contains("recursion limit") => {
            if nesting_depth(text) > max_nesting {
                return Err(ParseError::TooDeep);
            }
            parse_unbounded(text)
        }
        other => other,
    };
    match first {
        Ok(v) => Ok(v),
        Err(_) if text.contains("\\ud") || text.contains("\\uD") => {
            let fixed = replace_lone_surrogates(text);
            if nesting_depth(&fixed) > max_nesting {
                return Err(ParseError::TooDeep);
            }
            parse_unbounded(&fixed).map_err(ParseError::Invalid)
        }
        Err(e) => Err(ParseError::Invalid(e)),
    }
}

/// Parses text already known to nest within bounds (serde_json's own limit is 128, one short
/// of the hard caps).
pub(crate) fn parse_unbounded<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(value)
}

fn hex_at(bytes: &[u8], i: usize) -> Option<u16> {
    let digits = std::str::from_utf8(bytes.get(i..i + 4)?).ok()?;
    u16::from_str_radix(digits, 16).ok()
}

pub(crate) fn replace_lone_surrogates(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut last = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'\\' {
            if bytes[i + 1] == b'u' {
                if let Some(unit) = hex_at(bytes, i + 2) {
                    let high = (0xD800..0xDC00).contains(&unit);
                    let low = (0xDC00..0xE000).contains(&unit);
                    let paired = high
                        && bytes.get(i + 6) == Some(&b'\\')
                        && bytes.get(i + 7) == Some(&b'u')
                        && hex_at(bytes, i + 8).is_some_and(|n| (0xDC00..0xE000).contains(&n));
                    if paired {
                        i += 12;
                        continue;
                    }
                    if high || low {
                        out.push_str(&text[last..i]);
                        out.push_str("\\ufffd");
                        i += 6;
                        last = i;
                        continue;
                    }
                }
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    out.push_str(&text[last..]);
    out
}

/// SHA-256 of the schema's canonical JSON (object keys sorted, so key order does not split
/// the cache): the compile cache's key.
#[must_use]
pub fn content_key(schema: &Value) -> [u8; 32] {
    let mut hasher = Sha256::new();
    let mut buf = String::new();
    write_canonical(schema, &mut buf);
    hasher.update(buf.as_bytes());
    hasher.finalize().into()
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (n, key) in keys.into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                if let Some(v) = map.get(key) {
                    write_canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_parse_as_replacement_characters() {
        assert_eq!(parse(r#""a\ud800b""#, 1), Ok(Value::from("a\u{fffd}b")));
        assert_eq!(parse(r#""\udc00""#, 1), Ok(Value::from("\u{fffd}")));
        assert_eq!(parse(r#""\ud83d\ude00""#, 1), Ok(Value::from("😀")));
        assert!(parse("{", 1).is_err());
    }

    #[test]
    fn nesting_is_bounded_before_parsing() {
        let deep = |n: usize| "[".repeat(n) + &"]".repeat(n);
        assert_eq!(nesting_depth(r#"{"a":"[[[","b":[{}]}"#), 3);
        assert!(
            parse(&deep(129), 129).is_ok(),
            "past serde_json's own limit of 128"
        );
        assert_eq!(parse(&deep(130), 129), Err(ParseError::TooDeep));
        assert_eq!(parse(&deep(100_000), 129), Err(ParseError::TooDeep));
    }

    #[test]
    fn key_order_does_not_change_the_key() {
        let a = parse(r#"{"a":1,"b":{"c":2,"d":3}}"#, 9).unwrap_or_default();
        let b = parse(r#"{"b":{"d":3,"c":2},"a":1}"#, 9).unwrap_or_default();
        let c = parse(r#"{"b":{"d":3,"c":2},"a":2}"#, 9).unwrap_or_default();
        assert_eq!(content_key(&a), content_key(&b));
        assert_ne!(content_key(&a), content_key(&c));
    }
}
