//! Node-API glue for the engine's `mcp` module: one native bridge object per server.
//!
//! Engine errors cross as JavaScript errors with the engine's `code` (see `errors.rs`);
//! `lib/native-errors.js` turns them into the reference's classes. Arguments cross as JSON text and results come back
//! as JSON text (one parse in JS), so a call crosses the boundary once each way.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt;
use napi::bindgen_prelude::{Function, PromiseRaw, Unknown};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi::Env;
use napi_derive::napi;
use prism_engine::limits as l;
use prism_engine::mcp::arguments::ArgumentsJson;
use prism_engine::mcp::call_result::{failed_result, panicked_result, OwnedCallIdentity};
use prism_engine::mcp::content::{map_content, summarize_content};
use prism_engine::mcp::http::{validate_url, HttpConfig};
use prism_engine::mcp::negotiation::Revision;
use prism_engine::mcp::session::{DirectCall, ListChangedHook, McpSession, TransportConfig};
use prism_engine::mcp::stdio::{kill_all_server_groups, StdioConfig};
use prism_engine::mcp::{assert_valid_server_id, McpError, McpLimits, McpLimitsInput};
use serde_json::Value;
use std::panic::AssertUnwindSafe;

use crate::errors::{facade_bug, spawn_coded, to_js, NativeError};
use crate::mcp_server_requests::JsHost;
use prism_engine::mcp::capability::ListKind;
use prism_engine::mcp::host_requests::{ClientSide, HostCallbacks, HostRequest};
use prism_engine::mcp::session_capabilities::CapabilityRequest;
use tokio_util::sync::CancellationToken;

/// One call's key and strings: `(call_key, remote_name, arguments_json, tool_call_id, name)`.
pub(crate) type CallStrings = (u32, String, String, String, String);

/// The bridge options after the JS facade flattened them (every limit a plain number). Read
/// field by field ([`McpNativeOptions::read`]), so a wrong-typed host value is a `TypeError`
/// naming its field; the `#[napi(object)]` declaration gives the crossing its TypeScript type.
#[napi(object)]
pub struct McpNativeOptions {
    /// The server id (checked by the engine: `/^[A-Za-z0-9][A-Za-z0-9._-]*$/`).
    pub server_id: String,
    /// `"stdio"` or `"streamable-http"`.
    pub transport_type: String,
    /// stdio: the program to start.
    pub command: Option<String>,
    /// stdio: its arguments.
    pub args: Option<Vec<String>>,
    /// stdio: its environment (absent: the engine's default environment).
    pub env: Option<HashMap<String, String>>,
    /// stdio: its working directory.
    pub cwd: Option<String>,
    /// `"inherit"` (default), `"pipe"`, `"overlapped"` (same as pipe) or `"ignore"`.
    pub stderr: Option<String>,
    /// Streamable HTTP: the endpoint.
    pub url: Option<String>,
    /// Streamable HTTP: the origins the endpoint may be on.
    pub allowed_origins: Option<Vec<String>>,
    /// Streamable HTTP: allow plaintext `http` and loopback addresses.
    pub allow_loopback_http: Option<bool>,
    /// `[name, value]` pairs from `requestInit.headers`.
    pub headers: Option<Vec<Vec<String>>>,
    /// Every limit the host set (the bridge's and the HTTP transport's `maxResponseBytes`), by
    /// option name (`prism_engine::option_sets`); a value that is not a number is `NaN`.
    pub limits: Option<HashMap<String, f64>>,
    /// `protocolVersion`: the one MCP revision to speak (absent: negotiate, `server/discover`
    /// first, then `initialize`).
    pub protocol_version: Option<String>,
    /// What the host answers for the server (`"roots"`, `"sampling"`, `"elicitation"`):
    /// declared in `initialize` and answered through `onServerRequest`; `"resourceUpdated"`:
    /// `notifications/resources/updated` go there too; `"authorize"`: the host's OAuth client
    /// gives the HTTP requests' access token (`transport.auth`), asked through the same callback;
    /// `"resolveHostname"`: the host resolves the server's host name (`transport.resolveHostname`).
    pub capabilities: Option<Vec<String>>,
    /// `mcpApps`: declare the MCP Apps extension (`io.modelcontextprotocol/ui`) in
    /// `initialize`, and keep each listed tool's `_meta` for the app judgement.
    pub mcp_apps: Option<bool>,
}

