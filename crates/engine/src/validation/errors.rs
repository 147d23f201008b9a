//! Maps the crate's validation errors to Ajv's messages, paths and order.
//!
//! Ajv (`allErrors`) reports one error per failing keyword in its evaluation order: `type`,
//! the untyped keywords, then the number, string, array and object groups; a failed `anyOf` or
//! `oneOf` lists its branches' errors first; `additionalProperties: false` gives one error per
//! extra property. The path of each error is `instancePath || schemaPath`. The crate's errors
//! are flattened, expanded and sorted by a key that follows Ajv's walk, so the first
//! `maxErrors` are the ones Ajv would report.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::ValidationError;
use serde_json::Value;

use super::issue::Issue;
use super::keywords::evaluation_rank;
use super::ordered::Ordered;
use crate::js_number::js_number;

use crate::limits::VALIDATION_MAX_RAW_ERRORS as MAX_RAW_ERRORS;

/// One error before sorting: Ajv's message, where in the instance, where in the schema.
struct Raw {
    message: String,
    instance_path: String,
    schema_path: String,
    /// The property an `additionalProperties`/`unevaluatedProperties` error is about.
    property: Option<String>,
}

/// Ajv-style issues for a failed validation, at most `max_errors`, in Ajv's order. The
/// instance's key order is read from the parsed `instance` itself (`serde_json` keeps keys in
/// text order), so a failure does not parse the instance text again.
#[must_use]
pub fn ajv_issues<'a>(
    errors: impl Iterator<Item = ValidationError<'a>>,
    schema: &Value,
    schema_order: &Ordered,
    instance: &Value,
    max_errors: usize,
) -> Vec<Issue> {
    let mut raw = Vec::new();
    for error in errors.take(MAX_RAW_ERRORS) {
        flatten(&error, schema, &mut raw);
    }
    let mut keyed: Vec<(Vec<u32>, String, Raw)> = raw
        .into_iter()
        .map(|r| {
            let (key, ajv_path) = sort_key(schema, schema_order, instance, &r);
            (key, ajv_path, r)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed
        .into_iter()
        .take(max_errors)
        .map(|(_k, ajv_path, r)| Issue {
            path: Some(if r.instance_path.is_empty() {
                ajv_path
            } else {
                r.instance_path
            }),
            message: r.message,
        })
        .collect()
}

/// Ajv-style `"<prefix><instancePath> <message>"` lines, as `ajv.errorsText` joins them.
#[must_use]
pub fn errors_text<'a>(errors: impl Iterator<Item = ValidationError<'a>>, prefix: &str) -> String {
    let mut raw = Vec::new();
    for error in errors.take(MAX_RAW_ERRORS) {
        flatten(&error, &Value::Null, &mut raw);
    }
    raw.iter()
        .map(|r| format!("{prefix}{} {}", r.instance_path, r.message))
        .collect::<Vec<_>>()
        .join(", ")
}

fn push(
    out: &mut Vec<Raw>,
    error: &ValidationError<'_>,
    message: String,
    property: Option<String>,
) {
    out.push(Raw {
        message,
        instance_path: error.instance_path().as_str().to_owned(),
        schema_path: error.schema_path().as_str().to_owned(),
        property,
    });
}

fn flatten(error: &ValidationError<'_>, schema: &Value, out: &mut Vec<Raw>) {
    match error.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            for branch in context {
                for inner in branch {
                    flatten(inner, schema, out);
                }
            }
            push(out, error, message(error, schema), None);
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            for name in unexpected {
                push(
                    out,
                    error,
                    "must NOT have additional properties".into(),
                    Some(name.clone()),
                );
            }
        }
        ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            for name in unexpected {
                push(
                    out,
                    error,
                    "must NOT have unevaluated properties".into(),
                    Some(name.clone()),
                );
            }
        }
        ValidationErrorKind::PropertyNames { error: inner } => {
            out.push(Raw {
                message: message(inner, schema),
                instance_path: error.instance_path().as_str().to_owned(),
                schema_path: inner.schema_path().as_str().to_owned(),
                property: None,
            });
            push(out, error, "property name must be valid".into(), None);
        }
        _ => push(out, error, message(error, schema), None),
    }
}

fn limit_text(v: &Value) -> String {
    match v {
        Value::Number(n) if n.is_f64() => n.as_f64().map_or_else(|| v.to_string(), js_number),
        _ => v.to_string(),
    }
}

