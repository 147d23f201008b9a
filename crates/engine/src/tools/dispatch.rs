//! The dispatch machine: every decision of one `dispatchToolCall`, without performing I/O.
//!
//! A host (the JavaScript driver, or a Rust host through [`crate::tools::host`]) asks a
//! [`DispatchMachine`] for the next [`Step`], performs the callback the step names
//! (middleware, trust, permission, validator, `beforeExecute`, `execute`, redactor, events,
//! ledger) and feeds the [`Outcome`] back. The machine walks [`DISPATCH_ORDER`] for the hooks
//! present and decides everything that depends on data: the call check (lookup, filter,
//! `argumentsError`, the JSON-object argument check), the blocked reason and its message,
//! the shape of every `ErrorInfo` (with secret redaction), the shape of a tool result, and
//! the event and ledger-row vocabulary.

use super::blocked::{self, BlockedReason};
use super::gate::{Gate, HookSet, DISPATCH_ORDER};
use super::redact::redact_secrets;

/// The `type` of each dispatch event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// `tool_execution_started`: `{ type, sessionId, runId, call }`.
    Started,
    /// `tool_execution_progress`: `{ type, sessionId, runId, toolCallId, name, progress, metadata }`.
    Progress,
    /// `tool_execution_finished`: `{ type, sessionId, runId, result, metadata }`.
    Finished,
    /// `tool_execution_error`: `{ type, sessionId, runId, call, error, metadata }`.
    Error,
    /// `tool_execution_blocked`: `{ type, sessionId, runId, toolCallId, name, reason, error, metadata }`.
    Blocked,
}

impl EventKind {
    /// The event's `type` string.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Started => "tool_execution_started",
            Self::Progress => "tool_execution_progress",
            Self::Finished => "tool_execution_finished",
            Self::Error => "tool_execution_error",
            Self::Blocked => "tool_execution_blocked",
        }
    }
}

/// The `status` of an event's metadata and of a ledger row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The call passed its gates (also every progress row).
    Started,
    /// `execute` returned a result.
    Finished,
    /// `execute` threw, or returned something that is not a result object.
    Error,
    /// A gate blocked the call before `execute`.
    Blocked,
}

impl Status {
    /// Every status, indexed by its code (`Status as u8`).
    pub const ALL: [Status; 4] = [Self::Started, Self::Finished, Self::Error, Self::Blocked];

    /// The status whose code (`Status as u8`) is `code`.
    #[must_use]
    pub fn from_code(code: u32) -> Option<Status> {
        usize::try_from(code)
            .ok()
            .and_then(|i| Self::ALL.get(i).copied())
    }

    /// The wire string.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Started => "started",
            Self::Finished => "finished",
            Self::Error => "error",
            Self::Blocked => "blocked",
        }
    }

    /// Whether a ledger row of this status carries `finishedAt`.
    #[must_use]
    pub const fn is_final(self) -> bool {
        !matches!(self, Self::Started)
    }
}

/// The prefix of every ledger row id (`toolcall_<unique>`).
pub const LEDGER_ID_PREFIX: &str = "toolcall_";

/// The `durationMs` of an event that started at `start_ms` (never negative).
#[must_use]
pub fn duration_ms(start_ms: f64, now_ms: f64) -> f64 {
    (now_ms - start_ms).max(0.0)
}

/// An `ErrorInfo` `code`: a string or a number, as the host's error carried it.
#[derive(Debug, Clone, PartialEq)]
pub enum ErrorCode {
    /// A string code (redacted like the message).
    Text(String),
    /// A numeric code.
    Number(f64),
}

