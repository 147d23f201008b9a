//! Node-API glue for the engine's `validation` module.
//!
//! The JS facade keeps a `WeakMap` from each schema object to the id [`NativeJsonSchemaValidator::prepare`]
//! returned, so a warm `validate(schema, value)` crosses once with only the id and the
//! instance's JSON text (measured cheaper than converting the object; see BENCHMARKS.md).

use std::collections::HashMap;
use std::sync::Arc;

use crate::dispatch::verdict_ending;
use crate::errors::{facade_bug, to_js};
use crate::js_raw::{unknown, Js};
use crate::mcp_turn::{MCP_CALL_INVALID, MCP_CALL_SCHEMA_EVICTED, MCP_CALL_STARTED};
use napi::bindgen_prelude::{Either, Uint32Array, Uint8Array, Unknown};
use napi::Env;
use napi::JsValue;
use napi_derive::napi;
use prism_engine::tools::dispatch::Verdict;
use prism_engine::validation::issue::tool_refusal;
use prism_engine::validation::{
    CompileSettings, Draft, Issue, Options, RawOptions, SchemaValidator, ValidationLimitsInput,
    WalkProblem,
};

/// The bounds and switches of `createJsonSchemaArgumentValidator` (defaults in the engine).
#[napi(object)]
#[derive(Default)]
pub struct NativeJsonSchemaOptions {
    /// Every bound the host set, by option name (`prism_engine::option_sets`); a value that
    /// is not a number is `NaN`.
    pub limits: Option<HashMap<String, f64>>,
    /// `strict` (default `true`): Ajv strict-mode parity.
    pub strict: Option<bool>,
    /// `validateFormats` (default `false`): assert `format` keywords when `strict` is off.
    pub validate_formats: Option<bool>,
}

impl From<NativeJsonSchemaOptions> for RawOptions {
    fn from(o: NativeJsonSchemaOptions) -> RawOptions {
        let limits = o.limits.unwrap_or_default();
        RawOptions {
            limits: ValidationLimitsInput::from_named(|name| limits.get(name).copied()),
            strict: o.strict,
            validate_formats: o.validate_formats,
        }
    }
}

/// The resolved bounds the JS pre-walks need.
#[napi(object)]
pub struct NativeJsonSchemaBounds {
    pub max_depth: u32,
    pub max_schema_depth: u32,
    pub max_schema_bytes: u32,
}

/// One `{ path?, message }` error.
#[napi(object)]
pub struct NativeValidationIssue {
    pub path: Option<String>,
    pub message: String,
}

impl From<Issue> for NativeValidationIssue {
    fn from(i: Issue) -> NativeValidationIssue {
        NativeValidationIssue {
            path: i.path,
            message: i.message,
        }
    }
}

fn resolve(env: &Env, options: Option<NativeJsonSchemaOptions>) -> napi::Result<Options> {
    Options::resolve(&options.unwrap_or_default().into()).map_err(|e| to_js(env, e))
}

/// One validator and its compile cache.
#[napi]
pub struct NativeJsonSchemaValidator {
    inner: SchemaValidator,
}

#[napi]
impl NativeJsonSchemaValidator {
    /// Resolves the options; an out-of-range bound throws with the reference's message.
    #[napi(constructor)]
    pub fn new(env: Env, options: Option<NativeJsonSchemaOptions>) -> napi::Result<Self> {
        Ok(NativeJsonSchemaValidator {
            inner: SchemaValidator::new(resolve(&env, options)?),
        })
    }

    /// The resolved bounds the JS pre-walk uses.
    #[napi]
    pub fn bounds(&self) -> NativeJsonSchemaBounds {
        let o = self.inner.options();
        NativeJsonSchemaBounds {
            max_depth: u32::try_from(o.instance.max_depth).unwrap_or(u32::MAX),
            max_schema_depth: u32::try_from(o.schema.max_depth).unwrap_or(u32::MAX),
            max_schema_bytes: u32::try_from(o.schema.max_bytes).unwrap_or(u32::MAX),
        }
    }

