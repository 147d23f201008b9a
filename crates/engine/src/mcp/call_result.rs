//! A raw `tools/call` result (or a failure) as the prism `ToolResult` the host receives.
//!
//! The whole raw result is measured first (bytes, depth, properties); only a result within
//! the bounds is mapped, and only the mapped value is ever handed to JavaScript.

use serde_json::{json, Map, Value};

use super::content::{map_content, summarize_content, truncate_utf8};
use super::measure::measure_bounded_json;
use super::{McpError, McpLimits};
use crate::limits::MCP_ERROR_SUMMARY_BYTES;

/// Who the result belongs to.
#[derive(Debug, Clone, Copy)]
pub struct CallIdentity<'a> {
    /// `context.toolCallId`.
    pub tool_call_id: &'a str,
    /// The prefixed tool name.
    pub name: &'a str,
    /// The bridge's server id.
    pub server_id: &'a str,
    /// The remote tool name.
    pub remote_name: &'a str,
}

/// [`CallIdentity`] owning its text, for a call whose result is mapped after its caller
/// returned.
#[derive(Debug, Clone)]
pub struct OwnedCallIdentity {
    /// `context.toolCallId`.
    pub tool_call_id: String,
    /// The prefixed tool name.
    pub name: String,
    /// The bridge's server id.
    pub server_id: String,
    /// The remote tool name.
    pub remote_name: String,
}

impl OwnedCallIdentity {
    /// The borrowed identity.
    #[must_use]
    pub fn borrow(&self) -> CallIdentity<'_> {
        CallIdentity {
            tool_call_id: &self.tool_call_id,
            name: &self.name,
            server_id: &self.server_id,
            remote_name: &self.remote_name,
        }
    }
}

/// The byte cap of error messages: `min(8 KiB, maxResultBytes)`.
#[must_use]
pub fn error_message_cap(limits: &McpLimits) -> u64 {
    limits.max_result_bytes.min(MCP_ERROR_SUMMARY_BYTES as u64)
}

/// `{name:"McpToolError", message, code}` with the message cut to `max_bytes`.
#[must_use]
pub fn mcp_call_error(message: &str, code: &str, max_bytes: u64) -> Value {
    let cut = truncate_utf8(message, usize::try_from(max_bytes).unwrap_or(usize::MAX));
    json!({"name": "McpToolError", "message": cut, "code": code})
}

/// The error `ToolResult` of a call that failed (timeout, abort, oversize, transport).
#[must_use]
pub fn failed_result(id: CallIdentity<'_>, error: &McpError, limits: &McpLimits) -> Value {
    failed_result_message(id, &error.to_string(), limits)
}

/// The error `ToolResult` of a call whose mapping panicked (a bug): the call still settles.
#[must_use]
pub fn panicked_result(id: CallIdentity<'_>, limits: &McpLimits) -> Value {
    let e = McpError::Transport {
        message: "the call failed inside the bridge".into(),
    };
    failed_result(id, &e, limits)
}

/// The error `ToolResult` of a failed call whose cause is only a message (for example an
/// error thrown by a host's own MCP client); the message is cut to [`error_message_cap`].
#[must_use]
pub fn failed_result_message(id: CallIdentity<'_>, message: &str, limits: &McpLimits) -> Value {
    json!({
        "toolCallId": id.tool_call_id,
        "name": id.name,
        "error": mcp_call_error(message, "ERR_PRISM_MCP_TOOL", error_message_cap(limits)),
        "metadata": {"mcp": {"serverId": id.server_id, "remoteName": id.remote_name}},
    })
}

