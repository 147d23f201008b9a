//! The approval flow of `createCodingApprovalPolicy(...).check(action)` (API.md section 9,
//! with Decisions 7 and 8): a sans-IO machine and the policy's approval cache.
//!
//! The machine owns every decision of a check: the order of the checks, which kinds need a
//! person's approval, which allowed kinds are confined beneath the root that holds their path,
//! which are exclusive, when a command is analysed off the JavaScript thread, and each reason
//! of a denial. It performs nothing itself: each [`Step`] names one thing the driver does (find
//! where a path really is, analyse the command and judge it under the host's rules, look the
//! action up in the cache, ask the host) and the driver feeds what it found back as an
//! [`Input`], until the step is [`Step::Allow`] or [`Step::Deny`].
//!
//! ```text
//! begin ── no roots ───────────────────────────────────────────────▶ Deny(NoRoots)
//!   │ ─── read-only and not a read ────────────────────────────────▶ Deny(ReadOnly)
//!   ▼
//! ContainPath × each path ── outside ──────────────────────────────▶ Deny(PathOutside)
//!   ▼  (a shell action with a command)
//! Analyze ── verdict deny ─────────────────────────────────────────▶ Deny(CommandRule | CommandDenied)
//!   ▼
//! ContainRedirect × each redirection ── outside ───────────────────▶ Deny(RedirectOutside)
//!   ▼  (approval needed)
//! no approve callback ─────────────────────────────────────────────▶ Deny(ApprovalRequired)
//! LookUpCache (a cache scope) ── denied before ────────────────────▶ Deny(DeniedCached)
//!   │ ── approved before ──────────────────────────────────────────▶ Allow
//!   ▼
//! Ask ── denied (or timed out, aborted, rejected) ─────────────────▶ Deny(Denied)
//!   ▼
//! Allow { exclusive, write_beneath }
//! ```
//!
//! The machine's state is one integer below 2^53 ([`Check::to_bits`]), so a JavaScript driver
//! holds it as a number and each step costs one cheap crossing with no objects built.

use std::collections::{HashMap, VecDeque};

use sha2::{Digest, Sha256};

use crate::limits::POLICY_APPROVAL_CACHE_ENTRIES;
use crate::policy::verdict;

/// The reason when the policy has no trusted roots (even reads are denied).
pub const NO_ROOTS_REASON: &str = "no trusted roots configured";
/// The reason when a read-only policy meets anything but a read.
pub const READ_ONLY_REASON: &str = "read-only mode";
/// The start of the reason when a path, or a redirection target, is outside every root; the
/// path as the action (or the command) wrote it follows.
pub const OUTSIDE_ROOTS_PREFIX: &str = "path outside trusted roots: ";
/// The reason when the command verdict denies and gives no reason of its own (a host deny rule
/// without a `reason`).
pub const COMMAND_DENIED_REASON: &str = "command denied by policy";
/// The reason when an action needs approval and the policy has no `approve` callback.
pub const APPROVAL_REQUIRED_REASON: &str = "approval required";
/// The reason when the cache holds a denial of the same action.
pub const CACHED_DENIAL_REASON: &str = "approval denied (cached)";
/// The reason when the host denied the action (or its answer timed out, was aborted or failed).
pub const DENIED_REASON: &str = "approval denied";

/// The kind of an action, as far as the approval flow tells kinds apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `read`.
    Read,
    /// `shell`.
    Shell,
    /// `write`.
    Write,
    /// `edit`.
    Edit,
    /// `delete`.
    Delete,
    /// `move`.
    Move,
    /// Any other kind (`glob`, `repo_list`, a host's own): no approval, not confined.
    Other,
}

impl Kind {
    /// The kinds with a name, in their code order (code `i` is `ALL[i]`; [`Kind::Other`] last).
    pub const ALL: [Kind; 7] = [
        Self::Read,
        Self::Shell,
        Self::Write,
        Self::Edit,
        Self::Delete,
        Self::Move,
        Self::Other,
    ];

    /// The action's spelling (`""` for [`Kind::Other`]).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Shell => "shell",
            Self::Write => "write",
            Self::Edit => "edit",
            Self::Delete => "delete",
            Self::Move => "move",
            Self::Other => "",
        }
    }

    /// The kind an action's `kind` names (exact spelling; anything else is [`Kind::Other`]).
    #[must_use]
    pub fn from_name(name: &str) -> Kind {
        Self::ALL
            .iter()
            .copied()
            .find(|k| *k != Self::Other && k.name() == name)
            .unwrap_or(Self::Other)
    }

    /// Whether the kind needs a person's approval before it runs (the mutating kinds). A shell
    /// command the rules allow still needs it unless the policy lets allow rules skip it.
    #[must_use]
    pub const fn needs_approval(self) -> bool {
        matches!(
            self,
            Self::Shell | Self::Write | Self::Edit | Self::Delete | Self::Move
        )
    }

    /// Whether an allowed action of this kind with one path is confined beneath the root that
    /// holds it: the read, write and edit tools open the file through that root's directory
    /// handle (the decision's `writeBeneath`), so a symlink swapped in later cannot redirect it.
    #[must_use]
    pub const fn confined(self) -> bool {
        matches!(self, Self::Read | Self::Write | Self::Edit)
    }

    /// Whether an allowed action of this kind runs alone in its turn (`exclusive`).
    #[must_use]
    pub const fn exclusive(self) -> bool {
        matches!(self, Self::Shell)
    }

    fn code(self) -> u64 {
        Self::ALL.iter().position(|k| *k == self).unwrap_or(6) as u64
    }
}

/// Where an approval answer is remembered (`approvalCacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheScope {
    /// Per `metadata.sessionId`.
    Session,
    /// Per `metadata.runId`.
    Run,
    /// Nothing is remembered (the default).
    None,
}