impl McpNativeOptions {
    /// Reads the options field by field; `what` names the entry point in a `TypeError`.
    ///
    /// # Errors
    /// A `TypeError` naming the first wrong-typed or missing field, or the host's own exception.
    pub(crate) fn read(env: &Env, value: &Unknown<'_>, what: &'static str) -> napi::Result<Self> {
        let f = crate::fields::Fields::of(env, value, what)?;
        Ok(Self {
            server_id: f.required_string("serverId")?,
            transport_type: f.required_string("transportType")?,
            command: f.string("command")?,
            args: f.strings("args")?,
            env: f.string_map("env")?,
            cwd: f.string("cwd")?,
            stderr: f.string("stderr")?,
            url: f.string("url")?,
            allowed_origins: f.strings("allowedOrigins")?,
            allow_loopback_http: f.boolean("allowLoopbackHttp")?,
            headers: f.string_lists("headers")?,
            limits: f.number_map("limits")?,
            protocol_version: f.string("protocolVersion")?,
            capabilities: f.strings("capabilities")?,
            mcp_apps: f.boolean("mcpApps")?,
        })
    }
}

impl McpNativeOptions {
    /// The value the host set for the limit `name`, if any.
    fn limit(&self, name: &str) -> Option<f64> {
        self.limits.as_ref().and_then(|set| set.get(name)).copied()
    }
}

/// The client's side of the session: the selected capabilities, answered by `host`, within
/// `maxCapabilityBytes` (from the limits).
fn client_side_of(o: &McpNativeOptions, host: Option<Arc<JsHost>>) -> Result<ClientSide, McpError> {
    let max_bytes =
        l::MCP_MAX_CAPABILITY_BYTES.resolve(o.limit(l::MCP_MAX_CAPABILITY_BYTES.name))?;
    let selected = |name: &str| {
        host.is_some()
            && o.capabilities
                .as_ref()
                .is_some_and(|c| c.iter().any(|s| s == name))
    };
    Ok(ClientSide {
        roots: selected(HostRequest::Roots.name()),
        sampling: selected(HostRequest::Sampling.name()),
        elicitation: selected(HostRequest::Elicitation.name()),
        resource_updates: selected(crate::mcp_server_requests::RESOURCE_UPDATED),
        oauth: selected(crate::mcp_server_requests::AUTHORIZE),
        resolve_hostname: selected(crate::mcp_server_requests::RESOLVE_HOSTNAME),
        apps: o.mcp_apps.unwrap_or(false),
        max_bytes,
        host: host.map(|h| h as Arc<dyn HostCallbacks>),
    })
}

fn limits_of(o: &McpNativeOptions) -> Result<McpLimits, McpError> {
    Ok(McpLimits::resolve(&McpLimitsInput::from_named(|name| {
        o.limit(name)
    }))?)
}

pub(crate) fn transport_of(o: McpNativeOptions) -> Result<TransportConfig, NativeError> {
    match o.transport_type.as_str() {
        "stdio" => Ok(TransportConfig::Stdio(StdioConfig::from_options(
            o.command,
            o.args.unwrap_or_default(),
            o.env.unwrap_or_default(),
            o.cwd,
            o.stderr.as_deref(),
        )?)),
        "streamable-http" => {
            let max_response_bytes = l::MCP_MAX_RESPONSE_BYTES
                .resolve(o.limit(l::MCP_MAX_RESPONSE_BYTES.name))
                .map_err(McpError::from)?;
            let mut headers = Vec::new();
            for pair in o.headers.unwrap_or_default() {
                if let [name, value] = pair.as_slice() {
                    headers.push((name.clone(), value.clone()));
                }
            }
            let cfg = HttpConfig {
                url: o.url.unwrap_or_default(),
                allowed_origins: o.allowed_origins.unwrap_or_default(),
                allow_loopback_http: o.allow_loopback_http.unwrap_or(false),
                max_response_bytes,
                headers,
            };
            validate_url(&cfg)?;
            Ok(TransportConfig::Http(cfg))
        }
        other => Err(TransportConfig::unsupported(other).into()),
    }
}

/// Delivers `(callKey, resultJson)` of a finished call to JavaScript (from any thread).
type CallDone = Arc<dyn Fn(u32, String) + Send + Sync>;

/// How a call still running is aborted.
enum PendingCall {
    /// A call on its own task (Streamable HTTP): cancel its token.
    Task(CancellationToken),
    /// A stdio call the session wrote directly: abort it by number.
    Direct(i64),
}

