//! The validator's options: every bound of API.md section 7 resolved against its hard cap, plus
//! the switches beyond the reference (`strict`, `validateFormats`).

use crate::limits::{self, Limit, LimitError};

/// Options as a host passes them: each bound is `None` when unset (the default applies).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawOptions {
    /// `maxErrors` (default 8, hard 64).
    pub max_errors: Option<f64>,
    /// `maxDepth` (default 64, hard 128).
    pub max_depth: Option<f64>,
    /// `maxProperties` (default 1,000, hard 100,000).
    pub max_properties: Option<f64>,
    /// `maxStringLength` (default 1,000,000, hard 8,388,608).
    pub max_string_length: Option<f64>,
    /// `maxArrayLength` (default 10,000, hard 100,000).
    pub max_array_length: Option<f64>,
    /// `maxSchemaBytes` (default 262,144, hard 1,048,576).
    pub max_schema_bytes: Option<f64>,
    /// `maxSchemaDepth` (default 64, hard 128).
    pub max_schema_depth: Option<f64>,
    /// `maxSchemaProperties` (default 10,000, hard 100,000).
    pub max_schema_properties: Option<f64>,
    /// `maxSchemaRefs` (default 128, hard 1,024).
    pub max_schema_refs: Option<f64>,
    /// `maxSchemaKeywords` (default 10,000, hard 100,000).
    pub max_schema_keywords: Option<f64>,
    /// `maxCompiledSchemas` (default 256, hard 1,024).
    pub max_compiled_schemas: Option<f64>,
    /// `strict` (default `true`): Ajv strict-mode parity.
    pub strict: Option<bool>,
    /// `validateFormats` (default `false`): assert `format` with the crate's formats when
    /// `strict` is off (strict mode rejects every format, as Ajv without ajv-formats does).
    pub validate_formats: Option<bool>,
}

/// Resolved options; every number is within its hard cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// At most this many errors per failed validation.
    pub max_errors: usize,
    /// Instance bounds.
    pub instance: InstanceBounds,
    /// Schema bounds.
    pub schema: SchemaBounds,
    /// LRU size of the compile cache.
    pub max_compiled_schemas: usize,
    /// Ajv strict-mode parity.
    pub strict: bool,
    /// Assert `format` keywords (only when `strict` is off).
    pub validate_formats: bool,
}

/// Bounds of the instance walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstanceBounds {
    /// Deepest nesting (root 0).
    pub max_depth: usize,
    /// Properties per object.
    pub max_properties: usize,
    /// String length in UTF-16 code units.
    pub max_string_length: usize,
    /// Items per array.
    pub max_array_length: usize,
}

/// Bounds of the schema walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaBounds {
    /// JSON text size in bytes.
    pub max_bytes: usize,
    /// Deepest nesting (root 0).
    pub max_depth: usize,
    /// Object keys in the whole schema.
    pub max_properties: usize,
    /// `$ref` keywords in the whole schema.
    pub max_refs: usize,
    /// Keywords (object keys) in the whole schema.
    pub max_keywords: usize,
}

fn get(limit: &Limit, value: Option<f64>) -> Result<usize, LimitError> {
    // Hard caps are far below usize::MAX on every supported target.
    limit
        .resolve(value)
        .map(|v| usize::try_from(v).unwrap_or(usize::MAX))
}

/// A limit's default as a `usize` (every default fits).
fn d(limit: &Limit) -> usize {
    usize::try_from(limit.default).unwrap_or(usize::MAX)
}

impl Default for Options {
    fn default() -> Self {
        // Resolving no values cannot fail: every default is within its cap.
        Options::resolve(&RawOptions::default()).unwrap_or(Options {
            max_errors: d(&limits::SCHEMA_MAX_ERRORS),
            instance: InstanceBounds {
                max_depth: d(&limits::SCHEMA_MAX_DEPTH),
                max_properties: d(&limits::SCHEMA_MAX_PROPERTIES),
                max_string_length: d(&limits::SCHEMA_MAX_STRING_LENGTH),
                max_array_length: d(&limits::SCHEMA_MAX_ARRAY_LENGTH),
            },
            schema: SchemaBounds {
                max_bytes: d(&limits::SCHEMA_MAX_SCHEMA_BYTES),
                max_depth: d(&limits::SCHEMA_MAX_SCHEMA_DEPTH),
                max_properties: d(&limits::SCHEMA_MAX_SCHEMA_PROPERTIES),
                max_refs: d(&limits::SCHEMA_MAX_SCHEMA_REFS),
                max_keywords: d(&limits::SCHEMA_MAX_SCHEMA_KEYWORDS),
            },
            max_compiled_schemas: d(&limits::SCHEMA_MAX_COMPILED_SCHEMAS),
            strict: true,
            validate_formats: false,
        })
    }
}

impl Options {
    /// Checks every bound in the order of API.md section 7.
    ///
    /// # Errors
    /// The first [`LimitError`] (`"<opt> must be a positive safe integer no greater than <hard>"`).
    pub fn resolve(raw: &RawOptions) -> Result<Options, LimitError> {
        Ok(Options {
            max_errors: get(&limits::SCHEMA_MAX_ERRORS, raw.max_errors)?,
            instance: InstanceBounds {
                max_depth: get(&limits::SCHEMA_MAX_DEPTH, raw.max_depth)?,
                max_properties: get(&limits::SCHEMA_MAX_PROPERTIES, raw.max_properties)?,
                max_string_length: get(&limits::SCHEMA_MAX_STRING_LENGTH, raw.max_string_length)?,
                max_array_length: get(&limits::SCHEMA_MAX_ARRAY_LENGTH, raw.max_array_length)?,
            },
            schema: SchemaBounds {
                max_bytes: get(&limits::SCHEMA_MAX_SCHEMA_BYTES, raw.max_schema_bytes)?,
                max_depth: get(&limits::SCHEMA_MAX_SCHEMA_DEPTH, raw.max_schema_depth)?,
                max_properties: get(
                    &limits::SCHEMA_MAX_SCHEMA_PROPERTIES,
                    raw.max_schema_properties,
                )?,
                max_refs: get(&limits::SCHEMA_MAX_SCHEMA_REFS, raw.max_schema_refs)?,
                max_keywords: get(&limits::SCHEMA_MAX_SCHEMA_KEYWORDS, raw.max_schema_keywords)?,
            },
            max_compiled_schemas: get(
                &limits::SCHEMA_MAX_COMPILED_SCHEMAS,
                raw.max_compiled_schemas,
            )?,
            strict: raw.strict.unwrap_or(true),
            validate_formats: raw.validate_formats.unwrap_or(false),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_contract() {
        let o = Options::default();
        assert_eq!(o.max_errors, 8);
        assert_eq!(o.instance.max_string_length, 1_000_000);
        assert_eq!(o.schema.max_bytes, 262_144);
        assert_eq!(o.max_compiled_schemas, 256);
        assert!(o.strict);
    }

    #[test]
    fn rejects_a_bound_above_its_hard_cap() {
        let raw = RawOptions {
            max_compiled_schemas: Some(1_025.0),
            ..RawOptions::default()
        };
        assert_eq!(
            Options::resolve(&raw).map_err(|e| e.to_string()),
            Err("maxCompiledSchemas must be a positive safe integer no greater than 1024".into())
        );
        let raw = RawOptions {
            max_compiled_schemas: Some(1_024.0),
            ..RawOptions::default()
        };
        assert_eq!(
            Options::resolve(&raw).map(|o| o.max_compiled_schemas),
            Ok(1_024)
        );
    }
}