impl CacheScope {
    /// Every scope, the default last.
    pub const ALL: [CacheScope; 3] = [Self::Session, Self::Run, Self::None];

    /// The option's spelling.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Session => "session",
            Self::Run => "run",
            Self::None => "none",
        }
    }

    /// The scope the option names, if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<CacheScope> {
        Self::ALL.iter().copied().find(|s| s.name() == name)
    }

    /// The `metadata` field whose value identifies the scope (none for [`CacheScope::None`]).
    #[must_use]
    pub const fn id_field(self) -> Option<&'static str> {
        match self {
            Self::Session => Some("sessionId"),
            Self::Run => Some("runId"),
            Self::None => None,
        }
    }
}

/// The policy's fixed facts (its options).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// How many trusted roots it has.
    pub roots: usize,
    /// `readOnly`.
    pub read_only: bool,
    /// Whether the host gave an `approve` callback.
    pub has_approve: bool,
    /// `allowRulesSkipApproval` (API.md Decision 4): a shell command that host allow rules
    /// cover entirely runs without approval.
    pub allow_rules_skip_approval: bool,
    /// `approvalCacheScope`.
    pub cache: CacheScope,
}

/// What the action's `command` is, as the flow needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Missing or empty (falsy): nothing to analyse.
    Absent,
    /// Present: analysed (on the blocking pool, where the binding runs every check).
    Present,
}

impl Command {
    fn code(self) -> u64 {
        match self {
            Self::Absent => 0,
            Self::Present => 1,
        }
    }

    fn from_code(code: u64) -> Option<Command> {
        [Self::Absent, Self::Present]
            .get(usize::try_from(code).ok()?)
            .copied()
    }
}

/// The facts of one action the flow starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action {
    /// Its kind.
    pub kind: Kind,
    /// How many paths it names.
    pub paths: u32,
    /// Its command.
    pub command: Command,
}

/// Why a check denies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial {
    /// [`NO_ROOTS_REASON`].
    NoRoots,
    /// [`READ_ONLY_REASON`].
    ReadOnly,
    /// [`OUTSIDE_ROOTS_PREFIX`] and the path last contained.
    PathOutside,
    /// The command verdict's own reason (a host rule's, a default deny's, a refusal's).
    CommandRule,
    /// [`COMMAND_DENIED_REASON`]: the verdict denies without a reason.
    CommandDenied,
    /// [`OUTSIDE_ROOTS_PREFIX`] and the redirection target last contained.
    RedirectOutside,
    /// [`APPROVAL_REQUIRED_REASON`].
    ApprovalRequired,
    /// [`CACHED_DENIAL_REASON`].
    DeniedCached,
    /// [`DENIED_REASON`].
    Denied,
}

/// What follows a denial's text in its reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// Nothing: the text is the reason.
    None,
    /// The path or redirection target the driver contained last.
    Subject,
    /// The reason is the command verdict's own (the text is empty).
    Verdict,
}

impl Denial {
    /// Every denial in its code order (code `i` is `ALL[i]`).
    pub const ALL: [Denial; 9] = [
        Self::NoRoots,
        Self::ReadOnly,
        Self::PathOutside,
        Self::CommandRule,
        Self::CommandDenied,
        Self::RedirectOutside,
        Self::ApprovalRequired,
        Self::DeniedCached,
        Self::Denied,
    ];

    /// The engine's text of the reason (empty for [`Denial::CommandRule`]).
    #[must_use]
    pub const fn text(self) -> &'static str {
        match self {
            Self::NoRoots => NO_ROOTS_REASON,
            Self::ReadOnly => READ_ONLY_REASON,
            Self::PathOutside | Self::RedirectOutside => OUTSIDE_ROOTS_PREFIX,
            Self::CommandRule => "",
            Self::CommandDenied => COMMAND_DENIED_REASON,
            Self::ApprovalRequired => APPROVAL_REQUIRED_REASON,
            Self::DeniedCached => CACHED_DENIAL_REASON,
            Self::Denied => DENIED_REASON,
        }
    }

    /// What follows [`Denial::text`].
    #[must_use]
    pub const fn tail(self) -> Tail {
        match self {
            Self::PathOutside | Self::RedirectOutside => Tail::Subject,
            Self::CommandRule => Tail::Verdict,
            _ => Tail::None,
        }
    }

    /// The reason with its tail: `subject` is the path or target contained last, `verdict`
    /// the command verdict's reason.
    #[must_use]
    pub fn reason(self, subject: &str, verdict: &str) -> String {
        match self.tail() {
            Tail::None => self.text().to_owned(),
            Tail::Subject => format!("{}{subject}", self.text()),
            Tail::Verdict => verdict.to_owned(),
        }
    }

    fn code(self) -> u64 {
        Self::ALL.iter().position(|d| *d == self).unwrap_or(0) as u64
    }
}

/// What the driver does next, or the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Find where the action's next path (in order) really is and whether a root holds it
    /// (API.md Decision 8); feed [`Input::Location`].
    ContainPath,
    /// Analyse the command and judge it under the host's rules (Decision 7); feed
    /// [`Input::Verdict`].
    Analyze,
    /// Resolve the command's next redirection target (in order) and contain it; feed
    /// [`Input::Location`] ([`Location::NoTarget`] for a redirection without a file).
    ContainRedirect,
    /// Look the action up in the approval cache; feed [`Input::Cached`].
    LookUpCache,
    /// Ask the host's `approve` callback; feed [`Input::Approved`] (a timeout, an abort or a
    /// rejection is `false`). Remember the answer under the action's cache key, if it has one.
    Ask,
    /// Allowed.
    Allow {
        /// The decision's `exclusive` (the action runs alone in its turn).
        exclusive: bool,
        /// Whether the decision carries `writeBeneath`: the root that holds the action's one
        /// path, found by [`Step::ContainPath`].
        write_beneath: bool,
    },
    /// Denied, for this reason.
    Deny(Denial),
}

