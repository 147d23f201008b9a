//! The dispatch machine: every decision of one `dispatchToolCall`, without performing I/O.
//!
//! A host (the JavaScript driver, or a Rust host through [`crate::tools::host`]) asks a
//! [`DispatchMachine`] for the next [`Step`], performs the callback the step names
//! (middleware, trust, permission, validator, `beforeExecute`, `execute`, redactor, events,
//! ledger) and reports what it observed as an [`Outcome`]: a fact, never a decision (the call
//! check's facts, a thrown value, a validator's verdict, the shape of `execute`'s value). The
//! machine walks [`DISPATCH_ORDER`] for the hooks present and decides everything that depends
//! on those facts ([`decide`]): whether the call goes on, is blocked (and with which reason and
//! error), fails (and with which error), or whether the thrown value propagates out of the
//! dispatch; the shape of every `ErrorInfo` with secret redaction; the invalid-result error.
//!
//! The JavaScript driver caches the plan of each hook combination ([`step_codes`]) so that a
//! successful call crosses no boundary; on a failure it reports the fact through the binding,
//! which asks [`decide`], the same function [`DispatchMachine::resume`] applies.

pub use super::error_info::{
    cause_text, denial_shape, error_info, unreadable_thrown, verdict_info, CauseText, DenialShape,
    ErrorCode, ErrorInfo, InfoShape, Thrown, DEFAULT_ERROR_NAME, UNREADABLE_THROWN,
};
pub use super::events::{duration_ms, iso_timestamp, EventKind, Status, LEDGER_ID_PREFIX};

use super::blocked::{self, BlockedReason};
use super::gate::{Gate, HookSet, DISPATCH_ORDER};

/// The `kind` of the request the trust and permission gates put to the host's policies about
/// a call: `{ kind, target: <tool name>, action }` (trust names the action `capability`), whose
/// permission key is `tool:<name>:execute`.
pub const REQUEST_KIND: &str = "tool";

/// The `action` (trust: `capability`) of the request the trust and permission gates put.
pub const REQUEST_ACTION: &str = "execute";

/// Codes of errors that `beforeExecute` may throw to suspend the run: they propagate instead
/// of blocking the call.
pub const RETHROWN_CODES: [&str; 2] = [
    "ERR_PRISM_AGENT_RUN_SUSPENDED",
    "ERR_PRISM_DELEGATION_SUSPENDED",
];

/// The code prefix of loop-state contract errors, which also propagate.
pub const RETHROWN_CODE_PREFIX: &str = "ERR_PRISM_LOOP_";

/// Whether an error with `code`, thrown by `beforeExecute`, propagates out of the dispatch.
#[must_use]
pub fn is_rethrown(code: &str) -> bool {
    RETHROWN_CODES.contains(&code) || code.starts_with(RETHROWN_CODE_PREFIX)
}

/// The code of a dispatch whose options break the contract (the facade's `TypeError`).
pub const INVALID_DISPATCH_CODE: &str = "ERR_PRISM_INVALID_DISPATCH";

/// The code of a tool result that is not an object.
pub const INVALID_TOOL_RESULT_CODE: &str = "ERR_PRISM_INVALID_TOOL_RESULT";

/// The shape of the value `execute` resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultShape<'a> {
    /// A non-array object: a result.
    Object,
    /// `null`.
    Null,
    /// An array.
    Array,
    /// Any other value, by its `typeof`.
    Other(&'a str),
}

/// The `TypeError` message for a result that is not a `ToolResult` object, or `None` for an
/// object.
#[must_use]
pub fn invalid_result_message(tool: &str, shape: ResultShape<'_>) -> Option<String> {
    let kind = match shape {
        ResultShape::Object => return None,
        ResultShape::Null => "null",
        ResultShape::Array => "an array",
        ResultShape::Other(t) => t,
    };
    Some(format!(
        "Tool {tool} returned {kind} instead of a ToolResult object"
    ))
}
/// The facts of the call check, as the host read them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallFacts<'a> {
    /// The (mediated) call's tool name.
    pub name: &'a str,
    /// Whether the registry holds a tool of that name.
    pub tool_found: bool,
    /// Whether the filters let the tool through ([`crate::tools::filter::allows`]).
    pub filter_allows: bool,
    /// Whether the call carries a truthy `argumentsError`.
    pub has_arguments_error: bool,
    /// Whether the arguments are a plain JSON object.
    pub arguments_are_json_object: bool,
}

