//! A host's own MCP client does the I/O; the engine judges what it hands over.
//!
//! Some hosts already hold a connected client (the JS SDK's `Client`, for example with the
//! host's own OAuth). For them the binding sends each `tools/list` page and each raw
//! `tools/call` result here as JSON text, and the engine applies exactly the rules of the
//! native session: the [`CatalogueBuilder`] bounds and pagination guards for pages, and
//! [`tool_result`] (measurement, content mapping, error results) for calls.
//!
//! A host value that cannot become JSON text at all (a cycle, a non-finite number, ...) is
//! reported by the binding as a [`HostValueFault`] instead of text.

use serde_json::Value;

use super::call_result::{failed_result, failed_result_message, tool_result, CallIdentity};
use super::catalogue::CatalogueBuilder;
use super::measure::JsonBound;
use super::{McpError, McpLimits};

/// Why a value from the host's client could not be converted to JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HostValueFault {
    /// An object or array contains itself.
    #[error("contains a cycle")]
    Cycle,
    /// `NaN` or an infinity.
    #[error("contains a non-finite number")]
    NonFinite,
    /// An object whose prototype is neither `Object.prototype` nor `null` (a `Date`, a `Map`, ...).
    #[error("contains a non-plain object")]
    NonPlain,
    /// `undefined`, a function, a symbol or a bigint.
    #[error("contains a non-JSON value")]
    NotJson,
    /// Nested so deeply that converting it overflowed the stack (far past any depth limit).
    #[error("nests too deeply")]
    TooDeep,
}

impl HostValueFault {
    /// The code of a host value that has no JSON text: `ERR_PRISM_MCP_INVALID_VALUE`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Cycle | Self::NonFinite | Self::NonPlain | Self::NotJson | Self::TooDeep => {
                "ERR_PRISM_MCP_INVALID_VALUE"
            }
        }
    }

    /// The fault named by the binding's conversion (`"cycle"`, `"non_finite"`,
    /// `"non_plain"`, `"too_deep"`); any other name is [`HostValueFault::NotJson`].
    #[must_use]
    pub fn from_name(name: &str) -> Self {
        match name {
            "cycle" => Self::Cycle,
            "non_finite" => Self::NonFinite,
            "non_plain" => Self::NonPlain,
            "too_deep" => Self::TooDeep,
            _ => Self::NotJson,
        }
    }
}

/// A value from the host's client: its JSON text, or why it has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostJson<'a> {
    /// The value's JSON text (as `JSON.stringify` wrote it).
    Text(&'a str),
    /// The value could not be written as JSON.
    Fault(HostValueFault),
}

/// How a call through the host's client ended without a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostCallFailure<'a> {
    /// `callTimeoutMs` elapsed first.
    Timeout,
    /// `maxTotalTimeoutMs` elapsed while progress kept restarting the call's clock.
    TotalTimeout,
    /// The call's `AbortSignal` fired (or had fired before the call).
    Aborted,
    /// The client threw or rejected; the error's message.
    Thrown(&'a str),
}

/// Parses JSON text written by `JSON.stringify`; the only way that fails is nesting beyond
/// the parser's recursion limit (above the hard depth cap) or text serde cannot represent
/// (a lone surrogate escape), reported as the depth bound or as [`HostValueFault::NotJson`].
fn parse_host_text(text: &str) -> Result<Value, HostValueFault> {
    serde_json::from_str(text).map_err(|e| {
        if e.to_string().contains("recursion limit") {
            HostValueFault::TooDeep
        } else {
            HostValueFault::NotJson
        }
    })
}

/// One `tools/list` walk through the host's client: each page is checked by the same
/// [`CatalogueBuilder`] as the native session's, and the accepted tools are kept as listed.
#[derive(Debug)]
pub struct HostListing {
    limits: McpLimits,
    catalogue: CatalogueBuilder,
    tools: Vec<Value>,
}

impl HostListing {
    /// An empty listing with these bounds.
    #[must_use]
    pub fn new(limits: McpLimits) -> Self {
        Self {
            limits,
            catalogue: CatalogueBuilder::new(limits),
            tools: Vec::new(),
        }
    }