impl Step {
    /// The step names in their code order (the low four bits of [`Check::to_bits`]).
    pub const NAMES: [&'static str; 7] = [
        "containPath",
        "analyze",
        "containRedirect",
        "lookUpCache",
        "ask",
        "allow",
        "deny",
    ];
    /// Bits of [`Check::to_bits`] that hold the step's code.
    pub const CODE_MASK: u64 = 0xf;
    /// Where the step's detail starts in [`Check::to_bits`]: the [`Denial`]'s code of a deny,
    /// the [`ALLOW_EXCLUSIVE`] and [`ALLOW_WRITE_BENEATH`] bits of an allow.
    pub const DETAIL_SHIFT: u32 = 4;

    /// The step's code (its index in [`Step::NAMES`]).
    #[must_use]
    pub const fn code(self) -> u64 {
        match self {
            Self::ContainPath => 0,
            Self::Analyze => 1,
            Self::ContainRedirect => 2,
            Self::LookUpCache => 3,
            Self::Ask => 4,
            Self::Allow { .. } => 5,
            Self::Deny(_) => 6,
        }
    }

    fn detail(self) -> u64 {
        match self {
            Self::Allow {
                exclusive,
                write_beneath,
            } => {
                (if exclusive { ALLOW_EXCLUSIVE } else { 0 })
                    | (if write_beneath {
                        ALLOW_WRITE_BENEATH
                    } else {
                        0
                    })
            }
            Self::Deny(d) => d.code(),
            _ => 0,
        }
    }

    fn from_bits(code: u64, detail: u64) -> Option<Step> {
        Some(match code {
            0 => Self::ContainPath,
            1 => Self::Analyze,
            2 => Self::ContainRedirect,
            3 => Self::LookUpCache,
            4 => Self::Ask,
            5 => Self::Allow {
                exclusive: detail & ALLOW_EXCLUSIVE != 0,
                write_beneath: detail & ALLOW_WRITE_BENEATH != 0,
            },
            6 => Self::Deny(*Denial::ALL.get(usize::try_from(detail).ok()?)?),
            _ => return None,
        })
    }

    const fn name(self) -> &'static str {
        Self::NAMES[self.code() as usize]
    }
}

/// The detail bit of an allow that says `exclusive`.
pub const ALLOW_EXCLUSIVE: u64 = 1;
/// The detail bit of an allow that says `writeBeneath`.
pub const ALLOW_WRITE_BENEATH: u64 = 2;

/// Where a path or redirection target really is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// Outside every root, or it does not resolve (fail closed).
    Outside,
    /// Inside a root.
    Inside,
    /// A redirection with no file (`2>&1`): nothing to contain.
    NoTarget,
}

impl Location {
    /// Every location in its code order (how the binding receives one).
    pub const ALL: [Location; 3] = [Self::Outside, Self::Inside, Self::NoTarget];

    /// The location's code (its index in [`Location::ALL`]).
    #[must_use]
    pub fn code(self) -> u32 {
        match self {
            Self::Outside => 0,
            Self::Inside => 1,
            Self::NoTarget => 2,
        }
    }

    /// The location whose code is `code`.
    #[must_use]
    pub fn from_code(code: u32) -> Option<Location> {
        Self::ALL.get(usize::try_from(code).ok()?).copied()
    }

    /// The API's spelling (`outside`, `inside`, `noTarget`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Outside => "outside",
            Self::Inside => "inside",
            Self::NoTarget => "noTarget",
        }
    }
}

/// What the driver found for a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// For [`Step::ContainPath`] and [`Step::ContainRedirect`].
    Location(Location),
    /// For [`Step::Analyze`]: the command verdict, whether it gave a reason, whether host
    /// allow rules alone cover the command, and how many redirections the analysis found.
    Verdict {
        /// The verdict's action.
        action: verdict::Action,
        /// Whether the verdict has a reason (not `undefined`/`null`).
        has_reason: bool,
        /// The verdict's `covered_by_allow_rules`.
        covered: bool,
        /// The analysis's redirections, each contained in turn.
        redirects: u32,
    },
    /// For [`Step::LookUpCache`]: the remembered answer, if any (also `None` when the action
    /// has no cache key).
    Cached(Option<bool>),
    /// For [`Step::Ask`]: the host's answer.
    Approved(bool),
}

impl Input {
    const fn name(self) -> &'static str {
        match self {
            Self::Location(_) => "a location",
            Self::Verdict { .. } => "a verdict",
            Self::Cached(_) => "a cache answer",
            Self::Approved(_) => "an approval answer",
        }
    }
}

/// A fact the machine did not ask for, or a state it never gave out: a bug in the driver.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ApprovalError {
    /// The input does not answer the step.
    #[error("approval check: {input} does not answer the step {step}")]
    UnexpectedInput {
        /// The step the state is at.
        step: &'static str,
        /// What was fed.
        input: &'static str,
    },
    /// The number is not a state of the machine.
    #[error("approval check: {0} is not a state of the approval machine")]
    BadState(f64),
}

impl ApprovalError {
    /// A stable code: `ERR_PRISM_INTERNAL` (only a broken driver meets these).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnexpectedInput { .. } | Self::BadState(_) => crate::error_codes::INTERNAL_CODE,
        }
    }
}

