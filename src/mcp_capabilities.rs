//! Node-API glue for the engine's MCP capability rules (`mcp::capability`,
//! `mcp::elicitation`): values from a host's client or the host's callbacks cross here once,
//! as JSON text (or the fault that kept them from being JSON), and come back checked.

use napi::Env;
use napi_derive::napi;
use prism_engine::limits as l;
use prism_engine::mcp::capability::{
    client_capabilities, elicitation_answer, parse_bounded, require_capability, roots_answer,
    CapabilityListing, Incoming, ListKind,
};
use prism_engine::mcp::elicitation::{elicitation_decision, elicitation_result_from_decision};
use prism_engine::mcp::host_client::HostValueFault;
use prism_engine::mcp::McpError;
use serde_json::Value;

use crate::errors::{facade_bug, to_js};

/// The listing a napi listing object still holds, or the facade's bug of using it after
/// `finish` (shared by the capability and app listings).
pub(crate) fn open_listing<'a, T>(env: &Env, slot: &'a mut Option<T>) -> napi::Result<&'a mut T> {
    slot.as_mut()
        .ok_or_else(|| facade_bug(env, LISTING_FINISHED.into()))
}

/// Takes the listing out of its napi object to finish it (see [`open_listing`]).
pub(crate) fn end_listing<T>(env: &Env, slot: &mut Option<T>) -> napi::Result<T> {
    slot.take()
        .ok_or_else(|| facade_bug(env, LISTING_FINISHED.into()))
}

/// The facade's bug of using a listing after `finish`.
const LISTING_FINISHED: &str = "listing already finished";

/// `text`, or the `fault` that kept a value from having JSON text.
pub(crate) fn incoming<'a>(text: Option<&'a str>, fault: Option<&str>) -> Incoming<'a> {
    match (text, fault) {
        (Some(t), None) => Incoming::Text(t),
        (_, Some(f)) => Incoming::Fault(HostValueFault::from_name(f)),
        (None, None) => Incoming::Fault(HostValueFault::NotJson),
    }
}

/// `v`'s JSON text (a JSON value always has one).
pub(crate) fn to_text(v: &Value) -> napi::Result<String> {
    Ok(v.to_string())
}

/// The capability rules of one client: its `maxCapabilityBytes`.
#[napi]
pub struct NativeMcpCapabilities {
    max_bytes: u64,
}

#[napi]
impl NativeMcpCapabilities {
    /// Validates `maxCapabilityBytes` (`undefined`: the default), throwing
    /// `"maxCapabilityBytes must be a positive safe integer <= <hard>"`.
    #[napi(constructor)]
    pub fn new(env: Env, max_capability_bytes: Option<f64>) -> napi::Result<Self> {
        let max_bytes = l::MCP_MAX_CAPABILITY_BYTES
            .resolve(max_capability_bytes)
            .map_err(|e| to_js(&env, McpError::from(e)))?;
        Ok(Self { max_bytes })
    }

    /// The resolved `maxCapabilityBytes`.
    #[napi(getter)]
    pub fn max_bytes(&self) -> f64 {
        self.max_bytes as f64
    }

    /// Throws `McpUnsupportedCapabilityError`'s code unless the server's capabilities
    /// (JSON text of an object) declare `name`.
    #[napi]
    pub fn require(&self, env: Env, capabilities_json: String, name: String) -> napi::Result<()> {
        let caps: Value = serde_json::from_str(&capabilities_json).unwrap_or(Value::Null);
        require_capability(&caps, &name).map_err(|e| to_js(&env, e))
    }

    /// Checks a message (request or answer) against the capability bounds, naming it
    /// `label`; returns its JSON text.
    #[napi]
    pub fn bounded(
        &self,
        env: Env,
        label: String,
        json: Option<String>,
        fault: Option<String>,
    ) -> napi::Result<String> {
        let v = parse_bounded(
            incoming(json.as_deref(), fault.as_deref()),
            self.max_bytes,
            &label,
        )
        .map_err(|e| to_js(&env, e))?;
        to_text(&v)
    }

    /// Starts a listing: `kind` is `"resources"`, `"resourceTemplates"` or `"prompts"`.
    #[napi]
    pub fn begin_listing(
        &self,
        env: Env,
        kind: String,
    ) -> napi::Result<NativeMcpCapabilityListing> {
        let kind = ListKind::from_name(&kind)
            .ok_or_else(|| facade_bug(&env, format!("unknown capability listing {kind}")))?;
        Ok(NativeMcpCapabilityListing {
            inner: Some(CapabilityListing::new(kind, self.max_bytes)),
            method: kind.method(),
        })
    }

