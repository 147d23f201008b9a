//! The shell command analysis of prism's execution policy: what a command line would run,
//! read without running it. It parses a line with tree-sitter-bash into every simple command
//! it runs, its redirection targets and whether it is more than one plain command; unknown
//! syntax, code the grammar does not show, and anything past the caps fail closed.
//!
//! This crate only describes a command. Deciding about it (the order of the command-rule
//! checks and their reasons, the approval machine, path containment) is the engine's
//! (`prism_engine::policy`), which re-exports these modules as `prism_engine::policy::shell`
//! and so on; nothing here depends on the engine.
//!
//! - [`shell`]: the grammar walk: [`shell::analyze`] and the [`shell::Analysis`] it returns.
//! - [`brace`]: bash brace expansion of a word (`rm -{r,f} /` runs `rm -r -f /`), bounded.
//! - [`deny_rules`]: the default deny rules as data, with their example commands.
//! - [`effects`]: what an allowed program's own options do (write a file, run a command or
//!   code, discard work, set a setuid mode), one table per program, with examples.
//! - [`wrappers`]: one option table per wrapper (`env`, `timeout`, `sudo`, `xargs`, `script`,
//!   ...), read like GNU `getopt_long`, and where the inner command starts; shell invocations.
//! - [`open_word`]: whether a glob or an open word could be a name a deny rule matches.
//! - [`layout`]: the analysis written as numbers into a caller's buffer, its strings as spans
//!   of the command, for a binding's crossing.
//! - [`limits`]: every cap of the analysis (the engine re-exports them with its own limits).
//! - Private: the fast path for plain words (`plain`), arithmetic expansion (`arith`) and the
//!   word pieces both walks produce (`word`).

mod arith;
pub mod brace;
pub mod deny_rules;
pub mod effects;
pub mod layout;
pub mod limits;
pub mod open_word;
mod plain;
pub mod shell;
mod word;
pub mod wrappers;

/// The analysis of `command` as JSON text (what a binding hands to JavaScript when the
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
