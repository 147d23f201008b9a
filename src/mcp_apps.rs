//! Node-API glue for the engine's MCP Apps rules (`mcp::apps`) over a host's client: the
//! listing's app tools, the `ui://` resources and the app's calls, judged by the engine under
//! the bridge's limits.

use napi::Env;
use napi_derive::napi;
use prism_engine::mcp::apps::{
    app_callable, app_resource, app_tool, assert_negotiated, model_visible, read_result, readable,
    AppResourceListing,
};
use serde_json::Value;

use crate::errors::{facade_bug, to_js};
use crate::mcp_capabilities::{end_listing, incoming, open_listing, to_text};
use crate::mcp_host_client::NativeMcpHostClient;

fn parse(env: &Env, text: &str) -> napi::Result<Value> {
    serde_json::from_str(text).map_err(|e| facade_bug(env, format!("MCP Apps: {e}")))
}

fn array(env: &Env, text: &str) -> napi::Result<Vec<Value>> {
    match parse(env, text)? {
        Value::Array(items) => Ok(items),
        _ => Err(facade_bug(env, "MCP Apps: not an array".into())),
    }
}

#[napi]
impl NativeMcpHostClient {
    /// Throws `"MCP Apps extension was not negotiated"` unless the server's capabilities
    /// (JSON text) acknowledge `io.modelcontextprotocol/ui`.
    #[napi]
    pub fn apps_negotiated(&self, env: Env, capabilities_json: String) -> napi::Result<()> {
        let caps: Value = serde_json::from_str(&capabilities_json).unwrap_or(Value::Null);
        assert_negotiated(&caps).map_err(|e| to_js(&env, e))
    }

    /// The listed tools (JSON text of the accepted listing) as app tools (JSON text of an
    /// array, each `{ name, description?, inputSchema, resourceUri?, visibility,
    /// modelVisible }`).
    #[napi]
    pub fn app_tools(&self, env: Env, tools_json: String) -> napi::Result<String> {
        let mut out = Vec::new();
        for tool in array(&env, &tools_json)? {
            let mut app = app_tool(&tool, &self.limits).map_err(|e| to_js(&env, e))?;
            let visible = model_visible(&app);
            if let Value::Object(map) = &mut app {
                map.insert("modelVisible".into(), Value::Bool(visible));
            }
            out.push(app);
        }
        to_text(&Value::Array(out))
    }

    /// Throws `"MCP App tool is unavailable"` unless an app may call `name` among the app
    /// tools (JSON text).
    #[napi]
    pub fn app_callable(&self, env: Env, tools_json: String, name: String) -> napi::Result<()> {
        let tools = array(&env, &tools_json)?;
        app_callable(&tools, &name)
            .map(|_| ())
            .map_err(|e| to_js(&env, e))
    }

    /// Starts one MCP Apps `resources/list` walk.
    #[napi]
    pub fn begin_app_resources(&self) -> NativeMcpAppResources {
        NativeMcpAppResources {
            inner: Some(AppResourceListing::new(self.limits)),
        }
    }

    /// The index of the app tool whose resource is `uri` (before reading it); throws for an
    /// invalid `ui://` URI or one no app tool names.
    #[napi]
    pub fn app_readable(&self, env: Env, tools_json: String, uri: String) -> napi::Result<u32> {
        let tools = array(&env, &tools_json)?;
        let tool = readable(&tools, &uri).map_err(|e| to_js(&env, e))?;
        let index = tools
            .iter()
            .position(|t| std::ptr::eq(t, tool))
            .unwrap_or(0);
        Ok(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// Bounds a raw `resources/read` result; returns it as JSON text.
    #[napi]
    pub fn app_read_result(
        &self,
        env: Env,
        json: Option<String>,
        fault: Option<String>,
    ) -> napi::Result<String> {
        let v = read_result(incoming(json.as_deref(), fault.as_deref()), &self.limits)
            .map_err(|e| to_js(&env, e))?;
        to_text(&v)
    }

    /// The app resource (JSON text) of `uri` from its tool, the bounded read result and the
    /// listed app resources (all JSON text).
    #[napi]
    pub fn app_resource(
        &self,
        env: Env,
        uri: String,
        tool_json: String,
        result_json: String,
        listed_json: String,
    ) -> napi::Result<String> {
        let tool = parse(&env, &tool_json)?;
        let result = parse(&env, &result_json)?;
        let listed = array(&env, &listed_json)?;
        let v = app_resource(&uri, &tool, &result, &listed, &self.limits)
            .map_err(|e| to_js(&env, e))?;
        to_text(&v)
    }
}

/// One MCP Apps `resources/list` walk over a host's client.
#[napi]
pub struct NativeMcpAppResources {
    inner: Option<AppResourceListing>,
}

#[napi]
impl NativeMcpAppResources {
    /// Checks one raw page; returns the next cursor, or `null` when the walk is complete.
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

    /// The app resources (JSON text of an array); ends the walk.
    #[napi]
    pub fn finish(&mut self, env: Env) -> napi::Result<String> {
        let listing = end_listing(&env, &mut self.inner)?;
        to_text(&Value::Array(listing.finish()))
    }
}