/// The calls still running, by call key.
type PendingCalls = Arc<Mutex<HashMap<u32, PendingCall>>>;

/// One MCP server connection. Construct (validates synchronously), then `connect()`.
#[napi]
pub struct NativeMcpBridge {
    server_id: String,
    transport: TransportConfig,
    limits: McpLimits,
    /// How the session settles on its protocol revision.
    revision: Revision,
    /// Holds a threadsafe function, which keeps the JS callback alive until it is dropped
    /// (`close()` drops it). The facade's callbacks reach the bridge only weakly, so that a
    /// bridge its host dropped without `close()` is collected: its drop closes the session.
    on_list_changed: Mutex<Option<ListChangedHook>>,
    /// Hands each finished call's `(callKey, resultJson)` to the JS thread.
    on_call_done: CallDone,
    connect_cancel: CancellationToken,
    session: Arc<tokio::sync::OnceCell<Arc<McpSession>>>,
    calls: PendingCalls,
    pid: Arc<AtomicI32>,
    /// The client's side of the session (taken by `close()`, which lets go of the host's
    /// callback).
    client: Mutex<Option<ClientSide>>,
    /// The host's callbacks for the server's own requests, if it gave any.
    host: Option<Arc<JsHost>>,
}

#[napi]
impl NativeMcpBridge {
    /// Validates the server id, every limit and the transport; `on_list_changed` is called
    /// (without keeping the process alive) when the server's tool list changes.
    ///
    /// `on_call_done([callKeys, resultsJson])` receives the outcomes of `call_tool`, every
    /// result that finished since its last call at once (`resultsJson[i]` is the result of
    /// `callKeys[i]`): one threadsafe function serves every call of the bridge, not a promise
    /// and a threadsafe function made and torn down per call. It does not keep the process
    /// alive either: the facade does that while calls are pending.
    #[napi(
        constructor,
        ts_args_type = "options: McpNativeOptions, onListChanged: () => void, onCallDone: (done: [callKeys: number[], resultsJson: string[]]) => void, onServerRequest?: (request: [key: number, kind: string, paramsJson: string]) => void"
    )]
    pub fn new(
        env: Env,
        options: Unknown<'_>,
        on_list_changed: Function<(), ()>,
        on_call_done: Function<(Vec<u32>, Vec<String>), ()>,
        on_server_request: Option<Function<(u32, String, String), ()>>,
    ) -> napi::Result<Self> {
        let options = McpNativeOptions::read(&env, &options, "connectMcpTools")?;
        assert_valid_server_id(&options.server_id).map_err(|e| to_js(&env, e))?;
        let limits = limits_of(&options).map_err(|e| to_js(&env, e))?;
        let host = match &on_server_request {
            Some(f) => Some(Arc::new(JsHost::new(f)?)),
            None => None,
        };
        let client = client_side_of(&options, host.clone()).map_err(|e| to_js(&env, e))?;
        let revision = Revision::from_option(options.protocol_version.as_deref())
            .map_err(|e| to_js(&env, e))?;
        let server_id = options.server_id.clone();
        let transport = transport_of(options).map_err(|e| to_js(&env, e))?;
        let tsfn = on_list_changed
            .build_threadsafe_function::<()>()
            .weak::<true>()
            .callee_handled::<false>()
            .build()?;
        let on_list_changed: ListChangedHook = Arc::new(move || {
            tsfn.call((), ThreadsafeFunctionCallMode::NonBlocking);
        });
        // Results wait in `finished` until the JS thread drains them all in one callback: the
        // threadsafe function is called only by the result that finds the queue empty, so
        // results that finish together cost one wake-up and one JS call between them.
        let finished: Arc<Mutex<Vec<(u32, String)>>> = Arc::new(Mutex::new(Vec::new()));
        let drain = Arc::clone(&finished);
        let done = on_call_done
            .build_threadsafe_function::<()>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(move |_ctx| {
                let batch =
                    std::mem::take(&mut *drain.lock().unwrap_or_else(PoisonError::into_inner));
                let (keys, results): (Vec<u32>, Vec<String>) = batch.into_iter().unzip();
                Ok((keys, results))
            })?;
        let on_call_done: CallDone = Arc::new(move |key, json| {
            let first = {
                let mut queue = finished.lock().unwrap_or_else(PoisonError::into_inner);
                queue.push((key, json));
                queue.len() == 1
            };
            if first {
                done.call((), ThreadsafeFunctionCallMode::NonBlocking);
            }
        });
        Ok(Self {
            server_id,
            transport,
            limits,
            revision,
            on_list_changed: Mutex::new(Some(on_list_changed)),
            on_call_done,
            connect_cancel: CancellationToken::new(),
            session: Arc::new(tokio::sync::OnceCell::new()),
            calls: Arc::new(Mutex::new(HashMap::new())),
            pid: Arc::new(AtomicI32::new(0)),
            client: Mutex::new(Some(client)),
            host,
        })
    }

    /// Starts the transport and runs the handshake.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn connect<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, ()>> {
        let transport = self.transport.clone();
        let limits = self.limits;
        let revision = self.revision.clone();
        // A closed bridge has dropped its callback (so it can be collected): nothing to connect.
        let on_list_changed = self
            .on_list_changed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| to_js(env, McpError::Closed))?;
        let client = self
            .client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| to_js(env, McpError::Closed))?;
        let cancel = self.connect_cancel.clone();
        let pid = Arc::clone(&self.pid);
        let cell = Arc::clone(&self.session);
        spawn_coded(env, async move {
            let session = McpSession::connect(
                &transport,
                limits,
                &revision,
                on_list_changed,
                client,
                cancel.clone(),
            )
            .await?;
            pid.store(session.server_pid().await.unwrap_or(0), Ordering::Release);
            let session = Arc::new(session);
            if cancel.is_cancelled() {
                session.close().await;
                return Err(McpError::Closed.into());
            }
            cell.set(session).map_err(|_| McpError::Closed.into())
        })
    }

    /// The connected session, or [`McpError::Closed`] before connect and after close.
    pub(crate) fn session(&self) -> Result<Arc<McpSession>, NativeError> {
        self.session
            .get()
            .cloned()
            .ok_or_else(|| McpError::Closed.into())
    }

    /// Every tool as JSON text `[{name, description?, inputSchema?}]`, within every bound.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn list_tools<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, String>> {
        let session = self.session().map_err(|e| e.into_js(env))?;
        let cancel = self.connect_cancel.clone();
        spawn_coded(env, async move {
            let tools = session.list_tools(&cancel).await?;
            let list: Vec<Value> = tools.iter().map(|t| t.to_json()).collect();
            Ok(Value::Array(list).to_string())
        })
    }

    /// Starts a remote tool call; its `ToolResult` (failures included) reaches `onCallDone` as
    /// JSON text with `call_key`. The call's cancel handle is registered before this returns,
    /// so `cancel_call(call_key)` right after (an `AbortSignal` firing) is never lost.
    #[napi]
    pub fn call_tool(
        &self,
        env: &Env,
        call_key: u32,
        remote_name: String,
        arguments_json: String,
        tool_call_id: String,
        name: String,
    ) -> napi::Result<()> {
        let session = self.session().map_err(|e| e.into_js(env))?;
        let call = (call_key, remote_name, arguments_json, tool_call_id, name);
        self.start_call(&session, call, None);
        Ok(())
    }

    /// Starts one remote tool call on the connected `session` (see [`Self::call_tool`]):
    /// `(call_key, remote_name, arguments_json, tool_call_id, name)`. With `batch`, a call the
    /// session writes itself is added there instead, for the caller to start with the others
    /// in one write ([`McpSession::start_call_results`]).
    pub(crate) fn start_call(
        &self,
        session: &Arc<McpSession>,
        (call_key, remote_name, arguments_json, tool_call_id, name): CallStrings,
        batch: Option<&mut Vec<DirectCall>>,
    ) {
        let session = Arc::clone(session);
        let id = OwnedCallIdentity {
            tool_call_id,
            name,
            server_id: self.server_id.clone(),
            remote_name,
        };
        let calls = Arc::clone(&self.calls);
        let done = Arc::clone(&self.on_call_done);
        let finish = move |result: Value| {
            calls
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&call_key);
            // Straight into bytes: `to_string` would go through `fmt` a token at a time.
            done(call_key, serde_json::to_string(&result).unwrap_or_default());
        };
        if session.writes_directly() && !session.calls_as_task(&id.remote_name) {
            // No task: the call is written now and settled by the session's reader, timer,
            // an abort or a close. Recorded before it starts, so its end finds the record.
            let n = session.next_call_number();
            self.record(call_key, PendingCall::Direct(n));
            match (ArgumentsJson::parse(arguments_json), batch) {
                (Ok(arguments), Some(batch)) => batch.push(DirectCall {
                    n,
                    id,
                    arguments,
                    done: Box::new(finish),
                }),
                (Ok(arguments), None) => session.start_call_result(n, id, &arguments, finish),
                (Err(e), _) => finish(failed_result(id.borrow(), &e, session.limits())),
            }
            return;
        }
        let token = CancellationToken::new();
        self.record(call_key, PendingCall::Task(token.clone()));
        let timeout_ms = self.limits.call_timeout_ms;
        napi::bindgen_prelude::spawn(async move {
            let id = id.borrow();
            let call = async {
                match ArgumentsJson::parse(arguments_json) {
                    Ok(arguments) => {
                        session
                            .call_tool_result(id, &arguments, timeout_ms, &token)
                            .await
                    }
                    Err(e) => failed_result(id, &e, session.limits()),
                }
            };
            // A panic must still settle the call (its caller would wait forever).
            let result = AssertUnwindSafe(call)
                .catch_unwind()
                .await
                .unwrap_or_else(|_| panicked_result(id, session.limits()));
            finish(result);
        });
    }

    fn record(&self, call_key: u32, call: PendingCall) {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(call_key, call);
    }

    /// Aborts the call started with `call_key` (no-op if it already ended).
    #[napi]
    pub fn cancel_call(&self, call_key: u32) {
        let pending = self
            .calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&call_key);
        match pending {
            Some(PendingCall::Task(token)) => token.cancel(),
            Some(PendingCall::Direct(n)) => {
                if let Ok(session) = self.session() {
                    session.abort_call(n);
                }
            }
            None => {}
        }
    }

    /// Ends the session and the server's process tree (idempotent; also aborts a connect).
    #[napi]
    pub async fn close(&self) -> napi::Result<()> {
        self.connect_cancel.cancel();
        // The session's handler holds the other clones of the hook; closing drops them.
        let hook = self
            .on_list_changed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(hook);
        let client = self
            .client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(client);
        if let Some(session) = self.session.get() {
            session.close().await;
        }
        Ok(())
    }

    /// The stdio server's process id (= its process group id), 0 for HTTP or before connect.
    #[napi(getter)]
    pub fn server_pid(&self) -> i32 {
        self.pid.load(Ordering::Acquire)
    }

    /// The host's answer to server request `key` (from `onServerRequest`): its JSON text, the
    /// fault that kept it from being JSON, or the message of what its callback threw.
    #[napi]
    pub fn answer_server_request(
        &self,
        key: u32,
        json: Option<String>,
        fault: Option<String>,
        error: Option<String>,
    ) {
        crate::mcp_server_requests::answer_host(self.host.as_deref(), key, json, fault, error);
    }

    /// The server's capabilities from the handshake, JSON text of an object (`{}` before
    /// connect).
    #[napi(getter)]
    pub fn server_capabilities(&self) -> String {
        self.session
            .get()
            .and_then(|s| s.server_capabilities().ok())
            .map_or_else(|| "{}".to_owned(), |c| c.to_string())
    }

    /// The server's `serverInfo` from the handshake, JSON text (`undefined` without one).
    #[napi(getter)]
    pub fn server_version(&self) -> Option<String> {
        self.session
            .get()
            .and_then(|s| s.server_version().map(|v| v.to_string()))
    }

    /// Every item of a `kind` listing (`"resources"`, `"resourceTemplates"`, `"prompts"`),
    /// JSON text of an array, within `maxCapabilityBytes` and the listing guards.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn list_capability<'env>(
        &self,
        env: &'env Env,
        kind: String,
    ) -> napi::Result<PromiseRaw<'env, String>> {
        let kind = ListKind::from_name(&kind)
            .ok_or_else(|| facade_bug(env, format!("unknown capability listing {kind}")))?;
        let session = self.session().map_err(|e| e.into_js(env))?;
        let max_bytes = self.capability_bytes();
        let cancel = self.connect_cancel.clone();
        spawn_coded(env, async move {
            let items = session.list_capability(kind, max_bytes, &cancel).await?;
            Ok(Value::Array(items).to_string())
        })
    }

    /// One capability request (`resources/read`, `prompts/get`, `resources/subscribe`,
    /// `resources/unsubscribe`) with `params` (JSON text of an
    /// object); its result as JSON text, within `maxCapabilityBytes`.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn capability_request<'env>(
        &self,
        env: &'env Env,
        method: String,
        params_json: String,
    ) -> napi::Result<PromiseRaw<'env, String>> {
        let request = CapabilityRequest::from_method(&method)
            .ok_or_else(|| facade_bug(env, format!("unknown capability request {method}")))?;
        let params: Value = serde_json::from_str(&params_json)
            .map_err(|e| facade_bug(env, format!("capability params: {e}")))?;
        let session = self.session().map_err(|e| e.into_js(env))?;
        let max_bytes = self.capability_bytes();
        let cancel = self.connect_cancel.clone();
        spawn_coded(env, async move {
            let result = session
                .capability_request(request, params, max_bytes, &cancel)
                .await?;
            Ok(result.to_string())
        })
    }

    /// The token that aborts the bridge's requests when it closes.
    pub(crate) fn close_signal(&self) -> CancellationToken {
        self.connect_cancel.clone()
    }

    fn capability_bytes(&self) -> u64 {
        self.client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map_or(l::MCP_MAX_CAPABILITY_BYTES.default, |c| c.max_bytes)
    }

    /// The MCP protocol revision negotiated with the server; empty before connect.
    #[napi(getter)]
    pub fn protocol_version(&self) -> String {
        self.session
            .get()
            .map(|s| s.revision().to_owned())
            .unwrap_or_default()
    }
}