/// The `ToolResult` of a raw call result.
#[must_use]
pub fn tool_result(id: CallIdentity<'_>, raw: &Value, limits: &McpLimits) -> Value {
    let measured = match measure_bounded_json(raw, limits.result_bounds()) {
        Ok(m) => m,
        Err(bound) => {
            let e = McpError::JsonBound {
                label: format!("MCP tool {} result", id.remote_name),
                bound,
            };
            return failed_result(id, &e, limits);
        }
    };
    let obj = raw.as_object();
    let field = |k: &str| obj.and_then(|o| o.get(k));
    let mut out = Map::new();
    out.insert("toolCallId".into(), json!(id.tool_call_id));
    out.insert("name".into(), json!(id.name));
    if let (Some(legacy), None) = (field("toolResult"), field("content")) {
        out.insert("value".into(), legacy.clone());
        out.insert(
            "metadata".into(),
            json!({"mcp": {"serverId": id.server_id, "remoteName": id.remote_name, "bytesUsed": measured.bytes}}),
        );
        return Value::Object(out);
    }
    let empty = Vec::new();
    let content = field("content").and_then(Value::as_array).unwrap_or(&empty);
    let mapped = map_content(content, limits.max_result_bytes);
    out.insert("content".into(), Value::Array(mapped.content));
    if field("isError").and_then(Value::as_bool) == Some(true) {
        let mut summary = summarize_content(content, error_message_cap(limits));
        if summary.is_empty() {
            summary = format!("MCP tool {} returned an error", id.remote_name);
        }
        out.insert(
            "error".into(),
            mcp_call_error(&summary, "ERR_PRISM_MCP_TOOL", error_message_cap(limits)),
        );
    } else if let Some(v) = field("structuredContent") {
        out.insert("value".into(), v.clone());
    }
    out.insert(
        "metadata".into(),
        json!({"mcp": {
            "serverId": id.server_id,
            "remoteName": id.remote_name,
            "truncated": mapped.truncated,
            "bytesUsed": mapped.bytes_used,
        }}),
    );
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: CallIdentity<'static> = CallIdentity {
        tool_call_id: "c1",
        name: "mcp:s:echo",
        server_id: "s",
        remote_name: "echo",
    };

    #[test]
    fn success_with_structured_content() {
        let raw =
            json!({"content": [{"type": "text", "text": "hi"}], "structuredContent": {"a": 1}});
        assert_eq!(
            tool_result(ID, &raw, &McpLimits::default()),
            json!({
                "toolCallId": "c1", "name": "mcp:s:echo",
                "content": [{"type": "text", "text": "hi"}], "value": {"a": 1},
                "metadata": {"mcp": {"serverId": "s", "remoteName": "echo", "truncated": false, "bytesUsed": 2}},
            })
        );
    }

    #[test]
    fn is_error_becomes_a_bounded_error() {
        let raw = json!({"content": [{"type": "text", "text": "bad thing"}], "isError": true});
        let limits = McpLimits {
            max_result_bytes: 100,
            ..McpLimits::default()
        };
        let r = tool_result(ID, &raw, &limits);
        assert_eq!(
            r["error"],
            json!({"name": "McpToolError", "message": "bad thing", "code": "ERR_PRISM_MCP_TOOL"})
        );
        assert_eq!(r["content"], json!([{"type": "text", "text": "bad thing"}]));
    }

    #[test]
    fn legacy_tool_result() {
        let raw = json!({"toolResult": {"x": 1}});
        let r = tool_result(ID, &raw, &McpLimits::default());
        assert_eq!(r["value"], json!({"x": 1}));
        assert_eq!(r["metadata"]["mcp"]["bytesUsed"], json!(22));
    }

    #[test]
    fn oversized_result_is_an_error_result_at_the_edge() {
        let raw = json!({"content": [{"type": "text", "text": "x"}]});
        let n = serde_json::to_string(&raw)
            .map(|s| s.len() as u64)
            .unwrap_or(0);
        let fits = McpLimits {
            max_result_bytes: n,
            ..McpLimits::default()
        };
        assert!(tool_result(ID, &raw, &fits).get("error").is_none());
        let over = McpLimits {
            max_result_bytes: n - 1,
            ..McpLimits::default()
        };
        let r = tool_result(ID, &raw, &over);
        assert_eq!(
            r["error"]["message"],
            json!(format!("MCP tool echo result exceeds {} bytes", n - 1))
        );
        assert_eq!(
            r["metadata"],
            json!({"mcp": {"serverId": "s", "remoteName": "echo"}})
        );
        assert!(r.get("content").is_none());
    }
}