/// Ajv's message for one error kind.
fn message(error: &ValidationError<'_>, schema: &Value) -> String {
    match error.kind() {
        ValidationErrorKind::AdditionalItems { limit } => {
            format!("must NOT have more than {limit} items")
        }
        ValidationErrorKind::AdditionalProperties { .. } => {
            "must NOT have additional properties".into()
        }
        ValidationErrorKind::AnyOf { .. } => "must match a schema in anyOf".into(),
        ValidationErrorKind::OneOfMultipleValid { .. }
        | ValidationErrorKind::OneOfNotValid { .. } => {
            "must match exactly one schema in oneOf".into()
        }
        ValidationErrorKind::Constant { .. } => "must be equal to constant".into(),
        ValidationErrorKind::Contains => contains_message(error, schema),
        ValidationErrorKind::Enum { .. } => "must be equal to one of the allowed values".into(),
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("must be < {}", limit_text(limit))
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("must be > {}", limit_text(limit))
        }
        ValidationErrorKind::Maximum { limit } => format!("must be <= {}", limit_text(limit)),
        ValidationErrorKind::Minimum { limit } => format!("must be >= {}", limit_text(limit)),
        ValidationErrorKind::FalseSchema => "boolean schema is false".into(),
        ValidationErrorKind::Format { format } => format!("must match format \"{format}\""),
        ValidationErrorKind::MaxItems { limit } => format!("must NOT have more than {limit} items"),
        ValidationErrorKind::MinItems { limit } => {
            format!("must NOT have fewer than {limit} items")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("must NOT have more than {limit} characters")
        }
        ValidationErrorKind::MinLength { limit } => {
            format!("must NOT have fewer than {limit} characters")
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("must NOT have more than {limit} properties")
        }
        ValidationErrorKind::MinProperties { limit } => {
            format!("must NOT have fewer than {limit} properties")
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("must be multiple of {}", js_number(*multiple_of))
        }
        ValidationErrorKind::Not { .. } => "must NOT be valid".into(),
        ValidationErrorKind::Pattern { pattern } => format!("must match pattern \"{pattern}\""),
        ValidationErrorKind::PropertyNames { .. } => "property name must be valid".into(),
        ValidationErrorKind::Required { property } => match property {
            Value::String(name) => format!("must have required property '{name}'"),
            other => format!("must have required property '{other}'"),
        },
        ValidationErrorKind::Type { kind } => {
            let declared =
                resolve_parent(schema, error.schema_path().as_str()).and_then(|p| p.get("type"));
            match declared {
                Some(Value::String(t)) => format!("must be {t}"),
                Some(Value::Array(ts)) => {
                    let names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
                    format!("must be {}", names.join(","))
                }
                _ => type_message(kind),
            }
        }
        ValidationErrorKind::UnevaluatedItems { .. } => "must NOT have unevaluated items".into(),
        ValidationErrorKind::UnevaluatedProperties { .. } => {
            "must NOT have unevaluated properties".into()
        }
        ValidationErrorKind::UniqueItems => unique_message(error.instance()),
        ValidationErrorKind::Custom { message, .. } => message.clone(),
        _ => error.to_string(),
    }
}

fn type_message(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(t) => format!("must be {t}"),
        TypeKind::Multiple(set) => {
            let names: Vec<String> = set.iter().map(|t| t.to_string()).collect();
            format!("must be {}", names.join(","))
        }
    }
}

fn contains_message(error: &ValidationError<'_>, schema: &Value) -> String {
    let parent = resolve_parent(schema, error.schema_path().as_str());
    let min = parent
        .and_then(|p| p.get("minContains"))
        .and_then(Value::as_u64);
    match min {
        Some(n) => format!("must contain at least {n} valid item(s)"),
        None => "must contain at least 1 valid item(s)".into(),
    }
}

/// Ajv: `must NOT have duplicate items (items ## j and i are identical)`, for the last `i`
/// that repeats an earlier item and the last such earlier `j`. One pass with a map from each
/// item's text to its latest index, so a 100,000-item array costs linear time, not the
/// quadratic pair scan.
fn unique_message(instance: &Value) -> String {
    if let Value::Array(items) = instance {
        let mut latest: std::collections::HashMap<String, Vec<usize>> =
            std::collections::HashMap::with_capacity(items.len());
        let mut found = None;
        for (i, item) in items.iter().enumerate() {
            let bucket = latest.entry(unique_key(item)).or_default();
            // Items in one bucket are almost always equal; the check keeps `1` and `"1"` or
            // differently written equal numbers apart or together exactly.
            if let Some(&j) = bucket.iter().rev().find(|&&j| json_equal(item, &items[j])) {
                found = Some((j, i));
            }
            bucket.push(i);
        }
        if let Some((j, i)) = found {
            return format!("must NOT have duplicate items (items ## {j} and {i} are identical)");
        }
    }
    "must NOT have duplicate items".into()
}

