//! Coding execution policy: rule verdicts, approvals, path containment and sandboxes.
//!
//! The shell command analysis (what a command line runs) is its own crate,
//! `prism_command_analysis` (`crates/command-analysis`), which knows nothing of the approval
//! machine; its modules are re-exported here, so `policy::shell` and the others keep their
//! paths for the engine's users and the binding:
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
//! - [`open_word`]: whether a glob or an open word could be a name a deny rule matches.
//! - [`layout`]: the analysis written as numbers into a caller's buffer, its strings as spans
//!   of the command, for the binding's crossing; [`analyze_json`] and [`analyze_into`].
//!
//! Here, in the engine:
//!
//! - [`containment`]: where a path really is and which approved root holds it.
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
pub mod containment;
pub mod decide;
pub mod rules;
pub mod verdict;

pub use prism_command_analysis::{
    analyze_into, analyze_json, brace, deny_rules, effects, layout, open_word, shell, wrappers,
};