/// The `error` a blocked call carries.
#[derive(Debug, Clone, PartialEq)]
pub enum BlockedError {
    /// An `ErrorInfo` the engine shaped (a gate message, a thrown denial, a string verdict).
    Info(ErrorInfo),
    /// The call's own `argumentsError`, passed through unchanged.
    ArgumentsError,
    /// The validator's own verdict object, copied with every string redacted (nesting deeper
    /// than [`crate::limits::DISPATCH_VERDICT_REDACT_DEPTH`] becomes the redaction marker).
    RedactedVerdict,
}

/// The gate of [`Gate::CheckCall`]: `None` when the call may proceed, or why it is blocked.
#[must_use]
pub fn check_call(facts: CallFacts<'_>) -> Option<(BlockedReason, BlockedError)> {
    let message = |m: String| BlockedError::Info(ErrorInfo::message(m));
    if !facts.tool_found {
        return Some((
            BlockedReason::UnknownTool,
            message(blocked::unknown_tool_message(facts.name)),
        ));
    }
    if !facts.filter_allows {
        return Some((
            BlockedReason::ToolDenied,
            message(blocked::tool_denied_message(facts.name)),
        ));
    }
    if facts.has_arguments_error {
        return Some((
            BlockedReason::InvalidArguments,
            BlockedError::ArgumentsError,
        ));
    }
    if !facts.arguments_are_json_object {
        return Some((
            BlockedReason::InvalidArguments,
            message(blocked::NOT_A_JSON_OBJECT.to_owned()),
        ));
    }
    None
}

/// The blocked reason of a denial at `gate`, or `None` for a gate whose throw is not a denial.
#[must_use]
pub const fn denial_reason(gate: Gate) -> Option<BlockedReason> {
    match gate {
        Gate::Trust | Gate::Permission => Some(BlockedReason::PermissionDenied),
        Gate::BeforeExecute => Some(BlockedReason::ExecutionDenied),
        _ => None,
    }
}

/// The steps of one dispatch with `hooks` configured, as gate codes (`Gate as u8`), in the
/// frozen order. The JavaScript driver caches this per hook mask and performs each step.
#[must_use]
pub fn step_codes(hooks: HookSet) -> Vec<u8> {
    DISPATCH_ORDER
        .iter()
        .filter(|g| hooks.runs(**g))
        .map(|g| *g as u8)
        .collect()
}

/// A validator's verdict that rejects the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A message.
    Message(String),
    /// Any other truthy value (an object: the host's own `ErrorInfo`); only a JavaScript host
    /// has one.
    Value,
}

/// What the host observed after performing a step: a fact, never a decision.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<'a> {
    /// The callback returned and there is nothing to report (also the start of a dispatch).
    Proceed,
    /// The call check's facts ([`Gate::CheckCall`]).
    Checked(CallFacts<'a>),
    /// The step's callback threw this value.
    Threw {
        /// What the host read from the thrown value.
        error: Thrown,
        /// The thrown value's `code` when it is a string (read from any value, error-like or
        /// not: it decides whether the value propagates).
        code: Option<&'a str>,
    },
    /// The validator returned a truthy verdict.
    Rejected(Verdict),
    /// `execute` resolved to a value of this shape.
    Returned {
        /// The call's tool name (the invalid-result message names it).
        tool: &'a str,
        /// The value's shape.
        shape: ResultShape<'a>,
    },
}

