//! JSON Schema tool-argument validation (Ajv-compatible adapter on the `jsonschema` crate).
