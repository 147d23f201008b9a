//! The problems a bounds walk reports about a value's shape, each worded once.
//!
//! The engine's walks over parsed JSON text report the depth, byte and key bounds; the JS
//! facade's walk over the host's objects (which runs before the text is made, because JSON text
//! cannot carry a cycle, a non-finite number or a class instance) reports the rest, and takes
//! every message from here through the binding.

/// One shape problem of a schema or an instance, with the reference's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WalkProblem {
    /// An instance nested deeper than `maxDepth` (`path` is `/` for the root).
    #[error("{path}: exceeds maximum depth {max}")]
    TooDeep {
        /// Where.
        path: String,
        /// The bound.
        max: usize,
    },
    /// An instance value JSON text cannot carry (a function, a cycle, a non-finite number, a
    /// class instance).
    #[error("{path}: value must be JSON-serializable")]
    NotSerializable {
        /// Where.
        path: String,
    },
    /// A schema nested deeper than `maxSchemaDepth`.
    #[error("{path}: exceeds maximum schema depth {max}")]
    SchemaTooDeep {
        /// Where.
        path: String,
        /// The bound.
        max: usize,
    },
    /// A schema whose JSON text is over `maxSchemaBytes`.
    #[error("schema exceeds maximum bytes {max}")]
    SchemaTooLarge {
        /// The bound.
        max: usize,
    },
    /// A schema object key on the forbidden list.
    #[error("{path}.{key} uses forbidden JSON key: {key}")]
    SchemaForbiddenKey {
        /// The object's path.
        path: String,
        /// The key.
        key: String,
    },
    /// A schema number that is NaN or infinite.
    #[error("{path}: schema number must be finite")]
    SchemaNotFinite {
        /// Where.
        path: String,
    },
    /// A schema object that contains itself.
    #[error("{path}: schema contains a cycle")]
    SchemaCycle {
        /// Where.
        path: String,
    },
    /// A schema value JSON text cannot carry (a function, a class instance).
    #[error("{path}: schema must be JSON-serializable")]
    SchemaNotSerializable {
        /// Where.
        path: String,
    },
    /// Schema text that does not parse as JSON (only a Rust host can send such text; the
    /// facade sends `JSON.stringify` output).
    #[error("schema must be JSON-serializable: {why}")]
    SchemaInvalidText {
        /// The parser's reason.
        why: String,
    },
}

#[cfg(test)]
mod tests {
    use super::WalkProblem;

    #[test]
    fn messages_read_as_the_reference_words_them() {
        let cases = [
            (
                WalkProblem::TooDeep {
                    path: "/".into(),
                    max: 64,
                },
                "/: exceeds maximum depth 64",
            ),
            (
                WalkProblem::NotSerializable {
                    path: "a[0]".into(),
                },
                "a[0]: value must be JSON-serializable",
            ),
            (
                WalkProblem::SchemaTooDeep {
                    path: "schema.a".into(),
                    max: 2,
                },
                "schema.a: exceeds maximum schema depth 2",
            ),
            (
                WalkProblem::SchemaTooLarge { max: 7 },
                "schema exceeds maximum bytes 7",
            ),
            (
                WalkProblem::SchemaForbiddenKey {
                    path: "schema.properties".into(),
                    key: "constructor".into(),
                },
                "schema.properties.constructor uses forbidden JSON key: constructor",
            ),
            (
                WalkProblem::SchemaNotFinite {
                    path: "schema.minimum".into(),
                },
                "schema.minimum: schema number must be finite",
            ),
            (
                WalkProblem::SchemaCycle {
                    path: "schema.items".into(),
                },
                "schema.items: schema contains a cycle",
            ),
            (
                WalkProblem::SchemaNotSerializable {
                    path: "schema.x".into(),
                },
                "schema.x: schema must be JSON-serializable",
            ),
        ];
        for (problem, message) in cases {
            assert_eq!(problem.to_string(), message);
        }
    }
}