/// The JS object was collected without `close()`: a connect still running is aborted, and
/// dropping the session (here, or when the last task using it ends) closes it like `close()`.
impl Drop for NativeMcpBridge {
    fn drop(&mut self) {
        self.connect_cancel.cancel();
    }
}

/// `mapMcpContentToBlocks` over JSON text: `{content, truncated, bytesUsed}` as JSON text.
/// `max_result_bytes` is checked like the bridge's `maxResultBytes` option (any non-number is
/// invalid), so a bad value gets the limit's error.
#[napi(ts_args_type = "contentJson: string, maxResultBytes: number")]
pub fn mcp_map_content(
    env: Env,
    content_json: String,
    max_result_bytes: Unknown<'_>,
) -> napi::Result<String> {
    let requested = crate::args::as_number(&max_result_bytes)?.unwrap_or(f64::NAN);
    let max = l::MCP_MAX_RESULT_BYTES
        .resolve(Some(requested))
        .map_err(|e| to_js(&env, McpError::from(e)))?;
    let content: Vec<Value> = serde_json::from_str(&content_json).unwrap_or_default();
    let m = map_content(&content, max);
    // A JSON value always has its text.
    Ok(serde_json::json!({"content": m.content, "truncated": m.truncated, "bytesUsed": m.bytes_used}).to_string())
}