/// A bucket key under which equal items (by [`json_equal`]) always meet: the item's JSON
/// with numbers written from their `f64` value (so `1` and `1.0` agree) and object keys
/// sorted (`serde_json::Map` keeps them in text order, and `{"a":1,"b":2}` equals
/// `{"b":2,"a":1}`). Nesting is bounded by the instance walk.
fn unique_key(item: &Value) -> String {
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Number(n) => {
                out.push_str(&n.as_f64().unwrap_or(f64::NAN).to_string());
            }
            Value::Array(items) => {
                out.push('[');
                for item in items {
                    write(item, out);
                    out.push(',');
                }
                out.push(']');
            }
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_unstable_by_key(|(key, _)| *key);
                out.push('{');
                for (key, item) in entries {
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push(':');
                    write(item, out);
                    out.push(',');
                }
                out.push('}');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(item, &mut out);
    out
}

/// JSON equality where `1` equals `1.0`.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// The schema object that holds the keyword at the end of `schema_path`.
fn resolve_parent<'v>(schema: &'v Value, schema_path: &str) -> Option<&'v Value> {
    let cut = schema_path.rfind('/')?;
    schema.pointer(&schema_path[..cut])
}

/// The sort key that follows Ajv's walk, and Ajv's `schemaPath` (`#/...`, relative to the
/// last `$ref` target as Ajv reports it). Positions come from the schema text's key order and
/// the instance's.
fn sort_key(schema: &Value, order: &Ordered, instance: &Value, raw: &Raw) -> (Vec<u32>, String) {
    let segments: Vec<String> = raw.schema_path.split('/').skip(1).map(unescape).collect();
    let mut data_segments = raw.instance_path.split('/').skip(1).map(unescape);
    let mut data = Some(instance);
    let mut key = Vec::new();
    let mut ajv = String::from("#");
    let mut current = schema;
    let mut current_order = Some(order);
    let mut i = 0;
    let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    while i < segments.len() {
        let keyword = segments[i].as_str();
        i += 1;
        key.push(evaluation_rank(keyword));
        let Some(value) = current.get(keyword) else {
            ajv.extend(segments[i - 1..].iter().map(|s| format!("/{}", escape(s))));
            break;
        };
        let value_order = current_order.and_then(|o| o.child(keyword)).map(|(_, o)| o);
        if keyword != "$ref" {
            ajv.push('/');
            ajv.push_str(&escape(keyword));
        }
        let descends_data = matches!(
            keyword,
            "properties"
                | "patternProperties"
                | "additionalProperties"
                | "unevaluatedProperties"
                | "items"
                | "prefixItems"
                | "additionalItems"
                | "contains"
                | "unevaluatedItems"
        );
        let named = matches!(
            keyword,
            "properties"
                | "patternProperties"
                | "$defs"
                | "definitions"
                | "dependentSchemas"
                | "dependencies"
                | "allOf"
                | "anyOf"
                | "oneOf"
                | "prefixItems"
        ) || (keyword == "items" && value.is_array());
        if named {
            let Some(name) = segments.get(i) else { break };
            i += 1;
            ajv.push('/');
            ajv.push_str(&escape(name));
            let child = value_order.and_then(|o| o.child(name));
            key.push(child.map_or(0, |(p, _)| to_u32(p)));
            current_order = child.map(|(_, o)| o);
            let next = match value {
                Value::Array(items) => name.parse::<usize>().ok().and_then(|n| items.get(n)),
                other => other.get(name),
            };
            let Some(next) = next else { break };
            current = next;
        } else if keyword == "$ref" {
            let Some(target) = value.as_str().and_then(|t| t.strip_prefix('#')) else {
                break;
            };
            let Some(next) = schema.pointer(target) else {
                break;
            };
            ajv = format!("#{target}");
            current = next;
            current_order = order.pointer(target);
        } else {
            current = value;
            current_order = value_order;
        }
        if descends_data {
            let segment = data_segments.next().or_else(|| raw.property.clone());
            let child = data.zip(segment).and_then(|(d, s)| instance_child(d, &s));
            key.push(child.map_or(0, |(p, _)| to_u32(p)));
            data = child.map(|(_, d)| d);
        }
        if !current.is_object() {
            break;
        }
    }
    // A keyword's own error follows the errors of its subschemas (Ajv reports a failed
    // `anyOf` after its branches).
    key.push(u32::MAX);
    (key, ajv)
}