    /// Adds one raw `tools/list` result and returns the cursor of the next page, or `None`
    /// when the listing is complete.
    ///
    /// # Errors
    /// The first bound the page breaks (pages, tools, bytes, schemas, repeated cursor), the
    /// depth bound for a page nested too deeply, or [`McpError::InvalidPage`].
    pub fn add_page(&mut self, page: HostJson<'_>) -> Result<Option<String>, McpError> {
        let parsed = match page {
            HostJson::Text(text) => parse_host_text(text),
            HostJson::Fault(fault) => Err(fault),
        };
        let page = parsed.map_err(|fault| match fault {
            HostValueFault::TooDeep => McpError::JsonBound {
                label: "MCP tools/list page".into(),
                bound: JsonBound::Depth(self.limits.max_json_depth),
            },
            other => McpError::InvalidPage {
                reason: other.to_string(),
            },
        })?;
        let next = self.catalogue.add_page(&page)?;
        if let Value::Object(mut fields) = page {
            if let Some(Value::Array(tools)) = fields.remove("tools") {
                self.tools.extend(tools);
            }
        }
        Ok(next)
    }

    /// The accepted tools, in the server's order, as the server listed them.
    #[must_use]
    pub fn finish(self) -> Vec<Value> {
        self.tools
    }
}

/// The `ToolResult` of a raw `tools/call` result the host's client returned: measured and
/// mapped exactly as a native call's result is.
#[must_use]
pub fn host_call_result(id: CallIdentity<'_>, raw: HostJson<'_>, limits: &McpLimits) -> Value {
    let label = || format!("MCP tool {} result", id.remote_name);
    let parsed = match raw {
        // The text is the exact JSON encoding, so its length is the measured byte count:
        // an oversized result is refused before it is parsed.
        HostJson::Text(text) if text.len() as u64 > limits.max_result_bytes => {
            let e = McpError::JsonBound {
                label: label(),
                bound: JsonBound::Bytes(limits.max_result_bytes),
            };
            return failed_result(id, &e, limits);
        }
        HostJson::Text(text) => parse_host_text(text),
        HostJson::Fault(fault) => Err(fault),
    };
    match parsed {
        Ok(value) => tool_result(id, &value, limits),
        Err(HostValueFault::TooDeep) => {
            let e = McpError::JsonBound {
                label: label(),
                bound: JsonBound::Depth(limits.max_json_depth),
            };
            failed_result(id, &e, limits)
        }
        Err(fault) => failed_result_message(id, &format!("{} {fault}", label()), limits),
    }
}