/// The `ErrorInfo` of a blocked or failed call: `{ name, message, code, cause, retryAfterMs? }`.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorInfo {
    /// The error's `name` (`None` for the message-only shapes of validators and gate messages).
    pub name: Option<String>,
    /// The message, secrets replaced.
    pub message: String,
    /// The error's code, when it carried a string or a number.
    pub code: Option<ErrorCode>,
    /// The error's cause as text, secrets replaced.
    pub cause: Option<String>,
    /// `retryAfterMs`, when the error carried a number.
    pub retry_after_ms: Option<f64>,
    /// Which keys the object carries.
    pub shape: InfoShape,
}

/// The keys of an `ErrorInfo` object, by where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InfoShape {
    /// A gate message: `{ message }`.
    Message,
    /// A validator's string verdict: `{ message, code: undefined }`.
    Verdict,
    /// A thrown value: `{ name, message, code, cause }`, plus `retryAfterMs` when set.
    Thrown,
}

impl ErrorInfo {
    /// The message-only shape `{ message }` of a gate message.
    #[must_use]
    pub fn message(message: String) -> Self {
        Self {
            name: None,
            message,
            code: None,
            cause: None,
            retry_after_ms: None,
            shape: InfoShape::Message,
        }
    }
}

/// What a host read from a thrown value, before the engine shapes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Thrown {
    /// An `Error`, or an object with a string `message`.
    ErrorLike {
        /// `error.name` when it is a string.
        name: Option<String>,
        /// `error.message`.
        message: String,
        /// `error.code` when it is a string or a number.
        code: Option<ErrorCode>,
        /// `error.cause` as text ([`cause_text`]), when present.
        cause: Option<String>,
        /// `error.retryAfterMs` when it is a number.
        retry_after_ms: Option<f64>,
    },
    /// Any other thrown value, as `String(value)`.
    Other(String),
}

/// The name an error-like value without a string `name` gets.
pub const DEFAULT_ERROR_NAME: &str = "Error";

/// The `ErrorInfo` of a thrown value, with every secret replaced in its name, message, string
/// code and cause.
#[must_use]
pub fn error_info(thrown: Thrown, secrets: &[&str]) -> ErrorInfo {
    let r = |s: &str| redact_secrets(s, secrets.iter().copied());
    match thrown {
        Thrown::ErrorLike {
            name,
            message,
            code,
            cause,
            retry_after_ms,
        } => ErrorInfo {
            name: Some(r(name.as_deref().unwrap_or(DEFAULT_ERROR_NAME))),
            message: r(&message),
            code: code.map(|c| match c {
                ErrorCode::Text(t) => ErrorCode::Text(r(&t)),
                n @ ErrorCode::Number(_) => n,
            }),
            cause: cause.map(|c| r(&c)),
            retry_after_ms,
            shape: InfoShape::Thrown,
        },
        Thrown::Other(text) => ErrorInfo {
            name: Some(DEFAULT_ERROR_NAME.to_owned()),
            message: r(&text),
            code: None,
            cause: None,
            retry_after_ms: None,
            shape: InfoShape::Thrown,
        },
    }
}

/// How a host's `cause` becomes text: an error's message, a string as is, anything else as
/// JSON text (or `String(value)` when it has none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CauseText {
    /// The cause is an `Error`: use its message.
    ErrorMessage,
    /// The cause is a string: use it.
    Itself,
    /// Otherwise: `JSON.stringify(cause)`, or `String(cause)` when that throws.
    Json,
}

/// Which [`CauseText`] rule applies to a cause.
#[must_use]
pub const fn cause_text(is_error: bool, is_string: bool) -> CauseText {
    if is_error {
        CauseText::ErrorMessage
    } else if is_string {
        CauseText::Itself
    } else {
        CauseText::Json
    }
}

