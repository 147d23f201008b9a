//! The bridge's options as the engine holds them, resolved and validated once at connect.

use super::McpError;
use crate::limits as l;

/// The host's raw limit values (`None` = default), as JavaScript numbers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpLimitsInput {
    /// `maxListPages`.
    pub max_list_pages: Option<f64>,
    /// `maxTools`.
    pub max_tools: Option<f64>,
    /// `maxCursorBytes`.
    pub max_cursor_bytes: Option<f64>,
    /// `maxToolNameBytes`.
    pub max_tool_name_bytes: Option<f64>,
    /// `maxToolDescriptionBytes`.
    pub max_tool_description_bytes: Option<f64>,
    /// `maxToolSchemaBytes`.
    pub max_tool_schema_bytes: Option<f64>,
    /// `maxTotalToolSchemaBytes`.
    pub max_total_tool_schema_bytes: Option<f64>,
    /// `maxJsonDepth`.
    pub max_json_depth: Option<f64>,
    /// `maxJsonProperties`.
    pub max_json_properties: Option<f64>,
    /// `maxResultBytes`.
    pub max_result_bytes: Option<f64>,
    /// `callTimeoutMs`.
    pub call_timeout_ms: Option<f64>,
    /// `listCacheTtlMs`.
    pub list_cache_ttl_ms: Option<f64>,
    /// `maxTotalTimeoutMs`.
    pub max_total_timeout_ms: Option<f64>,
}

/// Every limit of one bridge, resolved (see `limits.rs` for defaults and hard caps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpLimits {
    /// Pages per listing (default 20).
    pub max_list_pages: u64,
    /// Tools per listing (default 500).
    pub max_tools: u64,
    /// Cursor bytes (default 4 KiB).
    pub max_cursor_bytes: u64,
    /// Tool name bytes (default 256).
    pub max_tool_name_bytes: u64,
    /// Description bytes (default 16 KiB).
    pub max_tool_description_bytes: u64,
    /// Input + output schema bytes of one tool (default 256 KiB).
    pub max_tool_schema_bytes: u64,
    /// Schema bytes of a whole listing (default 4 MiB).
    pub max_total_tool_schema_bytes: u64,
    /// JSON depth (default 64).
    pub max_json_depth: u64,
    /// JSON items + keys (default 10,000).
    pub max_json_properties: u64,
    /// Result bytes (default 10,000,000).
    pub max_result_bytes: u64,
    /// Call and connect timeout in ms (default 60,000).
    pub call_timeout_ms: u64,
    /// Catalogue reuse in ms (default 30,000).
    pub list_cache_ttl_ms: u64,
    /// A call's whole time in ms while progress restarts its timeout (default 600,000).
    pub max_total_timeout_ms: u64,
}

impl McpLimits {
    /// Resolves every limit in the reference's order of checks.
    ///
    /// # Errors
    /// [`McpError::InvalidLimit`] for the first value that is not a whole number from 1 to its
    /// hard cap.
    pub fn resolve(i: &McpLimitsInput) -> Result<Self, McpError> {
        Ok(Self {
            list_cache_ttl_ms: l::MCP_LIST_CACHE_TTL_MS.resolve(i.list_cache_ttl_ms)?,
            call_timeout_ms: l::MCP_CALL_TIMEOUT_MS.resolve(i.call_timeout_ms)?,
            max_result_bytes: l::MCP_MAX_RESULT_BYTES.resolve(i.max_result_bytes)?,
            max_list_pages: l::MCP_MAX_LIST_PAGES.resolve(i.max_list_pages)?,
            max_tools: l::MCP_MAX_TOOLS.resolve(i.max_tools)?,
            max_cursor_bytes: l::MCP_MAX_CURSOR_BYTES.resolve(i.max_cursor_bytes)?,
            max_tool_name_bytes: l::MCP_MAX_TOOL_NAME_BYTES.resolve(i.max_tool_name_bytes)?,
            max_tool_description_bytes: l::MCP_MAX_TOOL_DESCRIPTION_BYTES
                .resolve(i.max_tool_description_bytes)?,
            max_tool_schema_bytes: l::MCP_MAX_TOOL_SCHEMA_BYTES.resolve(i.max_tool_schema_bytes)?,
            max_total_tool_schema_bytes: l::MCP_MAX_TOTAL_TOOL_SCHEMA_BYTES
                .resolve(i.max_total_tool_schema_bytes)?,
            max_json_depth: l::MCP_MAX_JSON_DEPTH.resolve(i.max_json_depth)?,
            max_json_properties: l::MCP_MAX_JSON_PROPERTIES.resolve(i.max_json_properties)?,
            max_total_timeout_ms: l::MCP_MAX_TOTAL_TIMEOUT_MS.resolve(i.max_total_timeout_ms)?,
        })
    }

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

impl Default for McpLimits {
    fn default() -> Self {
        // Resolving no values cannot fail: every default is within its hard cap.
        Self::resolve(&McpLimitsInput::default()).unwrap_or(Self {
            max_list_pages: l::MCP_MAX_LIST_PAGES.default,
            max_tools: l::MCP_MAX_TOOLS.default,
            max_cursor_bytes: l::MCP_MAX_CURSOR_BYTES.default,
            max_tool_name_bytes: l::MCP_MAX_TOOL_NAME_BYTES.default,
            max_tool_description_bytes: l::MCP_MAX_TOOL_DESCRIPTION_BYTES.default,
            max_tool_schema_bytes: l::MCP_MAX_TOOL_SCHEMA_BYTES.default,
            max_total_tool_schema_bytes: l::MCP_MAX_TOTAL_TOOL_SCHEMA_BYTES.default,
            max_json_depth: l::MCP_MAX_JSON_DEPTH.default,
            max_json_properties: l::MCP_MAX_JSON_PROPERTIES.default,
            max_result_bytes: l::MCP_MAX_RESULT_BYTES.default,
            call_timeout_ms: l::MCP_CALL_TIMEOUT_MS.default,
            list_cache_ttl_ms: l::MCP_LIST_CACHE_TTL_MS.default,
            max_total_timeout_ms: l::MCP_MAX_TOTAL_TIMEOUT_MS.default,
        })
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