/// The error `ToolResult` of a call through the host's client that produced no result.
#[must_use]
pub fn host_call_failure(
    id: CallIdentity<'_>,
    failure: HostCallFailure<'_>,
    limits: &McpLimits,
) -> Value {
    match failure {
        HostCallFailure::Timeout => failed_result(
            id,
            &McpError::CallTimeout {
                timeout_ms: limits.call_timeout_ms,
            },
            limits,
        ),
        HostCallFailure::TotalTimeout => failed_result(
            id,
            &McpError::TotalTimeout {
                total_ms: limits.max_total_timeout_ms,
            },
            limits,
        ),
        HostCallFailure::Aborted => failed_result(id, &McpError::Aborted, limits),
        HostCallFailure::Thrown(message) => failed_result_message(id, message, limits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ID: CallIdentity<'static> = CallIdentity {
        tool_call_id: "c1",
        name: "mcp:s:echo",
        server_id: "s",
        remote_name: "echo",
    };

    fn limits(f: impl FnOnce(&mut McpLimits)) -> McpLimits {
        let mut l = McpLimits::default();
        f(&mut l);
        l
    }

    #[test]
    fn listing_keeps_the_tools_as_listed_across_pages() {
        let l = McpLimits::default();
        let mut listing = HostListing::new(l);
        let first = r#"{"tools":[{"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}],"nextCursor":"2"}"#;
        assert_eq!(
            listing.add_page(HostJson::Text(first)),
            Ok(Some("2".into()))
        );
        assert_eq!(
            listing.add_page(HostJson::Text(r#"{"tools":[{"name":"b"}]}"#)),
            Ok(None)
        );
        assert_eq!(
            listing.finish(),
            vec![
                json!({"name": "a", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}),
                json!({"name": "b"}),
            ]
        );
    }

    #[test]
    fn listing_applies_the_catalogue_rules() {
        let l = limits(|l| l.max_list_pages = 2);
        let mut listing = HostListing::new(l);
        assert!(listing
            .add_page(HostJson::Text(r#"{"tools":[],"nextCursor":"a"}"#))
            .is_ok());
        assert_eq!(
            listing
                .add_page(HostJson::Text(r#"{"tools":[],"nextCursor":"b"}"#))
                .map_err(|e| e.to_string()),
            Err("MCP tools/list exceeds 2 pages".into())
        );
        let l = McpLimits::default();
        let mut listing = HostListing::new(l);
        assert!(listing
            .add_page(HostJson::Text(r#"{"tools":[],"nextCursor":"a"}"#))
            .is_ok());
        assert_eq!(
            listing.add_page(HostJson::Text(r#"{"tools":[],"nextCursor":"a"}"#)),
            Err(McpError::RepeatedCursor)
        );
    }

    #[test]
    fn listing_faults_are_invalid_pages_or_the_depth_bound() {
        let l = McpLimits::default();
        let mut listing = HostListing::new(l);
        assert_eq!(
            listing
                .add_page(HostJson::Fault(HostValueFault::Cycle))
                .map_err(|e| e.to_string()),
            Err("MCP tools/list returned an invalid page: contains a cycle".into())
        );
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(
            listing
                .add_page(HostJson::Text(&deep))
                .map_err(|e| e.to_string()),
            Err("MCP tools/list page exceeds depth 64".into())
        );
        assert_eq!(
            listing.add_page(HostJson::Text("[]")).map_err(|e| e.code()),
            Err("ERR_PRISM_MCP_INVALID_PAGE")
        );
    }

    #[test]
    fn call_result_maps_like_a_native_call() {
        let l = McpLimits::default();
        let text = r#"{"content":[{"type":"text","text":"hi"}],"structuredContent":{"a":1}}"#;
        let raw: Value = serde_json::from_str(text).unwrap_or_default();
        assert_eq!(
            host_call_result(ID, HostJson::Text(text), &l),
            tool_result(ID, &raw, &l)
        );
    }

    #[test]
    fn oversized_result_text_is_refused_at_the_edge() {
        let text = r#"{"content":[{"type":"text","text":"x"}]}"#;
        let n = text.len() as u64;
        let fits = limits(|l| l.max_result_bytes = n);
        assert!(host_call_result(ID, HostJson::Text(text), &fits)
            .get("error")
            .is_none());
        let over = limits(|l| l.max_result_bytes = n - 1);
        let r = host_call_result(ID, HostJson::Text(text), &over);
        assert_eq!(
            r["error"]["message"],
            json!(format!("MCP tool echo result exceeds {} bytes", n - 1))
        );
    }

    #[test]
    fn result_faults_become_error_results() {
        let l = McpLimits::default();
        let r = host_call_result(ID, HostJson::Fault(HostValueFault::NonFinite), &l);
        assert_eq!(
            r,
            json!({
                "toolCallId": "c1", "name": "mcp:s:echo",
                "error": {"name": "McpToolError", "message": "MCP tool echo result contains a non-finite number", "code": "ERR_PRISM_MCP_TOOL"},
                "metadata": {"mcp": {"serverId": "s", "remoteName": "echo"}},
            })
        );
        let r = host_call_result(ID, HostJson::Fault(HostValueFault::TooDeep), &l);
        assert_eq!(
            r["error"]["message"],
            json!("MCP tool echo result exceeds depth 64")
        );
        assert_eq!(
            HostValueFault::from_name("anything else"),
            HostValueFault::NotJson
        );
    }

    #[test]
    fn failures_carry_the_engine_messages_within_the_cap() {
        let l = limits(|l| {
            l.call_timeout_ms = 10;
            l.max_result_bytes = 5;
        });
        let message = |f| host_call_failure(ID, f, &l)["error"]["message"].clone();
        assert_eq!(message(HostCallFailure::Timeout), json!("MCP t"));
        let wide = McpLimits {
            call_timeout_ms: 10,
            ..McpLimits::default()
        };
        let message = |f| host_call_failure(ID, f, &wide)["error"]["message"].clone();
        assert_eq!(
            message(HostCallFailure::Timeout),
            json!("MCP tool call timed out after 10ms")
        );
        assert_eq!(
            message(HostCallFailure::Aborted),
            json!("MCP tool call was aborted")
        );
        assert_eq!(message(HostCallFailure::Thrown("boom")), json!("boom"));
    }
}