/// `ms` since the Unix epoch as an ISO 8601 UTC timestamp with milliseconds
/// (`2026-01-02T03:04:05.678Z`), the form of a ledger row's `startedAt`/`finishedAt`.
#[must_use]
pub fn iso_timestamp(ms: f64) -> String {
    let total = if ms.is_finite() { ms.floor() as i64 } else { 0 };
    let (days, rem) = (total.div_euclid(86_400_000), total.rem_euclid(86_400_000));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// The ErrorInfo of a validator's verdict that is a string: `{ message, code: undefined }`,
/// secrets replaced. (A verdict object is the host's own ErrorInfo, deep-redacted.)
#[must_use]
pub fn verdict_info(message: &str, secrets: &[&str]) -> ErrorInfo {
    ErrorInfo {
        message: redact_secrets(message, secrets.iter().copied()),
        shape: InfoShape::Verdict,
        ..ErrorInfo::message(String::new())
    }
}

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

/// The error a blocked call check reports.
#[derive(Debug, Clone, PartialEq)]
pub enum CheckError {
    /// A gate message: `{ message }`.
    Message(String),
    /// The call's own `argumentsError`, passed through unchanged.
    ArgumentsError,
}

/// The gate of [`Gate::CheckCall`]: `None` when the call may proceed, or why it is blocked.
#[must_use]
pub fn check_call(facts: CallFacts<'_>) -> Option<(BlockedReason, CheckError)> {
    if !facts.tool_found {
        return Some((
            BlockedReason::UnknownTool,
            CheckError::Message(blocked::unknown_tool_message(facts.name)),
        ));
    }
    if !facts.filter_allows {
        return Some((
            BlockedReason::ToolDenied,
            CheckError::Message(blocked::tool_denied_message(facts.name)),
        ));
    }
    if facts.has_arguments_error {
        return Some((BlockedReason::InvalidArguments, CheckError::ArgumentsError));
    }
    if !facts.arguments_are_json_object {
        return Some((
            BlockedReason::InvalidArguments,
            CheckError::Message(blocked::NOT_A_JSON_OBJECT.to_owned()),
        ));
    }
    None
}

/// The blocked reason of a denial at `gate`, or `None` for a gate that cannot block.
#[must_use]
pub const fn denial_reason(gate: Gate) -> Option<BlockedReason> {
    match gate {
        Gate::Trust | Gate::Permission => Some(BlockedReason::PermissionDenied),
        Gate::Validate => Some(BlockedReason::ValidationFailed),
        Gate::BeforeExecute => Some(BlockedReason::ExecutionDenied),
        Gate::CheckCall => Some(BlockedReason::InvalidArguments),
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

/// What the host reports after performing a step.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The step passed (or there was nothing to decide).
    Proceed,
    /// The step's gate denied the call (trust, permission, validator, `beforeExecute`, or the
    /// call check), with the shaped error.
    Denied(BlockedReason, ErrorInfo),
    /// `execute` (or result middleware) failed, with the shaped error.
    Failed(ErrorInfo),
}

/// What the host does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Perform this gate's callback and report its outcome.
    Perform(Gate),
    /// Emit the blocked event, write the blocked row, return `{ toolCallId, name, error }`.
    Block(BlockedReason, ErrorInfo),
    /// Emit the error event, write the error row, return `{ toolCallId, name, error }`.
    Fail(ErrorInfo),
    /// The finished event and row are written: return the result.
    Done,
}

/// One dispatch in progress: the gates still to run for its hooks.
#[derive(Debug, Clone)]
pub struct DispatchMachine {
    hooks: HookSet,
    next: usize,
    over: bool,
}

impl DispatchMachine {
    /// A dispatch with `hooks` configured, before its first step.
    #[must_use]
    pub fn new(hooks: HookSet) -> Self {
        Self {
            hooks,
            next: 0,
            over: false,
        }
    }

    /// The first step (same as `resume(Outcome::Proceed)` on a new machine).
    pub fn start(&mut self) -> Step {
        self.resume(Outcome::Proceed)
    }

    /// Feeds the outcome of the last step back and returns the next one. After a `Block`,
    /// `Fail` or `Done` step every further call returns `Done`.
    pub fn resume(&mut self, outcome: Outcome) -> Step {
        if self.over {
            return Step::Done;
        }
        match outcome {
            Outcome::Denied(reason, error) => {
                self.over = true;
                return Step::Block(reason, error);
            }
            Outcome::Failed(error) => {
                self.over = true;
                return Step::Fail(error);
            }
            Outcome::Proceed => {}
        }
        while let Some(gate) = DISPATCH_ORDER.get(self.next).copied() {
            self.next += 1;
            if self.hooks.runs(gate) {
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
            Some((
                BlockedReason::UnknownTool,
                CheckError::Message("Unknown tool: x".into())
            ))
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
            Some((BlockedReason::InvalidArguments, CheckError::ArgumentsError))
        );
        let not_object = CallFacts {
            arguments_are_json_object: false,
            ..facts("x")
        };
        assert_eq!(
            check_call(not_object),
            Some((
                BlockedReason::InvalidArguments,
                CheckError::Message("Tool arguments must be a JSON object".into())
            ))
        );
    }

    #[test]
    fn error_info_redacts_name_message_code_and_cause() {
        let info = error_info(
            Thrown::ErrorLike {
                name: Some("Err-sk1".into()),
                message: "token sk1 leaked".into(),
                code: Some(ErrorCode::Text("E_sk1".into())),
                cause: Some("because sk1".into()),
                retry_after_ms: Some(5.0),
            },
            &["sk1", ""],
        );
        assert_eq!(info.name.as_deref(), Some("Err-[REDACTED]"));
        assert_eq!(info.message, "token [REDACTED] leaked");
        assert_eq!(info.code, Some(ErrorCode::Text("E_[REDACTED]".into())));
        assert_eq!(info.cause.as_deref(), Some("because [REDACTED]"));
        assert_eq!(info.retry_after_ms, Some(5.0));
        let other = error_info(Thrown::Other("sk1".into()), &["sk1"]);
        assert_eq!(other.name.as_deref(), Some("Error"));
        assert_eq!(other.message, "[REDACTED]");
        let unnamed = error_info(
            Thrown::ErrorLike {
                name: None,
                message: "m".into(),
                code: Some(ErrorCode::Number(7.0)),
                cause: None,
                retry_after_ms: None,
            },
            &[],
        );
        assert_eq!(unnamed.name.as_deref(), Some("Error"));
        assert_eq!(unnamed.code, Some(ErrorCode::Number(7.0)));
        assert_eq!(verdict_info("bad sk1", &["sk1"]).message, "bad [REDACTED]");
    }

    #[test]
    fn timestamps_are_iso_utc_with_milliseconds() {
        assert_eq!(iso_timestamp(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            iso_timestamp(1_767_323_045_678.0),
            "2026-01-02T03:04:05.678Z"
        );
        assert_eq!(iso_timestamp(951_782_400_000.0), "2000-02-29T00:00:00.000Z");
        assert_eq!(duration_ms(10.0, 5.0), 0.0);
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
    fn the_machine_walks_the_frozen_order_for_its_hooks() {
        let mut m = DispatchMachine::new(HookSet(HookSet::PERMISSION));
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
        let mut m = DispatchMachine::new(HookSet(u32::MAX));
        assert_eq!(m.start(), Step::Perform(Gate::ToolCallMiddleware));
        assert_eq!(m.resume(Outcome::Proceed), Step::Perform(Gate::CheckCall));
        assert_eq!(m.resume(Outcome::Proceed), Step::Perform(Gate::Trust));
        let info = ErrorInfo::message("no".into());
        assert_eq!(
            m.resume(Outcome::Denied(
                BlockedReason::PermissionDenied,
                info.clone()
            )),
            Step::Block(BlockedReason::PermissionDenied, info)
        );
        assert_eq!(m.resume(Outcome::Proceed), Step::Done);
        assert_eq!(
            denial_reason(Gate::Validate),
            Some(BlockedReason::ValidationFailed)
        );
        assert_eq!(denial_reason(Gate::Execute), None);
    }
}
