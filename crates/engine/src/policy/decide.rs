//! The approval machine ([`approval`](super::approval)) driven in the engine, from the start
//! of a check to its decision or to the first step only the host can perform.
//!
//! One call contains every path, analyses the command, judges it under the host's rules
//! ([`rules`](super::rules)) and contains every redirection target, so a check whose host gave
//! no callback for it crosses into the engine once. The host is asked only for what only it
//! has: the answers of its `RegExp` rules ([`Decided::NeedsHost`]; the check is then made
//! again with them), the approval cache's key material and `approve`
//! ([`Step::LookUpCache`], [`Step::Ask`]).

use std::path::{Path, PathBuf};

use super::approval::{Action, Check, Command, Input, Kind, Location, Policy, Step};
use super::containment::{containing_root, normalize};
use super::rules::{self, HostMatches, Rule, Said};
use super::shell::{self, Analysis};

/// The reason of a command that is not a string (it cannot be analysed: it needs approval).
pub const COMMAND_NOT_A_STRING: &str = "the command is not a string";

/// An action's command, as the check reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandText<'a> {
    /// Missing or falsy.
    Absent,
    /// Present (truthy) but not a string.
    NotAString,
    /// A string.
    Text(&'a str),
}

/// One action to check.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// Its kind.
    pub kind: Kind,
    /// Its paths, in order, resolved to absolute and normalised (`None`: not a string, which
    /// nothing contains).
    pub paths: &'a [Option<PathBuf>],
    /// Its command.
    pub command: CommandText<'a>,
    /// The directory a relative redirection target is resolved from (absolute).
    pub base: &'a Path,
    /// The directory a `~` target starts from.
    pub home: &'a Path,
}

/// Where a check stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decided {
    /// The host's `RegExp` rules must be tested against these texts
    /// ([`rules::subjects`]); check again with the answers.
    NeedsHost(Vec<String>),
    /// The machine's state: [`Step::Allow`], [`Step::Deny`], or a host's step
    /// ([`Step::LookUpCache`], [`Step::Ask`]).
    At(Outcome),
}

/// A check's state and what its decision needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The machine's state.
    pub check: Check,
    /// The root that holds the first path and where that path really is (for `writeBeneath`).
    pub first: Option<(PathBuf, PathBuf)>,
    /// The index of the path contained last (a denial outside the roots names it).
    pub path: Option<usize>,
    /// The redirection target contained last, as the command wrote it.
    pub redirect: Option<String>,
    /// The command verdict's reason (a denial by the verdict gives it).
    pub reason: Said,
}

/// Checks `request` under `policy` with the trusted `roots` and the host's `rules`, up to the
/// decision or a step only the host performs; `host_bits` are the host's answers to
/// [`Decided::NeedsHost`] (see [`HostMatches`]). Reads the file system (where each path and
/// target really is): call it off the JavaScript thread.
#[must_use]
pub fn decide(
    policy: &Policy,
    roots: &[String],
    rules: &[Rule],
    deny_metacharacters: bool,
    request: &Request<'_>,
    host_bits: Option<&[u8]>,
) -> Decided {
    let command = match request.command {
        CommandText::Absent => Command::Absent,
        // Never analysed on a caller's thread here: the length only picks the state.
        CommandText::NotAString | CommandText::Text(_) => Command::Present,
    };
    let action = Action {
        kind: request.kind,
        paths: u32::try_from(request.paths.len()).unwrap_or(u32::MAX),
        command,
    };
    let mut out = Outcome {
        check: Check::begin(policy, &action),
        first: None,
        path: None,
        redirect: None,
        reason: Said::Nothing,
    };
    let mut next_path = 0;
    let mut redirects: Vec<Option<String>> = Vec::new();
    let mut next_redirect = 0;
    loop {
        let input = match out.check.step() {
            Step::ContainPath => {
                let found = request
                    .paths
                    .get(next_path)
                    .and_then(Option::as_deref)
                    .and_then(|p| containing_root(roots, p));
                if next_path == 0 {
                    out.first.clone_from(&found);
                }
                out.path = Some(next_path);
                next_path += 1;
                Input::Location(if found.is_some() {
                    Location::Inside
                } else {
                    Location::Outside
                })
            }
            Step::Analyze => {
                let analysis = analyze(request.command);
                let host = host_bits.map(|bits| HostMatches::for_analysis(&analysis, bits));
                let judgement = rules::judge(&analysis, rules, deny_metacharacters, host);
                let needs_host = host.is_none()
                    && rules
                        .iter()
                        .any(|r| matches!(r.pattern, rules::Pattern::Host(_)))
                    && !analysis.parts.is_empty();
                if needs_host {
                    let (normalised, bare) = rules::subjects_read(rules);
                    return Decided::NeedsHost(rules::subjects_for(&analysis, normalised, bare));
                }
                let has_reason = judgement.has_reason(rules);
                redirects = analysis.redirects.into_iter().map(|r| r.target).collect();
                out.reason = judgement.reason;
                Input::Verdict {
                    action: judgement.verdict.action,
                    has_reason,
                    covered: judgement.verdict.covered_by_allow_rules,
                    redirects: u32::try_from(redirects.len()).unwrap_or(u32::MAX),
                }
            }
            Step::ContainRedirect => {
                let target = redirects.get(next_redirect).cloned().flatten();
                next_redirect += 1;
                let at = match &target {
                    None => Location::NoTarget,
                    Some(t) => {
                        let real = redirect_path(t, request.base, request.home);
                        if containing_root(roots, &real).is_some() {
                            Location::Inside
                        } else {
                            Location::Outside
                        }
                    }
                };
                out.redirect = target;
                Input::Location(at)
            }
            Step::LookUpCache | Step::Ask | Step::Allow { .. } | Step::Deny(_) => {
                return Decided::At(out)
            }
        };
        match out.check.feed(policy, input) {
            Ok(check) => out.check = check,
            // The machine asked for each input given here: not reached.
            Err(_) => return Decided::At(out),
        }
    }
}

/// The analysis of a command (a command that is not a string reads as unanalysed).
fn analyze(command: CommandText<'_>) -> Analysis {
    match command {
        CommandText::Text(c) => shell::analyze(c),
        CommandText::Absent | CommandText::NotAString => not_a_string(),
    }
}

/// The analysis of a command that is not a string: unanalysed, so it needs approval.
#[must_use]
pub fn not_a_string() -> Analysis {
    let mut a = Analysis::default();
    a.metacharacters = true;
    a.unsupported = Some(COMMAND_NOT_A_STRING.to_owned());
    a
}

/// Where a redirection target points: `~` and `~/...` start at `home`, a relative target at
/// `base`; folded lexically, as Node's `path.resolve` and `path.join` do.
#[must_use]
pub fn redirect_path(target: &str, base: &Path, home: &Path) -> PathBuf {
    if target == "~" {
        return normalize(home);
    }
    if let Some(rest) = target.strip_prefix("~/") {
        return normalize(&home.join(rest.trim_start_matches('/')));
    }
    normalize(&base.join(target))
}

#[cfg(test)]
mod tests;
