//! Ajv strict-mode parity checks, run before compilation when `strict` is on (the default).
//!
//! Ajv (`strict: true, allowUnionTypes: true`) refuses at compile time: unknown keywords
//! (`x-*` too), keywords whose type the schema does not declare (strictTypes), `required`
//! names not defined in `properties` (strictRequired), open tuples (strictTuples), `nullable`
//! without `type`, and every `format` (the reference loads no formats). The messages and
//! `"#/..."` paths are Ajv's, so hosts that match on them keep working.

use jsonschema::Draft;
use serde_json::{Map, Value};

use super::issue::Issue;
use super::keywords::{applies_to, is_known, RULE_ORDER};

/// Runs the strict checks over a whole schema.
///
/// # Errors
/// The first violation, in Ajv's wording.
pub fn check_strict(schema: &Value, draft: Draft) -> Result<(), Issue> {
    let walk = Strict { draft };
    walk.schema(schema, &mut String::from("#"), &[], &[])
}

struct Strict {
    draft: Draft,
}

fn fail<T>(message: String) -> Result<T, Issue> {
    Err(Issue::message(message))
}

fn types_of(map: &Map<String, Value>) -> Vec<&str> {
    let mut types: Vec<&str> = match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if map.get("nullable") == Some(&Value::Bool(true)) && !types.contains(&"null") {
        types.push("null");
    }
    types
}

fn includes_type(types: &[&str], t: &str) -> bool {
    types.contains(&t) || (t == "integer" && types.contains(&"number"))
}

fn has_applicable_type(types: &[&str], keyword_type: &str) -> bool {
    types.contains(&keyword_type) || (keyword_type == "number" && types.contains(&"integer"))
}

/// Appends a JSON-pointer segment (`~` and `/` escaped).
fn push_segment(path: &mut String, segment: &str) {
    path.push('/');
    path.push_str(&segment.replace('~', "~0").replace('/', "~1"));
}

impl Strict {
    /// Checks one subschema. `context` holds the types an in-place parent declared;
    /// `defined` the property names in-place parents define.
    fn schema(
        &self,
        schema: &Value,
        path: &mut String,
        context: &[&str],
        defined: &[&str],
    ) -> Result<(), Issue> {
        let Value::Object(map) = schema else {
            return Ok(());
        };
        if let Some(key) = map.keys().find(|k| !is_known(k, self.draft)) {
            return fail(format!("strict mode: unknown keyword: \"{key}\""));
        }
        if map.get("nullable") == Some(&Value::Bool(true)) && !map.contains_key("type") {
            return fail("\"nullable\" cannot be used without \"type\"".to_owned());
        }
        let types = self.data_types(map, path, context)?;
        for keyword in RULE_ORDER {
            let wanted = applies_to(keyword);
            if map.contains_key(*keyword)
                && !wanted.is_empty()
                && !wanted.iter().any(|t| has_applicable_type(&types, t))
            {
                return fail(format!(
                    "strict mode: missing type \"{}\" for keyword \"{keyword}\" at \"{path}\" (strictTypes)",
                    wanted.join(",")
                ));
            }
        }
        let mut here: Vec<&str> = defined.to_vec();
        if let Some(Value::Object(props)) = map.get("properties") {
            here.extend(props.keys().map(String::as_str));
        }
        self.in_place(map, path, &types, &here)?;
        self.format(map, path)?;
        self.tuples(map, path)?;
        self.required(map, path, &here)?;
        self.children(map, path)
    }

