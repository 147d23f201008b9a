//! The instance bounds walk that runs before validation (API.md section 7, step 2).
//!
//! Paths use dot notation, `[i]` for array items and `/` for the root. Values that are not
//! JSON (functions, `undefined`, class instances, cycles) cannot exist in parsed JSON text; the
//! JS facade reports those as `value must be JSON-serializable` before the text is made.

use serde_json::Value;

use super::issue::{is_forbidden_key, Issue};
use super::options::InstanceBounds;
use super::WalkProblem;

/// Walks a parsed instance against its bounds.
///
/// # Errors
/// The first bound the instance breaks, with the reference's message.
pub fn check_instance(value: &Value, bounds: &InstanceBounds) -> Result<(), Issue> {
    let mut path = String::new();
    node(value, bounds, &mut path, 0)
}

fn shown(path: &str) -> &str {
    if path.is_empty() {
        "/"
    } else {
        path
    }
}

fn fail(path: &str, what: &str, limit: usize) -> Result<(), Issue> {
    Err(Issue::message(format!("{}: {what} {limit}", shown(path))))
}

fn node(value: &Value, b: &InstanceBounds, path: &mut String, depth: usize) -> Result<(), Issue> {
    if depth > b.max_depth {
        return Err(WalkProblem::TooDeep {
            path: shown(path).to_owned(),
            max: b.max_depth,
        }
        .into());
    }
    match value {
        // UTF-8 bytes >= UTF-16 units, so the count is needed only past the byte bound.
        Value::String(s)
            if s.len() > b.max_string_length && s.encode_utf16().count() > b.max_string_length =>
        {
            return fail(path, "string exceeds maximum length", b.max_string_length);
        }
        Value::Array(items) => {
            if items.len() > b.max_array_length {
                return fail(path, "array exceeds maximum length", b.max_array_length);
            }
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                node(item, b, path, depth + 1)?;
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            if map.len() > b.max_properties {
                return fail(path, "object exceeds maximum properties", b.max_properties);
            }
            for (key, item) in map {
                if is_forbidden_key(key) {
                    return Err(Issue::message(format!("{key}: forbidden property key")));
                }
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                node(item, b, path, depth + 1)?;
                path.truncate(len);
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::options::Options;
    use serde_json::json;

    fn check(v: &Value, b: InstanceBounds) -> Result<(), String> {
        check_instance(v, &b).map_err(|e| e.message)
    }

    #[test]
    fn every_bound_at_its_edge() {
        let b = InstanceBounds {
            max_depth: 2,
            max_properties: 2,
            max_string_length: 3,
            max_array_length: 2,
        };
        assert_eq!(check(&json!({"a": {"b": "abc"}, "c": [1, 2]}), b), Ok(()));
        assert_eq!(
            check(&json!({"a": {"b": [1]}}), b),
            Err("a.b[0]: exceeds maximum depth 2".into())
        );
        assert_eq!(
            check(&json!({"a": {"b": "abcd"}}), b),
            Err("a.b: string exceeds maximum length 3".into())
        );
        assert_eq!(check(&json!("ééé"), b), Ok(()), "UTF-16 units, not bytes");
        assert_eq!(
            check(&json!([1, 2, 3]), b),
            Err("/: array exceeds maximum length 2".into())
        );
        assert_eq!(
            check(&json!({"a": 1, "b": 2, "c": 3}), b),
            Err("/: object exceeds maximum properties 2".into())
        );
        assert_eq!(
            check(&json!({"a": {"__proto__": 1}}), Options::default().instance),
            Err("__proto__: forbidden property key".into())
        );
    }
}
