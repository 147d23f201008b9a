//! One schema from parsed JSON to a compiled validator: draft, strict checks, Ajv's
//! `nullable`, then the crate's build. Nothing is ever fetched: refs resolve only inside the
//! document (or, for the conformance runner, against resources preloaded in memory).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use jsonschema::{Draft, Retrieve, Uri, Validator};
use serde_json::Value;

use super::draft::select_draft;
use super::errors::errors_text;
use super::issue::Issue;
use super::ordered::Ordered;
use super::strict::{check_expansion, check_ref_cycles, check_strict};
use crate::js_number::js_number;

/// A compiled schema, and its text for error paths (parsed on the first failed validation
/// only: most cached schemas never need it, and the parsed trees cost more memory than text).
pub struct Compiled {
    /// The crate's validator.
    pub validator: Validator,
    text: Box<str>,
    parsed: OnceLock<(Value, Ordered)>,
}

impl Compiled {
    /// The schema as compiled (with `nullable` folded into `type`) and its text's key order.
    pub fn for_errors(&self) -> &(Value, Ordered) {
        self.parsed.get_or_init(|| {
            let schema = serde_json::from_str(&self.text).unwrap_or_default();
            (fold_nullable(&schema), Ordered::parse(&self.text))
        })
    }
}

/// How a schema is compiled.
#[derive(Clone, Default)]
pub struct CompileSettings {
    /// Ajv strict-mode parity.
    pub strict: bool,
    /// Assert `format` (only without `strict`).
    pub validate_formats: bool,
    /// Force a draft instead of reading `$schema`.
    pub draft: Option<Draft>,
    /// Documents a non-fragment `$ref` may resolve to, by URI (the conformance suite's remotes).
    pub resources: Option<Arc<HashMap<String, Value>>>,
}

/// Refuses every remote document, or serves the preloaded ones; never does I/O.
struct LocalOnly(Option<Arc<HashMap<String, Value>>>);

impl Retrieve for LocalOnly {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let wanted = uri.as_str().trim_end_matches('#');
        self.0
            .as_ref()
            .and_then(|r| r.get(wanted))
            .cloned()
            .ok_or_else(|| format!("remote $ref is not allowed: {wanted}").into())
    }
}

/// Compiles a schema.
///
/// # Errors
/// An [`Issue`] with Ajv's compile message (`strict mode: ...`, `schema is invalid: ...`,
/// `no schema with key or ref ...`, `can't resolve reference ...`).
pub fn compile(schema: &Value, text: &str, settings: &CompileSettings) -> Result<Compiled, Issue> {
    let draft = match settings.draft {
        Some(d) => d,
        None => select_draft(schema, settings.strict)?,
    };
    if settings.strict {
        if let Err(issue) = check_strict(schema, draft) {
            return Err(meta_issue(schema, draft).unwrap_or(issue));
        }
    }
    if let Err(issue) =
        check_ref_cycles(schema, draft, settings.strict).and_then(|()| check_expansion(schema))
    {
        return Err(meta_issue(schema, draft).unwrap_or(issue));
    }
    let prepared = fold_nullable(schema);
    // A `$schema` naming a preloaded custom meta-schema (the suite's vocabulary tests): let
    // the crate read its vocabularies instead of forcing the draft.
    let custom_meta = schema
        .get("$schema")
        .and_then(Value::as_str)
        .is_some_and(|uri| {
            settings
                .resources
                .as_ref()
                .is_some_and(|r| r.contains_key(uri.trim_end_matches('#')))
        });
    let mut options = jsonschema::options();
    if !custom_meta {
        options = options.with_draft(draft);
    }
    if settings.strict {
        options = options.with_keyword("multipleOf", ajv_multiple_of);
    }
    let built = options
        .should_validate_formats(!settings.strict && settings.validate_formats)
        .with_retriever(LocalOnly(settings.resources.clone()))
        .build(&prepared);
    match built {
        Ok(validator) => Ok(Compiled {
            validator,
            text: text.into(),
            parsed: OnceLock::new(),
        }),
        Err(error) => Err(meta_issue(schema, draft).unwrap_or_else(|| build_issue(&error))),
    }
}

/// Ajv's `multipleOf` (no `multipleOfPrecision`): the quotient `value / multipleOf` in
/// floating point must be an integer that JavaScript's `parseInt(String(q))` gives back, so
/// `0.3` is not a multiple of `0.1` (the quotient is `2.9999999999999996`) and a quotient of
/// `1e21` or more (printed with an exponent) never passes.
struct AjvMultipleOf {
    divisor: f64,
    message: String,
}

impl AjvMultipleOf {
    fn accepts(&self, value: &Value) -> bool {
        let Some(x) = value.as_f64() else {
            return true;
        };
        let q = x / self.divisor;
        self.divisor != 0.0 && q.is_finite() && q.fract() == 0.0 && q.abs() < 1e21
    }
}

