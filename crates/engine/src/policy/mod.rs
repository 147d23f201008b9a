//! Coding execution policy: roots, command analysis, approvals and sandboxes.
//!
//! - [`shell`]: parses a command line with tree-sitter-bash into every simple command it runs,
//!   its redirection targets and whether it is more than one plain command; unknown syntax,
//!   code the grammar does not show, and anything past the depth and size caps fail closed.
//! - [`brace`]: bash brace expansion of a word (`rm -{r,f} /` runs `rm -r -f /`), bounded.
//! - [`deny_rules`]: the default deny rules as data, with their example commands.
//! - [`wrappers`]: one option table per wrapper (`env`, `timeout`, `sudo`, `xargs`, `script`,
//!   ...), read like GNU `getopt_long`, and where the inner command starts; shell invocations.
//! - [`beneath`]: opening and writing files beneath a root directory so that no symlink, even
//!   one swapped in after a path check, can redirect the write outside it.
//!
//! - [`containment`]: where a path really is and which approved root holds it.
//! - [`verdict`]: the order of the command-rule checks and their reasons, over what the
//!   host's rules matched.
//! - [`approval`]: the approval flow of `policy.check(action)` as a sans-IO machine (the order
//!   of the checks, which kinds need approval or are confined, every denial's reason) and the
//!   policy's approval cache.
//!
//! The facade drives [`approval`]: it performs the steps the machine names that only it can
//! (resolving paths with Node's `path.resolve`, matching host rules, which may be JavaScript
//! `RegExp`s, and calling the host's `approve`), crossing into Rust for [`containment`],
//! [`shell::analyze`] and [`verdict::judge`].

pub mod approval;
pub mod beneath;
pub mod brace;
pub mod containment;
pub mod deny_rules;
pub mod landlock;
mod plain;
pub mod shell;
pub mod verdict;
pub mod wrappers;

/// The analysis of `command` as JSON text (the one value the binding hands to JavaScript).
#[must_use]
pub fn analyze_json(command: &str) -> String {
    serde_json::to_string(&shell::analyze(command)).unwrap_or_else(|_| {
        r#"{"parts":[],"redirects":[],"metacharacters":true,"unsupported":"analysis failed"}"#
            .to_string()
    })
}