/// What the host does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Perform this gate's callback and report its outcome.
    Perform(Gate),
    /// Emit the blocked event, write the blocked row, return `{ toolCallId, name, error }`.
    Block(BlockedReason, BlockedError),
    /// Emit the error event, write the error row, return `{ toolCallId, name, error }`.
    Fail(ErrorInfo),
    /// The thrown value the host just reported propagates out of the dispatch unchanged.
    Rethrow,
    /// The finished event and row are written: return the result.
    Done,
}

/// The `TypeError` a result that is not a `ToolResult` object fails the call with, or `None`
/// for an object.
#[must_use]
pub fn invalid_result_error(tool: &str, shape: ResultShape<'_>) -> Option<Thrown> {
    invalid_result_message(tool, shape).map(|message| Thrown::ErrorLike {
        name: Some(INVALID_TOOL_RESULT_NAME.to_owned()),
        message,
        code: Some(ErrorCode::Text(INVALID_TOOL_RESULT_CODE.to_owned())),
        cause: None,
        retry_after_ms: None,
    })
}

/// The `name` of the error of a result that is not an object.
pub const INVALID_TOOL_RESULT_NAME: &str = "TypeError";

/// The machine's decision on a fact the host reported after performing `gate`: `None` when
/// the dispatch goes on, otherwise the step that ends it. `secrets` are replaced in every
/// `ErrorInfo` it shapes.
///
/// A throw is a denial at trust, permission and `beforeExecute` (unless its code is one of
/// [`RETHROWN_CODES`] or starts with [`RETHROWN_CODE_PREFIX`]), a failure at `execute` and
/// result middleware, and propagates everywhere else.
#[must_use]
pub fn decide(gate: Gate, outcome: Outcome<'_>, secrets: &[&str]) -> Option<Step> {
    match outcome {
        Outcome::Proceed => None,
        Outcome::Checked(facts) => check_call(facts).map(|(r, e)| Step::Block(r, e)),
        Outcome::Threw { error, code } => Some(match gate {
            Gate::BeforeExecute if code.is_some_and(is_rethrown) => Step::Rethrow,
            Gate::Execute | Gate::ResultMiddleware => Step::Fail(error_info(error, secrets)),
            _ => match denial_reason(gate) {
                Some(reason) => Step::Block(reason, BlockedError::Info(error_info(error, secrets))),
                None => Step::Rethrow,
            },
        }),
        Outcome::Rejected(Verdict::Message(m)) => Some(Step::Block(
            BlockedReason::ValidationFailed,
            BlockedError::Info(verdict_info(&m, secrets)),
        )),
        Outcome::Rejected(Verdict::Value) => Some(Step::Block(
            BlockedReason::ValidationFailed,
            BlockedError::RedactedVerdict,
        )),
        Outcome::Returned { tool, shape } => {
            invalid_result_error(tool, shape).map(|e| Step::Fail(error_info(e, secrets)))
        }
    }
}

/// The string `code` of a thrown value a Rust host reports (what [`Outcome::Threw`] carries).
#[must_use]
pub fn thrown_code(thrown: &Thrown) -> Option<&str> {
    match thrown {
        Thrown::ErrorLike {
            code: Some(ErrorCode::Text(code)),
            ..
        } => Some(code),
        _ => None,
    }
}

/// One dispatch in progress: the gates still to run for its hooks, the gate last named, and
/// the secrets every `ErrorInfo` it shapes is redacted with.
#[derive(Debug, Clone)]
pub struct DispatchMachine {
    hooks: HookSet,
    next: usize,
    at: Option<Gate>,
    over: bool,
    secrets: Vec<String>,
}

impl DispatchMachine {
    /// A dispatch with `hooks` configured and `secrets` to redact, before its first step.
    #[must_use]
    pub fn new(hooks: HookSet, secrets: Vec<String>) -> Self {
        Self {
            hooks,
            next: 0,
            at: None,
            over: false,
            secrets,
        }
    }

