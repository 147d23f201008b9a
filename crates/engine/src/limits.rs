//! Every default and hard cap of the engine, as typed constants with their units in the name.
//!
//! Each area adds its limits here, default and hard cap side by side, so that a reader sees
//! every bound the package enforces in one file.

/// A bound that a host may configure: its default and the largest value it may be set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The option's name as hosts spell it (used in error messages).
    pub name: &'static str,
    /// The value used when the host sets none.
    pub default: u64,
    /// The largest value the host may set.
    pub hard: u64,
}

impl Limit {
    /// Checks a host-supplied value: a whole number from 1 to [`Limit::hard`].
    ///
    /// `None` gives the default. Non-finite, fractional, zero, negative and unsafe (above
    /// 2^53 - 1) values are rejected with [`LimitError`].
    ///
    /// # Errors
    /// [`LimitError`] names the limit and its hard cap.
    pub fn resolve(&self, value: Option<f64>) -> Result<u64, LimitError> {
        let Some(v) = value else {
            return Ok(self.default);
        };
        if is_positive_safe_integer(v) && v <= self.hard as f64 {
            Ok(v as u64)
        } else {
            Err(LimitError {
                name: self.name,
                hard: self.hard,
            })
        }
    }
}

/// 2^53 - 1, JavaScript's `Number.MAX_SAFE_INTEGER`.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Whether `v` is a whole number from 1 to `Number.MAX_SAFE_INTEGER`.
#[must_use]
pub fn is_positive_safe_integer(v: f64) -> bool {
    v.is_finite() && v.fract() == 0.0 && (1.0..=MAX_SAFE_INTEGER).contains(&v)
}

/// A configured limit that is not a positive safe integer within its hard cap.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name} must be a positive safe integer no greater than {hard}")]
pub struct LimitError {
    /// The option's name.
    pub name: &'static str,
    /// Its hard cap.
    pub hard: u64,
}

// --- JSON Schema validation (API.md section 7) -------------------------------------------

/// Errors reported per failed validation (Ajv's `allErrors` output is cut to this many).
pub const SCHEMA_MAX_ERRORS: Limit = Limit {
    name: "maxErrors",
    default: 8,
    hard: 64,
};
/// Nesting depth of a validated instance (the root is depth 0).
pub const SCHEMA_MAX_DEPTH: Limit = Limit {
    name: "maxDepth",
    default: 64,
    hard: 128,
};
/// Properties of any one object of a validated instance.
pub const SCHEMA_MAX_PROPERTIES: Limit = Limit {
    name: "maxProperties",
    default: 1_000,
    hard: 100_000,
};
/// Length of any string of a validated instance, in UTF-16 code units (JavaScript's `length`).
pub const SCHEMA_MAX_STRING_LENGTH: Limit = Limit {
    name: "maxStringLength",
    default: 1_000_000,
    hard: 8_388_608,
};
/// Items of any array of a validated instance.
pub const SCHEMA_MAX_ARRAY_LENGTH: Limit = Limit {
    name: "maxArrayLength",
    default: 10_000,
    hard: 100_000,
};
/// Size of a schema as JSON text, in UTF-8 bytes.
pub const SCHEMA_MAX_SCHEMA_BYTES: Limit = Limit {
    name: "maxSchemaBytes",
    default: 262_144,
    hard: 1_048_576,
};
/// Nesting depth of a schema (the root is depth 0).
pub const SCHEMA_MAX_SCHEMA_DEPTH: Limit = Limit {
    name: "maxSchemaDepth",
    default: 64,
    hard: 128,
};
/// Object keys in a whole schema, counted as properties.
pub const SCHEMA_MAX_SCHEMA_PROPERTIES: Limit = Limit {
    name: "maxSchemaProperties",
    default: 10_000,
    hard: 100_000,
};
/// `$ref` keywords in a whole schema.
pub const SCHEMA_MAX_SCHEMA_REFS: Limit = Limit {
    name: "maxSchemaRefs",
    default: 128,
    hard: 1_024,
};
/// Object keys in a whole schema, counted as keywords.
pub const SCHEMA_MAX_SCHEMA_KEYWORDS: Limit = Limit {
    name: "maxSchemaKeywords",
    default: 10_000,
    hard: 100_000,
};
/// Compiled schemas kept per validator (a least-recently-used cache).
pub const SCHEMA_MAX_COMPILED_SCHEMAS: Limit = Limit {
    name: "maxCompiledSchemas",
    default: 256,
    hard: 1_024,
};

// --- MCP bridge (API.md section 8) ------------------------------------------------------------

// --- Coding tools (API.md section 10) -----------------------------------------------------------

// --- Coding security (API.md section 9) ---------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    const L: Limit = Limit {
        name: "maxThings",
        default: 8,
        hard: 64,
    };

    #[test]
    fn resolves_default_and_edges() {
        assert_eq!(L.resolve(None), Ok(8));
        assert_eq!(L.resolve(Some(1.0)), Ok(1));
        assert_eq!(L.resolve(Some(64.0)), Ok(64));
    }

    #[test]
    fn rejects_out_of_range_and_non_integers() {
        for bad in [
            0.0,
            -1.0,
            65.0,
            1.5,
            f64::NAN,
            f64::INFINITY,
            MAX_SAFE_INTEGER + 2.0,
        ] {
            let err = L.resolve(Some(bad)).err();
            assert_eq!(
                err.map(|e| e.to_string()),
                Some("maxThings must be a positive safe integer no greater than 64".to_owned()),
                "{bad}"
            );
        }
    }
}