    /// The engine's message for a problem the JS walk over the host's objects found at `path`:
    /// `kind` is `tooDeep`, `notSerializable`, `schemaTooDeep`, `schemaTooLarge`,
    /// `schemaForbiddenKey` (with `key`), `schemaNotFinite`, `schemaCycle` or
    /// `schemaNotSerializable`; the bound is this validator's. With `tool`, the refusal of that
    /// tool's call instead (`createToolParameterValidator`'s words), so the tool validator
    /// crosses once.
    #[napi]
    pub fn problem(
        &self,
        env: Env,
        kind: String,
        path: String,
        key: Option<String>,
        tool: Option<String>,
    ) -> napi::Result<String> {
        let o = self.inner.options();
        let problem = match kind.as_str() {
            "tooDeep" => WalkProblem::TooDeep {
                path,
                max: o.instance.max_depth,
            },
            "notSerializable" => WalkProblem::NotSerializable { path },
            "schemaTooDeep" => WalkProblem::SchemaTooDeep {
                path,
                max: o.schema.max_depth,
            },
            "schemaTooLarge" => WalkProblem::SchemaTooLarge {
                max: o.schema.max_bytes,
            },
            "schemaForbiddenKey" => WalkProblem::SchemaForbiddenKey {
                path,
                key: key.unwrap_or_default(),
            },
            "schemaNotFinite" => WalkProblem::SchemaNotFinite { path },
            "schemaCycle" => WalkProblem::SchemaCycle { path },
            "schemaNotSerializable" => WalkProblem::SchemaNotSerializable { path },
            _ => return Err(facade_bug(&env, format!("unknown walk problem {kind:?}"))),
        };
        Ok(match tool {
            Some(tool) => tool_refusal(&tool, &[problem.into()]),
            None => problem.to_string(),
        })
    }

    /// Walks and compiles (or finds) a schema given as JSON text: its id, or the error message.
    #[napi]
    pub fn prepare(&mut self, schema_text: String) -> Either<u32, String> {
        match self.inner.prepare(&schema_text) {
            Ok(id) => Either::A(id),
            Err(issue) => Either::B(issue.message),
        }
    }

    /// Validates JSON text against a prepared schema: `undefined` when valid, the errors when
    /// not, an empty array when the id was evicted (prepare again).
    #[napi]
    pub fn validate(
        &mut self,
        id: u32,
        instance_text: String,
    ) -> Option<Vec<NativeValidationIssue>> {
        match self.inner.validate_prepared(id, &instance_text) {
            Some(Ok(())) => None,
            Some(Err(issues)) => Some(issues.into_iter().map(Into::into).collect()),
            None => Some(Vec::new()),
        }
    }

    /// Checks a tool call's arguments (JSON text) against a prepared schema and words the
    /// refusal of tool `tool` in the same step: `true` when valid, the refusal when not,
    /// `false` when the id was evicted (prepare again). A failing call crosses once.
    #[napi]
    pub fn check_call(
        &mut self,
        id: u32,
        instance_text: String,
        tool: String,
    ) -> Either<String, bool> {
        match self.inner.check_tool_call(id, &instance_text, &tool) {
            Some(Ok(())) => Either::B(true),
            Some(Err(refusal)) => Either::A(refusal),
            None => Either::B(false),
        }
    }

