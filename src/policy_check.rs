//! One approval check as it crosses: the action's facts in (`NativePolicyCheck`), where the
//! engine's check stopped out (`NativeDecision`), and the policy's parts the check needs off
//! the JavaScript thread (`Decider`). The approval policy's `decide` and the shell tool's run
//! (which checks and runs in one call) share them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use napi_derive::napi;
use prism_engine::policy::approval::{Check, Kind, Policy};
use prism_engine::policy::decide::{decide, CommandText, Decided, Request};
use prism_engine::policy::rules::Rule;

use crate::policy_rules::split_said;

/// The facts of one action, as the facade read them.
#[napi(object)]
pub struct NativePolicyCheck {
    /// The action's `kind` when it is a string.
    pub kind: Option<String>,
    /// Its paths resolved with `path.resolve` (`null` for one that is not a string).
    pub paths: Vec<Option<String>>,
    /// Whether its `command` is present (truthy).
    pub command_present: bool,
    /// The command, when it is a string.
    pub command: Option<String>,
    /// The directory a relative redirection target of the command starts from.
    pub base: String,
    /// The home directory a `~` target starts from.
    pub home: String,
}

/// Where a check stopped.
#[napi(object)]
pub struct NativeDecision {
    /// The machine's state: allowed, denied, or a step only the facade performs.
    pub state: f64,
    /// When the rules have `RegExp`s: the texts to test them against; decide again with the
    /// answers (the state is then meaningless).
    pub subjects: Option<Vec<String>>,
    /// The root that holds the action's first path (for `writeBeneath`).
    pub root: Option<String>,
    /// Where the first path really is (for `writeBeneath`).
    pub target: Option<String>,
    /// The index of the path contained last (a denial outside the roots names it).
    pub path: Option<u32>,
    /// The redirection target contained last, as the command wrote it.
    pub redirect: Option<String>,
    /// The command verdict's reason in the engine's words.
    pub reason: Option<String>,
    /// The index of the host rule whose own `reason` is the verdict's.
    pub rule: Option<u32>,
}

impl NativeDecision {
    /// Whether the check allowed the action outright.
    pub(crate) fn allowed(&self) -> bool {
        Check::from_number(self.state).is_ok_and(|c| {
            self.subjects.is_none()
                && matches!(c.step(), prism_engine::policy::approval::Step::Allow { .. })
        })
    }
}

/// An approval policy's facts, roots and rules, shared with checks off the JavaScript thread.
pub(crate) struct Decider {
    pub(crate) policy: Policy,
    pub(crate) roots: Arc<Vec<String>>,
    pub(crate) rules: Arc<Vec<Rule>>,
    pub(crate) deny_metacharacters: bool,
}

impl Decider {
    /// Checks `check` up to its decision or a step only the facade performs (reads the file
    /// system: off the JavaScript thread).
    pub(crate) fn decide(
        &self,
        check: &NativePolicyCheck,
        matches: Option<&[u8]>,
    ) -> NativeDecision {
        let paths: Vec<Option<PathBuf>> = check
            .paths
            .iter()
            .map(|p| p.as_ref().map(PathBuf::from))
            .collect();
        let request = Request {
            kind: check.kind.as_deref().map_or(Kind::Other, Kind::from_name),
            paths: &paths,
            command: match (&check.command, check.command_present) {
                (Some(c), true) => CommandText::Text(c),
                (None, true) => CommandText::NotAString,
                (_, false) => CommandText::Absent,
            },
            base: Path::new(&check.base),
            home: Path::new(&check.home),
        };
        let decided = decide(
            &self.policy,
            &self.roots,
            &self.rules,
            self.deny_metacharacters,
            &request,
            matches,
        );
        decision(decided)
    }
}

/// A check's stop as it crosses.
fn decision(d: Decided) -> NativeDecision {
    let lossy = |p: PathBuf| p.to_string_lossy().into_owned();
    match d {
        Decided::NeedsHost(subjects) => NativeDecision {
            state: 0.0,
            subjects: Some(subjects),
            root: None,
            target: None,
            path: None,
            redirect: None,
            reason: None,
            rule: None,
        },
        Decided::At(out) => {
            let (reason, rule) = split_said(out.reason);
            let (root, target) = out
                .first
                .map_or((None, None), |(r, t)| (Some(lossy(r)), Some(lossy(t))));
            NativeDecision {
                state: state_number(out.check),
                subjects: None,
                root,
                target,
                path: out.path.and_then(|p| u32::try_from(p).ok()),
                redirect: out.redirect,
                reason,
                rule,
            }
        }
    }
}

/// A state as the JavaScript number that carries it.
#[allow(clippy::cast_precision_loss)] // states stay below 2^53: exact
pub(crate) fn state_number(c: Check) -> f64 {
    c.to_bits() as f64
}
