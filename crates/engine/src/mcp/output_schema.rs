//! A tool's `structuredContent` checked against the `outputSchema` it listed, as the official
//! TypeScript SDK client does (rmcp does not): a tool that lists an output schema and answers
//! without structured content, or with structured content the schema rejects, fails its call
//! with an error naming where.
//!
//! The schemas are compiled by the project's validator ([`SchemaValidator`]) with Ajv's
//! non-strict settings and formats asserted (the SDK client's choice: servers' schemas use
//! keywords and formats strict mode would refuse). The instance walk is off: the whole answer
//! was already measured against the session's own bounds (`maxResultBytes`, `maxJsonDepth`,
//! `maxJsonProperties`), which may allow more than the validator's argument bounds.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};

use super::catalogue::ListedTool;
use crate::validation::{CompileSettings, Issue, Options, RefPolicy, SchemaValidator};

/// The output schemas of one session's last listing, and the validator that checks them.
pub struct OutputSchemas {
    validator: Mutex<Option<SchemaValidator>>,
    by_tool: Mutex<HashMap<String, Arc<str>>>,
}

impl std::fmt::Debug for OutputSchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputSchemas").finish_non_exhaustive()
    }
}

impl Default for OutputSchemas {
    fn default() -> Self {
        Self::new()
    }
}

/// The check of one call: the listed schema's text, and where to validate it.
#[derive(Debug, Clone)]
pub struct OutputCheck {
    schemas: Arc<OutputSchemas>,
    schema_text: Arc<str>,
}

impl OutputSchemas {
    /// No schemas yet (nothing is checked until a listing names some; the validator is built
    /// at the first check, so a session whose tools list no output schema pays nothing).
    #[must_use]
    pub fn new() -> Self {
        Self {
            validator: Mutex::new(None),
            by_tool: Mutex::new(HashMap::new()),
        }
    }

    /// Lets go of the schemas and the validator (a closed session keeps nothing).
    pub fn clear(&self) {
        drop(std::mem::take(
            &mut *self.by_tool.lock().unwrap_or_else(PoisonError::into_inner),
        ));
        drop(
            self.validator
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
    }

    /// Keeps the output schemas of `tools` (a new listing replaces the last one's).
    pub fn replace(&self, tools: &[ListedTool]) {
        let table = tools
            .iter()
            .filter_map(|t| {
                let schema = t.output_schema.as_ref()?;
                Some((t.name.clone(), Arc::from(schema.to_string())))
            })
            .collect();
        *self.by_tool.lock().unwrap_or_else(PoisonError::into_inner) = table;
    }

    /// The check for calls of `remote_name`, if its listing gave an output schema.
    #[must_use]
    pub fn for_tool(self: &Arc<Self>, remote_name: &str) -> Option<OutputCheck> {
        let text = self
            .by_tool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(remote_name)
            .cloned()?;
        Some(OutputCheck {
            schemas: Arc::clone(self),
            schema_text: text,
        })
    }
}

impl OutputCheck {
    /// What is wrong with a successful (`isError` not true) `CallToolResult` `raw` of tool
    /// `remote_name`, or `None` when it is what its output schema promises.
    #[must_use]
    pub fn problem(&self, remote_name: &str, raw: &Map<String, Value>) -> Option<String> {
        let Some(structured) = raw.get("structuredContent") else {
            return Some(format!(
                "MCP tool {remote_name} has an outputSchema but returned no structuredContent"
            ));
        };
        let instance = structured.to_string();
        let outcome = self
            .schemas
            .validator
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert_with(result_validator)
            .validate(&self.schema_text, &instance);
        match outcome {
            Ok(()) => None,
            Err(issues) => Some(format!(
                "MCP tool {remote_name} returned structuredContent that does not match its \
                 outputSchema: {}",
                describe(&issues)
            )),
        }
    }
}

/// The validator of results: Ajv's non-strict settings with formats asserted, no instance walk.
fn result_validator() -> SchemaValidator {
    let options = Options {
        strict: false,
        validate_formats: true,
        ..Options::default()
    };
    let settings = CompileSettings {
        strict: false,
        validate_formats: true,
        ..CompileSettings::default()
    };
    SchemaValidator::for_results(options, settings, RefPolicy::FragmentOnly)
}

/// The issues as one line: `path message` each, joined with `; `.
fn describe(issues: &[Issue]) -> String {
    let mut parts = Vec::with_capacity(issues.len());
    for issue in issues {
        parts.push(match &issue.path {
            Some(p) if p.is_empty() => format!("(root) {}", issue.message),
            Some(p) => format!("{p} {}", issue.message),
            None => issue.message.clone(),
        });
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schemas(output: Value) -> Arc<OutputSchemas> {
        let s = Arc::new(OutputSchemas::new());
        s.replace(&[ListedTool {
            name: "t".into(),
            description: None,
            input_schema: None,
            output_schema: Some(output),
            task_required: false,
            meta: None,
        }]);
        s
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_result_that_matches_passes() {
        let s = schemas(json!({"type": "object", "properties": {"n": {"type": "number"}}}));
        let check = s.for_tool("t").expect("listed");
        assert_eq!(
            check.problem("t", &obj(json!({"structuredContent": {"n": 1}}))),
            None
        );
    }

    #[test]
    fn a_mismatch_names_the_path() {
        let s = schemas(json!({"type": "object", "properties": {"n": {"type": "number"}}}));
        let check = s.for_tool("t").expect("listed");
        let p = check
            .problem("t", &obj(json!({"structuredContent": {"n": "x"}})))
            .expect("mismatch");
        assert!(p.contains("does not match its outputSchema"), "{p}");
        assert!(p.contains("/n must be number"), "{p}");
    }

    #[test]
    fn no_structured_content_is_a_problem() {
        let s = schemas(json!({"type": "object"}));
        let check = s.for_tool("t").expect("listed");
        let p = check
            .problem("t", &obj(json!({"content": []})))
            .expect("missing");
        assert!(p.contains("returned no structuredContent"), "{p}");
    }

    #[test]
    fn unknown_keywords_and_formats_are_not_refused() {
        let s = schemas(json!({"type": "object", "x-extra": 1,
            "properties": {"at": {"type": "string", "format": "date-time"}}}));
        let check = s.for_tool("t").expect("listed");
        let good = obj(json!({"structuredContent": {"at": "2026-12-03T10:00:00Z"}}));
        assert_eq!(check.problem("t", &good), None);
        let bad = obj(json!({"structuredContent": {"at": "yesterday"}}));
        assert!(check.problem("t", &bad).is_some());
    }

    #[test]
    fn a_schema_that_cannot_compile_fails_the_call_not_the_listing() {
        let s = schemas(json!({"type": 7}));
        let check = s.for_tool("t").expect("listed");
        let p = check
            .problem("t", &obj(json!({"structuredContent": {}})))
            .expect("bad schema");
        assert!(p.contains("outputSchema"), "{p}");
    }

    #[test]
    fn an_unlisted_tool_is_not_checked() {
        let s = schemas(json!({"type": "object"}));
        assert!(s.for_tool("other").is_none());
    }

    #[test]
    fn a_deep_result_within_the_session_bounds_is_not_refused_by_argument_bounds() {
        let s = schemas(json!({"type": "object"}));
        let check = s.for_tool("t").expect("listed");
        let wide: Map<String, Value> = (0..2_000).map(|i| (format!("k{i}"), json!(i))).collect();
        let raw = obj(json!({"structuredContent": Value::Object(wide)}));
        assert_eq!(check.problem("t", &raw), None);
    }
}