    /// The first step (same as `resume(Outcome::Proceed)` on a new machine).
    pub fn start(&mut self) -> Step {
        self.resume(Outcome::Proceed)
    }

    /// Feeds the outcome of the last step back and returns the next one. After a `Block`,
    /// `Fail`, `Rethrow` or `Done` step every further call returns `Done`.
    pub fn resume(&mut self, outcome: Outcome<'_>) -> Step {
        if self.over {
            return Step::Done;
        }
        if let Some(gate) = self.at {
            let secrets: Vec<&str> = self.secrets.iter().map(String::as_str).collect();
            if let Some(end) = decide(gate, outcome, &secrets) {
                self.over = true;
                return end;
            }
        }
        while let Some(gate) = DISPATCH_ORDER.get(self.next).copied() {
            self.next += 1;
            if self.hooks.runs(gate) {
                self.at = Some(gate);
                return Step::Perform(gate);
            }
        }
        self.over = true;
        Step::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(name: &str) -> CallFacts<'_> {
        CallFacts {
            name,
            tool_found: true,
            filter_allows: true,
            has_arguments_error: false,
            arguments_are_json_object: true,
        }
    }

    fn message(m: &str) -> BlockedError {
        BlockedError::Info(ErrorInfo::message(m.into()))
    }

    fn thrown(code: &str) -> Thrown {
        Thrown::ErrorLike {
            name: None,
            message: "no sk1".into(),
            code: Some(ErrorCode::Text(code.into())),
            cause: None,
            retry_after_ms: None,
        }
    }

    #[test]
    fn call_check_decides_in_the_reference_order() {
        assert_eq!(check_call(facts("a")), None);
        let unknown = CallFacts {
            tool_found: false,
            filter_allows: false,
            ..facts("x")
        };
        assert_eq!(
            check_call(unknown),
            Some((BlockedReason::UnknownTool, message("Unknown tool: x")))
        );
        let denied = CallFacts {
            filter_allows: false,
            has_arguments_error: true,
            ..facts("x")
        };
        assert_eq!(
            check_call(denied).map(|b| b.0),
            Some(BlockedReason::ToolDenied)
        );
        let bad = CallFacts {
            has_arguments_error: true,
            arguments_are_json_object: false,
            ..facts("x")
        };
        assert_eq!(
            check_call(bad),
            Some((
                BlockedReason::InvalidArguments,
                BlockedError::ArgumentsError
            ))
        );
        let not_object = CallFacts {
            arguments_are_json_object: false,
            ..facts("x")
        };
        assert_eq!(
            check_call(not_object),
            Some((
                BlockedReason::InvalidArguments,
                message("Tool arguments must be a JSON object")
            ))
        );
    }

    #[test]
    fn result_shapes_and_rethrown_codes() {
        assert_eq!(invalid_result_message("t", ResultShape::Object), None);
        assert_eq!(
            invalid_result_message("t", ResultShape::Null).as_deref(),
            Some("Tool t returned null instead of a ToolResult object")
        );
        assert_eq!(
            invalid_result_message("t", ResultShape::Array).as_deref(),
            Some("Tool t returned an array instead of a ToolResult object")
        );
        assert_eq!(
            invalid_result_message("t", ResultShape::Other("string")).as_deref(),
            Some("Tool t returned string instead of a ToolResult object")
        );
        assert!(is_rethrown("ERR_PRISM_AGENT_RUN_SUSPENDED"));
        assert!(is_rethrown("ERR_PRISM_LOOP_STATE"));
        assert!(!is_rethrown("ERR_PRISM_PERMISSION_DENIED"));
    }

