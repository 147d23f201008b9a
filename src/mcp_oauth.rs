//! Node-API glue for the engine's `mcp::oauth`: one native OAuth client per
//! `createMcpClientAuth`. Options, the host's stored state and the flow's effects cross as
//! JSON text; the facade (`lib/mcp/oauth.js`) calls the host's state callbacks with them.

use std::sync::Arc;

use napi::bindgen_prelude::PromiseRaw;
use napi::Env;
use napi_derive::napi;
use prism_engine::mcp::oauth::flow::OAuthClient;
use prism_engine::mcp::oauth::input::{effects_json, read_config, read_request, read_stored};

use crate::errors::{spawn_coded, to_js, NativeError};

/// The engine's OAuth client for one MCP server.
#[napi]
pub struct NativeMcpOAuth {
    client: Arc<OAuthClient>,
}

#[napi]
impl NativeMcpOAuth {
    /// Reads and checks the options (JSON: `serverUrl`, `allowLoopbackHttp`, `strategy`,
    /// `scopes`, `redirectUri`, `limits`); throws the coded OAuth error for a bad one.
    #[napi(constructor)]
    pub fn new(env: Env, options_json: String) -> napi::Result<Self> {
        let config = read_config(&options_json).map_err(|e| to_js(&env, e))?;
        Ok(Self {
            client: Arc::new(OAuthClient::new(config)),
        })
    }

    /// Runs the flow once over the stored state (JSON) for a request (JSON); resolves with the
    /// effects as JSON text.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn authorize<'env>(
        &self,
        env: &'env Env,
        stored_json: String,
        request_json: String,
    ) -> napi::Result<PromiseRaw<'env, String>> {
        let client = Arc::clone(&self.client);
        spawn_coded(env, async move {
            let stored = read_stored(&stored_json, &client.config().limits)?;
            let request = read_request(&request_json)?;
            let fx = client.authorize(&stored, &request).await?;
            Ok::<_, NativeError>(effects_json(&fx).to_string())
        })
    }

    /// Revokes the stored tokens at the discovered revocation endpoint, if there is one.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn revoke<'env>(
        &self,
        env: &'env Env,
        stored_json: String,
    ) -> napi::Result<PromiseRaw<'env, ()>> {
        let client = Arc::clone(&self.client);
        spawn_coded(env, async move {
            let stored = read_stored(&stored_json, &client.config().limits)?;
            client.revoke(&stored).await?;
            Ok::<_, NativeError>(())
        })
    }

    /// Forgets the cached discovery (after the host cleared its state).
    #[napi]
    pub fn forget_discovery(&self) {
        self.client.forget_discovery();
    }
}