/// One check in progress: the step it is at and what the next steps depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Check {
    step: Step,
    kind: Kind,
    /// The action names exactly one path (an allowed confined kind then gets `writeBeneath`).
    single_path: bool,
    needs_approval: bool,
    command: Command,
    /// Paths or redirections still to contain (the current one included).
    remaining: u32,
}

const KIND_SHIFT: u32 = 8;
const SINGLE_PATH_BIT: u64 = 0x800;
const NEEDS_APPROVAL_BIT: u64 = 0x1000;
const COMMAND_SHIFT: u32 = 13;
const REMAINING_SHIFT: u32 = 21;
/// The bits a state may use: 21 bits of flags and the 32-bit count stay below 2^53, so a
/// JavaScript number holds the state exactly.
const STATE_BITS: u64 = (1 << 53) - 1;

impl Check {
    /// The first step of a check of `action` under `policy`.
    #[must_use]
    pub fn begin(policy: &Policy, action: &Action) -> Check {
        let check = Check {
            step: Step::ContainPath,
            kind: action.kind,
            single_path: action.paths == 1,
            needs_approval: action.kind.needs_approval(),
            command: action.command,
            remaining: action.paths,
        };
        if policy.roots == 0 {
            return check.at(Step::Deny(Denial::NoRoots));
        }
        if policy.read_only && action.kind != Kind::Read {
            return check.at(Step::Deny(Denial::ReadOnly));
        }
        if action.paths > 0 {
            return check;
        }
        check.after_paths(policy)
    }

    /// The step the check is at.
    #[must_use]
    pub const fn step(&self) -> Step {
        self.step
    }

    /// The action's kind.
    #[must_use]
    pub const fn kind(&self) -> Kind {
        self.kind
    }

    /// The next state, given what the driver found for the current step.
    ///
    /// # Errors
    /// [`ApprovalError::UnexpectedInput`] when `input` does not answer the step (a decided
    /// check takes no input).
    pub fn feed(self, policy: &Policy, input: Input) -> Result<Check, ApprovalError> {
        match (self.step, input) {
            (Step::ContainPath, Input::Location(Location::Outside)) => {
                Ok(self.at(Step::Deny(Denial::PathOutside)))
            }
            (Step::ContainPath, Input::Location(Location::Inside)) => {
                let rest = self.remaining.saturating_sub(1);
                if rest > 0 {
                    Ok(Check {
                        remaining: rest,
                        ..self
                    })
                } else {
                    Ok(Check {
                        remaining: 0,
                        ..self
                    }
                    .after_paths(policy))
                }
            }
            (
                Step::Analyze,
                Input::Verdict {
                    action,
                    has_reason,
                    covered,
                    redirects,
                },
            ) => {
                if action == verdict::Action::Deny {
                    let why = if has_reason {
                        Denial::CommandRule
                    } else {
                        Denial::CommandDenied
                    };
                    return Ok(self.at(Step::Deny(why)));
                }
                let needs_approval = if action >= verdict::Action::RequireApproval {
                    true
                } else if policy.allow_rules_skip_approval && covered {
                    false
                } else {
                    self.needs_approval
                };
                let next = Check {
                    needs_approval,
                    remaining: redirects,
                    ..self
                };
                if redirects > 0 {
                    Ok(next.at(Step::ContainRedirect))
                } else {
                    Ok(next.approval(policy))
                }
            }
            (Step::ContainRedirect, Input::Location(Location::Outside)) => {
                Ok(self.at(Step::Deny(Denial::RedirectOutside)))
            }
            (Step::ContainRedirect, Input::Location(Location::Inside | Location::NoTarget)) => {
                let rest = self.remaining.saturating_sub(1);
                let next = Check {
                    remaining: rest,
                    ..self
                };
                if rest > 0 {
                    Ok(next)
                } else {
                    Ok(next.approval(policy))
                }
            }
            (Step::LookUpCache, Input::Cached(Some(false))) => {
                Ok(self.at(Step::Deny(Denial::DeniedCached)))
            }
            (Step::LookUpCache, Input::Cached(Some(true))) => Ok(self.allow()),
            (Step::LookUpCache, Input::Cached(None)) => Ok(self.at(Step::Ask)),
            (Step::Ask, Input::Approved(true)) => Ok(self.allow()),
            (Step::Ask, Input::Approved(false)) => Ok(self.at(Step::Deny(Denial::Denied))),
            (step, input) => Err(ApprovalError::UnexpectedInput {
                step: step.name(),
                input: input.name(),
            }),
        }
    }

    fn at(self, step: Step) -> Check {
        Check { step, ..self }
    }

    fn after_paths(self, policy: &Policy) -> Check {
        if self.kind == Kind::Shell && self.command != Command::Absent {
            return self.at(Step::Analyze);
        }
        self.approval(policy)
    }

    fn approval(self, policy: &Policy) -> Check {
        if !self.needs_approval {
            return self.allow();
        }
        if !policy.has_approve {
            return self.at(Step::Deny(Denial::ApprovalRequired));
        }
        if policy.cache == CacheScope::None {
            return self.at(Step::Ask);
        }
        self.at(Step::LookUpCache)
    }

    fn allow(self) -> Check {
        self.at(Step::Allow {
            exclusive: self.kind.exclusive(),
            write_beneath: self.kind.confined() && self.single_path,
        })
    }

    /// The state as an integer below 2^53: the step's code in the low four bits
    /// ([`Step::CODE_MASK`]), its detail from [`Step::DETAIL_SHIFT`], then what the next steps
    /// depend on.
    #[must_use]
    pub fn to_bits(&self) -> u64 {
        self.step.code()
            | self.step.detail() << Step::DETAIL_SHIFT
            | self.kind.code() << KIND_SHIFT
            | if self.single_path { SINGLE_PATH_BIT } else { 0 }
            | if self.needs_approval {
                NEEDS_APPROVAL_BIT
            } else {
                0
            }
            | self.command.code() << COMMAND_SHIFT
            | u64::from(self.remaining) << REMAINING_SHIFT
    }

