//! One reported problem: an Ajv-style `{ path?, message }` pair.

/// A validation error as hosts see it: `path` (Ajv's `instancePath || schemaPath`, or the
/// walk's path) and Ajv's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// Where; `None` for messages that carry their own path (bounds walks, compile errors).
    pub path: Option<String>,
    /// What, in Ajv's wording.
    pub message: String,
}

impl Issue {
    /// An issue whose message says everything (no separate path).
    #[must_use]
    pub fn message(message: impl Into<String>) -> Issue {
        Issue {
            path: None,
            message: message.into(),
        }
    }
}

impl From<super::WalkProblem> for Issue {
    fn from(problem: super::WalkProblem) -> Issue {
        Issue::message(problem.to_string())
    }
}

/// The refusal of tool `tool`'s call whose arguments have these issues: the words of
/// `createToolParameterValidator` ([`crate::tools::validator::failure_message`]), each issue
/// as `path: message` (the message alone without a path), so a failing call is worded where it
/// is validated.
#[must_use]
pub fn tool_refusal(tool: &str, issues: &[Issue]) -> String {
    crate::tools::validator::failure_message_of(
        tool,
        issues
            .iter()
            .map(|i| (i.path.as_deref().unwrap_or(""), i.message.as_str())),
    )
}

/// The forbidden JSON keys of the core: the one list, [`crate::tools::args::FORBIDDEN_KEYS`].
pub use crate::tools::args::is_forbidden_key;
