//! The JSON-object check on tool arguments, for Rust hosts that hold `serde_json` values.
//!
//! (`serde_json` cannot hold NaN or Infinity, so only the shape and the forbidden keys remain
//! to check here; the JavaScript binding also rejects non-finite numbers and non-plain objects.)

use serde_json::Value;

/// Keys that could pollute a JavaScript prototype chain; rejected at any depth.
pub const FORBIDDEN_KEYS: [&str; 3] = ["__proto__", "prototype", "constructor"];

/// Whether `key` is one of [`FORBIDDEN_KEYS`].
#[must_use]
pub fn is_forbidden_key(key: &str) -> bool {
    FORBIDDEN_KEYS.contains(&key)
}

/// Whether `args` is an object whose nested keys are all allowed.
#[must_use]
pub fn is_json_object(args: &Value) -> bool {
    matches!(args, Value::Object(_)) && has_no_forbidden_keys(args)
}

fn has_no_forbidden_keys(value: &Value) -> bool {
    // An explicit stack: nesting depth is attacker-controlled.
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    if is_forbidden_key(k) {
                        return false;
                    }
                    stack.push(child);
                }
            }
            Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_pass_and_other_shapes_fail() {
        assert!(is_json_object(&json!({"a": [1, {"b": null}]})));
        for bad in [json!(null), json!([]), json!("x"), json!(1)] {
            assert!(!is_json_object(&bad), "{bad}");
        }
    }

    #[test]
    fn rejects_forbidden_keys_at_any_depth() {
        assert!(!is_json_object(&json!({"a": [{"constructor": 1}]})));
        assert!(!is_json_object(&json!({"prototype": {}})));
        assert!(!is_json_object(&json!({"x": {"__proto__": {}}})));
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let mut v = json!({});
        for _ in 0..100_000 {
            let mut m = serde_json::Map::new();
            m.insert("a".to_owned(), v);
            v = Value::Object(m);
        }
        assert!(is_json_object(&v));
        // serde_json drops nested values recursively; leak this one test value instead.
        std::mem::forget(v);
    }
}