    #[test]
    fn a_throw_is_a_denial_a_failure_or_propagates_by_gate() {
        let threw = |code: &'static str| Outcome::Threw {
            error: thrown(code),
            code: Some(code),
        };
        let info = error_info(thrown("E"), &["sk1"]);
        assert_eq!(info.message, "no [REDACTED]");
        assert_eq!(
            decide(Gate::Permission, threw("E"), &["sk1"]),
            Some(Step::Block(
                BlockedReason::PermissionDenied,
                BlockedError::Info(info.clone())
            ))
        );
        assert_eq!(
            decide(Gate::Trust, threw("E"), &["sk1"])
                .map(|s| matches!(s, Step::Block(BlockedReason::PermissionDenied, _))),
            Some(true)
        );
        assert_eq!(
            decide(
                Gate::BeforeExecute,
                threw("ERR_PRISM_AGENT_RUN_SUSPENDED"),
                &[]
            ),
            Some(Step::Rethrow)
        );
        assert_eq!(
            decide(
                Gate::Permission,
                threw("ERR_PRISM_AGENT_RUN_SUSPENDED"),
                &[]
            )
            .map(|s| matches!(s, Step::Block(..))),
            Some(true)
        );
        assert_eq!(
            decide(Gate::Execute, threw("E"), &["sk1"]),
            Some(Step::Fail(info))
        );
        for gate in [
            Gate::ToolCallMiddleware,
            Gate::CheckCall,
            Gate::Validate,
            Gate::Started,
            Gate::Redact,
            Gate::Finished,
        ] {
            assert_eq!(decide(gate, threw("E"), &[]), Some(Step::Rethrow));
        }
    }

    #[test]
    fn verdicts_and_results_are_decided_here() {
        assert_eq!(
            decide(
                Gate::Validate,
                Outcome::Rejected(Verdict::Message("bad sk1".into())),
                &["sk1"]
            ),
            Some(Step::Block(
                BlockedReason::ValidationFailed,
                BlockedError::Info(verdict_info("bad [REDACTED]", &[]))
            ))
        );
        let returned = |shape| Outcome::Returned { tool: "t", shape };
        assert_eq!(
            decide(Gate::Execute, returned(ResultShape::Object), &[]),
            None
        );
        let Some(Step::Fail(info)) = decide(Gate::Execute, returned(ResultShape::Null), &[]) else {
            panic!("a null result fails the call");
        };
        assert_eq!(info.name.as_deref(), Some("TypeError"));
        assert_eq!(
            info.code,
            Some(ErrorCode::Text("ERR_PRISM_INVALID_TOOL_RESULT".into()))
        );
        assert_eq!(info.shape, InfoShape::Thrown);
    }

    #[test]
    fn the_machine_walks_the_frozen_order_for_its_hooks() {
        let mut m = DispatchMachine::new(HookSet(HookSet::PERMISSION), Vec::new());
        let mut seen = Vec::new();
        let mut step = m.start();
        while let Step::Perform(g) = step {
            seen.push(g);
            step = m.resume(Outcome::Proceed);
        }
        assert_eq!(step, Step::Done);
        assert_eq!(
            seen,
            [
                Gate::CheckCall,
                Gate::Permission,
                Gate::Started,
                Gate::Execute,
                Gate::Finished
            ]
        );
        assert_eq!(
            step_codes(HookSet(HookSet::PERMISSION)),
            seen.iter().map(|g| *g as u8).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_denial_ends_the_dispatch() {
        let mut m = DispatchMachine::new(HookSet(u32::MAX), vec!["sk1".into()]);
        assert_eq!(m.start(), Step::Perform(Gate::ToolCallMiddleware));
        assert_eq!(m.resume(Outcome::Proceed), Step::Perform(Gate::CheckCall));
        assert_eq!(
            m.resume(Outcome::Checked(facts("t"))),
            Step::Perform(Gate::Trust)
        );
        let step = m.resume(Outcome::Threw {
            error: thrown("E"),
            code: Some("E"),
        });
        assert_eq!(
            step,
            Step::Block(
                BlockedReason::PermissionDenied,
                BlockedError::Info(error_info(thrown("E"), &["sk1"]))
            )
        );
        assert_eq!(m.resume(Outcome::Proceed), Step::Done);
        assert_eq!(denial_reason(Gate::Execute), None);
    }
}
