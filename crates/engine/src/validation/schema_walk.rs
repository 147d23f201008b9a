//! The schema bounds walk that runs before compilation (API.md section 7, step 1).
//!
//! Paths start at `schema`, with `.key` for object keys and `[i]` for array items. Cycles,
//! non-finite numbers and non-plain objects cannot exist in parsed JSON text; the JS facade
//! reports those before the text is made.

use serde_json::Value;

use super::issue::{is_forbidden_key, Issue};
use super::options::SchemaBounds;
use super::WalkProblem;

/// Whether `$ref` may name something other than a fragment of this document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefPolicy {
    /// Only `#...` refs (the public validator).
    FragmentOnly,
    /// Any ref; resolution still never leaves preloaded resources (the conformance runner).
    Preloaded,
}

struct Walk<'a> {
    bounds: &'a SchemaBounds,
    refs: RefPolicy,
    properties: usize,
    ref_count: usize,
}

/// Checks the schema's JSON text size and walks the parsed schema.
///
/// # Errors
/// The first bound the schema breaks, with the reference's message.
pub fn check_schema(
    text_bytes: usize,
    schema: &Value,
    bounds: &SchemaBounds,
    refs: RefPolicy,
) -> Result<(), Issue> {
    if text_bytes > bounds.max_bytes {
        return Err(WalkProblem::SchemaTooLarge {
            max: bounds.max_bytes,
        }
        .into());
    }
    let mut walk = Walk {
        bounds,
        refs,
        properties: 0,
        ref_count: 0,
    };
    let mut path = String::from("schema");
    walk.node(schema, &mut path, 0)
}

impl Walk<'_> {
    fn node(&mut self, value: &Value, path: &mut String, depth: usize) -> Result<(), Issue> {
        if depth > self.bounds.max_depth {
            return Err(WalkProblem::SchemaTooDeep {
                path: path.clone(),
                max: self.bounds.max_depth,
            }
            .into());
        }
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    self.node(item, path, depth + 1)?;
                    path.truncate(len);
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    if is_forbidden_key(key) {
                        return Err(WalkProblem::SchemaForbiddenKey {
                            path: path.clone(),
                            key: key.clone(),
                        }
                        .into());
                    }
                    self.properties += 1;
                    // Every key counts once as a property and once as a keyword.
                    if self.properties > self.bounds.max_properties {
                        return Err(Issue::message(format!(
                            "schema exceeds maximum properties {}",
                            self.bounds.max_properties
                        )));
                    }
                    if self.properties > self.bounds.max_keywords {
                        return Err(Issue::message(format!(
                            "schema exceeds maximum keywords {}",
                            self.bounds.max_keywords
                        )));
                    }
                    let len = path.len();
                    path.push('.');
                    path.push_str(key);
                    if key == "$ref" {
                        self.check_ref(item, path)?;
                    }
                    self.node(item, path, depth + 1)?;
                    path.truncate(len);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn check_ref(&mut self, target: &Value, path: &str) -> Result<(), Issue> {
        self.ref_count += 1;
        if self.ref_count > self.bounds.max_refs {
            return Err(Issue::message(format!(
                "schema exceeds maximum refs {}",
                self.bounds.max_refs
            )));
        }
        let local = matches!(target, Value::String(s) if s.starts_with('#'));
        if !local && self.refs == RefPolicy::FragmentOnly {
            return Err(Issue::message(format!(
                "{path}: remote $ref is not allowed"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::options::Options;
    use serde_json::json;

    fn check(schema: &Value, bounds: SchemaBounds) -> Result<(), String> {
        let bytes = schema.to_string().len();
        check_schema(bytes, schema, &bounds, RefPolicy::FragmentOnly).map_err(|e| e.message)
    }

    fn bounds() -> SchemaBounds {
        Options::default().schema
    }

    #[test]
    fn depth_limit_at_its_edge() {
        let b = SchemaBounds {
            max_depth: 2,
            ..bounds()
        };
        assert_eq!(check(&json!({"a": {"b": 1}}), b), Ok(()));
        assert_eq!(
            check(&json!({"a": {"b": {"c": 1}}}), b),
            Err("schema.a.b.c: exceeds maximum schema depth 2".into())
        );
    }

    #[test]
    fn counts_refs_and_rejects_remote_refs() {
        let b = SchemaBounds {
            max_refs: 1,
            ..bounds()
        };
        assert_eq!(check(&json!({"$ref": "#/a"}), b), Ok(()));
        assert_eq!(
            check(&json!({"allOf": [{"$ref": "#/a"}, {"$ref": "#/b"}]}), b),
            Err("schema exceeds maximum refs 1".into())
        );
        assert_eq!(
            check(&json!({"items": [{"$ref": "http://x/y"}]}), bounds()),
            Err("schema.items[0].$ref: remote $ref is not allowed".into())
        );
    }

    #[test]
    fn properties_keywords_bytes_and_forbidden_keys() {
        let b = SchemaBounds {
            max_properties: 2,
            ..bounds()
        };
        assert_eq!(check(&json!({"a": {"b": 1}}), b), Ok(()));
        assert_eq!(
            check(&json!({"a": {"b": 1, "c": 2}}), b),
            Err("schema exceeds maximum properties 2".into())
        );
        let b = SchemaBounds {
            max_keywords: 1,
            ..bounds()
        };
        assert_eq!(
            check(&json!({"a": 1, "b": 2}), b),
            Err("schema exceeds maximum keywords 1".into())
        );
        let b = SchemaBounds {
            max_bytes: 7,
            ..bounds()
        };
        assert_eq!(check(&json!({"a": 1}), b), Ok(()));
        assert_eq!(
            check(&json!({"a": 12}), b),
            Err("schema exceeds maximum bytes 7".into())
        );
        assert_eq!(
            check(&json!({"properties": {"constructor": {}}}), bounds()),
            Err("schema.properties.constructor uses forbidden JSON key: constructor".into())
        );
    }
}