/// The child of an instance value named by one JSON-pointer segment (already unescaped), and
/// its position: an object's keys in text order (JavaScript's order too, for the text
/// `JSON.stringify` writes), an array's index.
fn instance_child<'v>(value: &'v Value, segment: &str) -> Option<(usize, &'v Value)> {
    match value {
        Value::Object(map) => map
            .iter()
            .enumerate()
            .find(|(_, (k, _))| k.as_str() == segment)
            .map(|(i, (_, v))| (i, v)),
        Value::Array(items) => {
            let i = segment.parse::<usize>().ok()?;
            items.get(i).map(|v| (i, v))
        }
        _ => None,
    }
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issues(schema_text: &str, instance_text: &str) -> Vec<(String, String)> {
        let schema: Value = serde_json::from_str(schema_text).unwrap_or_default();
        let instance: Value = serde_json::from_str(instance_text).unwrap_or_default();
        let validator = match jsonschema::draft7::new(&schema) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        };
        let schema_order = Ordered::parse(schema_text);
        ajv_issues(
            validator.iter_errors(&instance),
            &schema,
            &schema_order,
            &instance,
            8,
        )
        .into_iter()
        .map(|i| (i.path.unwrap_or_default(), i.message))
        .collect()
    }

    fn pair(p: &str, m: &str) -> (String, String) {
        (p.to_owned(), m.to_owned())
    }

    #[test]
    fn contract_messages_and_paths() {
        let schema = r#"{
            "type": "object",
            "properties": {
                "text": {"type": "string", "minLength": 2},
                "count": {"type": "integer"},
                "a": {"type": "object", "properties": {"b": {"type": "integer"}}},
                "mode": {"enum": ["x", "y"]}
            },
            "required": ["count"],
            "additionalProperties": false
        }"#;
        assert_eq!(
            issues(
                schema,
                r#"{"text": "a", "a": {"b": 1.5}, "mode": "z", "extra": 1}"#
            ),
            vec![
                pair("#/required", "must have required property 'count'"),
                pair(
                    "#/additionalProperties",
                    "must NOT have additional properties"
                ),
                pair("/text", "must NOT have fewer than 2 characters"),
                pair("/a/b", "must be integer"),
                pair("/mode", "must be equal to one of the allowed values"),
            ]
        );
    }

    #[test]
    fn any_of_lists_branch_errors_first() {
        let schema = r#"{"anyOf": [{"type": "string"}, {"type": "number"}]}"#;
        assert_eq!(
            issues(schema, "true"),
            vec![
                pair("#/anyOf/0/type", "must be string"),
                pair("#/anyOf/1/type", "must be number"),
                pair("#/anyOf", "must match a schema in anyOf"),
            ]
        );
    }

    #[test]
    fn instance_keys_keep_their_text_order() {
        let schema = r#"{"additionalProperties": {"type": "string"}}"#;
        assert_eq!(
            issues(schema, r#"{"z": 1, "b": "ok", "y": {"x": 2}, "a": true}"#),
            vec![
                pair("/z", "must be string"),
                pair("/y", "must be string"),
                pair("/a", "must be string"),
            ]
        );
    }

    #[test]
    fn unique_items_names_the_pair() {
        let schema = r#"{"uniqueItems": true}"#;
        assert_eq!(
            issues(schema, "[1, 2, 1, 3]"),
            vec![pair(
                "#/uniqueItems",
                "must NOT have duplicate items (items ## 0 and 2 are identical)"
            )]
        );
    }

    #[test]
    fn unique_items_names_equal_objects_whatever_their_key_order() {
        let schema = r#"{"uniqueItems": true}"#;
        assert_eq!(
            issues(
                schema,
                r#"[{"b": {"d": 1, "c": 2}, "a": 1}, {"a": 1.0, "b": {"c": 2, "d": 1}}]"#
            ),
            vec![pair(
                "#/uniqueItems",
                "must NOT have duplicate items (items ## 0 and 1 are identical)"
            )]
        );
    }
}
