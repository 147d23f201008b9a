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
//!
//! The approval flow itself (roots, matching host rules, the approval cache) lives in the JS
//! facade, because host rules are JavaScript `RegExp`s and `approve` is a host callback; it
//! crosses into Rust for [`shell::analyze`] and for [`verdict::judge`].

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