    /// Ajv's checkContextTypes: own types must fit the context; the result narrows it.
    fn data_types<'a>(
        &self,
        map: &'a Map<String, Value>,
        path: &str,
        context: &[&'a str],
    ) -> Result<Vec<&'a str>, Issue> {
        let own = types_of(map);
        if own.is_empty() {
            return Ok(context.to_vec());
        }
        if context.is_empty() {
            return Ok(own);
        }
        for t in &own {
            if !includes_type(context, t) {
                return fail(format!(
                    "strict mode: type \"{t}\" not allowed by context \"{}\" at \"{path}\" (strictTypes)",
                    context.join(",")
                ));
            }
        }
        Ok(context
            .iter()
            .filter_map(|t| {
                if includes_type(&own, t) {
                    Some(*t)
                } else if own.contains(&"integer") && *t == "number" {
                    Some("integer")
                } else {
                    None
                }
            })
            .collect())
    }

    /// Subschemas evaluated against the same data: they inherit types and defined names.
    fn in_place(
        &self,
        map: &Map<String, Value>,
        path: &mut String,
        types: &[&str],
        defined: &[&str],
    ) -> Result<(), Issue> {
        for keyword in ["not", "anyOf", "oneOf", "allOf", "if", "then", "else"] {
            match map.get(keyword) {
                Some(Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        let len = path.len();
                        push_segment(path, keyword);
                        push_segment(path, &i.to_string());
                        self.schema(item, path, types, defined)?;
                        path.truncate(len);
                    }
                }
                Some(item) => {
                    let len = path.len();
                    push_segment(path, keyword);
                    self.schema(item, path, types, defined)?;
                    path.truncate(len);
                }
                None => {}
            }
        }
        Ok(())
    }

    fn format(&self, map: &Map<String, Value>, path: &str) -> Result<(), Issue> {
        match map.get("format") {
            Some(Value::String(name)) => fail(format!(
                "unknown format \"{name}\" ignored in schema at path \"{path}\""
            )),
            _ => Ok(()),
        }
    }

    fn tuples(&self, map: &Map<String, Value>, path: &str) -> Result<(), Issue> {
        let (keyword, extra) = if self.draft == Draft::Draft202012 {
            ("prefixItems", "items")
        } else {
            ("items", "additionalItems")
        };
        let Some(Value::Array(tuple)) = map.get(keyword) else {
            return Ok(());
        };
        let len = Value::from(tuple.len());
        let full = map.get("minItems") == Some(&len)
            && (map.get("maxItems") == Some(&len) || map.get(extra) == Some(&Value::Bool(false)));
        if full {
            return Ok(());
        }
        fail(format!(
            "strict mode: \"{keyword}\" is {}-tuple, but minItems or maxItems/{extra} are not specified or different at path \"{path}\"",
            tuple.len()
        ))
    }

    fn required(
        &self,
        map: &Map<String, Value>,
        path: &str,
        defined: &[&str],
    ) -> Result<(), Issue> {
        let Some(Value::Array(names)) = map.get("required") else {
            return Ok(());
        };
        for name in names.iter().filter_map(Value::as_str) {
            if !defined.contains(&name) {
                return fail(format!(
                    "strict mode: required property \"{name}\" is not defined at \"{path}\" (strictRequired)"
                ));
            }
        }
        Ok(())
    }

    /// Subschemas of other data (properties, items, ...) and definitions: a fresh context.
    fn children(&self, map: &Map<String, Value>, path: &mut String) -> Result<(), Issue> {
        for (keyword, value) in map {
            let len = path.len();
            push_segment(path, keyword);
            match keyword.as_str() {
                "propertyNames" => self.schema(value, path, &["string"], &[])?,
                "additionalProperties"
                | "additionalItems"
                | "contains"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contentSchema" => {
                    self.schema(value, path, &[], &[])?;
                }
                "items" | "prefixItems" => self.each(value, path)?,
                "properties" | "patternProperties" | "$defs" | "definitions"
                | "dependentSchemas" | "dependencies" => {
                    if let Value::Object(entries) = value {
                        for (name, sub) in entries {
                            let len = path.len();
                            push_segment(path, name);
                            self.schema(sub, path, &[], &[])?;
                            path.truncate(len);
                        }
                    }
                }
                _ => {}
            }
            path.truncate(len);
        }
        Ok(())
    }

    fn each(&self, value: &Value, path: &mut String) -> Result<(), Issue> {
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    push_segment(path, &i.to_string());
                    self.schema(item, path, &[], &[])?;
                    path.truncate(len);
                }
                Ok(())
            }
            other => self.schema(other, path, &[], &[]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict(schema: Value) -> Result<(), String> {
        check_strict(&schema, Draft::Draft7).map_err(|e| e.message)
    }

    #[test]
    fn rejects_what_ajv_strict_rejects() {
        assert_eq!(
            strict(json!({"x-a": 1})),
            Err("strict mode: unknown keyword: \"x-a\"".into())
        );
        assert_eq!(
            strict(json!({"properties": {"a": {"type": "string"}}})),
            Err("strict mode: missing type \"object\" for keyword \"properties\" at \"#\" (strictTypes)".into())
        );
        assert_eq!(
            strict(json!({"type": "object", "required": ["b"], "properties": {"a": {}}})),
            Err(
                "strict mode: required property \"b\" is not defined at \"#\" (strictRequired)"
                    .into()
            )
        );
        assert_eq!(
            strict(
                json!({"type": "object", "properties": {"e": {"type": "string", "format": "email"}}})
            ),
            Err("unknown format \"email\" ignored in schema at path \"#/properties/e\"".into())
        );
        assert_eq!(
            strict(json!({"type": "array", "items": [{"type": "string"}]})),
            Err("strict mode: \"items\" is 1-tuple, but minItems or maxItems/additionalItems are not specified or different at path \"#\"".into())
        );
    }

    #[test]
    fn accepts_what_ajv_strict_accepts() {
        for ok in [
            json!({"type": ["string", "null"], "minLength": 2}),
            json!({"type": "string", "nullable": true, "default": "x"}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "integer"}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/definitions/x"}}, "definitions": {"x": {"type": "integer"}}}),
            json!({"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"maxLength": 3}}),
            json!({"type": "object", "properties": {"a": {}}, "anyOf": [{"required": ["a"]}]}),
        ] {
            assert_eq!(strict(ok.clone()), Ok(()), "{ok}");
        }
    }
}
