//! Node-API glue for the engine's `policy` module.
//!
//! One synchronous call per policy check: the command line goes in as a string, the analysis
//! (every simple command, redirections, flags) comes back as one JSON string that the facade
//! parses. Parsing is microseconds, so it runs on the calling thread.

use napi_derive::napi;

/// The shell analysis of `command` as JSON: `{parts: [{text, argv, derived, deny?}],
/// redirects: [{op, target, write}], metacharacters, unsupported?, deny?}`.
#[napi]
pub fn analyze_shell_command(command: String) -> String {
    prism_engine::policy::analyze_json(&command)
}
