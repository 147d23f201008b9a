//! Node-API glue for the engine's `mcp::sdk_fetch`: the `fetch` the facade hands a JS SDK
//! transport. JavaScript numbers each request (`key`); `send` resolves with the response's
//! head as JSON (`{ status, headers }`), `read` with its body chunk by chunk (`null` at the end),
//! and `cancel` ends a request or its body early (an aborted signal, a cancelled stream).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use napi::bindgen_prelude::{Buffer, Function, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use prism_engine::mcp::host_requests::HostCallbacks;
use prism_engine::mcp::sdk_fetch::{FetchBody, FetchRequest, SdkFetch};
use prism_engine::mcp::session::TransportConfig;
use prism_engine::mcp::McpError;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::errors::{spawn_coded, NativeError};
use crate::mcp::{transport_of, McpNativeOptions};
use crate::mcp_server_requests::JsHost;

/// A request in flight: how to end it, and its body once the head came.
struct Entry {
    cancel: CancellationToken,
    body: Option<Arc<tokio::sync::Mutex<FetchBody>>>,
}

type Entries = Arc<Mutex<HashMap<u32, Entry>>>;

/// The engine's fetch for one Streamable HTTP transport configuration.
#[napi]
pub struct NativeMcpFetch {
    fetch: Arc<SdkFetch>,
    entries: Entries,
    /// The host's callbacks (its `resolveHostname`), if it gave any.
    host: Option<Arc<JsHost>>,
}

fn lock(entries: &Entries) -> std::sync::MutexGuard<'_, HashMap<u32, Entry>> {
    entries.lock().unwrap_or_else(PoisonError::into_inner)
}

fn aborted() -> McpError {
    McpError::Transport {
        message: "the request was aborted".into(),
    }
}

#[napi]
impl NativeMcpFetch {
    /// The fetch for the flattened transport options (as `connectMcpTools` reads them);
    /// throws the coded error for a transport that is not a valid Streamable HTTP one.
    /// `onHostRequest([key, kind, paramsJson])`, when given, is asked for the endpoint's
    /// addresses (kind `resolveHostname`, the host's `transport.resolveHostname`), answered with
    /// `answerHostRequest`.
    #[napi(
        constructor,
        ts_args_type = "options: McpNativeOptions, onHostRequest?: (request: [number, string, string]) => void"
    )]
    pub fn new(
        env: Env,
        options: napi::Unknown<'_>,
        on_host_request: Option<Function<(u32, String, String), ()>>,
    ) -> napi::Result<Self> {
        let options = McpNativeOptions::read(&env, &options, "createMcpTransport")?;
        let cfg = match transport_of(options).map_err(|e| e.into_js(&env))? {
            TransportConfig::Http(cfg) => cfg,
            TransportConfig::Stdio(_) => {
                return Err(NativeError::from(McpError::InvalidTransport {
                    message: "the SDK fetch is for a streamable-http transport".into(),
                })
                .into_js(&env))
            }
        };
        let host = match &on_host_request {
            Some(f) => Some(Arc::new(JsHost::new(f)?)),
            None => None,
        };
        let resolver = host.clone().map(|h| h as Arc<dyn HostCallbacks>);
        let fetch = SdkFetch::new(cfg, resolver).map_err(|e| NativeError::from(e).into_js(&env))?;
        Ok(Self {
            fetch: Arc::new(fetch),
            entries: Arc::new(Mutex::new(HashMap::new())),
            host,
        })
    }

    /// The host's answer to request `key` (from `onHostRequest`): its JSON text, the fault that
    /// kept it from being JSON, or the message of what it threw.
    #[napi]
    pub fn answer_host_request(
        &self,
        key: u32,
        json: Option<String>,
        fault: Option<String>,
        error: Option<String>,
    ) {
        crate::mcp_server_requests::answer_host(self.host.as_deref(), key, json, fault, error);
    }

    /// Sends request `key` (`headers` as `[name, value]` pairs); resolves with
    /// `{ status, headers }` as JSON text, the body then read with `read(key)`.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn send<'env>(
        &self,
        env: &'env Env,
        key: u32,
        method: String,
        url: String,
        headers: Vec<Vec<String>>,
        body: Option<Buffer>,
    ) -> napi::Result<PromiseRaw<'env, String>> {
        let cancel = CancellationToken::new();
        lock(&self.entries).insert(
            key,
            Entry {
                cancel: cancel.clone(),
                body: None,
            },
        );
        let request = FetchRequest {
            method,
            url,
            headers: headers
                .into_iter()
                .filter_map(|pair| match <[String; 2]>::try_from(pair) {
                    Ok([name, value]) => Some((name, value)),
                    Err(_) => None,
                })
                .collect(),
            body: body.map(|b| b.to_vec()),
        };
        let fetch = Arc::clone(&self.fetch);
        let entries = Arc::clone(&self.entries);
        spawn_coded(env, async move {
            let sent = tokio::select! {
                r = fetch.send(request) => r,
                () = cancel.cancelled() => Err(aborted()),
            };
            let (head, body) = match sent {
                Ok(sent) => sent,
                Err(e) => {
                    lock(&entries).remove(&key);
                    return Err(e.into());
                }
            };
            if let Some(entry) = lock(&entries).get_mut(&key) {
                entry.body = Some(Arc::new(tokio::sync::Mutex::new(body)));
            }
            let headers: Vec<[String; 2]> = head.headers.into_iter().map(|(n, v)| [n, v]).collect();
            Ok::<_, NativeError>(json!({ "status": head.status, "headers": headers }).to_string())
        })
    }

    /// The next chunk of request `key`'s body; `null` at its end (or for a request that is
    /// no longer open).
    #[napi(ts_return_type = "Promise<Buffer | null>")]
    pub fn read<'env>(
        &self,
        env: &'env Env,
        key: u32,
    ) -> napi::Result<PromiseRaw<'env, Option<Buffer>>> {
        let (body, cancel) = match lock(&self.entries).get(&key) {
            Some(entry) => (entry.body.clone(), entry.cancel.clone()),
            None => (None, CancellationToken::new()),
        };
        let entries = Arc::clone(&self.entries);
        spawn_coded(env, async move {
            let Some(body) = body else {
                return Ok(None);
            };
            let mut body = body.lock().await;
            let next = tokio::select! {
                r = body.next() => r,
                () = cancel.cancelled() => Err(aborted()),
            };
            match next {
                Ok(Some(chunk)) => Ok(Some(Buffer::from(chunk.to_vec()))),
                Ok(None) => {
                    lock(&entries).remove(&key);
                    Ok(None)
                }
                Err(e) => {
                    lock(&entries).remove(&key);
                    Err(NativeError::from(e))
                }
            }
        })
    }

    /// Ends request `key` (its send or its body) and forgets it.
    #[napi]
    pub fn cancel(&self, key: u32) {
        if let Some(entry) = lock(&self.entries).remove(&key) {
            entry.cancel.cancel();
        }
    }
}
