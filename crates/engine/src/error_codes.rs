//! The codes a host language's facade gives the errors it raises as its own classes
//! (`PermissionDeniedError`, `McpBridgeClosedError`, a dispatch `TypeError`, ...) and the codes
//! and code families by which it picks the class of an engine error. Every code is the
//! engine's: an error enum's `code()` where the engine raises the error itself, a constant
//! beside the rule otherwise. [`codes`] is the table the binding exports, read once at load,
//! so no code is written in the facade.

use crate::coding::sandbox_run::SANDBOX_EXECUTION_CODE;
use crate::limits::{LimitDialect, LimitError};
use crate::mcp::call_result::MCP_TOOL_CODE;
use crate::mcp::capability::CapabilityError;
use crate::mcp::{error as mcp_error, oauth::error as oauth_error, McpError};
use crate::tools::dispatch::INVALID_DISPATCH_CODE;
use crate::tools::permission::{EXECUTION_DENIED_CODE, PERMISSION_DENIED_CODE, UNTRUSTED_CODE};

/// The code of a fault of the engine, the binding or the facade-binding contract (a task
/// that panicked, a state the machine never gave out): a bug, never a host's mistake.
pub const INTERNAL_CODE: &str = "ERR_PRISM_INTERNAL";

/// Node's code of a `TypeError` about an argument's type, which the binding and the facade
/// give their own argument refusals.
pub const INVALID_ARG_TYPE_CODE: &str = "ERR_INVALID_ARG_TYPE";

/// Every code the facade names, by its key (`lowerCamelCase`); a key ending in `Prefix` is
/// the start of a family of codes.
#[must_use]
pub fn codes() -> Vec<(&'static str, &'static str)> {
    let unsupported = CapabilityError::Unsupported {
        capability: String::new(),
    };
    let invalid_limit = LimitError {
        name: "",
        hard: 0,
        dialect: LimitDialect::Validation,
    };
    vec![
        ("permissionDenied", PERMISSION_DENIED_CODE),
        ("untrusted", UNTRUSTED_CODE),
        ("executionDenied", EXECUTION_DENIED_CODE),
        ("invalidDispatch", INVALID_DISPATCH_CODE),
        ("invalidArgType", INVALID_ARG_TYPE_CODE),
        ("validationInvalidLimit", invalid_limit.code()),
        ("mcpClosed", McpError::Closed.code()),
        ("mcpInvalidServerId", McpError::InvalidServerId.code()),
        ("mcpUnsupportedCapability", unsupported.code()),
        ("mcpTool", MCP_TOOL_CODE),
        ("mcpPrefix", mcp_error::CODE_PREFIX),
        ("mcpOAuthPrefix", oauth_error::CODE_PREFIX),
        ("sandboxExecution", SANDBOX_EXECUTION_CODE),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_names_one_code_and_the_families_hold_their_codes() {
        let table = codes();
        let mut keys: Vec<_> = table.iter().map(|(k, _)| *k).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), table.len());
        assert!(McpError::Closed.code().starts_with(mcp_error::CODE_PREFIX));
        let state = crate::mcp::oauth::OAuthError::State {
            message: String::new(),
        };
        assert!(state.code().starts_with(oauth_error::CODE_PREFIX));
        assert!(oauth_error::CODE_PREFIX.starts_with(mcp_error::CODE_PREFIX));
    }
}
