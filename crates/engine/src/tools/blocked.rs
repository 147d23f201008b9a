//! The reasons a dispatch is blocked before `execute`, with their reference messages.

/// Why `dispatchToolCall` blocked a call. Every blocked path emits exactly one
/// `tool_execution_blocked` event with [`BlockedReason::as_str`] as its `reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlockedReason {
    /// No tool of that name is registered.
    UnknownTool,
    /// The filter denies the tool.
    ToolDenied,
    /// `argumentsError` is set, or the arguments are not a plain JSON object.
    InvalidArguments,
    /// Trust or permission denied the call.
    PermissionDenied,
    /// The host's validator returned an error.
    ValidationFailed,
    /// The host's `beforeExecute` hook threw.
    ExecutionDenied,
}

impl BlockedReason {
    /// Every reason, in gate order.
    pub const ALL: [BlockedReason; 6] = [
        Self::UnknownTool,
        Self::ToolDenied,
        Self::InvalidArguments,
        Self::PermissionDenied,
        Self::ValidationFailed,
        Self::ExecutionDenied,
    ];

    /// The wire name hosts match on (`"unknown_tool"`, ...).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::UnknownTool => "unknown_tool",
            Self::ToolDenied => "tool_denied",
            Self::InvalidArguments => "invalid_arguments",
            Self::PermissionDenied => "permission_denied",
            Self::ValidationFailed => "validation_failed",
            Self::ExecutionDenied => "execution_denied",
        }
    }
}

/// `"Unknown tool: <name>"` (also the message of `registry.resolve(missing)`).
#[must_use]
pub fn unknown_tool_message(name: &str) -> String {
    format!("Unknown tool: {name}")
}

/// `"Tool denied: <name>"`.
#[must_use]
pub fn tool_denied_message(name: &str) -> String {
    format!("Tool denied: {name}")
}

/// The message of a non-object argument value.
pub const NOT_A_JSON_OBJECT: &str = "Tool arguments must be a JSON object";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_the_reference() {
        let names: Vec<&str> = BlockedReason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(
            names,
            [
                "unknown_tool",
                "tool_denied",
                "invalid_arguments",
                "permission_denied",
                "validation_failed",
                "execution_denied"
            ]
        );
        assert_eq!(unknown_tool_message("x"), "Unknown tool: x");
        assert_eq!(tool_denied_message("x"), "Tool denied: x");
    }
}
