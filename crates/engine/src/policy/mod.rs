//! Coding execution policy: roots, command analysis, approvals and sandboxes.
//!
//! - [`shell`]: parses a command line with tree-sitter-bash into every simple command it runs,
//!   its redirection targets and whether it is more than one plain command; unknown syntax,
//!   code the grammar does not show, and anything past the depth and size caps fail closed.
//! - [`brace`]: bash brace expansion of a word (`rm -{r,f} /` runs `rm -r -f /`), bounded.
//! - [`deny_rules`]: the default deny rules as data, with their example commands.
//! - [`effects`]: what an allowed program's own options do (write a file, run a command or
//!   code, discard work, set a setuid mode), one table per program, with examples.
//! - [`wrappers`]: one option table per wrapper (`env`, `timeout`, `sudo`, `xargs`, `script`,
//!   ...), read like GNU `getopt_long`, and where the inner command starts; shell invocations.
//!
//! - [`containment`]: where a path really is and which approved root holds it.
//! - [`layout`]: the analysis written as numbers into a caller's buffer, its strings as spans
//!   of the command, for the binding's crossing.
//! - [`rules`]: the host's command rules matched against each simple command (strings here,
//!   `RegExp`s answered by the host), and the verdict's reason worded.
//! - [`verdict`]: the order of the command-rule checks and their reasons, over what the
//!   host's rules matched.
//! - [`approval`]: the approval flow of `policy.check(action)` as a sans-IO machine (the order
//!   of the checks, which kinds need approval or are confined, every denial's reason) and the
//!   policy's approval cache.
//! - [`decide`]: the machine driven in the engine from the start of a check to its decision
//!   or to the first step only the host performs.
//!
//! The facade resolves the action's paths with Node's `path.resolve` and calls [`decide`]
//! once; it is asked again only for what only it has: the answers of `RegExp` rules, the
//! approval cache's key material and the host's `approve`.

pub mod approval;
mod arith;
pub mod brace;
pub mod containment;
pub mod decide;
pub mod deny_rules;
pub mod effects;
pub mod layout;
pub mod open_word;
mod plain;
pub mod rules;
pub mod shell;
pub mod verdict;
mod word;
pub mod wrappers;

/// The analysis of `command` as JSON text (what the binding hands to JavaScript when the
/// analysis does not fit a [`layout`], and off the JavaScript thread).
#[must_use]
pub fn analyze_json(command: &str) -> String {
    to_json(&shell::analyze(command))
}

/// The analysis of `command` written into `out` as a [`layout`]; returns the layout's extras.
/// When it does not fit, `out[0]` is set to 0 and the JSON text of [`analyze_json`] is
/// returned instead.
#[must_use]
pub fn analyze_into(command: &str, out: &mut [u32]) -> String {
    let analysis = shell::analyze(command);
    if let Some(extras) = layout::write(&analysis, command, out) {
        return extras;
    }
    if let Some(head) = out.first_mut() {
        *head = 0;
    }
    to_json(&analysis)
}

/// `analysis` as JSON text.
fn to_json(analysis: &shell::Analysis) -> String {
    serde_json::to_string(analysis).unwrap_or_else(|_| {
        r#"{"parts":[],"redirects":[],"metacharacters":true,"unsupported":"analysis failed"}"#
            .to_string()
    })
}
