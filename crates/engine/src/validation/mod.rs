//! JSON Schema tool-argument validation (Ajv-compatible adapter on the `jsonschema` crate).
//!
//! [`SchemaValidator`] is the engine half of `createJsonSchemaArgumentValidator` (API.md
//! section 7): the schema bounds walk ([`schema_walk`]), draft selection ([`draft`]), Ajv
//! strict-mode parity ([`strict`]), compilation ([`compile`]) behind a content-keyed LRU
//! ([`cache`]), the instance bounds walk ([`instance_walk`]) and Ajv's messages, paths and
//! order ([`errors`]). Expected outcomes (a bad schema, an invalid instance) are data
//! ([`Issue`]s); nothing here panics on hostile input.

pub mod cache;
pub mod compile;
pub mod draft;
pub mod errors;
pub mod instance_walk;
pub mod issue;
pub mod json_text;
pub mod keywords;
pub mod options;
pub mod ordered;
pub mod schema_walk;
pub mod strict;
pub mod walk_problem;

pub use compile::CompileSettings;
pub use issue::Issue;
pub use jsonschema::Draft;
pub use options::{Options, RawOptions, ValidationLimits, ValidationLimitsInput};
pub use schema_walk::RefPolicy;
pub use walk_problem::WalkProblem;

use cache::SchemaCache;
use json_text::ParseError;

/// A validator with its own compile cache (one per `createJsonSchemaArgumentValidator`).
pub struct SchemaValidator {
    options: Options,
    settings: CompileSettings,
    refs: RefPolicy,
    /// Whether the bounds walks run (off only for the conformance suite, whose tests use
    /// `__proto__`-like names on purpose).
    bounds: bool,
    /// Whether the instance walk runs (off for results a caller has bounded already).
    instance_walk: bool,
    cache: SchemaCache,
    compiles: u64,
}

impl SchemaValidator {
    /// A validator for resolved options (only fragment-local refs).
    #[must_use]
    pub fn new(options: Options) -> SchemaValidator {
        let settings = CompileSettings {
            strict: options.strict,
            validate_formats: options.validate_formats,
            ..CompileSettings::default()
        };
        SchemaValidator::with_settings(options, settings, RefPolicy::FragmentOnly)
    }

    /// A validator with explicit compile settings and ref policy (the conformance runner).
    #[must_use]
    pub fn with_settings(
        options: Options,
        settings: CompileSettings,
        refs: RefPolicy,
    ) -> SchemaValidator {
        SchemaValidator {
            cache: SchemaCache::new(options.max_compiled_schemas),
            options,
            settings,
            refs,
            bounds: true,
            instance_walk: true,
            compiles: 0,
        }
    }

    /// A validator for the official test suite: no bounds walks, preloaded remote refs.
    #[must_use]
    pub fn for_suite(options: Options, settings: CompileSettings) -> SchemaValidator {
        SchemaValidator {
            bounds: false,
            ..SchemaValidator::with_settings(options, settings, RefPolicy::Preloaded)
        }
    }

    /// A validator for values its caller has bounded already (an MCP tool's structured
    /// result, measured against the session's limits): schemas are walked, instances are
    /// parsed up to the hard depth cap and not walked.
    #[must_use]
    pub fn for_results(
        mut options: Options,
        settings: CompileSettings,
        refs: RefPolicy,
    ) -> SchemaValidator {
        options.instance.max_depth =
            usize::try_from(crate::limits::SCHEMA_MAX_DEPTH.hard).unwrap_or(usize::MAX);
        SchemaValidator {
            instance_walk: false,
            ..SchemaValidator::with_settings(options, settings, refs)
        }
    }

    /// The resolved options.
    #[must_use]
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Walks, keys and (on a cache miss) compiles a schema given as JSON text; the id under
    /// which [`SchemaValidator::validate_prepared`] finds it.
    ///
    /// # Errors
    /// The schema walk's or the compiler's [`Issue`].
    pub fn prepare(&mut self, schema_text: &str) -> Result<u32, Issue> {
        if schema_text.len() > self.options.schema.max_bytes {
            return Err(WalkProblem::SchemaTooLarge {
                max: self.options.schema.max_bytes,
            }
            .into());
        }
        let max_depth = self.options.schema.max_depth;
        let schema = json_text::parse(schema_text, max_depth + 1).map_err(|e| {
            Issue::from(match e {
                ParseError::TooDeep => WalkProblem::SchemaTooDeep {
                    path: "schema".into(),
                    max: max_depth,
                },
                ParseError::Invalid(why) => WalkProblem::SchemaInvalidText { why },
            })
        })?;
        if self.bounds {
            schema_walk::check_schema(schema_text.len(), &schema, &self.options.schema, self.refs)?;
        }
        let key = json_text::content_key(&schema);
        if let Some(id) = self.cache.id_of(&key) {
            return Ok(id);
        }
        let compiled = compile::compile(&schema, schema_text, &self.settings)?;
        self.compiles += 1;
        Ok(self.cache.insert(key, compiled))
    }

