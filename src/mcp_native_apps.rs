//! Node-API glue for MCP Apps on a native bridge: the app bridge's raw `resources/list` and
//! `resources/read` requests (`mcp::session_apps`). Their results go, as JSON text, to the
//! same engine app rules as a host's client's (`NativeMcpHostClient`'s app methods).

use napi::bindgen_prelude::PromiseRaw;
use napi::Env;
use napi_derive::napi;
use prism_engine::mcp::session_apps::AppRequest;
use serde_json::Value;

use crate::errors::{facade_bug, spawn_coded};
use crate::mcp::NativeMcpBridge;

#[napi]
impl NativeMcpBridge {
    /// One MCP Apps request (`resources/list` or `resources/read`) with `params` (JSON text
    /// of an object, or absent); its raw result as JSON text, for the app rules to judge.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn app_request<'env>(
        &self,
        env: &'env Env,
        method: String,
        params_json: Option<String>,
    ) -> napi::Result<PromiseRaw<'env, String>> {
        let request = AppRequest::from_method(&method)
            .ok_or_else(|| facade_bug(env, format!("unknown MCP Apps request {method}")))?;
        let params = match params_json {
            Some(text) => Some(
                serde_json::from_str::<Value>(&text)
                    .map_err(|e| facade_bug(env, format!("MCP Apps params: {e}")))?,
            ),
            None => None,
        };
        let session = self.session().map_err(|e| e.into_js(env))?;
        let cancel = self.close_signal();
        spawn_coded(env, async move {
            let result = session.app_request(request, params, &cancel).await?;
            Ok(result.to_string())
        })
    }
}
