//! A raw `tools/call` result (or a failure) as the prism `ToolResult` the host receives.
//!
//! The whole raw result is measured first (bytes, depth, properties); only a result within
//! the bounds is mapped, and only the mapped value is ever handed to JavaScript.

use serde_json::{json, Map, Value};

use super::content::{map_content, summarize_content, truncate_utf8};
use super::measure::{measure_bounded_json, JsonBound};
use super::output_schema::OutputCheck;
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

/// The code of an MCP tool call that failed (`McpToolError`), unless it carries its own.
pub const MCP_TOOL_CODE: &str = "ERR_PRISM_MCP_TOOL";

/// `{name:"McpToolError", message, code}` with the message cut to `max_bytes`.
#[must_use]
pub fn mcp_call_error(message: &str, code: &str, max_bytes: u64) -> Value {
    let cut = truncate_utf8(message, usize::try_from(max_bytes).unwrap_or(usize::MAX));
    json!({"name": "McpToolError", "message": cut, "code": code})
}

/// The error `ToolResult` of a call that failed (timeout, abort, oversize, transport).
#[must_use]
pub fn failed_result(id: CallIdentity<'_>, error: &McpError, limits: &McpLimits) -> Value {
    match configured_bound(id, error, limits) {
        Some(bound) => failed_result_message(id, &bound.to_string(), limits),
        None => failed_result_message(id, &error.to_string(), limits),
    }
}

/// The transport's backstop depth bound broken by the call's own answer, said as the
/// configured bound it necessarily broke too (the configured bounds decide first, in the
/// reference's words): an answer deeper than the transport's cap nests its result deeper
/// than any `maxJsonDepth`.
fn configured_bound(
    id: CallIdentity<'_>,
    error: &McpError,
    limits: &McpLimits,
) -> Option<McpError> {
    match error {
        McpError::AnswerTooDeep { .. } => Some(McpError::JsonBound {
            label: format!("MCP tool {} result", id.remote_name),
            bound: JsonBound::Depth(limits.max_json_depth),
        }),
        _ => None,
    }
}

/// Which revision's `CallToolResult` a result is read as: up to 2025-11-25
/// `structuredContent` must be an object; from 2026-07-28 on it may be any JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StructuredContent {
    /// An object only (revisions with `initialize`).
    #[default]
    Object,
    /// Any JSON value (2026-07-28 and later).
    AnyValue,
}

impl StructuredContent {
    /// What `revision` allows.
    #[must_use]
    pub fn of_revision(revision: &rmcp::model::ProtocolVersion) -> Self {
        if revision.has_initialize() {
            Self::Object
        } else {
            Self::AnyValue
        }
    }
}

/// Why a `tools/call` result is not a `CallToolResult`, if it is not: `content` must be an
/// array of objects each with a string `type`, `isError` a boolean, `structuredContent` an
/// object where `structured` says so (a missing `content` is an empty one, as the official
/// SDKs read it).
fn call_result_shape_error(
    obj: Option<&Map<String, Value>>,
    structured: StructuredContent,
) -> Option<String> {
    let Some(obj) = obj else {
        return Some("it is not an object".into());
    };
    match obj.get("content") {
        None => {}
        Some(Value::Array(items)) => {
            let bad = items.iter().position(|item| {
                item.as_object()
                    .and_then(|o| o.get("type"))
                    .is_none_or(|t| !t.is_string())
            });
            if let Some(i) = bad {
                return Some(format!(
                    "content[{i}] is not a content block with a string type"
                ));
            }
        }
        Some(_) => return Some("its content is not an array".into()),
    }
    if obj.get("isError").is_some_and(|v| !v.is_boolean()) {
        return Some("its isError is not a boolean".into());
    }
    if structured == StructuredContent::Object
        && obj.get("structuredContent").is_some_and(|v| !v.is_object())
    {
        return Some("its structuredContent is not an object".into());
    }
    None
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
        "error": mcp_call_error(message, MCP_TOOL_CODE, error_message_cap(limits)),
        "metadata": {"mcp": {"serverId": id.server_id, "remoteName": id.remote_name}},
    })
}

/// The `ToolResult` of a raw call result.
#[must_use]
pub fn tool_result(id: CallIdentity<'_>, raw: &Value, limits: &McpLimits) -> Value {
    checked_tool_result(id, raw, limits, None, StructuredContent::Object)
}