    /// The state [`Check::to_bits`] gave as a JavaScript number.
    ///
    /// # Errors
    /// [`ApprovalError::BadState`] for a number no state encodes to.
    pub fn from_number(n: f64) -> Result<Check, ApprovalError> {
        let bad = || ApprovalError::BadState(n);
        if !(n >= 0.0 && n.fract() == 0.0 && n <= STATE_BITS as f64) {
            return Err(bad());
        }
        // In range and whole: the cast is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let bits = n as u64;
        let step = Step::from_bits(bits & Step::CODE_MASK, (bits >> Step::DETAIL_SHIFT) & 0xf)
            .ok_or_else(bad)?;
        let kind = Kind::ALL
            .get(usize::try_from((bits >> KIND_SHIFT) & 0x7).map_err(|_| bad())?)
            .copied()
            .ok_or_else(bad)?;
        let command = Command::from_code((bits >> COMMAND_SHIFT) & 0x3).ok_or_else(bad)?;
        let check = Check {
            step,
            kind,
            single_path: bits & SINGLE_PATH_BIT != 0,
            needs_approval: bits & NEEDS_APPROVAL_BIT != 0,
            command,
            remaining: u32::try_from(bits >> REMAINING_SHIFT).map_err(|_| bad())?,
        };
        if check.to_bits() != bits {
            return Err(bad());
        }
        Ok(check)
    }
}

/// The action's fields that, with the scope, its id and the kind, make its cache key: each is
/// the field's JSON text, `None` when the field is missing (`undefined` or `null`).
#[derive(Debug, Clone, Copy, Default)]
pub struct CacheMaterial<'a> {
    /// The value of the scope's `metadata` field ([`CacheScope::id_field`]) when it is a
    /// string; an empty or missing id gives no key.
    pub id: Option<&'a str>,
    /// `operation` (missing: JSON `null`).
    pub operation: Option<&'a str>,
    /// `paths` (missing: `[]`).
    pub paths: Option<&'a str>,
    /// `command` (missing: `""`).
    pub command: Option<&'a str>,
}

/// A policy's remembered approval answers: at most [`POLICY_APPROVAL_CACHE_ENTRIES`], the
/// oldest insertion evicted first; a hit does not refresh its entry. Both approvals and
/// denials are remembered. Keys are SHA-256 digests, so a long command costs 32 bytes.
#[derive(Debug)]
pub struct ApprovalCache {
    scope: CacheScope,
    answers: HashMap<[u8; 32], bool>,
    order: VecDeque<[u8; 32]>,
    capacity: usize,
}

impl ApprovalCache {
    /// An empty cache for `scope` (for [`CacheScope::None`] it never holds anything).
    #[must_use]
    pub fn new(scope: CacheScope) -> Self {
        Self::with_capacity(scope, POLICY_APPROVAL_CACHE_ENTRIES)
    }

    fn with_capacity(scope: CacheScope, capacity: usize) -> Self {
        Self {
            scope,
            answers: HashMap::new(),
            order: VecDeque::new(),
            capacity,
        }
    }

    /// The scope.
    #[must_use]
    pub const fn scope(&self) -> CacheScope {
        self.scope
    }

    /// The key of an action of `kind`: the SHA-256 of the scope, the id, the kind, the
    /// operation, the paths and the command, each framed by its length. `None` when the
    /// scope is [`CacheScope::None`] or the id is empty or missing.
    #[must_use]
    pub fn key(&self, kind: Kind, m: &CacheMaterial<'_>) -> Option<[u8; 32]> {
        self.scope.id_field()?;
        let id = m.id.filter(|id| !id.is_empty())?;
        let mut h = Sha256::new();
        for part in [
            self.scope.name(),
            id,
            kind.name(),
            m.operation.unwrap_or("null"),
            m.paths.unwrap_or("[]"),
            m.command.unwrap_or("\"\""),
        ] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        Some(h.finalize().into())
    }

    /// The remembered answer for `key`.
    #[must_use]
    pub fn get(&self, key: &[u8; 32]) -> Option<bool> {
        self.answers.get(key).copied()
    }

    /// Remembers `approved` for `key`, evicting the oldest insertion when full.
    pub fn remember(&mut self, key: [u8; 32], approved: bool) {
        if let Some(v) = self.answers.get_mut(&key) {
            *v = approved;
            return;
        }
        if self.answers.len() >= self.capacity {
            if let Some(old) = self.order.pop_front() {
                self.answers.remove(&old);
            }
        }
        self.answers.insert(key, approved);
        self.order.push_back(key);
    }

    /// How many answers it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    /// Whether it holds none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// [`Step::LookUpCache`] performed: the answer remembered for the action, fed to `check`.
    ///
    /// # Errors
    /// As [`Check::feed`].
    pub fn look_up(
        &self,
        policy: &Policy,
        check: Check,
        m: &CacheMaterial<'_>,
    ) -> Result<Check, ApprovalError> {
        let answer = self.key(check.kind, m).and_then(|k| self.get(&k));
        check.feed(policy, Input::Cached(answer))
    }