    /// The host's roots (JSON text) as the `roots/list` result (JSON text).
    #[napi]
    pub fn roots_answer(
        &self,
        env: Env,
        json: Option<String>,
        fault: Option<String>,
    ) -> napi::Result<String> {
        let v = roots_answer(incoming(json.as_deref(), fault.as_deref()), self.max_bytes)
            .map_err(|e| to_js(&env, e))?;
        to_text(&v)
    }

    /// The host's elicitation answer (JSON text) to the request's bounded `params` (JSON
    /// text) as the protocol result (JSON text, without the human-interaction mark, with the
    /// form's defaults).
    #[napi]
    pub fn elicitation_answer(
        &self,
        env: Env,
        params_json: String,
        json: Option<String>,
        fault: Option<String>,
    ) -> napi::Result<String> {
        let params: Value = serde_json::from_str(&params_json).unwrap_or(Value::Null);
        let answer = incoming(json.as_deref(), fault.as_deref());
        let v = elicitation_answer(answer, &params, self.max_bytes).map_err(|e| to_js(&env, e))?;
        to_text(&v)
    }
}

/// One resources, resource-templates or prompts listing, page by page.
#[napi]
pub struct NativeMcpCapabilityListing {
    inner: Option<CapabilityListing>,
    method: &'static str,
}

#[napi]
impl NativeMcpCapabilityListing {
    /// The request method of this listing (`resources/list`, ...).
    #[napi(getter)]
    pub fn method(&self) -> String {
        self.method.to_owned()
    }

    /// Checks one raw page; returns the next cursor, or `null` when the listing is complete.
    #[napi]
    pub fn add_page(
        &mut self,
        env: Env,
        json: Option<String>,
        fault: Option<String>,
    ) -> napi::Result<Option<String>> {
        let listing = open_listing(&env, &mut self.inner)?;
        listing
            .add_page(incoming(json.as_deref(), fault.as_deref()))
            .map_err(|e| to_js(&env, e))
    }

    /// Every item (JSON text of an array); ends the listing.
    #[napi]
    pub fn finish(&mut self, env: Env) -> napi::Result<String> {
        let listing = end_listing(&env, &mut self.inner)?;
        to_text(&Value::Array(listing.finish()))
    }
}

/// `mcpElicitationDecision`: the pending decision (JSON text) of an elicitation's params
/// (JSON text, or the fault that kept them from being JSON).
#[napi]
pub fn mcp_elicitation_decision(
    env: Env,
    approval_id: String,
    params_json: Option<String>,
    fault: Option<String>,
    tool_name: Option<String>,
) -> napi::Result<String> {
    let params = match incoming(params_json.as_deref(), fault.as_deref()) {
        Incoming::Text(t) => serde_json::from_str(t).unwrap_or(Value::Null),
        Incoming::Fault(_) => Value::Null,
    };
    let v = elicitation_decision(&approval_id, &params, tool_name.as_deref())
        .map_err(|e| to_js(&env, e))?;
    to_text(&v)
}

/// `mcpElicitationResultFromDecision`: the elicitation result (JSON text) of a run decision
/// (JSON text).
#[napi]
pub fn mcp_elicitation_result_from_decision(
    env: Env,
    decision_json: String,
    human_interaction: bool,
) -> napi::Result<String> {
    let decision: Value = serde_json::from_str(&decision_json).unwrap_or(Value::Null);
    let v = elicitation_result_from_decision(&decision, human_interaction)
        .map_err(|e| to_js(&env, e))?;
    to_text(&v)
}

/// The elicitation caps the reference exports: `[message bytes, schema bytes]`.
#[napi]
pub fn mcp_elicitation_caps() -> Vec<u32> {
    [
        l::MCP_ELICITATION_MESSAGE_BYTES,
        l::MCP_ELICITATION_SCHEMA_BYTES,
    ]
    .iter()
    .map(|v| u32::try_from(*v).unwrap_or(u32::MAX))
    .collect()
}

/// What a capability client sends in `initialize`.
#[napi(object)]
pub struct McpCapabilityClientInit {
    /// The client name (the reference's).
    pub name: String,
    /// The client version (the reference's).
    pub version: String,
    /// The declared client capabilities, JSON text.
    pub capabilities_json: String,
}

/// The `initialize` identity and capabilities for the host's selections.
#[napi]
pub fn mcp_capability_client_init(
    mcp_apps: bool,
    roots: bool,
    sampling: bool,
    elicitation: bool,
) -> napi::Result<McpCapabilityClientInit> {
    use prism_engine::mcp::session::{CLIENT_NAME, CLIENT_VERSION};
    Ok(McpCapabilityClientInit {
        name: CLIENT_NAME.into(),
        version: CLIENT_VERSION.into(),
        capabilities_json: to_text(&client_capabilities(mcp_apps, roots, sampling, elicitation))?,
    })
}
