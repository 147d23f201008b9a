//! Node-API glue for the engine's `mcp::host_client`: a host's own MCP client (the JS SDK's
//! `Client`) does the I/O, and every page and call result it returns crosses here once, as
//! JSON text, to be checked and mapped by the engine's rules.
//!
//! Errors cross as `Error("<CODE>|<message>")`, as in `mcp.rs`.

use napi::Env;
use napi_derive::napi;
use prism_engine::mcp::call_result::{error_message_cap, CallIdentity};
use prism_engine::mcp::host_client::{
    host_call_failure, host_call_result, HostCallFailure, HostJson, HostListing, HostValueFault,
};
use prism_engine::mcp::{McpLimits, McpLimitsInput};
use serde_json::Value;

use crate::errors::to_js;
use crate::mcp::{transport_of, McpNativeOptions};
use crate::mcp_capabilities::{end_listing, open_listing, to_text};

fn host_json<'a>(text: Option<&'a str>, fault: Option<&str>) -> HostJson<'a> {
    match (text, fault) {
        (Some(t), None) => HostJson::Text(t),
        (_, Some(f)) => HostJson::Fault(HostValueFault::from_name(f)),
        (None, None) => HostJson::Fault(HostValueFault::NotJson),
    }
}

/// The engine side of one bridge over a host's client: its server id and resolved limits.
#[napi]
pub struct NativeMcpHostClient {
    server_id: String,
    pub(crate) limits: McpLimits,
}

#[napi]
impl NativeMcpHostClient {
    /// Resolves and validates every limit (the first invalid one throws
    /// `"<name> must be a positive safe integer <= <hard>"`). `server_id` is only copied into
    /// result metadata; the facade checks it first.
    #[napi(constructor)]
    pub fn new(
        env: Env,
        server_id: String,
        limits: std::collections::HashMap<String, f64>,
    ) -> napi::Result<Self> {
        let input = McpLimitsInput::from_named(|name| limits.get(name).copied());
        let limits = McpLimits::resolve(&input)
            .map_err(|e| to_js(&env, prism_engine::mcp::McpError::from(e)))?;
        Ok(Self { server_id, limits })
    }

    /// The resolved `callTimeoutMs`.
    #[napi(getter)]
    pub fn call_timeout_ms(&self) -> f64 {
        self.limits.call_timeout_ms as f64
    }

    /// The resolved `maxTotalTimeoutMs`.
    #[napi(getter)]
    pub fn max_total_timeout_ms(&self) -> f64 {
        self.limits.max_total_timeout_ms as f64
    }

    /// The resolved `listCacheTtlMs`.
    #[napi(getter)]
    pub fn list_cache_ttl_ms(&self) -> f64 {
        self.limits.list_cache_ttl_ms as f64
    }

    /// Bytes an error message may keep: `min(8 KiB, maxResultBytes)`.
    #[napi(getter)]
    pub fn error_message_cap(&self) -> f64 {
        error_message_cap(&self.limits) as f64
    }

    /// Starts one `tools/list` walk.
    #[napi]
    pub fn begin_listing(&self) -> NativeMcpHostListing {
        NativeMcpHostListing {
            inner: Some(HostListing::new(self.limits)),
        }
    }

    /// The `ToolResult` (JSON text) of a raw `tools/call` result: `result_json` is its JSON
    /// text, or `fault` names why it has none (`"cycle"`, `"non_finite"`, `"non_plain"`,
    /// `"too_deep"`, anything else: not JSON).
    #[napi]
    pub fn call_result(
        &self,
        tool_call_id: String,
        name: String,
        remote_name: String,
        result_json: Option<String>,
        fault: Option<String>,
    ) -> napi::Result<String> {
        let id = CallIdentity {
            tool_call_id: &tool_call_id,
            name: &name,
            server_id: &self.server_id,
            remote_name: &remote_name,
        };
        let raw = host_json(result_json.as_deref(), fault.as_deref());
        to_text(&host_call_result(id, raw, &self.limits))
    }

    /// The error `ToolResult` (JSON text) of a call that produced no result: `kind` is
    /// `"timeout"`, `"totalTimeout"` (`maxTotalTimeoutMs` while progress restarted the clock),
    /// `"aborted"` or (anything else) `"thrown"` with the error's `message`.
    #[napi]
    pub fn call_failure(
        &self,
        tool_call_id: String,
        name: String,
        remote_name: String,
        kind: String,
        message: Option<String>,
    ) -> napi::Result<String> {
        let id = CallIdentity {
            tool_call_id: &tool_call_id,
            name: &name,
            server_id: &self.server_id,
            remote_name: &remote_name,
        };
        let failure = match kind.as_str() {
            "timeout" => HostCallFailure::Timeout,
            "totalTimeout" => HostCallFailure::TotalTimeout,
            "aborted" => HostCallFailure::Aborted,
            _ => HostCallFailure::Thrown(message.as_deref().unwrap_or("")),
        };
        to_text(&host_call_failure(id, failure, &self.limits))
    }
}

/// One `tools/list` walk over a host's client, page by page.
#[napi]
pub struct NativeMcpHostListing {
    inner: Option<HostListing>,
}

#[napi]
impl NativeMcpHostListing {
    /// Checks one raw page (its JSON text, or the `fault` that kept it from being JSON) and
    /// returns the next cursor, or `null` when the listing is complete.
    #[napi]
    pub fn add_page(
        &mut self,
        env: Env,
        page_json: Option<String>,
        fault: Option<String>,
    ) -> napi::Result<Option<String>> {
        open_listing(&env, &mut self.inner)?
            .add_page(host_json(page_json.as_deref(), fault.as_deref()))
            .map_err(|e| to_js(&env, e))
    }

    /// The accepted tools as JSON text (an array, in the server's order); ends the walk.
    #[napi]
    pub fn finish(&mut self, env: Env) -> napi::Result<String> {
        let listing = end_listing(&env, &mut self.inner)?;
        to_text(&Value::Array(listing.finish()))
    }
}

/// `createMcpTransport`'s checks: the transport the facade flattened, validated as
/// `connectMcpTools` validates it (stdio needs a command; Streamable HTTP: URL, scheme,
/// origins, addresses, `maxResponseBytes`).
#[napi(ts_args_type = "options: McpNativeOptions")]
pub fn mcp_validate_transport(env: Env, options: napi::Unknown<'_>) -> napi::Result<()> {
    transport_of(McpNativeOptions::read(
        &env,
        &options,
        "createMcpTransport",
    )?)
    .map(|_| ())
    .map_err(|e| e.into_js(&env))
}