    /// `checkCall` inside a dispatch (`d`, the driver's record):
    /// `true` when valid, `false` when the id was evicted, and for a failing call the blocked
    /// `[event, result, status]` the dispatch machine decides on the refusal, so the whole
    /// failure crosses once.
    #[napi(ts_return_type = "boolean | [unknown, unknown, number]")]
    pub fn check_dispatch<'a>(
        &mut self,
        env: &'a Env,
        id: u32,
        instance_text: String,
        tool: String,
        d: Unknown<'a>,
    ) -> napi::Result<Unknown<'a>> {
        let js = Js(env.raw());
        let value = match self.inner.check_tool_call(id, &instance_text, &tool) {
            Some(Ok(())) => js.boolean(true)?,
            None => js.boolean(false)?,
            Some(Err(refusal)) => {
                let v = js.string(&refusal)?;
                verdict_ending(js, d.raw(), Verdict::Message(refusal), v)?
            }
        };
        Ok(unknown(env, value))
    }

    /// Whether the JSON text `instance_text` passes prepared schema `id` (the check of
    /// `checkCall`, without wording a refusal); `None` when the id was evicted.
    pub(crate) fn accepts(&mut self, id: u32, instance_text: &str) -> Option<bool> {
        self.inner
            .validate_prepared(id, instance_text)
            .map(|verdict| verdict.is_ok())
    }

    /// Checks a batch of calls' arguments (JSON text `texts[i]` against prepared schema
    /// `ids[i]`; 0: no schema, no check) in one crossing, as `callTools` checks a bridge's:
    /// each verdict is `MCP_CALL_STARTED` (passed: the caller takes the call),
    /// `MCP_CALL_SCHEMA_EVICTED` or `MCP_CALL_INVALID` (the caller's own path prepares again
    /// or words the refusal).
    #[napi]
    pub fn check_texts(
        &mut self,
        env: &Env,
        ids: Uint32Array,
        texts: Vec<String>,
    ) -> napi::Result<Uint8Array> {
        if ids.len() != texts.len() {
            return Err(facade_bug(env, "checkTexts: one schema id per text".into()));
        }
        let verdicts = ids
            .iter()
            .zip(&texts)
            .map(|(&id, text)| match id {
                0 => MCP_CALL_STARTED,
                _ => match self.accepts(id, text) {
                    Some(true) => MCP_CALL_STARTED,
                    Some(false) => MCP_CALL_INVALID,
                    None => MCP_CALL_SCHEMA_EVICTED,
                },
            })
            .collect::<Vec<_>>();
        Ok(Uint8Array::new(verdicts))
    }

    /// Schemas compiled so far (cache misses).
    #[napi(getter)]
    pub fn compile_count(&self) -> f64 {
        self.inner.compile_count() as f64
    }

    /// Schemas in the cache now.
    #[napi(getter)]
    pub fn cached_count(&self) -> u32 {
        u32::try_from(self.inner.cached_count()).unwrap_or(u32::MAX)
    }
}

/// The conformance runner's entry (not public API): strict off, a forced draft, and `$ref`s
/// that may name the suite's remotes, preloaded in memory (nothing is ever fetched).
#[napi]
pub struct NativeJsonSchemaSuite {
    remotes: Arc<HashMap<String, serde_json::Value>>,
}

#[napi]
impl NativeJsonSchemaSuite {
    /// `remotes`: `[uri, jsonText]` pairs.
    #[napi(constructor)]
    pub fn new(env: Env, remotes: Vec<Vec<String>>) -> napi::Result<Self> {
        let mut map = HashMap::new();
        for pair in remotes {
            if let [uri, text] = pair.as_slice() {
                let value = serde_json::from_str(text)
                    .map_err(|e| facade_bug(&env, format!("remote {uri}: {e}")))?;
                map.insert(uri.clone(), value);
            }
        }
        Ok(NativeJsonSchemaSuite {
            remotes: Arc::new(map),
        })
    }

    /// Compiles `schema_text` under `draft` ("7", "2019-09", "2020-12") and validates each
    /// instance: validity per instance, or `undefined` when the schema did not compile.
    #[napi]
    pub fn check(
        &self,
        schema_text: String,
        draft: String,
        validate_formats: bool,
        instances: Vec<String>,
    ) -> Option<Vec<bool>> {
        let draft = match draft.as_str() {
            "2019-09" => Draft::Draft201909,
            "2020-12" => Draft::Draft202012,
            _ => Draft::Draft7,
        };
        let options = Options {
            strict: false,
            validate_formats,
            max_errors: 64,
            ..Options::default()
        };
        let settings = CompileSettings {
            strict: false,
            validate_formats,
            draft: Some(draft),
            resources: Some(Arc::clone(&self.remotes)),
        };
        let mut validator = SchemaValidator::for_suite(options, settings);
        let id = validator.prepare(&schema_text).ok()?;
        Some(
            instances
                .iter()
                .map(|text| matches!(validator.validate_prepared(id, text), Some(Ok(()))))
                .collect(),
        )
    }
}
