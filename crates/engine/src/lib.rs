//! The prism tool-execution engine: the pure-Rust half of `prism-native`.
//!
//! Nothing here depends on Node-API, so every module tests with `cargo test` and a Rust host
//! can use the engine directly. The Node binding (`src/` at the workspace root) only converts
//! values, calls host callbacks and maps [`code`](tools::ErrorCode) values to JavaScript errors.
//!
//! - [`tools`]: the dispatch gate order, blocked reasons, registry and filter semantics,
//!   JSON-object argument checks and secret redaction.
//! - [`parallel`]: the tool-concurrency rules of one provider turn.
//! - [`validation`]: JSON Schema argument validation with Ajv-compatible errors.
//! - [`mcp`]: the MCP client bridge.
//! - [`coding`]: read, write, edit and shell.
//! - [`policy`]: execution policy: rule verdicts, approvals, path containment and sandboxes;
//!   the shell command analysis it re-exports is the `prism_command_analysis` crate
//!   (`crates/command-analysis`), which does not depend on the engine.
//! - [`limits`]: every default and hard cap, side by side.
//! - [`facade_words`]: the messages a host language's facade raises about its own values.
//! - [`js_number`]: numbers as JavaScript prints them, for messages that read as the reference's.

pub mod coding;
pub mod error_codes;
pub mod facade_words;
pub mod js_number;
pub mod limits;
pub mod mcp;
pub mod option_sets;
pub mod os;
pub mod parallel;
pub mod policy;
pub mod tools;
pub mod validation;