/// The longest prefix of `text` of at most `maxBytes` UTF-8 bytes, cut on a character
/// boundary (`maxBytes` as a number: `NaN` or negative keeps nothing); nothing when the whole
/// text fits, so the caller keeps its own string (a lone surrogate included).
#[napi]
pub fn mcp_truncate_utf8(text: String, max_bytes: f64) -> Option<String> {
    let kept = prism_engine::mcp::content::truncate_utf8_to(&text, max_bytes);
    (kept.len() < text.len()).then(|| kept.to_owned())
}

/// `summarizeMcpContent` over JSON text; a `TypeError` when `max_bytes` is not a number.
#[napi(ts_args_type = "contentJson: string, maxBytes: number")]
pub fn mcp_summarize_content(
    env: Env,
    content_json: String,
    max_bytes: Unknown<'_>,
) -> napi::Result<String> {
    let max_bytes = crate::args::number(&env, &max_bytes, "maxBytes")?;
    let content: Vec<Value> = serde_json::from_str(&content_json).unwrap_or_default();
    Ok(summarize_content(
        &content,
        crate::args::non_negative(max_bytes),
    ))
}

/// SIGKILLs the process group of every stdio server still running (host exit hook).
#[napi]
pub fn mcp_kill_all_servers() -> u32 {
    u32::try_from(kill_all_server_groups()).unwrap_or(u32::MAX)
}

/// `assertValidServerId`: throws unless `id` matches `/^[A-Za-z0-9][A-Za-z0-9._-]*$/`.
#[napi]
pub fn mcp_assert_valid_server_id(env: Env, id: String) -> napi::Result<()> {
    assert_valid_server_id(&id).map_err(|e| to_js(&env, e))
}