    /// Validates an instance (JSON text) against a prepared schema. `None` when the id was
    /// evicted from the cache (prepare the schema again).
    pub fn validate_prepared(
        &mut self,
        id: u32,
        instance_text: &str,
    ) -> Option<Result<(), Vec<Issue>>> {
        let max_errors = self.options.max_errors;
        let bounds = self.options.instance;
        let check_bounds = self.bounds && self.instance_walk;
        let compiled = self.cache.get(id)?;
        let instance = match json_text::parse(instance_text, bounds.max_depth + 1) {
            Ok(v) => v,
            Err(ParseError::TooDeep) => {
                return Some(Err(vec![WalkProblem::TooDeep {
                    path: "/".into(),
                    max: bounds.max_depth,
                }
                .into()]))
            }
            Err(_) => {
                return Some(Err(vec![
                    WalkProblem::NotSerializable { path: "/".into() }.into()
                ]))
            }
        };
        if check_bounds {
            if let Err(issue) = instance_walk::check_instance(&instance, &bounds) {
                return Some(Err(vec![issue]));
            }
        }
        if compiled.validator.is_valid(&instance) {
            return Some(Ok(()));
        }
        let (schema, order) = compiled.for_errors();
        let issues = errors::ajv_issues(
            compiled.validator.iter_errors(&instance),
            schema,
            order,
            &instance,
            max_errors,
        );
        Some(Err(issues))
    }

    /// Validates a tool call's arguments (JSON text) against a prepared schema and words the
    /// refusal as `createToolParameterValidator` does ([`issue::tool_refusal`]), so a failing
    /// call needs no second step. `None` when the id was evicted (prepare the schema again).
    pub fn check_tool_call(
        &mut self,
        id: u32,
        instance_text: &str,
        tool: &str,
    ) -> Option<Result<(), String>> {
        self.validate_prepared(id, instance_text)
            .map(|verdict| verdict.map_err(|issues| issue::tool_refusal(tool, &issues)))
    }

    /// Prepares and validates in one step (for Rust hosts).
    ///
    /// # Errors
    /// The issues, as `{ ok: false, errors }` would carry them.
    pub fn validate(&mut self, schema_text: &str, instance_text: &str) -> Result<(), Vec<Issue>> {
        let id = self.prepare(schema_text).map_err(|i| vec![i])?;
        self.validate_prepared(id, instance_text)
            .unwrap_or_else(|| Err(vec![Issue::message("schema evicted during validation")]))
    }

    /// Schemas compiled so far (cache misses).
    #[must_use]
    pub fn compile_count(&self) -> u64 {
        self.compiles
    }

    /// Schemas in the cache now.
    #[must_use]
    pub fn cached_count(&self) -> usize {
        self.cache.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_content_compiles_once_and_lru_evicts_the_oldest() {
        let options = Options {
            max_compiled_schemas: 2,
            ..Options::default()
        };
        let mut v = SchemaValidator::new(options);
        let a = r#"{"type":"object","properties":{"a":{"type":"string"}}}"#;
        let a2 = r#"{"properties":{"a":{"type":"string"}},"type":"object"}"#;
        let b = r#"{"type":"string"}"#;
        let c = r#"{"type":"number"}"#;
        assert_eq!(v.validate(a, r#"{"a":"x"}"#), Ok(()));
        assert_eq!(v.validate(a2, r#"{"a":"x"}"#), Ok(()));
        assert_eq!(v.compile_count(), 1);
        assert!(v.validate(b, "1").is_err());
        assert_eq!(v.validate(a, "{}"), Ok(()), "a is now the most recent");
        assert_eq!(v.validate(c, "1"), Ok(()), "evicts b");
        assert_eq!(v.compile_count(), 3);
        assert_eq!(v.validate(a, "{}"), Ok(()));
        assert_eq!(v.compile_count(), 3, "a survived");
        assert!(v.validate(b, "1").is_err());
        assert_eq!(v.compile_count(), 4, "b was evicted");
        assert_eq!(v.cached_count(), 2);
    }

    #[test]
    fn evicted_ids_report_none() {
        let options = Options {
            max_compiled_schemas: 1,
            ..Options::default()
        };
        let mut v = SchemaValidator::new(options);
        let first = v.prepare(r#"{"type":"string"}"#);
        let _ = v.prepare(r#"{"type":"number"}"#);
        assert!(first.is_ok_and(|id| v.validate_prepared(id, "1").is_none()));
    }

    #[test]
    fn a_tool_call_is_refused_in_the_core_words() {
        let mut v = SchemaValidator::new(Options::default());
        let schema = r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["b"]}"#;
        let id = match v.prepare(schema) {
            Ok(id) => id,
            Err(issue) => panic!("{}", issue.message),
        };
        assert_eq!(v.check_tool_call(id, r#"{"b":1}"#, "t"), Some(Ok(())));
        assert_eq!(
            v.check_tool_call(id, r#"{"a":1}"#, "t"),
            Some(Err(
                "#/required: must have required property 'b'; /a: must be string".to_owned()
            ))
        );
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(
            v.check_tool_call(id, &deep, "t"),
            Some(Err("/: exceeds maximum depth 64".to_owned())),
            "a pathless issue is its own message"
        );
        assert_eq!(v.check_tool_call(u32::MAX, "{}", "t"), None);
    }

    #[test]
    fn hostile_instances_are_data() {
        let mut v = SchemaValidator::new(Options::default());
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(
            v.validate("{}", &deep),
            Err(vec![Issue::message("/: exceeds maximum depth 64")])
        );
        let deep_schema = "{\"not\":".repeat(10_000) + "{}" + &"}".repeat(10_000);
        assert!(v.validate(&deep_schema, "1").is_err());
    }
}