impl jsonschema::Keyword<'_> for AjvMultipleOf {
    fn validate<'i>(&self, instance: &'i Value) -> Result<(), jsonschema::ValidationError<'i>> {
        if self.accepts(instance) {
            Ok(())
        } else {
            Err(jsonschema::ValidationError::custom(self.message.clone()))
        }
    }

    fn is_valid(&self, instance: &Value) -> bool {
        self.accepts(instance)
    }
}

fn ajv_multiple_of<'a>(
    _parent: &'a serde_json::Map<String, Value>,
    value: &'a Value,
    _path: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, jsonschema::ValidationError<'a>> {
    let divisor = value.as_f64().filter(|d| *d > 0.0).ok_or_else(|| {
        jsonschema::ValidationError::custom("multipleOf must be a positive number")
    })?;
    Ok(Box::new(AjvMultipleOf {
        divisor,
        message: format!("must be multiple of {}", js_number(divisor)),
    }))
}

/// Ajv's `schema is invalid: data/... must ...` when the schema breaks its meta-schema.
fn meta_issue(schema: &Value, draft: Draft) -> Option<Issue> {
    let meta = match draft {
        Draft::Draft4 => jsonschema::draft4::meta::validator(),
        Draft::Draft6 => jsonschema::draft6::meta::validator(),
        Draft::Draft201909 => jsonschema::draft201909::meta::validator(),
        Draft::Draft202012 => jsonschema::draft202012::meta::validator(),
        _ => jsonschema::draft7::meta::validator(),
    };
    if meta.is_valid(schema) {
        return None;
    }
    let text = errors_text(meta.iter_errors(schema), "data");
    Some(Issue::message(format!("schema is invalid: {text}")))
}

fn build_issue(error: &jsonschema::ValidationError<'_>) -> Issue {
    let text = error.to_string();
    if let Some(pointer) = text
        .strip_prefix("Pointer '")
        .and_then(|rest| rest.strip_suffix("' does not exist"))
    {
        return Issue::message(format!("can't resolve reference #{pointer} from id #"));
    }
    if let Some(reference) = unresolvable_fragment(&text) {
        return Issue::message(format!("can't resolve reference {reference} from id #"));
    }
    Issue::message(text)
}

/// The `#...` reference named by the crate's "unresolvable" message, if any.
fn unresolvable_fragment(text: &str) -> Option<&str> {
    let start = text.find('#')?;
    let rest = &text[start..];
    let end = rest
        .find(|c: char| c == '\'' || c == '"' || c == '`' || c.is_whitespace())
        .unwrap_or(rest.len());
    (text.contains("resolve") || text.contains("Unresolvable") || text.contains("not found"))
        .then_some(&rest[..end])
}

/// Ajv's `nullable: true` adds `"null"` to `type`; the crate has no such keyword.
fn fold_nullable(schema: &Value) -> Value {
    let mut copy = schema.clone();
    if schema.to_string().contains("\"nullable\"") {
        fold(&mut copy);
    }
    copy
}

fn fold(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("nullable") == Some(&Value::Bool(true)) {
                match map.get_mut("type") {
                    Some(Value::String(t)) if t != "null" => {
                        let t = std::mem::take(t);
                        map.insert("type".into(), Value::from(vec![t, "null".to_owned()]));
                    }
                    Some(Value::Array(ts)) if !ts.iter().any(|t| t == "null") => {
                        ts.push(Value::from("null"));
                    }
                    _ => {}
                }
            }
            for (key, child) in map.iter_mut() {
                // Literal data, not subschemas.
                if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    fold(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(fold),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict() -> CompileSettings {
        CompileSettings {
            strict: true,
            ..CompileSettings::default()
        }
    }

    fn err(schema: Value) -> String {
        match compile(&schema, &schema.to_string(), &strict()) {
            Ok(_) => String::from("compiled"),
            Err(e) => e.message,
        }
    }

    #[test]
    fn ajv_compile_messages() {
        assert_eq!(
            err(json!({"type": "integer", "minimum": "a"})),
            "schema is invalid: data/minimum must be number"
        );
        assert_eq!(
            err(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}})),
            "can't resolve reference #/$defs/missing from id #"
        );
    }

    #[test]
    fn nullable_allows_null() {
        let c = compile(&json!({"type": "string", "nullable": true}), "", &strict());
        assert!(c.is_ok_and(|c| c.validator.is_valid(&json!(null))));
    }

    #[test]
    fn never_fetches_remote_refs() {
        let loose = CompileSettings::default();
        assert!(compile(&json!({"$ref": "http://127.0.0.1:1/x.json"}), "", &loose).is_err());
    }
}
