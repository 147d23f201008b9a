//! The validator's options: every bound of API.md section 7 resolved against its hard cap, plus
//! the switches beyond the reference (`strict`, `validateFormats`).

use crate::limits::LimitError;

crate::limits::limit_set! {
    /// The validator's bounds, resolved, in the order of API.md section 7.
    pub struct ValidationLimits from ValidationLimitsInput {
        max_errors: SCHEMA_MAX_ERRORS,
        max_depth: SCHEMA_MAX_DEPTH,
        max_properties: SCHEMA_MAX_PROPERTIES,
        max_string_length: SCHEMA_MAX_STRING_LENGTH,
        max_array_length: SCHEMA_MAX_ARRAY_LENGTH,
        max_schema_bytes: SCHEMA_MAX_SCHEMA_BYTES,
        max_schema_depth: SCHEMA_MAX_SCHEMA_DEPTH,
        max_schema_properties: SCHEMA_MAX_SCHEMA_PROPERTIES,
        max_schema_refs: SCHEMA_MAX_SCHEMA_REFS,
        max_schema_keywords: SCHEMA_MAX_SCHEMA_KEYWORDS,
        max_compiled_schemas: SCHEMA_MAX_COMPILED_SCHEMAS,
    }
}

/// Options as a host passes them: each bound is `None` when unset (the default applies).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawOptions {
    /// The bounds ([`ValidationLimits::TABLE`]).
    pub limits: ValidationLimitsInput,
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

/// A resolved bound as a `usize` (hard caps are far below `usize::MAX` on every target).
fn size(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

impl Default for Options {
    fn default() -> Self {
        Options::from_limits(&ValidationLimits::default(), &RawOptions::default())
    }
}

impl Options {
    /// Checks every bound in the order of API.md section 7.
    ///
    /// # Errors
    /// The first [`LimitError`] (`"<opt> must be a positive safe integer no greater than <hard>"`).
    pub fn resolve(raw: &RawOptions) -> Result<Options, LimitError> {
        Ok(Self::from_limits(
            &ValidationLimits::resolve(&raw.limits)?,
            raw,
        ))
    }

    fn from_limits(l: &ValidationLimits, raw: &RawOptions) -> Options {
        Options {
            max_errors: size(l.max_errors),
            instance: InstanceBounds {
                max_depth: size(l.max_depth),
                max_properties: size(l.max_properties),
                max_string_length: size(l.max_string_length),
                max_array_length: size(l.max_array_length),
            },
            schema: SchemaBounds {
                max_bytes: size(l.max_schema_bytes),
                max_depth: size(l.max_schema_depth),
                max_properties: size(l.max_schema_properties),
                max_refs: size(l.max_schema_refs),
                max_keywords: size(l.max_schema_keywords),
            },
            max_compiled_schemas: size(l.max_compiled_schemas),
            strict: raw.strict.unwrap_or(true),
            validate_formats: raw.validate_formats.unwrap_or(false),
        }
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
            limits: ValidationLimitsInput {
                max_compiled_schemas: Some(1_025.0),
                ..Default::default()
            },
            ..RawOptions::default()
        };
        assert_eq!(
            Options::resolve(&raw).map_err(|e| e.to_string()),
            Err("maxCompiledSchemas must be a positive safe integer no greater than 1024".into())
        );
        let raw = RawOptions {
            limits: ValidationLimitsInput {
                max_compiled_schemas: Some(1_024.0),
                ..Default::default()
            },
            ..RawOptions::default()
        };
        assert_eq!(
            Options::resolve(&raw).map(|o| o.max_compiled_schemas),
            Ok(1_024)
        );
    }
}