    /// [`Step::Ask`] answered: remembers `approved` under the action's key (when it has one)
    /// and feeds it to `check`.
    ///
    /// # Errors
    /// As [`Check::feed`]; nothing is remembered then.
    pub fn answer(
        &mut self,
        policy: &Policy,
        check: Check,
        approved: bool,
        m: &CacheMaterial<'_>,
    ) -> Result<Check, ApprovalError> {
        let next = check.feed(policy, Input::Approved(approved))?;
        if let Some(k) = self.key(check.kind, m) {
            self.remember(k, approved);
        }
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::verdict::Action as Verdict;

    const POLICY: Policy = Policy {
        roots: 1,
        read_only: false,
        has_approve: true,
        allow_rules_skip_approval: false,
        cache: CacheScope::None,
    };

    fn action(kind: Kind, paths: u32, command: Command) -> Action {
        Action {
            kind,
            paths,
            command,
        }
    }

    fn verdict(action: Verdict, has_reason: bool, covered: bool, redirects: u32) -> Input {
        Input::Verdict {
            action,
            has_reason,
            covered,
            redirects,
        }
    }

    const INSIDE: Input = Input::Location(Location::Inside);
    const OUTSIDE: Input = Input::Location(Location::Outside);

    /// Feeds `inputs` in turn from the start and returns the step reached.
    fn run(policy: &Policy, a: Action, inputs: &[Input]) -> Result<Step, ApprovalError> {
        let mut c = Check::begin(policy, &a);
        for i in inputs {
            c = c.feed(policy, *i)?;
            // Every state survives the trip through a JavaScript number.
            assert_eq!(Check::from_number(c.to_bits() as f64), Ok(c));
        }
        Ok(c.step())
    }

    fn allow(exclusive: bool, write_beneath: bool) -> Step {
        Step::Allow {
            exclusive,
            write_beneath,
        }
    }

    #[test]
    fn kinds_decide_approval_confinement_and_exclusivity() {
        for (name, needs, confined, exclusive) in [
            ("read", false, true, false),
            ("shell", true, false, true),
            ("write", true, true, false),
            ("edit", true, true, false),
            ("delete", true, false, false),
            ("move", true, false, false),
            ("glob", false, false, false),
            ("Read", false, false, false),
            ("", false, false, false),
        ] {
            let k = Kind::from_name(name);
            assert_eq!(
                (k.needs_approval(), k.confined(), k.exclusive()),
                (needs, confined, exclusive),
                "{name}"
            );
        }
        assert_eq!(Kind::from_name("move").name(), "move");
    }

    #[test]
    fn no_roots_comes_first_even_for_reads() {
        let p = Policy {
            roots: 0,
            read_only: true,
            ..POLICY
        };
        assert_eq!(
            run(&p, action(Kind::Read, 3, Command::Absent), &[]),
            Ok(Step::Deny(Denial::NoRoots))
        );
    }

    #[test]
    fn read_only_denies_everything_but_reads_before_any_path() {
        let p = Policy {
            read_only: true,
            ..POLICY
        };
        for k in [Kind::Shell, Kind::Write, Kind::Other] {
            assert_eq!(
                run(&p, action(k, 1, Command::Present), &[]),
                Ok(Step::Deny(Denial::ReadOnly))
            );
        }
        assert_eq!(
            run(&p, action(Kind::Read, 1, Command::Absent), &[INSIDE]),
            Ok(allow(false, true))
        );
    }

    #[test]
    fn each_path_is_contained_in_turn_and_the_first_outside_denies() {
        let a = action(Kind::Read, 3, Command::Absent);
        assert_eq!(
            run(&POLICY, a, &[INSIDE, OUTSIDE]),
            Ok(Step::Deny(Denial::PathOutside))
        );
        assert_eq!(run(&POLICY, a, &[INSIDE, INSIDE]), Ok(Step::ContainPath));
        // Three paths: allowed, but not confined (writeBeneath is for one path).
        assert_eq!(
            run(&POLICY, a, &[INSIDE, INSIDE, INSIDE]),
            Ok(allow(false, false))
        );
        assert_eq!(
            run(&POLICY, action(Kind::Read, 0, Command::Absent), &[]),
            Ok(allow(false, false))
        );
        // A path step takes no `noTarget`.
        assert!(run(&POLICY, a, &[Input::Location(Location::NoTarget)]).is_err());
    }

    #[test]
    fn mutating_kinds_need_approval_and_the_callback() {
        let none = Policy {
            has_approve: false,
            ..POLICY
        };
        for k in [Kind::Write, Kind::Edit, Kind::Delete, Kind::Move] {
            assert_eq!(
                run(&none, action(k, 1, Command::Absent), &[INSIDE]),
                Ok(Step::Deny(Denial::ApprovalRequired))
            );
            assert_eq!(
                run(&POLICY, action(k, 1, Command::Absent), &[INSIDE]),
                Ok(Step::Ask)
            );
        }
        let w = action(Kind::Write, 1, Command::Absent);
        assert_eq!(
            run(&POLICY, w, &[INSIDE, Input::Approved(true)]),
            Ok(allow(false, true))
        );
        assert_eq!(
            run(&POLICY, w, &[INSIDE, Input::Approved(false)]),
            Ok(Step::Deny(Denial::Denied))
        );
        let d = action(Kind::Delete, 1, Command::Absent);
        assert_eq!(
            run(&POLICY, d, &[INSIDE, Input::Approved(true)]),
            Ok(allow(false, false))
        );
    }

    #[test]
    fn a_shell_command_is_analysed_after_the_paths() {
        let a = action(Kind::Shell, 1, Command::Present);
        assert_eq!(run(&POLICY, a, &[INSIDE]), Ok(Step::Analyze));
        // No command: straight to approval; a command on another kind is not analysed.
        assert_eq!(
            run(&POLICY, action(Kind::Shell, 0, Command::Absent), &[]),
            Ok(Step::Ask)
        );
        assert_eq!(
            run(&POLICY, action(Kind::Read, 0, Command::Present), &[]),
            Ok(allow(false, false))
        );
    }

    #[test]
    fn a_denying_verdict_gives_its_reason_or_the_engines() {
        let a = action(Kind::Shell, 0, Command::Present);
        assert_eq!(
            run(&POLICY, a, &[verdict(Verdict::Deny, true, false, 2)]),
            Ok(Step::Deny(Denial::CommandRule))
        );
        assert_eq!(
            run(&POLICY, a, &[verdict(Verdict::Deny, false, false, 0)]),
            Ok(Step::Deny(Denial::CommandDenied))
        );
        assert_eq!(
            Denial::CommandDenied.reason("x", "y"),
            COMMAND_DENIED_REASON
        );
        assert_eq!(Denial::CommandRule.reason("x", "no pushing"), "no pushing");
    }

    #[test]
    fn redirection_targets_are_contained_before_approval() {
        let a = action(Kind::Shell, 0, Command::Present);
        let v = verdict(Verdict::Allow, false, false, 3);
        assert_eq!(run(&POLICY, a, &[v]), Ok(Step::ContainRedirect));
        let no = Input::Location(Location::NoTarget);
        assert_eq!(
            run(&POLICY, a, &[v, no, OUTSIDE]),
            Ok(Step::Deny(Denial::RedirectOutside))
        );
        assert_eq!(run(&POLICY, a, &[v, no, INSIDE, INSIDE]), Ok(Step::Ask));
        assert_eq!(
            Denial::RedirectOutside.reason("/etc/x", ""),
            "path outside trusted roots: /etc/x"
        );
        // Even a command allow rules cover has its targets checked first.
        let skip = Policy {
            allow_rules_skip_approval: true,
            ..POLICY
        };
        let covered = verdict(Verdict::Allow, true, true, 1);
        assert_eq!(
            run(&skip, a, &[covered, OUTSIDE]),
            Ok(Step::Deny(Denial::RedirectOutside))
        );
        assert_eq!(run(&skip, a, &[covered, INSIDE]), Ok(allow(true, false)));
    }

    #[test]
    fn covered_commands_skip_approval_only_when_the_policy_says_so() {
        let a = action(Kind::Shell, 0, Command::Present);
        let covered = verdict(Verdict::Allow, true, true, 0);
        assert_eq!(run(&POLICY, a, &[covered]), Ok(Step::Ask));
        let skip = Policy {
            allow_rules_skip_approval: true,
            has_approve: false,
            ..POLICY
        };
        assert_eq!(run(&skip, a, &[covered]), Ok(allow(true, false)));
        assert_eq!(
            run(&skip, a, &[verdict(Verdict::Allow, false, false, 0)]),
            Ok(Step::Deny(Denial::ApprovalRequired))
        );
        // requireApproval wins over coverage.
        assert_eq!(
            run(
                &skip,
                a,
                &[verdict(Verdict::RequireApproval, true, true, 0)]
            ),
            Ok(Step::Deny(Denial::ApprovalRequired))
        );
    }

    #[test]
    fn a_require_approval_verdict_makes_any_kind_ask() {
        // The machine runs the verdict only for shell; a shell action is approval-kind anyway,
        // so requireApproval keeps it asking even when the host's rules "cover" it.
        let skip = Policy {
            allow_rules_skip_approval: true,
            ..POLICY
        };
        let a = action(Kind::Shell, 0, Command::Present);
        assert_eq!(
            run(
                &skip,
                a,
                &[verdict(Verdict::RequireApproval, false, true, 0)]
            ),
            Ok(Step::Ask)
        );
    }

    #[test]
    fn the_cache_is_consulted_only_with_a_scope() {
        let p = Policy {
            cache: CacheScope::Session,
            ..POLICY
        };
        let a = action(Kind::Shell, 0, Command::Absent);
        assert_eq!(run(&p, a, &[]), Ok(Step::LookUpCache));
        assert_eq!(
            run(&p, a, &[Input::Cached(Some(false))]),
            Ok(Step::Deny(Denial::DeniedCached))
        );
        assert_eq!(
            run(&p, a, &[Input::Cached(Some(true))]),
            Ok(allow(true, false))
        );
        assert_eq!(run(&p, a, &[Input::Cached(None)]), Ok(Step::Ask));
        assert_eq!(
            run(&p, a, &[Input::Cached(None), Input::Approved(false)]),
            Ok(Step::Deny(Denial::Denied))
        );
        // Without an approve callback the cache is not looked at.
        let none = Policy {
            has_approve: false,
            ..p
        };
        assert_eq!(run(&none, a, &[]), Ok(Step::Deny(Denial::ApprovalRequired)));
    }

    #[test]
    fn inputs_that_do_not_answer_the_step_are_errors() {
        let a = action(Kind::Read, 1, Command::Absent);
        let e = run(&POLICY, a, &[Input::Approved(true)]);
        assert_eq!(
            e,
            Err(ApprovalError::UnexpectedInput {
                step: "containPath",
                input: "an approval answer"
            })
        );
        assert_eq!(e.err().map(|e| e.code()), Some("ERR_PRISM_INTERNAL"));
        // A decided check takes nothing more.
        assert!(run(&POLICY, a, &[INSIDE, INSIDE]).is_err());
    }

    #[test]
    fn states_round_trip_and_garbage_is_refused() {
        let c = Check::begin(&POLICY, &action(Kind::Move, u32::MAX, Command::Present));
        let bits = c.to_bits();
        assert!(bits < 1 << 53);
        assert_eq!(bits & Step::CODE_MASK, Step::ContainPath.code());
        assert_eq!(Check::from_number(bits as f64), Ok(c));
        for n in [
            -1.0,
            0.5,
            f64::NAN,
            f64::INFINITY,
            1.0e16,
            15.0,
            7.0 + (15 << 4) as f64,
        ] {
            assert!(Check::from_number(n).is_err(), "{n}");
        }
        for (i, d) in Denial::ALL.iter().enumerate() {
            let s =
                Check::begin(&POLICY, &action(Kind::Read, 0, Command::Absent)).at(Step::Deny(*d));
            assert_eq!((s.to_bits() >> Step::DETAIL_SHIFT) & 0xf, i as u64);
            assert_eq!(
                Check::from_number(s.to_bits() as f64).map(|c| c.step()),
                Ok(Step::Deny(*d))
            );
        }
        // Each step's code names it in NAMES (the words JavaScript reads).
        for (step, name) in [
            (Step::ContainPath, "containPath"),
            (Step::Analyze, "analyze"),
            (Step::LookUpCache, "lookUpCache"),
            (Step::Deny(Denial::Denied), "deny"),
        ] {
            assert_eq!(Step::NAMES[step.code() as usize], name);
        }
    }

    fn material<'a>(id: &'a str, command: Option<&'a str>) -> CacheMaterial<'a> {
        CacheMaterial {
            id: Some(id),
            operation: Some("\"exec\""),
            paths: None,
            command,
        }
    }

    #[test]
    fn cache_keys_need_an_id_and_read_missing_fields_as_their_defaults() {
        let c = ApprovalCache::new(CacheScope::Run);
        assert_eq!(c.key(Kind::Shell, &material("", Some("\"ls\""))), None);
        assert_eq!(c.key(Kind::Shell, &CacheMaterial::default()), None);
        assert_eq!(
            ApprovalCache::new(CacheScope::None).key(Kind::Shell, &material("r", None)),
            None
        );
        let k = c.key(Kind::Shell, &material("r", Some("\"ls\"")));
        assert!(k.is_some());
        // Missing paths are `[]`, a missing command `""`, a missing operation `null`.
        let with_defaults = CacheMaterial {
            id: Some("r"),
            operation: Some("null"),
            paths: Some("[]"),
            command: Some("\"\""),
        };
        let missing = CacheMaterial {
            id: Some("r"),
            ..CacheMaterial::default()
        };
        assert_eq!(
            c.key(Kind::Shell, &with_defaults),
            c.key(Kind::Shell, &missing)
        );
        // Each part counts; the framing keeps `ab|c` and `a|bc` apart.
        assert_ne!(k, c.key(Kind::Write, &material("r", Some("\"ls\""))));
        assert_ne!(k, c.key(Kind::Shell, &material("r2", Some("\"ls\""))));
        assert_ne!(
            k,
            ApprovalCache::new(CacheScope::Session)
                .key(Kind::Shell, &material("r", Some("\"ls\"")))
        );
        let split = |op, paths| CacheMaterial {
            id: Some("r"),
            operation: Some(op),
            paths: Some(paths),
            command: None,
        };
        assert_ne!(
            c.key(Kind::Shell, &split("1", "23")),
            c.key(Kind::Shell, &split("12", "3"))
        );
    }

    #[test]
    fn the_cache_evicts_its_oldest_insertion_and_hits_do_not_refresh() {
        let mut c = ApprovalCache::with_capacity(CacheScope::Session, 3);
        let keys: Vec<[u8; 32]> = (0u8..5).map(|i| [i; 32]).collect();
        for k in &keys[..3] {
            c.remember(*k, true);
        }
        assert_eq!(c.get(&keys[0]), Some(true)); // a hit: not refreshed
        c.remember(keys[1], false); // an existing key: updated in place, nothing evicted
        assert_eq!((c.len(), c.get(&keys[1])), (3, Some(false)));
        c.remember(keys[3], true); // evicts keys[0], the oldest insertion
        assert_eq!(c.get(&keys[0]), None);
        assert_eq!(c.get(&keys[1]), Some(false));
        c.remember(keys[4], true);
        assert_eq!(c.get(&keys[1]), None);
        assert_eq!(c.len(), 3);
        assert_eq!(
            ApprovalCache::new(CacheScope::Run).capacity,
            POLICY_APPROVAL_CACHE_ENTRIES
        );
    }

    #[test]
    fn look_up_and_answer_drive_the_machine_and_remember() {
        let p = Policy {
            cache: CacheScope::Session,
            ..POLICY
        };
        let mut cache = ApprovalCache::new(CacheScope::Session);
        let a = action(Kind::Shell, 0, Command::Absent);
        let m = material("s", None);
        let asked = cache.look_up(&p, Check::begin(&p, &a), &m);
        assert_eq!(asked.as_ref().map(|c| c.step()), Ok(Step::Ask));
        let Ok(asked) = asked else { return };
        let denied = cache.answer(&p, asked, false, &m);
        assert_eq!(denied.map(|c| c.step()), Ok(Step::Deny(Denial::Denied)));
        assert_eq!(
            cache
                .look_up(&p, Check::begin(&p, &a), &m)
                .map(|c| c.step()),
            Ok(Step::Deny(Denial::DeniedCached))
        );
        // No id: asked every time, nothing remembered.
        let anon = CacheMaterial::default();
        assert_eq!(
            cache
                .look_up(&p, Check::begin(&p, &a), &anon)
                .map(|c| c.step()),
            Ok(Step::Ask)
        );
        let _ = cache.answer(&p, asked, true, &anon);
        assert_eq!(cache.len(), 1);
        // A wrong step remembers nothing.
        let start = Check::begin(&p, &a);
        assert!(cache.answer(&p, start, true, &material("t", None)).is_err());
        assert_eq!(cache.len(), 1);
        assert!(!cache.is_empty());
        assert_eq!(cache.scope(), CacheScope::Session);
    }
}
