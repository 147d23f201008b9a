//! Node-API glue for the engine's `mcp::oauth`: one native OAuth client per
//! `createMcpClientAuth`. Options, the host's stored state and the flow's effects cross as
//! JSON text; the facade (`lib/mcp/oauth.js`) calls the host's state callbacks with them.

use std::sync::Arc;

use napi::bindgen_prelude::PromiseRaw;
use napi::Env;
use napi_derive::napi;
use prism_engine::mcp::oauth::flow::OAuthClient;
use prism_engine::mcp::oauth::host_state::{check_state_functions, redirected};
use prism_engine::mcp::oauth::input::{effects_json, read_config, read_request, read_stored};
use prism_engine::mcp::oauth::step_up::{
    next_step, reauthorize, ChallengeMemory, ChallengeStep, Reauthorize,
};
use prism_engine::mcp::McpError;
use serde_json::json;

use crate::errors::{spawn_coded, to_js, NativeError};

/// The engine's OAuth client for one MCP server.
#[napi]
pub struct NativeMcpOAuth {
    client: Arc<OAuthClient>,
}

#[napi]
impl NativeMcpOAuth {
    /// Reads and checks the options (JSON: `serverUrl`, `allowLoopbackHttp`, `strategy`,
    /// `scopes`, `redirectUri`, `limits`) and the names of the host state's members that are
    /// functions; throws the coded OAuth error for a bad one.
    #[napi(constructor)]
    pub fn new(env: Env, options_json: String, state_functions: Vec<String>) -> napi::Result<Self> {
        check_state_functions(&state_functions).map_err(|e| to_js(&env, e))?;
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

    /// Throws the error of a request whose authorization needs the user (the flow ended in
    /// a redirect): the facade raises it after `onRedirectRequired`.
    #[napi]
    pub fn fail_redirected(&self, env: Env) -> napi::Result<()> {
        Err(to_js(&env, redirected()))
    }

    /// Forgets the cached discovery (after the host cleared its state).
    #[napi]
    pub fn forget_discovery(&self) {
        self.client.forget_discovery();
    }
}

/// What one request of a JS SDK transport remembers of the server's refusals
/// (`oauth::step_up`), for the facade's OAuth fetch.
#[napi]
pub struct NativeMcpChallengeMemory {
    memory: ChallengeMemory,
}

#[napi]
impl NativeMcpChallengeMemory {
    /// A request that met no refusal yet.
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self {
            memory: ChallengeMemory::default(),
        }
    }

    /// The step for a response with `status` and its `WWW-Authenticate` value, to a request
    /// sent with the access token `sent` while the host's token is now `current`, as JSON:
    /// `{ "step": "pass" }`, `{ "step": "resend" }` (another request replaced the token: send
    /// again with `current`, no second flow), `{ "step": "authorize", "scope"?,
    /// "resourceMetadataUrl"? }` or `{ "step": "refused", "code", "message" }` (the request's
    /// error).
    #[napi]
    pub fn step(
        &mut self,
        status: u32,
        header: Option<String>,
        sent: Option<String>,
        current: Option<String>,
    ) -> String {
        let status = u16::try_from(status).unwrap_or(0);
        let step = match next_step(&mut self.memory, status, header.as_deref()) {
            ChallengeStep::Pass => json!({ "step": "pass" }),
            ChallengeStep::Authorize(_)
                if reauthorize(sent.as_deref(), current.as_deref()) == Reauthorize::SendAgain =>
            {
                json!({ "step": "resend" })
            }
            ChallengeStep::Authorize(c) => json!({
                "step": "authorize",
                "scope": c.scope,
                "resourceMetadataUrl": c.resource_metadata,
            }),
            ChallengeStep::Refused(message) => {
                let e = McpError::Transport {
                    message: message.to_owned(),
                };
                json!({ "step": "refused", "code": e.code(), "message": e.to_string() })
            }
        };
        step.to_string()
    }
}
