//! The bridge's options as the engine holds them, resolved and validated once at connect.

use super::McpError;
use crate::limits as l;

crate::limits::limit_set! {
    /// Every limit of one bridge, resolved (see `limits.rs` for defaults and hard caps). The
    /// order is the reference's order of checks.
    pub struct McpLimits from McpLimitsInput {
        list_cache_ttl_ms: MCP_LIST_CACHE_TTL_MS,
        call_timeout_ms: MCP_CALL_TIMEOUT_MS,
        max_result_bytes: MCP_MAX_RESULT_BYTES,
        max_list_pages: MCP_MAX_LIST_PAGES,
        max_tools: MCP_MAX_TOOLS,
        max_cursor_bytes: MCP_MAX_CURSOR_BYTES,
        max_tool_name_bytes: MCP_MAX_TOOL_NAME_BYTES,
        max_tool_description_bytes: MCP_MAX_TOOL_DESCRIPTION_BYTES,
        max_tool_schema_bytes: MCP_MAX_TOOL_SCHEMA_BYTES,
        max_total_tool_schema_bytes: MCP_MAX_TOTAL_TOOL_SCHEMA_BYTES,
        max_json_depth: MCP_MAX_JSON_DEPTH,
        max_json_properties: MCP_MAX_JSON_PROPERTIES,
        max_total_timeout_ms: MCP_MAX_TOTAL_TIMEOUT_MS,
    }
}

/// The limits of the Streamable HTTP transport (beside the bridge's own).
pub const MCP_HTTP_LIMITS: &[l::Limit] = &[l::MCP_MAX_RESPONSE_BYTES];

impl McpLimits {
    /// The deadlines of a call started at `start`: `callTimeoutMs` from now, and the last
    /// moment progress may push it to (`maxTotalTimeoutMs` from `start`).
    #[must_use]
    pub fn call_deadlines(&self, start: std::time::Instant) -> super::progress::Deadlines {
        super::progress::Deadlines::new(
            start,
            std::time::Duration::from_millis(self.call_timeout_ms),
            std::time::Duration::from_millis(self.max_total_timeout_ms),
        )
    }

    /// The bounds a call result is measured against.
    #[must_use]
    pub fn result_bounds(&self) -> super::measure::JsonBounds {
        super::measure::JsonBounds {
            max_bytes: self.max_result_bytes,
            max_depth: self.max_json_depth,
            max_properties: self.max_json_properties,
        }
    }
}

/// Checks `serverId` against `/^[A-Za-z0-9][A-Za-z0-9._-]*$/`.
///
/// # Errors
/// [`McpError::InvalidServerId`].
pub fn assert_valid_server_id(id: &str) -> Result<(), McpError> {
    let mut chars = id.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    if first_ok && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
        Ok(())
    } else {
        Err(McpError::InvalidServerId)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_at_their_edges() {
        let ok = McpLimitsInput {
            max_tools: Some(5000.0),
            ..Default::default()
        };
        assert_eq!(McpLimits::resolve(&ok).map(|l| l.max_tools), Ok(5000));
        let bad = McpLimitsInput {
            max_tools: Some(5001.0),
            ..Default::default()
        };
        assert_eq!(
            McpLimits::resolve(&bad).map_err(|e| e.to_string()),
            Err("maxTools must be a positive safe integer <= 5000".to_owned())
        );
        assert_eq!(McpLimits::default().max_result_bytes, 10_000_000);
    }

    #[test]
    fn server_ids() {
        for good in ["a", "A9", "my.server_1-x"] {
            assert!(assert_valid_server_id(good).is_ok(), "{good}");
        }
        for bad in ["", ".a", "-a", "a b", "a:b", "é"] {
            assert_eq!(
                assert_valid_server_id(bad),
                Err(McpError::InvalidServerId),
                "{bad}"
            );
        }
    }
}