/// The `ToolResult` of a raw call result of a tool whose listing may have given an output
/// schema: a successful result must then carry `structuredContent` the schema accepts, or
/// the call fails naming what is wrong. `structured` is what the session's revision allows
/// as `structuredContent`.
#[must_use]
pub fn checked_tool_result(
    id: CallIdentity<'_>,
    raw: &Value,
    limits: &McpLimits,
    output: Option<&OutputCheck>,
    structured: StructuredContent,
) -> Value {
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
    if let Some(reason) = call_result_shape_error(obj, structured) {
        let e = McpError::InvalidResponse {
            reason: format!(
                "the result of MCP tool {} is not a CallToolResult: {reason}",
                id.remote_name
            ),
        };
        return failed_result(id, &e, limits);
    }
    let is_error = field("isError").and_then(Value::as_bool) == Some(true);
    if let (Some(check), Some(obj), false) = (output, obj, is_error) {
        if let Some(problem) = check.problem(id.remote_name, obj) {
            return failed_result_message(id, &problem, limits);
        }
    }
    let empty = Vec::new();
    let content = field("content").and_then(Value::as_array).unwrap_or(&empty);
    let mapped = map_content(content, limits.max_result_bytes);
    out.insert("content".into(), Value::Array(mapped.content));
    if is_error {
        let mut summary = summarize_content(content, error_message_cap(limits));
        if summary.is_empty() {
            summary = format!("MCP tool {} returned an error", id.remote_name);
        }
        out.insert(
            "error".into(),
            mcp_call_error(&summary, MCP_TOOL_CODE, error_message_cap(limits)),
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
    fn structured_content_may_be_any_json_value_from_2026_07_28_on() {
        let older = rmcp::model::ProtocolVersion::V_2025_11_25;
        let newer = rmcp::model::ProtocolVersion::V_2026_07_28;
        assert_eq!(
            StructuredContent::of_revision(&older),
            StructuredContent::Object
        );
        assert_eq!(
            StructuredContent::of_revision(&newer),
            StructuredContent::AnyValue
        );
        let l = McpLimits::default();
        for value in [
            json!([1, {"b": 2, "a": 1}]),
            json!("text"),
            json!(3),
            json!(null),
        ] {
            let raw = json!({"content": [], "structuredContent": value});
            let any = checked_tool_result(ID, &raw, &l, None, StructuredContent::AnyValue);
            assert_eq!(any["value"], value, "{raw}");
            assert!(any.get("error").is_none(), "{raw}");
            let object = checked_tool_result(ID, &raw, &l, None, StructuredContent::Object);
            let message = object["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("its structuredContent is not an object"),
                "{message}"
            );
        }
    }

    #[test]
    fn an_answer_that_is_no_call_tool_result_is_an_error_naming_what_is_wrong() {
        let cases = [
            (json!({"content": "hi"}), "its content is not an array"),
            (
                json!({"content": [1]}),
                "content[0] is not a content block with a string type",
            ),
            (
                json!({"content": [{"type": "text", "text": "a"}, {"text": "b"}]}),
                "content[1] is not",
            ),
            (
                json!({"content": [], "isError": "yes"}),
                "its isError is not a boolean",
            ),
            (
                json!({"content": [], "structuredContent": [1]}),
                "its structuredContent is not an object",
            ),
            (json!([]), "it is not an object"),
        ];
        for (raw, why) in cases {
            let r = tool_result(ID, &raw, &McpLimits::default());
            let message = r["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("is not a CallToolResult"),
                "{raw}: {message}"
            );
            assert!(message.contains(why), "{raw}: {message}");
            assert!(r.get("content").is_none(), "{raw}");
        }
        // No content at all is an empty one, as the official SDKs read it.
        assert!(tool_result(ID, &json!({}), &McpLimits::default())
            .get("error")
            .is_none());
    }

    #[test]
    fn a_transport_cap_is_reported_as_the_configured_bound_it_implies() {
        let limits = McpLimits {
            max_json_depth: 64,
            max_result_bytes: 1000,
            ..McpLimits::default()
        };
        let deep = failed_result(ID, &McpError::AnswerTooDeep { limit: 129 }, &limits);
        assert_eq!(
            deep["error"]["message"],
            json!("MCP tool echo result exceeds depth 64")
        );
        // A message not known to be this call's answer says only what it measured.
        let other = failed_result(ID, &McpError::MessageTooDeep { limit: 129 }, &limits);
        assert_eq!(
            other["error"]["message"],
            json!("MCP message nests deeper than 129 levels")
        );
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
